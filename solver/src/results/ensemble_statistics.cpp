// solver/results/: the accumulator of ensemble_statistics.hpp.
#include "batchode/solver/results/ensemble_statistics.hpp"

#include "bytes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace batchode {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
/// Values gathered per block of runs (save times x variables x runs of the block), so that each
/// column's values lie together while the runs' rows are read in order.
constexpr std::size_t block_values = std::size_t(1) << 20;
}  // namespace

EnsembleStatistics::EnsembleStatistics(StatisticsPlan plan, std::vector<std::string> variables,
                                       std::vector<double> times, std::uint64_t expected_runs)
    : plan_(std::move(plan)), variables_(std::move(variables)), times_(std::move(times)) {
  const std::size_t columns = times_.size() * variables_.size();
  count_.assign(columns, 0);
  if (plan_.moments()) {
    mean_.assign(columns, nan);
    m2_.assign(columns, 0.0);
  }
  if (plan_.min) min_.assign(columns, nan);
  if (plan_.max) max_.assign(columns, nan);
  if (!plan_.quantiles.empty()) {
    sketches_.assign(columns, QuantileSketch(QuantileSketch::capacity_for(plan_.rank_error, std::max<std::uint64_t>(expected_runs, 1))));
  }
  if (plan_.histogram_bins > 0) {
    histogram_.assign(columns * plan_.histogram_bins, 0);
    below_.assign(columns, 0);
    above_.assign(columns, 0);
    edges_.assign(columns * (plan_.histogram_bins + 1), nan);
    if (plan_.histogram_range) {
      for (std::size_t c = 0; c < columns; ++c) set_edges(c, (*plan_.histogram_range)[0], (*plan_.histogram_range)[1]);
    }
  }
}

void EnsembleStatistics::set_edges(std::size_t c, double low, double high) {
  if (!(low < high)) {  // one value, or none: a unit-wide range around it (numpy's choice too)
    low = std::isfinite(low) ? low - 0.5 : 0.0;
    high = low + 1.0;
  }
  const std::size_t bins = plan_.histogram_bins;
  double* e = &edges_[c * (bins + 1)];
  // numpy.linspace's points: low + i * step, the last one high itself.
  const double step = (high - low) / static_cast<double>(bins);
  for (std::size_t i = 0; i < bins; ++i) e[i] = static_cast<double>(i) * step + low;
  e[bins] = high;
}

void EnsembleStatistics::join_moments(std::size_t c, std::uint64_t n, double mean, double m2, double low,
                                      double high) {
  if (n == 0) return;
  const std::uint64_t before = count_[c];
  count_[c] += n;
  if (plan_.moments()) {  // the device's join (Chan, Golub and LeVeque), min and max apart
    const kernels::Moments joined = kernels::join_moments(
        kernels::Moments{static_cast<double>(before), before == 0 ? 0.0 : mean_[c], m2_[c], 0, 0},
        kernels::Moments{static_cast<double>(n), mean, m2, 0, 0});
    mean_[c] = joined.mean;
    m2_[c] = joined.m2;
  }
  if (plan_.min) min_[c] = before == 0 ? low : std::min(min_[c], low);
  if (plan_.max) max_[c] = before == 0 ? high : std::max(max_[c], high);
}

std::vector<char> EnsembleStatistics::to_bytes() const {
  std::vector<char> out;
  bytes::append_array(out, count_);
  for (const std::vector<double>* a : {&mean_, &m2_, &min_, &max_, &edges_}) bytes::append_array(out, *a);
  for (const std::vector<std::uint64_t>* a : {&histogram_, &below_, &above_}) bytes::append_array(out, *a);
  bytes::append(out, static_cast<std::uint64_t>(sketches_.size()));
  for (const QuantileSketch& s : sketches_) s.append_bytes(out);
  return out;
}

