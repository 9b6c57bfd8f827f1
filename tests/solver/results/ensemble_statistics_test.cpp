// Statistics across runs (issue 52): the quantile sketch's rank-error bound (every returned quantile's
// true rank within the bound it reports, the bound within the eps asked, merged pieces included, and
// exact order statistics while nothing was halved); EnsembleStatistics against a direct reduction in
// long double (count without NaN, mean, var, min, max, histogram counted against the same edges) and
// slices merged against one piece; plan_statistics' errors; and a Solver whose result keeps no series,
// solving in slices, giving the statistics and per-run rows of the solve that keeps every series.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "oscillator_batch.hpp"
#include "statistics_compare.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;

/// Whether `v`'s rank in sorted `data` (those below it, those up to it) comes within `bound` of q n.
bool rank_within(const std::vector<double>& sorted, double v, double q, double bound) {
  const double below = static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
  const double up_to = static_cast<double>(std::upper_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
  const double target = q * static_cast<double>(sorted.size());
  return below <= target + bound && up_to >= target - bound;
}

std::vector<double> normal_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> d(3.0, 2.0);
  std::vector<double> v(n);
  for (double& x : v) x = d(gen);
  return v;
}

TEST(QuantileSketch, EveryQuantileWithinTheBoundItReports) {
  const std::size_t n = 1'000'000;
  const double eps = 0.005;
  const std::vector<double> data = normal_values(n, 7);
  std::vector<double> sorted = data;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t k = QuantileSketch::capacity_for(eps, n);
  // Whole, and as ten pieces (slices, processes) merged.
  QuantileSketch whole(k), merged(k);
  whole.add(data.data(), n);
  for (std::size_t p = 0; p < 10; ++p) {
    QuantileSketch piece(k);
    piece.add(data.data() + p * n / 10, n / 10);
    merged.merge(piece);
  }
  for (const QuantileSketch* s : {&whole, &merged}) {
    EXPECT_EQ(s->count(), n);
    EXPECT_GT(s->error_bound(), 0u);  // it did halve: the bound is being tested
    EXPECT_LE(static_cast<double>(s->error_bound()), eps * static_cast<double>(n));
    EXPECT_LT(s->held(), n / 20);  // memory well below the data's
    for (double q = 0; q <= 1.0; q += 0.01) {
      const double v = s->quantile(q);
      EXPECT_TRUE(rank_within(sorted, v, q, static_cast<double>(s->error_bound()))) << "q " << q;
    }
  }
  // The bound is not slack everywhere: an answer off by several bounds is caught by the same check.
  EXPECT_FALSE(rank_within(sorted, whole.quantile(0.5) + 0.2, 0.5, static_cast<double>(whole.error_bound())));
}

TEST(QuantileSketch, ExactOrderStatisticsBeforeAnyHalving) {
  // 699 values, fewer than the 2k x levels that eps = 0.01 sizes the levels for: kept whole.
  const std::vector<double> data = normal_values(699, 3);
  QuantileSketch s(QuantileSketch::capacity_for(0.01, 699));
  s.add(data.data(), data.size());
  ASSERT_EQ(s.error_bound(), 0u);
  std::vector<double> sorted = data;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(s.quantile(0), sorted.front());
  EXPECT_EQ(s.quantile(1), sorted.back());
  EXPECT_EQ(s.quantile(0.5), sorted[349]);  // the 350th of 699: rank reaches 349.5
  EXPECT_TRUE(std::isnan(QuantileSketch(8).quantile(0.5)));
}

/// `runs` runs x 4 saves x (2 series columns + 1 observable), some NaN (points a run never reached).
struct Synthetic {
  std::size_t runs = 5000, saves = 4, width = 2, n_obs = 1;
  std::vector<double> series, observables;
  Synthetic() {
    const std::vector<double> v = normal_values(runs * saves * (width + n_obs), 11);
    std::size_t i = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      for (std::size_t k = 0; k < saves; ++k) {
        for (std::size_t c = 0; c < width; ++c) series.push_back(r % 97 == 0 && k == 3 ? NAN : v[i++] * double(c + 1));
        observables.push_back(v[i++] + double(k));
      }
    }
  }
  double at(std::size_t r, std::size_t k, std::size_t v) const {
    return v < width ? series[(r * saves + k) * width + v] : observables[(r * saves + k) * n_obs + v - width];
  }
};

