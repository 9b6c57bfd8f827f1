// solver/setup/: the ensemble statistics a solve asked for (SolveOptions::statistics), parsed and
// checked: which moments, the quantile levels, the histogram's bins and range. One plan serves the
// accumulator (solver/results/ensemble_statistics.hpp), the result's accessors and the writers.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "batchode/solver/setup/options.hpp"

namespace batchode {

/// SolveOptions::statistics resolved. Empty (no metric) when none were asked for.
struct StatisticsPlan {
  std::vector<std::string> metrics;  ///< the names as asked ("quantiles", "histogram" without brackets)
  bool count = false, mean = false, var = false, std_dev = false, min = false, max = false;
  std::vector<double> quantiles;     ///< levels in [0, 1], in the order asked
  std::size_t histogram_bins = 0;    ///< 0: no histogram
  /// The histogram's range; unset: that of the first slice's values at each save time and variable.
  std::optional<std::array<double, 2>> histogram_range;
  double rank_error = 1e-3;          ///< EnsembleStatisticsOptions::quantile_rank_error

  bool empty() const noexcept { return metrics.empty(); }
  /// Whether a running mean and variance are kept (mean, var or std).
  bool moments() const noexcept { return mean || var || std_dev; }
};

/// Parses and checks SolveOptions::statistics. Throws InvalidInput naming the entry, its value and
/// what is allowed: an unknown name, one listed twice, a quantile level outside [0, 1], a histogram
/// of no bins or more than 2^20, a range that is not low < high (both finite), a rank error outside
/// (0, 0.5). (validate() calls it.)
StatisticsPlan plan_statistics(const EnsembleStatisticsOptions& options);

/// The metric names plan_statistics takes (the bracketed ones as "quantiles[...]", "histogram[...]").
const std::vector<std::string>& statistics_names();

}  // namespace batchode
