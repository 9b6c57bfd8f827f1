// Summary metrics (issue 11): every metric of every window equals the same metric computed here, by a
// plain loop, from the densely saved series of the same runs (the samples), on the CPU path and the
// GPU kernel's body; closed forms (a cosine's mean, rms and peaks over whole periods; a damped
// oscillator's peaks at 2 k pi / w_d); the series saved with them is the series saved alone; NaN for
// windows a run never completed; the variables chosen by name; every bad input named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernel_body_on_host.hpp"
#include "oscillator_batch.hpp"
#include "summary_reference.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::every_metric;
using batchode::testing::expect_metrics_of_the_series;
using batchode::testing::run_kernel_body_on_host;
using batchode::testing::same;
using batchode::testing::same_values;
using ::testing::HasSubstr;

constexpr auto options = batchode::testing::quiet_cpu_options;
constexpr double pi = 3.14159265358979323846;

using Damped = batchode::testing::DampedOscillator;

Batch<double> damped_batch(std::size_t runs) {
  Batch<double> b;
  b.n_runs = runs;
  for (std::size_t i = 0; i < runs; ++i) {
    b.y0.insert(b.y0.end(), {1.0, 0.1 * double(i)});
    b.params.insert(b.params.end(), {1.0 + 0.7 * double(i), 0.05 * double(i % 3)});
  }
  return b;
}

/// Options keeping every metric of x, v and the energy, sampled every 0.01, in windows of 1, over [0, 5],
/// with the samples saved as the series (save_every = the sample spacing) to check them against.
SolveOptions summarised(Method m) {
  SolveOptions o = options(m, 5.0);
  o.rtol = o.atol = 1e-9;
  if (m == Method::rk4) o.dt = 1e-3;
  o.summaries.metrics = every_metric;
  o.summaries.summarise_every = 1.0;
  o.summaries.sample_summaries_every = 0.01;
  o.save_every = 0.01;
  return o;
}

TEST(Summaries, EveryMetricIsThatOfTheSamplesOnTheCpuAndTheKernelBody) {
  const Batch<double> batch = damped_batch(6);
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4, Method::tsit5}) {
    const SolveOptions o = summarised(m);
    const SolveResult<double> cpu = solve_ivp(Damped{}, batch, o);
    ASSERT_EQ(cpu.summary_variables(), (std::vector<std::string>{"x", "v", "energy"}));
    ASSERT_EQ(cpu.n_summary_windows(), 5u);
    expect_metrics_of_the_series(cpu, to_string(m) + " cpu");
    const SolveResult<double> gpu_body = run_kernel_body_on_host(Damped{}, batch, o);
    expect_metrics_of_the_series(gpu_body, to_string(m) + " kernel body");
    // The two paths' steppers round differently: the values within the tolerance's reach. (Not the
    // times of extrema and peaks: where two samples are nearly equal, rounding picks either.)
    for (const char* name :
         {"mean", "std", "rms", "extrema", "max_magnitude", "dxdt_extrema", "d2xdt2_extrema"}) {
      const std::vector<double> a = cpu.summary(name), b = gpu_body.summary(name);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t k = 0; k < a.size(); ++k) {
        // Derivatives are differences of samples 0.01 apart: the states' 1e-9 over 0.01 (or 1e-4).
        const double scale = std::string(name).find("dt") != std::string::npos ? 1e-3 : 1e-6;
        EXPECT_NEAR(b[k], a[k], scale * std::max(1.0, std::fabs(a[k])))
            << to_string(m) << " " << name << " " << k;
      }
    }
  }
  // Float: the same, in float's ulps.
  const Batch<float> batch32 = batchode::testing::in_precision<float>(batch);
  SolveOptions o = summarised(Method::rk4);
  expect_metrics_of_the_series(solve_ivp(Damped{}, batch32, o), "rk4 float cpu");
  expect_metrics_of_the_series(run_kernel_body_on_host(Damped{}, batch32, o), "rk4 float kernel body");
}