StatisticsPlan every_statistic(const std::string& histogram = "histogram[16]") {
  EnsembleStatisticsOptions o;
  o.metrics = {"count", "mean", "var", "std", "min", "max", "quantiles[0.05,0.5,0.95]", histogram};
  o.quantile_rank_error = 0.01;
  return plan_statistics(o);
}

TEST(EnsembleStatistics, AgreesWithADirectReduction) {
  const Synthetic d;
  EnsembleStatistics s(every_statistic(), {"a", "b", "o"}, {0, 1, 2, 3}, d.runs);
  s.add_runs(d.series.data(), d.width, d.observables.data(), d.runs);
  const std::vector<double> var = s.var(), sd = s.std_dev(), q = s.quantiles();
  for (std::size_t k = 0; k < d.saves; ++k) {
    for (std::size_t v = 0; v < 3; ++v) {
      const std::size_t c = k * 3 + v;
      std::vector<double> values;
      for (std::size_t r = 0; r < d.runs; ++r) {
        if (!std::isnan(d.at(r, k, v))) values.push_back(d.at(r, k, v));
      }
      long double sum = 0, m2 = 0;
      for (double x : values) sum += x;
      const long double mean = sum / values.size();
      for (double x : values) m2 += (x - mean) * (x - mean);
      ASSERT_EQ(s.count()[c], values.size());
      EXPECT_NEAR(s.mean()[c], double(mean), 1e-14 * std::abs(double(mean)) + 1e-15);
      EXPECT_NEAR(var[c], double(m2 / values.size()), 1e-13 * double(m2 / values.size()));
      EXPECT_DOUBLE_EQ(sd[c] * sd[c], var[c]);
      EXPECT_EQ(s.min()[c], *std::min_element(values.begin(), values.end()));
      EXPECT_EQ(s.max()[c], *std::max_element(values.begin(), values.end()));
      std::sort(values.begin(), values.end());
      const double bound = s.quantile_rank_error() * double(values.size());
      EXPECT_LE(s.quantile_rank_error(), 0.01);
      for (std::size_t j = 0; j < 3; ++j) {
        EXPECT_TRUE(rank_within(values, q[c * 3 + j], std::vector<double>{0.05, 0.5, 0.95}[j], bound));
      }
      // The histogram over the values' own range, each value in [e_i, e_i+1), the last bin closed.
      const double* e = &s.histogram_edges()[c * 17];
      EXPECT_EQ(e[0], values.front());
      EXPECT_EQ(e[16], values.back());
      std::vector<std::uint64_t> expected(16, 0);
      for (double x : values) {
        const auto b = std::upper_bound(e, e + 17, x) - e - 1;
        ++expected[std::min<std::size_t>(15, static_cast<std::size_t>(b))];
      }
      EXPECT_EQ(std::vector<std::uint64_t>(&s.histogram()[c * 16], &s.histogram()[c * 16] + 16), expected);
      EXPECT_EQ(s.histogram_below()[c] + s.histogram_above()[c], 0u);
    }
  }
  EXPECT_EQ(s.count()[3 * 3], d.runs - (d.runs + 96) / 97);  // the NaN left out at the last save
}

TEST(EnsembleStatistics, SlicesMergedEqualOnePiece) {
  const Synthetic d;
  const StatisticsPlan plan = every_statistic("histogram[8,-4,10]");
  EnsembleStatistics whole(plan, {"a", "b", "o"}, {0, 1, 2, 3}, d.runs), merged = whole, in_slices = whole;
  whole.add_runs(d.series.data(), d.width, d.observables.data(), d.runs);
  for (std::size_t first = 0; first < d.runs; first += 1200) {
    const std::size_t m = std::min<std::size_t>(1200, d.runs - first);
    EnsembleStatistics part(plan, {"a", "b", "o"}, {0, 1, 2, 3}, d.runs);
    part.add_runs(&d.series[first * d.saves * d.width], d.width, &d.observables[first * d.saves], m);
    merged.merge(part);
    in_slices.add_runs(&d.series[first * d.saves * d.width], d.width, &d.observables[first * d.saves], m);
  }
  for (const EnsembleStatistics* s : {&merged, &in_slices}) {
    EXPECT_EQ(s->count(), whole.count());
    EXPECT_EQ(s->min(), whole.min());
    EXPECT_EQ(s->max(), whole.max());
    EXPECT_EQ(s->histogram(), whole.histogram());
    EXPECT_EQ(s->histogram_below(), whole.histogram_below());
    EXPECT_EQ(s->histogram_above(), whole.histogram_above());
    for (std::size_t c = 0; c < whole.count().size(); ++c) {
      EXPECT_NEAR(s->mean()[c], whole.mean()[c], 1e-14 * std::abs(whole.mean()[c]) + 1e-15);
      EXPECT_NEAR(s->var()[c], whole.var()[c], 1e-13 * whole.var()[c]);
    }
  }
  std::uint64_t outside = 0;
  for (std::size_t c = 0; c < whole.count().size(); ++c) outside += whole.histogram_below()[c] + whole.histogram_above()[c];
  EXPECT_GT(outside, 0u);  // the fixed range leaves some values out, counted apart
}