void EnsembleStatistics::merge_bytes(const char* data, std::size_t size) {
  const char* at = data;
  const char* end = data + size;
  EnsembleStatistics other;
  other.plan_ = plan_;
  other.variables_ = variables_;
  other.times_ = times_;
  const std::size_t columns = count_.size();
  other.count_ = bytes::read_array<std::uint64_t>(at, end, &columns);
  for (auto [mine, theirs] : {std::pair{&mean_, &other.mean_}, std::pair{&m2_, &other.m2_},
                              std::pair{&min_, &other.min_}, std::pair{&max_, &other.max_},
                              std::pair{&edges_, &other.edges_}}) {
    const std::size_t n = mine->size();
    *theirs = bytes::read_array<double>(at, end, &n);
  }
  for (auto [mine, theirs] : {std::pair{&histogram_, &other.histogram_}, std::pair{&below_, &other.below_},
                              std::pair{&above_, &other.above_}}) {
    const std::size_t n = mine->size();
    *theirs = bytes::read_array<std::uint64_t>(at, end, &n);
  }
  if (bytes::read<std::uint64_t>(at, end) != sketches_.size()) {
    throw std::runtime_error("statistics' bytes of another shape");
  }
  for (std::size_t c = 0; c < sketches_.size(); ++c) {
    other.sketches_.push_back(QuantileSketch::from_bytes(at, end));
    if (other.sketches_.back().k() != sketches_[c].k()) throw std::runtime_error("statistics' bytes of another shape");
  }
  if (at != end) throw std::runtime_error("statistics' bytes: more than the statistics");
  merge(other);
}

void EnsembleStatistics::add_moments(const double* moments, std::size_t parts) {
  if (!reducible_on_device(plan_)) {
    throw std::logic_error("EnsembleStatistics::add_moments: histograms and quantiles need the runs' values");
  }
  for (std::size_t c = 0; c < count_.size(); ++c) {
    for (std::size_t p = 0; p < parts; ++p) {
      const double* m = moments + (c * parts + p) * kernels::moments_values;
      join_moments(c, static_cast<std::uint64_t>(m[0]), m[1], m[2], m[3], m[4]);
    }
  }
}

bool EnsembleStatistics::reducible_on_device(const StatisticsPlan& plan) noexcept {
  return plan.histogram_bins == 0 && plan.quantiles.empty();
}

void EnsembleMomentsSink::add_moments(const double* moments, std::size_t parts, std::size_t, std::size_t) {
  const std::lock_guard<std::mutex> lock(mutex_);
  statistics_.add_moments(moments, parts);
}

void EnsembleStatistics::add_column(std::size_t c, const double* values, std::size_t n) {
  if (n == 0) return;
  if (plan_.histogram_bins > 0) {
    const std::size_t bins = plan_.histogram_bins;
    if (std::isnan(edges_[c * (bins + 1)])) {  // the range of the first values this column met
      const auto [lo, hi] = std::minmax_element(values, values + n);
      set_edges(c, *lo, *hi);
    }
    const double* e = &edges_[c * (bins + 1)];
    std::uint64_t* counts = &histogram_[c * bins];
    const double scale = static_cast<double>(bins) / (e[bins] - e[0]);
    for (std::size_t i = 0; i < n; ++i) {
      const double v = values[i];
      if (v < e[0]) {
        ++below_[c];
        continue;
      }
      if (v > e[bins]) {
        ++above_[c];
        continue;
      }
      // The bin by arithmetic, then moved to the one whose edges hold v: bins are [e_i, e_i+1), the
      // last closed, exactly as numpy.histogram counts against the same edges.
      std::size_t b = std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, (v - e[0]) * scale)));
      while (b > 0 && v < e[b]) --b;
      while (b + 1 < bins && v >= e[b + 1]) ++b;
      ++counts[b];
    }
  }
  if (!sketches_.empty()) sketches_[c].add(values, n);
}