TEST(Summaries, ACosineOverWholePeriodsHasItsClosedForms) {
  // x = cos t: windows of one period, 1000 samples each, two windows.
  Batch<double> batch;
  batch.n_runs = 1;
  batch.y0 = {1.0, 0.0};
  batch.params = {1.0, 0.0};
  SolveOptions o = options(Method::dopri5, 4 * pi);
  o.rtol = o.atol = 1e-11;
  o.summaries.metrics = {"mean", "rms", "extrema", "max_time", "peaks[2]", "negative_peaks[2]"};
  o.summaries.variables = {"x"};
  o.summaries.summarise_every = 2 * pi;
  o.summaries.sample_summaries_every = 2 * pi / 1000;
  for (const auto& r : {solve_ivp(Damped{}, batch, o), run_kernel_body_on_host(Damped{}, batch, o)}) {
    ASSERT_EQ(r.n_summary_windows(), 2u);
    EXPECT_EQ(r.n_saves(), 0u);  // summaries only: no series
    for (std::size_t w = 0; w < 2; ++w) {
      // The samples of a whole period: the mean of cos is 0 and its rms 1/sqrt(2) exactly (a sum of
      // cosines over equally spaced angles), up to the integration's error.
      EXPECT_NEAR(r.summary_at(0, w, "mean", 0), 0.0, 1e-9) << w;
      EXPECT_NEAR(r.summary_at(0, w, "rms", 0), std::sqrt(0.5), 1e-9) << w;
      EXPECT_NEAR(r.summary_at(0, w, "extrema", 0, 0), 1.0, 1e-9) << w;
      EXPECT_NEAR(r.summary_at(0, w, "extrema", 0, 1), -1.0, 1e-9) << w;
      EXPECT_NEAR(r.summary_at(0, w, "max_time", 0), 2 * pi * double(w + 1), 1e-9) << w;
      // The trough at pi (3 pi): one per window.
      EXPECT_NEAR(r.summary_at(0, w, "negative_peaks", 0, 0), pi * double(2 * w + 1), 1e-9) << w;
      EXPECT_TRUE(std::isnan(r.summary_at(0, w, "negative_peaks", 0, 1))) << w;
    }
    // The peak at 2 pi is window 0's last sample (seen at window 1's first); the one at 4 pi is the last
    // sample of all, with no next sample to show it is a peak.
    EXPECT_NEAR(r.summary_at(0, 0, "peaks", 0, 0), 2 * pi, 1e-9);
    EXPECT_TRUE(std::isnan(r.summary_at(0, 0, "peaks", 0, 1)));
    EXPECT_TRUE(std::isnan(r.summary_at(0, 1, "peaks", 0, 0)));
  }
}

TEST(Summaries, ADampedOscillatorsPeaksAreAtTheirKnownTimes) {
  // x'' + 2 zeta x' + x = 0 from (1, 0): x' = -(e^{-zeta t} / w_d) sin(w_d t), so x has its maxima at
  // t = 2 k pi / w_d and its minima at (2 k + 1) pi / w_d. A peak is a sample: within half a spacing.
  const double zeta = 0.1, w_d = std::sqrt(1 - zeta * zeta), dt = 1e-3;
  Batch<double> batch;
  batch.n_runs = 1;
  batch.y0 = {1.0, 0.0};
  batch.params = {1.0, zeta};
  SolveOptions o = options(Method::tsit5, 20.0);
  o.rtol = o.atol = 1e-10;
  o.summaries.metrics = {"peaks[3]", "negative_peaks[3]"};
  o.summaries.sample_summaries_every = dt;
  for (const auto& r : {solve_ivp(Damped{}, batch, o), run_kernel_body_on_host(Damped{}, batch, o)}) {
    ASSERT_EQ(r.n_summary_windows(), 1u);  // the whole span
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(r.summary_at(0, 0, "peaks", 0, k), 2 * double(k + 1) * pi / w_d, dt / 2 + 1e-9) << k;
      EXPECT_NEAR(r.summary_at(0, 0, "negative_peaks", 0, k), double(2 * k + 1) * pi / w_d, dt / 2 + 1e-9)
          << k;
    }
  }
}