/// What kernels::series_moments computes for one chunk of `m` runs from `first` of `d`, on the host: the
/// chunk in the device's layout (row k * width + c, runs fastest), each (row, part) one block of
/// series_moments_block threads, each thread a stride of the part's runs, joined by the same tree.
std::vector<double> device_moments(const Synthetic& d, std::size_t first, std::size_t m, std::uint32_t parts) {
  const std::size_t columns = d.width + d.n_obs;
  std::vector<double> out(d.saves * columns * parts * kernels::moments_values);
  std::vector<double> row(m);
  for (std::size_t k = 0; k < d.saves; ++k) {
    for (std::size_t v = 0; v < columns; ++v) {
      for (std::size_t r = 0; r < m; ++r) row[r] = d.at(first + r, k, v);
      const std::size_t per_part = (m + parts - 1) / parts;
      for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t begin = p * per_part, end = std::min(m, begin + per_part);
        std::vector<kernels::Moments> joined(kernels::series_moments_block);
        for (unsigned t = 0; t < kernels::series_moments_block; ++t) {
          joined[t] = kernels::moments_of(row.data(), begin + t, end, kernels::series_moments_block);
        }
        for (unsigned half = kernels::series_moments_block / 2; half > 0; half >>= 1) {
          for (unsigned t = 0; t < half; ++t) joined[t] = kernels::join_moments(joined[t], joined[t + half]);
        }
        const kernels::Moments& j = joined[0];
        double* o = &out[((k * columns + v) * parts + p) * kernels::moments_values];
        o[0] = j.n, o[1] = j.mean, o[2] = j.m2, o[3] = j.min, o[4] = j.max;
      }
    }
  }
  return out;
}

// The GPU's reduction (kernels/outputs/series_moments.hpp, run here on the host as the device runs it)
// of three chunks of unequal sizes, some cut into parts, joined by add_moments: the accumulator's own
// reduction of the runs' rows (count and the NaN left out, min and max exactly, mean and variance to
// rounding); a plan with quantiles or a histogram is refused (they need the values).
TEST(EnsembleStatistics, MomentsReducedOnTheDeviceJoinToTheRowsStatistics) {
  const Synthetic d;
  EnsembleStatisticsOptions asked;
  asked.metrics = {"count", "mean", "var", "std", "min", "max"};
  const StatisticsPlan plan = plan_statistics(asked);
  ASSERT_TRUE(EnsembleStatistics::reducible_on_device(plan));
  EnsembleStatistics rows(plan, {"a", "b", "o"}, {0, 1, 2, 3}, d.runs), device = rows;
  rows.add_runs(d.series.data(), d.width, d.observables.data(), d.runs);
  std::size_t cut = 0;
  for (std::size_t m : {1000u, 3000u, 1000u}) {
    const std::uint32_t parts = kernels::series_moments_parts(d.saves * 3, m);
    if (m == 3000) {
      EXPECT_EQ(parts, 2u);  // cut in two: the parts' join is tested
    }
    const std::vector<double> moments = device_moments(d, cut, m, parts);
    device.add_moments(moments.data(), parts);
    cut += m;
  }
  ASSERT_EQ(cut, d.runs);
  EXPECT_EQ(device.count()[3 * 3], d.runs - (d.runs + 96) / 97);  // the NaN left out at the last save
  batchode::testing::expect_same_statistics(device, rows, "device moments");
  EXPECT_FALSE(EnsembleStatistics::reducible_on_device(every_statistic()));
  EnsembleStatistics with_values(every_statistic(), {"a", "b", "o"}, {0, 1, 2, 3}, d.runs);
  const std::vector<double> moments = device_moments(d, 0, 100, 1);
  EXPECT_THROW(with_values.add_moments(moments.data(), 1), std::logic_error);
}

