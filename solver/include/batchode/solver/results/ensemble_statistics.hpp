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
#include <mutex>
#include <string>
#include <vector>

#include "batchode/arrays/series_moments_sink.hpp"
#include "batchode/kernels/outputs/series_moments.hpp"
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
  /// Adds moments reduced on the device (kernels/outputs/series_moments.hpp): column c (save k,
  /// variable v: c = k * n_variables() + v), part p at (c * parts + p) * kernels::moments_values, as
  /// n, mean, m2, min, max, joined in order. Throws std::logic_error when the plan keeps histograms
  /// or quantiles (reducible_on_device), which need the values.
  void add_moments(const double* moments, std::size_t parts);
  /// Whether every statistic of `plan` is kept by moments alone (count, mean, var, std, min, max): a
  /// GPU can reduce the series of such a solve (add_moments).
  static bool reducible_on_device(const StatisticsPlan& plan) noexcept;
  /// Adds every run `other` (the same plan, variables and times) holds.
  void merge(const EnsembleStatistics& other);
  /// What merge() needs of these statistics as bytes, for another process (distributed/: the MPI
  /// merge): the accumulators, not the plan, names or times, which every process has alike.
  std::vector<char> to_bytes() const;
  /// Adds the runs of statistics with this plan, variables and times that to_bytes() made (on
  /// another process), as merge() does. Throws std::runtime_error when the bytes are cut short or
  /// shaped for other statistics.
  void merge_bytes(const char* data, std::size_t size);

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

/// Empty statistics (SolveOptions::statistics `options`) of the variables and save times of `shape`, a
/// SolveResult (its series' state names, then its observables' names; its save times), over `runs`
/// runs (what the quantile sketches are sized for).
template <class Result>
EnsembleStatistics statistics_of_shape(const Result& shape, const EnsembleStatisticsOptions& options,
                                       std::uint64_t runs) {
  std::vector<std::string> variables = shape.series_state_names();
  variables.insert(variables.end(), shape.observable_names().begin(), shape.observable_names().end());
  std::vector<double> times(shape.times().begin(), shape.times().end());
  return EnsembleStatistics(plan_statistics(options), std::move(variables), std::move(times), runs);
}

/// The solver's side of arrays::SeriesMomentsSink: the GPU parts' chunks' moments joined into one
/// EnsembleStatistics, one chunk at a time (the parts of several GPUs call it concurrently).
class EnsembleMomentsSink final : public arrays::SeriesMomentsSink {
 public:
  explicit EnsembleMomentsSink(EnsembleStatistics& statistics) : statistics_(statistics) {}
  void add_moments(const double* moments, std::size_t parts, std::size_t first_run, std::size_t runs) override;

 private:
  EnsembleStatistics& statistics_;
  std::mutex mutex_;
};

extern template void EnsembleStatistics::add_runs<float>(const float*, std::size_t, const float*, std::size_t,
                                                        std::size_t, std::size_t);
extern template void EnsembleStatistics::add_runs<double>(const double*, std::size_t, const double*, std::size_t,
                                                         std::size_t, std::size_t);

}  // namespace batchode
