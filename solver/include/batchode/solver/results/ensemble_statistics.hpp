// solver/results/: statistics across the runs of a batch at every save time (SolveOptions::statistics,
// planned by solver/setup/statistics_plan.hpp), over the variables the series keeps: how many runs have
// a value there (a failed run's unreached points are NaN and left out), mean and variance, exact min and
// max (streamed along the runs' rows, a block of runs at a time: sums about a shift, the column's mean so
// far, then blocks joined by Chan, Golub and LeVeque's formula), quantiles from a QuantileSketch
// (quantile_sketch.hpp) and histograms (of each column's values gathered). Accumulated over the runs in
// any grouping (slices of a solve, processes) with memory independent of their number; merge() joins two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "batchode/solver/results/quantile_sketch.hpp"
#include "batchode/solver/setup/statistics_plan.hpp"

namespace batchode {

class EnsembleStatistics {
 public:
  EnsembleStatistics() = default;
  /// Statistics of `variables` (their names) at `times` (n_saves), over at most `expected_runs` runs
  /// (what the quantile sketches are sized for: QuantileSketch::capacity_for).
  EnsembleStatistics(StatisticsPlan plan, std::vector<std::string> variables, std::vector<double> times,
                     std::uint64_t expected_runs);

  /// Adds `runs` runs: run r's value of variable v at save k is series[(r * n_saves + k) * width + v]
  /// for the first `width` variables and observables[(r * n_saves + k) * n_obs + v - width] for the
  /// others (a result's layouts: result.hpp). n_obs = variables - width (observables may be null when
  /// 0). NaN values are left out. Only the save times [first_save, end_save) are taken: callers on
  /// several threads each take their own (a save time's statistics are the same whoever takes it).
  template <class T>
  void add_runs(const T* series, std::size_t width, const T* observables, std::size_t runs,
                std::size_t first_save = 0, std::size_t end_save = static_cast<std::size_t>(-1));
  /// Adds every run `other` (the same plan, variables and times) holds.
  void merge(const EnsembleStatistics& other);

  const StatisticsPlan& plan() const noexcept { return plan_; }
  const std::vector<std::string>& variables() const noexcept { return variables_; }
  const std::vector<double>& times() const noexcept { return times_; }
  std::size_t n_saves() const noexcept { return times_.size(); }
  std::size_t n_variables() const noexcept { return variables_.size(); }
  bool empty() const noexcept { return plan_.empty(); }

  // Results, save-major: index k * n_variables() + v (then the quantile or bin).
  /// Runs with a value (not NaN) at each save time and variable.
  const std::vector<std::uint64_t>& count() const noexcept { return count_; }
  std::vector<double> mean() const { return mean_; }
  /// Population variance (numpy's var, ddof = 0); NaN with no value.
  std::vector<double> var() const;
  std::vector<double> std_dev() const;
  const std::vector<double>& min() const noexcept { return min_; }
  const std::vector<double>& max() const noexcept { return max_; }
  /// n_saves x n_variables x plan().quantiles.size().
  std::vector<double> quantiles() const;
  /// The largest rank error of any quantile returned, as a fraction of its save time's and variable's
  /// count: within plan().rank_error (0: every quantile an exact order statistic).
  double quantile_rank_error() const;
  /// n_saves x n_variables x bins: values in [edges[i], edges[i + 1]) (the last bin closed: numpy's
  /// histogram), and those below the first edge and above the last.
  const std::vector<std::uint64_t>& histogram() const noexcept { return histogram_; }
  /// n_saves x n_variables x (bins + 1); NaN while a save time and variable had no range.
  const std::vector<double>& histogram_edges() const noexcept { return edges_; }
  const std::vector<std::uint64_t>& histogram_below() const noexcept { return below_; }
  const std::vector<std::uint64_t>& histogram_above() const noexcept { return above_; }

 private:
  /// Joins `n` values of column c (save k, variable v) with this mean, sum of squared deviations
  /// about it, min and max to the column's.
  void join_moments(std::size_t c, std::uint64_t n, double mean, double m2, double low, double high);
  /// Adds `n` values of column c to its histogram and quantile sketch (NaN left out already).
  void add_column(std::size_t c, const double* values, std::size_t n);
  void set_edges(std::size_t c, double low, double high);

  StatisticsPlan plan_;
  std::vector<std::string> variables_;
  std::vector<double> times_;
  std::vector<std::uint64_t> count_;
  std::vector<double> mean_, m2_, min_, max_;
  std::vector<QuantileSketch> sketches_;
  std::vector<std::uint64_t> histogram_, below_, above_;
  std::vector<double> edges_;
};

extern template void EnsembleStatistics::add_runs<float>(const float*, std::size_t, const float*, std::size_t,
                                                        std::size_t, std::size_t);
extern template void EnsembleStatistics::add_runs<double>(const double*, std::size_t, const double*, std::size_t,
                                                         std::size_t, std::size_t);

}  // namespace batchode