// Statistics as bytes (another process's, distributed/'s merge): an empty accumulator that merges them
// holds them exactly (moments, sketches, histograms), and two slices' bytes merge like the slices; bytes
// cut short or of other statistics are refused.
TEST(EnsembleStatistics, BytesMergeLikeTheStatisticsThemselves) {
  const Synthetic d;
  const StatisticsPlan plan = every_statistic("histogram[8,-4,10]");
  EnsembleStatistics whole(plan, {"a", "b", "o"}, {0, 1, 2, 3}, d.runs), empty = whole, first = whole, second = whole;
  whole.add_runs(d.series.data(), d.width, d.observables.data(), d.runs);
  const std::size_t half = 2500;
  first.add_runs(d.series.data(), d.width, d.observables.data(), half);
  second.add_runs(&d.series[half * d.saves * d.width], d.width, &d.observables[half * d.saves], d.runs - half);
  const std::vector<char> bytes = whole.to_bytes();
  EnsembleStatistics copy = empty;
  copy.merge_bytes(bytes.data(), bytes.size());
  EXPECT_EQ(copy.count(), whole.count());
  EXPECT_EQ(copy.mean(), whole.mean());
  EXPECT_EQ(copy.var(), whole.var());
  EXPECT_EQ(copy.quantiles(), whole.quantiles());
  EXPECT_EQ(copy.quantile_rank_error(), whole.quantile_rank_error());
  EXPECT_EQ(copy.histogram(), whole.histogram());
  EnsembleStatistics joined = empty, merged = first;
  for (const EnsembleStatistics* part : {&first, &second}) {
    const std::vector<char> b = part->to_bytes();
    joined.merge_bytes(b.data(), b.size());
  }
  merged.merge(second);
  EXPECT_EQ(joined.count(), merged.count());
  EXPECT_EQ(joined.mean(), merged.mean());
  EXPECT_EQ(joined.quantiles(), merged.quantiles());
  EXPECT_EQ(joined.histogram(), merged.histogram());
  EXPECT_THROW(copy.merge_bytes(bytes.data(), bytes.size() - 1), std::runtime_error);
  EnsembleStatistics other(plan, {"a", "b", "o"}, {0, 1}, d.runs);  // two save times: other columns
  EXPECT_THROW(other.merge_bytes(bytes.data(), bytes.size()), std::runtime_error);
}

TEST(EnsembleStatistics, PlanErrorsNameTheEntry) {
  auto message = [](std::vector<std::string> metrics, double eps = 1e-3) {
    EnsembleStatisticsOptions o;
    o.metrics = std::move(metrics);
    o.quantile_rank_error = eps;
    try {
      plan_statistics(o);
    } catch (const InvalidInput& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"median"}).find("unknown statistic 'median'"), std::string::npos);
  EXPECT_NE(message({"mean", "mean"}).find("lists 'mean' twice"), std::string::npos);
  EXPECT_NE(message({"quantiles[0.5,1.5]"}).find("level 1.5 is outside [0, 1]"), std::string::npos);
  EXPECT_NE(message({"quantiles[0.5,x]"}).find("'x' is not a finite number"), std::string::npos);
  EXPECT_NE(message({"quantiles"}).find("needs its levels"), std::string::npos);
  EXPECT_NE(message({"histogram[0]"}).find("whole number of bins"), std::string::npos);
  EXPECT_NE(message({"histogram[8,2,1]"}).find("[2, 1] needs low < high"), std::string::npos);
  EXPECT_NE(message({"mean[3]"}).find("takes nothing between brackets"), std::string::npos);
  EXPECT_NE(message({"mean"}, 0.5).find("quantile_rank_error = 0.5 is outside (0, 0.5)"), std::string::npos);
  EXPECT_EQ(message({"mean", "quantiles[0,1]", "histogram[4,-1,1]"}), "no error");
}