TEST(Summaries, TheSeriesSavedWithThemIsTheSeriesSavedAlone) {
  // rk4's steps land on every sample anyway (dt divides the spacing): the same steps, the same series.
  const Batch<double> batch = damped_batch(4);
  SolveOptions alone = options(Method::rk4, 3.0);
  alone.dt = 1e-3;
  alone.save_every = 0.1;
  SolveOptions both = alone;
  both.summaries.metrics = {"mean", "peaks[2]"};
  both.summaries.sample_summaries_every = 0.01;
  both.summaries.summarise_every = 0.5;
  SolveOptions only = both;
  only.save_every.reset();
  const SolveResult<double> a = solve_ivp(Damped{}, batch, alone);
  const SolveResult<double> b = solve_ivp(Damped{}, batch, both);
  const SolveResult<double> c = solve_ivp(Damped{}, batch, only);
  // The series' times are those of its samples, t0 + 10 k 0.01 (within an ulp of t0 + k 0.1), so
  // the last step to each differs by as much: the series agree far within rk4's own error at
  // dt = 1e-3 (about 1e-10 here).
  ASSERT_EQ(b.n_saves(), a.n_saves());
  for (std::size_t k = 0; k < a.n_saves(); ++k) {
    EXPECT_EQ(b.times()[k], std::fma(double(10 * k), 0.01, 0.0)) << k;
    EXPECT_NEAR(b.times()[k], a.times()[k], 1e-15) << k;
  }
  for (std::size_t k = 0; k < a.series().size(); ++k) EXPECT_NEAR(b.series()[k], a.series()[k], 1e-11) << k;
  for (std::size_t k = 0; k < a.observables().size(); ++k) {
    EXPECT_NEAR(b.observables()[k], a.observables()[k], 1e-11) << k;
  }
  // Kept with or without a series: the same points, the same summaries.
  EXPECT_EQ(b.n_summary_windows(), 6u);
  EXPECT_EQ(c.n_saves(), 0u);
  EXPECT_TRUE(same_values(b.summaries(), c.summaries()));
  // summary(name): dense n_runs x windows x variables x width.
  const std::vector<double> peaks = b.summary("peaks[2]");
  ASSERT_EQ(peaks.size(), 4u * 6u * 3u * 2u);
  EXPECT_TRUE(same(peaks[((1 * 6 + 2) * 3 + 1) * 2 + 1], b.summary_at(1, 2, "peaks", 1, 1)));
  EXPECT_TRUE(same(peaks[((3 * 6 + 5) * 3 + 2) * 2 + 0], b.summary_at(3, 5, "peaks", 2, 0)));
}

/// Damped with its summary kernel built for mean, max and both peaks only (kernels/outputs/summaries.hpp):
/// the accumulators in registers (unrolled loops), the other kinds' code gone.
struct DampedLean : Damped {
  static constexpr std::uint32_t summary_kinds =
      summary_bit(SummaryKind::mean) | summary_bit(SummaryKind::max) | summary_bit(SummaryKind::peaks) |
      summary_bit(SummaryKind::negative_peaks);
};
static_assert(summary_kinds_v<Damped> == all_summary_kinds && summary_kinds_v<DampedLean> == 265u + 512u);
// Every kind: the local-memory path; the lean one: registers.
static_assert(!summaries_in_registers(all_summary_kinds) && summaries_in_registers(summary_kinds_v<DampedLean>));

TEST(Summaries, AKernelBuiltForAFewKindsKeepsTheSameValues) {
  const Batch<double> batch = damped_batch(5);
  SolveOptions o = summarised(Method::rk4);
  o.summaries.metrics = {"mean", "max", "peaks[3]", "negative_peaks[2]"};
  o.summaries.variables = {"energy", "x"};  // not in the system's order, and skipping v
  // The same arithmetic in registers as in memory: the same values, bit for bit, in both precisions,
  // and the metrics of the samples.
  const SolveResult<double> lean = run_kernel_body_on_host(DampedLean{}, batch, o);
  const SolveResult<double> full = run_kernel_body_on_host(Damped{}, batch, o);
  ASSERT_EQ(lean.summaries().size(), 5u * 5u * 2u * (1 + 1 + 3 + 2));
  EXPECT_TRUE(same_values(lean.summaries(), full.summaries()));
  expect_metrics_of_the_series(lean, "rk4 lean kernel body");
  const Batch<float> batch32 = batchode::testing::in_precision<float>(batch);
  EXPECT_TRUE(same_values(run_kernel_body_on_host(DampedLean{}, batch32, o).summaries(),
                          run_kernel_body_on_host(Damped{}, batch32, o).summaries()));
  // Other kinds than those it declares: the kernel built for every kind, the same values.
  o.summaries.metrics = {"mean", "std"};
  EXPECT_TRUE(same_values(run_kernel_body_on_host(DampedLean{}, batch, o).summaries(),
                          run_kernel_body_on_host(Damped{}, batch, o).summaries()));
}

