// timing/: what TimeLogger's queries return: a registered event, one finished occurrence of it, and
// the statistics of all its occurrences. Plain values, copied out of the logger.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "batchode/timing/metadata.hpp"

namespace batchode {

/// A registered event: its label, open-ended category ("runtime", "compile", "codegen"...) and
/// a one-line description.
struct EventInfo {
  std::string label;
  std::string category;
  std::string description;
};

/// One finished occurrence of an event.
struct Occurrence {
  std::size_t id = 0;  ///< unique since the last reset(); parents have smaller ids
  std::string label;
  std::string category;
  std::optional<std::size_t> parent;  ///< id of the enclosing occurrence: on the same thread, or the
                                      ///< event a CallContext carried to this thread
  std::size_t depth = 0;              ///< 0 for a top-level event
  std::size_t thread = 0;             ///< small per-logger thread number, 0 = first thread seen
  double start_ms = 0;                ///< since the logger was built (record_event: stop minus wall_ms)
  double wall_ms = 0;                 ///< host (steady_clock) duration
  std::optional<double> gpu_ms;       ///< device duration, when known (pending ones are polled)
  bool gpu_pending = false;           ///< a deferred GPU time that has not completed yet
  Metadata metadata;
};

/// Aggregate over every finished occurrence of one event since the last reset().
struct EventStats {
  std::string label;
  std::string category;
  std::size_t count = 0;
  double total_ms = 0;  ///< wall time
  double min_ms = 0;    ///< 0 when count == 0
  double max_ms = 0;
  double mean_ms = 0;
  std::size_t gpu_count = 0;      ///< occurrences whose GPU time is known
  double total_gpu_ms = 0;        ///< sum over those
  std::int64_t total_nbytes = 0;  ///< sum of the "nbytes" metadata
  /// total_nbytes / time of the occurrences carrying nbytes (their GPU time when all of them have
  /// one, else their wall time); 0 when no occurrence carries nbytes.
  double bytes_per_second = 0;
};

}  // namespace batchode
