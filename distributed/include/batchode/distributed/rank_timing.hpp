// distributed/: the timing of a job across its processes. Each process's TimeLogger times its own events;
// this gathers every event's total wall time from every process and gives, per event, the minimum,
// mean and maximum over processes and the imbalance (the slowest process over the mean: 1 when all
// took as long, 2 when one took twice the mean). A process that never ran an event counts 0 for it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "batchode/distributed/collective.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode::distributed {

struct RankTimingRow {
  std::string label;
  std::string category;
  std::vector<double> total_ms;  ///< by rank
  double min_ms = 0, mean_ms = 0, max_ms = 0;
  int slowest_rank = 0;
  double imbalance = 1;  ///< max / mean (1 when the mean is 0)
};

struct RankTimingSummary {
  int ranks = 0;
  std::vector<std::string> hosts;  ///< by rank
  std::vector<RankTimingRow> rows;  ///< events in the order of rank 0's registration

  /// The row of `label`, or nullptr.
  const RankTimingRow* find(const std::string& label) const;
  /// A table: event, category, min / mean / max ms, imbalance, slowest rank (and its host).
  std::string to_text() const;
  /// {"ranks": N, "hosts": [...], "events": [{"label", "category", "total_ms": [...], "min_ms",
  /// "mean_ms", "max_ms", "imbalance", "slowest_rank"}]}
  std::string to_json() const;
};

/// Every process's totals of the events in `logger` that ran on any process (collective).
RankTimingSummary summarise_ranks(Collective& c, const TimeLogger& logger, const std::string& host);

/// Builds the summary from every process's serialised totals (what summarise_ranks gathers; one
/// "label\tcategory\ttotal_ms" line per event). For tests and for front ends that gather themselves.
RankTimingSummary summarise_totals(const std::vector<std::string>& totals_by_rank, const std::vector<std::string>& hosts);

/// This process's serialised totals (events that ran at least once).
std::string serialise_totals(const TimeLogger& logger);

/// This machine's host name ("unknown" when the OS does not say).
std::string host_name();

}  // namespace batchode::distributed