TEST(Summaries, AKernelBuiltForAFewKindsTakesWindowByWindowWhatTheOtherTakesSampleBySample) {
  // The kernel built for a few kinds takes whole windows in a loop of their own (run_integrator.hpp:
  // open_window, take_sample, close_window), the window closed at t_end included, and the samples
  // past the last whole window one by one; the every-kind kernel takes every sample one by one. The
  // same values bit for bit, series and statuses too, wherever the windows fall.
  struct Case {
    double t_end, dt, window, sample, save_every;
    const char* what;
  };
  const Batch<double> batch = damped_batch(4);
  for (const Case& c : {Case{5.0, 1e-3, 0.0, 0.01, 0.0, "one window over the span, closed at t_end"},
                        Case{5.0, 1e-3, 1.5, 0.05, 0.05, "samples past the last whole window, series to t_end"},
                        Case{5.0, 1e-3, 0.01, 0.01, 0.0, "windows of one sample"},
                        Case{5.0, 3e-3, 0.3, 0.03, 0.0, "t_end not on the steps: the last step shorter"},
                        Case{4.0, 1e-3, 2.0, 1e-3, 0.0, "a sample every step"}}) {
    SolveOptions o = options(Method::rk4, c.t_end);
    o.dt = c.dt;
    o.summaries.metrics = {"mean", "max", "peaks[3]", "negative_peaks[2]"};
    if (c.window > 0) o.summaries.summarise_every = c.window;  // (unset: the span)
    o.summaries.sample_summaries_every = c.sample;
    if (c.save_every > 0) o.save_every = c.save_every;
    // The two kernels' results in one precision (the batch's).
    const auto expect_same = [&](const auto& runs, const char* precision) {
      SCOPED_TRACE(std::string(c.what) + ", " + precision);
      const auto lean = run_kernel_body_on_host(DampedLean{}, runs, o);
      const auto full = run_kernel_body_on_host(Damped{}, runs, o);
      ASSERT_FALSE(lean.summaries().empty());
      EXPECT_TRUE(same_values(lean.summaries(), full.summaries()));
      EXPECT_TRUE(same_values(lean.series(), full.series()));
      for (std::size_t i = 0; i < batch.n_runs; ++i) EXPECT_EQ(lean.status(i), full.status(i));
    };
    expect_same(batch, "float64");
    expect_same(batchode::testing::in_precision<float>(batch), "float32");
  }
}

/// Damped with an event at t = 2.5 (t - 2.5 rising), which the test makes terminal.
struct DampedStopping : Damped {
  static constexpr std::size_t n_events = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void events(T t, const T*, const T*, T* g) const {
    g[0] = t - T(2.5);
  }
};

TEST(Summaries, WindowsARunNeverCompletedAreNaN) {
  // Runs stopped at t = 2.5: windows (0, 1] and (1, 2] complete, the rest not.
  const Batch<double> batch = damped_batch(2);
  SolveOptions o = options(Method::rk4, 5.0);
  o.dt = 0.01;
  o.events.resize(1);
  o.events[0].action = EventAction::terminal;
  o.summaries.metrics = {"mean", "max", "peaks[2]"};
  o.summaries.summarise_every = 1.0;
  o.summaries.sample_summaries_every = 0.1;
  for (const auto& r :
       {solve_ivp(DampedStopping{}, batch, o), run_kernel_body_on_host(DampedStopping{}, batch, o)}) {
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(r.status(i), Status::stopped_by_event);
      for (std::size_t w = 0; w < 5; ++w) {
        for (std::size_t v = 0; v < 3; ++v) {
          EXPECT_EQ(std::isnan(r.summary_at(i, w, "mean", v)), w >= 2) << i << " " << w << " " << v;
          EXPECT_EQ(std::isnan(r.summary_at(i, w, "max", v)), w >= 2) << i << " " << w << " " << v;
          if (w >= 2) {
            EXPECT_TRUE(std::isnan(r.summary_at(i, w, "peaks", v, 0)));
          }
        }
      }
    }
  }
}