namespace {

/// Sums of one block of runs, per value of a row segment: count, sum and sum of squares about a shift
/// (add_runs sets it: the column's mean so far, else the mean of the block's first rows; sums about a
/// value near the mean round like a second pass would, whatever the mean's size), min and max. Laid out
/// as the rows are, so the loop over a row's values vectorises.
struct BlockSums {
  std::vector<std::uint64_t> n;
  std::vector<double> shift, s1, s2, low, high;
  explicit BlockSums(std::size_t values)
      : n(values), shift(values), s1(values), s2(values), low(values), high(values) {}
  /// Empties the sums; `shift` is set by the caller.
  void start() {
    std::fill(n.begin(), n.end(), 0);
    std::fill(s1.begin(), s1.end(), 0.0);
    std::fill(s2.begin(), s2.end(), 0.0);
    std::fill(low.begin(), low.end(), std::numeric_limits<double>::infinity());
    std::fill(high.begin(), high.end(), -std::numeric_limits<double>::infinity());
  }
  template <class T>
  void add_row(const T* row) {
    const std::size_t m = n.size();
    for (std::size_t j = 0; j < m; ++j) {
      const double x = static_cast<double>(row[j]);
      const bool value = x == x;  // NaN: a point the run never reached
      const double d = value ? x - shift[j] : 0.0;
      n[j] += value;
      s1[j] += d;
      s2[j] += d * d;
      low[j] = value && x < low[j] ? x : low[j];
      high[j] = value && x > high[j] ? x : high[j];
    }
  }
};

}  // namespace

template <class T>
void EnsembleStatistics::add_runs(const T* series, std::size_t width, const T* observables, std::size_t runs,
                                  std::size_t first_save, std::size_t end_save) {
  const std::size_t saves = n_saves(), vars = n_variables();
  if (width > vars) throw std::logic_error("EnsembleStatistics::add_runs: more series columns than variables");
  const std::size_t n_obs = vars - width;
  end_save = std::min(end_save, saves);
  if (first_save >= end_save || vars == 0 || runs == 0) return;
  const std::size_t here = end_save - first_save;
  const std::size_t columns = here * vars;  // those taken here, from column first_save * vars
  const std::size_t block = std::max<std::size_t>(1, block_values / columns);
  // Count, moments, min and max by rows: each run's values of these save times lie together, series
  // and observables apart (their own row segments). The column of segment value j: series
  // (j / width, j % width), observables (j / n_obs, width + j % n_obs).
  auto column_of = [&](bool observable, std::size_t j) {
    return observable ? (first_save + j / n_obs) * vars + width + j % n_obs : (first_save + j / width) * vars + j % width;
  };
  for (const bool observable : {false, true}) {
    const std::size_t w = observable ? n_obs : width;
    const T* data = observable ? observables : series;
    if (w == 0 || data == nullptr) continue;
    BlockSums sums(here * w);
    std::vector<std::size_t> seen(here * w);
    for (std::size_t first = 0; first < runs; first += block) {
      const std::size_t m = std::min(block, runs - first);
      // Each column's shift: its mean so far, else the mean of the block's first rows (NaN left out).
      const std::size_t probe = std::min<std::size_t>(m, 256);
      std::fill(sums.shift.begin(), sums.shift.end(), 0.0);
      std::fill(seen.begin(), seen.end(), 0);
      for (std::size_t r = first; r < first + probe; ++r) {
        for (std::size_t j = 0; j < here * w; ++j) {
          const double x = static_cast<double>(data[(r * saves + first_save) * w + j]);
          if (std::isnan(x)) continue;
          sums.shift[j] += x;
          ++seen[j];
        }
      }
      for (std::size_t j = 0; j < here * w; ++j) {
        const std::size_t c = column_of(observable, j);
        if (plan_.moments() && count_[c] > 0) {
          sums.shift[j] = mean_[c];
        } else if (seen[j] > 0) {
          sums.shift[j] /= static_cast<double>(seen[j]);
        }
      }
      sums.start();
      for (std::size_t r = first; r < first + m; ++r) sums.add_row(data + (r * saves + first_save) * w);
      for (std::size_t j = 0; j < here * w; ++j) {
        const std::uint64_t n = sums.n[j];
        if (n == 0) continue;
        const double nn = static_cast<double>(n), mean_offset = sums.s1[j] / nn;
        join_moments(column_of(observable, j), n, sums.shift[j] + mean_offset,
                     std::max(0.0, sums.s2[j] - sums.s1[j] * mean_offset), sums.low[j], sums.high[j]);
      }
    }
  }
  if (plan_.histogram_bins == 0 && sketches_.empty()) return;
  // Histograms and quantiles by columns: each column's values gathered, a block of runs at a time.
  std::vector<double> gathered(columns * std::min(block, runs));
  std::vector<std::size_t> filled(columns);
  for (std::size_t first = 0; first < runs; first += block) {
    const std::size_t m = std::min(block, runs - first);
    std::fill(filled.begin(), filled.end(), 0);
    for (std::size_t r = first; r < first + m; ++r) {
      for (std::size_t k = first_save; k < end_save; ++k) {
        for (std::size_t v = 0; v < vars; ++v) {
          const T x = v < width ? series[(r * saves + k) * width + v] : observables[(r * saves + k) * n_obs + v - width];
          if (std::isnan(x)) continue;  // a point the run never reached
          const std::size_t c = (k - first_save) * vars + v;
          gathered[c * m + filled[c]++] = static_cast<double>(x);
        }
      }
    }
    for (std::size_t c = 0; c < columns; ++c) add_column(first_save * vars + c, &gathered[c * m], filled[c]);
  }
}