TEST(EnsembleStatistics, SlicedSolveWithoutSeriesEqualsTheSolveKeepingThem) {
  using batchode::testing::DampedOscillator;
  SolveOptions o = batchode::testing::quiet_cpu_options(Method::dopri5, 4.0);
  o.save_every = 0.5;
  o.statistics.metrics = {"count", "mean", "var", "min", "max", "quantiles[0.1,0.5,0.9]", "histogram[10,-2,2]"};
  o.statistics.quantile_rank_error = 0.01;
  Batch<double> b;
  b.n_runs = 3000;
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t r = 0; r < b.n_runs; ++r) {
    b.y0.insert(b.y0.end(), {u(gen), u(gen)});
    b.params.insert(b.params.end(), {1.0 + 0.5 * u(gen), 0.1});
  }
  const SolveResult<double> kept = Solver<DampedOscillator>(DampedOscillator{}, o).solve(b);
  o.outputs.series = false;
  o.statistics.runs_per_slice = 700;  // five slices, the last one short
  const SolveResult<double> sliced = Solver<DampedOscillator>(DampedOscillator{}, o).solve(b);

  ASSERT_NE(kept.statistics(), nullptr);
  ASSERT_NE(sliced.statistics(), nullptr);
  EXPECT_EQ(kept.n_saves(), 9u);
  EXPECT_EQ(sliced.n_saves(), 0u);  // the series fed the statistics alone
  EXPECT_TRUE(sliced.series().empty());
  EXPECT_EQ(sliced.final_state(), kept.final_state());
  EXPECT_EQ(sliced.statuses(), kept.statuses());
  EXPECT_EQ(sliced.stop_times(), kept.stop_times());
  ASSERT_EQ(sliced.counters().size(), kept.counters().size());
  for (std::size_t r = 0; r < b.n_runs; ++r) EXPECT_EQ(sliced.counters(r).accepted_steps, kept.counters(r).accepted_steps);
  std::size_t covered = 0;
  for (const ExecutionRecord& part : sliced.execution()) covered += part.runs;
  EXPECT_EQ(covered, b.n_runs);

  const EnsembleStatistics& s = *sliced.statistics();
  const EnsembleStatistics& k = *kept.statistics();
  EXPECT_EQ(s.variables(), (std::vector<std::string>{"x", "v", "energy"}));
  EXPECT_EQ(s.times(), k.times());
  EXPECT_EQ(s.count(), k.count());
  EXPECT_EQ(s.min(), k.min());
  EXPECT_EQ(s.max(), k.max());
  EXPECT_EQ(s.histogram(), k.histogram());
  for (std::size_t c = 0; c < s.count().size(); ++c) {
    EXPECT_NEAR(s.mean()[c], k.mean()[c], 1e-13);
    EXPECT_NEAR(s.var()[c], k.var()[c], 1e-13);
  }
  // Against the kept series itself: energy at the last save, every run.
  std::vector<double> energy;
  for (std::size_t r = 0; r < b.n_runs; ++r) energy.push_back(kept.observable_at(r, 8, 0));
  long double sum = 0;
  for (double e : energy) sum += e;
  EXPECT_NEAR(s.mean()[8 * 3 + 2], double(sum / energy.size()), 1e-14);
  std::sort(energy.begin(), energy.end());
  const std::vector<double> q = s.quantiles();
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_TRUE(rank_within(energy, q[(8 * 3 + 2) * 3 + j], 0.1 + 0.4 * double(j),
                            s.quantile_rank_error() * double(energy.size())));
  }
}

TEST(EnsembleStatistics, OptionsRefuseWhatTheyCannotServe) {
  SolveOptions o = batchode::testing::quiet_cpu_options(Method::dopri5, 1.0);
  o.statistics.metrics = {"mean"};
  EXPECT_THROW(validate(o), InvalidInput);  // no save times
  o.save_at_per_run = PerRunSaveTimes(1, {0.5});
  try {
    validate(o);
    ADD_FAILURE() << "per-run save times accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("not save_at_per_run"), std::string::npos) << e.what();
  }
  SolveOptions none = batchode::testing::quiet_cpu_options(Method::dopri5, 1.0);
  none.outputs.series = false;
  EXPECT_THROW(validate(none), InvalidInput);
  // output_types without a series keeps the save times for the statistics, and no series.
  SolveOptions typed = batchode::testing::quiet_cpu_options(Method::dopri5, 1.0);
  typed.save_every = 0.25;
  typed.statistics.metrics = {"mean"};
  apply_output_types({"status", "mean"}, typed);
  EXPECT_TRUE(typed.save_every.has_value());
  EXPECT_FALSE(typed.outputs.series);
}

}  // namespace