TEST(Summaries, VariablesChosenByNameKeepTheSystemsOrder) {
  const Batch<double> batch = damped_batch(3);
  SolveOptions all = summarised(Method::dopri5);
  SolveOptions some = all;
  some.summaries.variables = {"energy", "x"};
  const SolveResult<double> a = solve_ivp(Damped{}, batch, all);
  const SolveResult<double> b = solve_ivp(Damped{}, batch, some);
  ASSERT_EQ(b.summary_variables(), (std::vector<std::string>{"x", "energy"}));
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t w = 0; w < 5; ++w) {
      EXPECT_EQ(b.summary_at(i, w, "mean", 0), a.summary_at(i, w, "mean", 0));
      EXPECT_EQ(b.summary_at(i, w, "mean", 1), a.summary_at(i, w, "mean", 2));
      EXPECT_TRUE(same(b.summary_at(i, w, "peaks", 1, 0), a.summary_at(i, w, "peaks", 2, 0)));
    }
  }
  EXPECT_THROW(b.summary_at(0, 0, "mean", 2), std::out_of_range);
  EXPECT_THROW(b.summary_at(0, 5, "mean", 0), std::out_of_range);
  try {
    (void)b.summary_at(0, 0, "median", 0);
    FAIL() << "no median";
  } catch (const std::out_of_range& e) {
    EXPECT_THAT(e.what(), HasSubstr("no summary 'median'"));
    EXPECT_THAT(e.what(), HasSubstr("mean"));
  }
}

/// Solving with `change` applied to valid summary options throws InvalidInput containing `message`.
template <class Change>
void expect_refused(Change change, const std::string& message) {
  SolveOptions o = options(Method::rk4, 5.0);
  o.dt = 1e-3;
  o.summaries.metrics = {"mean"};
  o.summaries.summarise_every = 1.0;
  o.summaries.sample_summaries_every = 0.1;
  change(o);
  try {
    (void)solve_ivp(Damped{}, damped_batch(2), o);
    FAIL() << "accepted: " << message;
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr(message));
  }
}

TEST(Summaries, BadInputIsRefusedByName) {
  expect_refused([](SolveOptions& o) { o.summaries.metrics = {"median"}; }, "unknown summary 'median'");
  expect_refused([](SolveOptions& o) { o.summaries.metrics = {"peaks"}; }, "'peaks' needs a count");
  expect_refused([](SolveOptions& o) { o.summaries.metrics = {"peaks[x]"}; }, "'peaks[x]' needs a count");
  expect_refused([](SolveOptions& o) { o.summaries.metrics = {"peaks[0]"}; }, "between 1 and");
  expect_refused([](SolveOptions& o) { o.summaries.metrics = {"mean[2]"}; }, "takes no count");
  expect_refused(
      [](SolveOptions& o) {
        o.summaries.metrics = {"max", "extrema"};
      },
      "'max' and 'extrema' both keep");
  expect_refused(
      [](SolveOptions& o) {
        o.summaries.metrics = {"mean", "mean"};
      },
      "'mean' and 'mean' both keep");
  expect_refused([](SolveOptions& o) { o.summaries.sample_summaries_every = 0.3; },
                 "summarise_every (1) must be a whole number of sample_summaries_every (0.3)");
  expect_refused([](SolveOptions& o) { o.summaries.summarise_every = 6.0; }, "longer than the span");
  expect_refused([](SolveOptions& o) { o.summaries.sample_summaries_every = 2.0; },
                 "a window would hold no sample");
  expect_refused([](SolveOptions& o) { o.summaries.sample_summaries_every = NAN; },
                 "sample_summaries_every must be positive and finite, got nan");
  expect_refused([](SolveOptions& o) { o.summaries.summarise_every = -1.0; },
                 "summarise_every must be positive and finite");
  expect_refused([](SolveOptions& o) { o.save_every = 0.25; },
                 "save_every (0.25) must be a whole number of summaries.sample_summaries_every (0.1)");
  // Within CuBIE's 0.01 of a whole number is not enough for the series: its times would move.
  expect_refused([](SolveOptions& o) { o.save_every = 0.1001; },
                 "save_every (0.1001) must be a whole number of summaries.sample_summaries_every (0.1)");
  // Ratios beyond any count are refused by the limit, not converted.
  expect_refused([](SolveOptions& o) { o.summaries.sample_summaries_every = 1e-25; }, "more than 1e8");
  expect_refused([](SolveOptions& o) { o.save_at = {0.0, 1.0}; }, "summaries with save_at");
  expect_refused([](SolveOptions& o) { o.summaries.variables = {"y"}; },
                 "no state or observable 'y' (there are: x, v, energy)");
  expect_refused([](SolveOptions& o) { o.summaries.variables = {"x", "x"}; }, "names 'x' twice");
  expect_refused([](SolveOptions& o) { o.summaries.sample_summaries_every = 1e-9; }, "more than 1e8");
  expect_refused(
      [](SolveOptions& o) {
        o.summaries.metrics.clear();
        o.summaries.variables = {"x"};
      },
      "no metrics are");
}

}  // namespace