template void EnsembleStatistics::add_runs<float>(const float*, std::size_t, const float*, std::size_t, std::size_t,
                                                  std::size_t);
template void EnsembleStatistics::add_runs<double>(const double*, std::size_t, const double*, std::size_t,
                                                   std::size_t, std::size_t);

void EnsembleStatistics::merge(const EnsembleStatistics& other) {
  if (other.variables_ != variables_ || other.times_ != times_ || other.plan_.metrics != plan_.metrics) {
    throw std::logic_error("EnsembleStatistics::merge: statistics of other variables, times or metrics");
  }
  const std::size_t bins = plan_.histogram_bins;
  for (std::size_t c = 0; c < count_.size(); ++c) {
    if (other.count_[c] == 0) continue;
    join_moments(c, other.count_[c], plan_.moments() ? other.mean_[c] : nan, plan_.moments() ? other.m2_[c] : 0.0,
                 plan_.min ? other.min_[c] : nan, plan_.max ? other.max_[c] : nan);
    if (!sketches_.empty()) sketches_[c].merge(other.sketches_[c]);
    if (bins > 0) {
      if (std::isnan(edges_[c * (bins + 1)])) {
        std::copy_n(&other.edges_[c * (bins + 1)], bins + 1, &edges_[c * (bins + 1)]);
      } else if (!std::equal(&edges_[c * (bins + 1)], &edges_[c * (bins + 1)] + bins + 1, &other.edges_[c * (bins + 1)])) {
        throw std::logic_error("EnsembleStatistics::merge: histograms over other ranges (set histogram[bins,low,high])");
      }
      for (std::size_t b = 0; b < bins; ++b) histogram_[c * bins + b] += other.histogram_[c * bins + b];
      below_[c] += other.below_[c];
      above_[c] += other.above_[c];
    }
  }
}

std::vector<double> EnsembleStatistics::var() const {
  std::vector<double> out(m2_.size(), nan);
  for (std::size_t c = 0; c < out.size(); ++c) {
    if (count_[c] > 0) out[c] = m2_[c] / static_cast<double>(count_[c]);
  }
  return out;
}

std::vector<double> EnsembleStatistics::std_dev() const {
  std::vector<double> out = var();
  for (double& v : out) v = std::sqrt(v);
  return out;
}

std::vector<double> EnsembleStatistics::quantiles() const {
  std::vector<double> out;
  out.reserve(sketches_.size() * plan_.quantiles.size());
  for (const QuantileSketch& s : sketches_) {
    const std::vector<double> q = s.quantiles(plan_.quantiles);
    out.insert(out.end(), q.begin(), q.end());
  }
  return out;
}

double EnsembleStatistics::quantile_rank_error() const {
  double worst = 0;
  for (const QuantileSketch& s : sketches_) {
    if (s.count() > 0) worst = std::max(worst, static_cast<double>(s.error_bound()) / static_cast<double>(s.count()));
  }
  return worst;
}

}  // namespace batchode
