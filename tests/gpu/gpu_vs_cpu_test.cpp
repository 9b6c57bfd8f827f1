// GPU vs CPU, run by run: every method, both precisions, several chunkings (automatic, 7 forced
// chunks with a partial last one, 3 chunks), runs that must fail, series, buffer reuse, budgets.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "gpu_compare.hpp"
#include "require_gpu.hpp"
#include "statistics_compare.hpp"
#include "summary_reference.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;

template <class T>
Batch<T> lorenz_sweep(std::size_t runs) {
  GridBuilder<T> grid({T(1), T(0), T(0)}, {T(10), T(28), T(8.0 / 3)});
  grid.param(1, linspace<T>(0.0, 21.0, runs));
  return grid.build(GridKind::verbatim);
}

SolveOptions base_options(Method m, bool single) {
  SolveOptions o;
  o.outputs.counters = true;  // expect_runs_agree compares fixed-step counters (off by default)
  o.method = m;
  o.t_end = 1.0;
  o.verbosity = Verbosity::none;
  if (!method_info(m).adaptive) o.dt = 1e-3;
  o.rtol = single ? 1e-5 : 1e-8;
  o.atol = o.rtol;
  return o;
}

/// base_options saving every 0.01, landed or interpolated, in 3 chunks; and how a message names it.
SolveOptions saving_options(Method m, bool single, SaveMode mode) {
  SolveOptions o = base_options(m, single);
  o.gpu.chunks = 3;
  o.save_every = 0.01;
  o.save_mode = mode;
  return o;
}
std::string saving_name(Method m, SaveMode mode) {
  return to_string(m) + (mode == SaveMode::land ? " landed" : " interpolated");
}

template <class T>
class GpuVsCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuVsCpu, Precisions);

TYPED_TEST(GpuVsCpu, LorenzEveryMethodEveryChunking) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(1000);
  for (Method m : all_methods) {
    SolveOptions o = base_options(m, std::is_same_v<T, float>);
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(Lorenz{}, batch, o);
    ASSERT_TRUE(cpu.all_succeeded()) << to_string(m);
    o.backend = Backend::gpu;
    for (std::size_t chunks : {0u, 7u, 3u}) {
      o.gpu.chunks = chunks;
      const SolveResult<T> gpu = solve_ivp(Lorenz{}, batch, o);
      ASSERT_EQ(gpu.execution().at(0).backend, batchode::BackendId::gpu(0));
      batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 1000),
                                           to_string(m) + " chunks=" + std::to_string(chunks));
    }
  }
}

/// dy/dt = p y^2, built for the three methods solved with it here (compiled_methods, as LorenzObserved
/// below).
struct BlowUpThreeMethods : batchode::testing::BlowUp {
  static constexpr Method compiled_methods[] = {Method::dopri5, Method::rk4, Method::tsit5};
};

TYPED_TEST(GpuVsCpu, SeriesAndFailingRunsMatch) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  // dy/dt = p y^2, y0 = 1 blows up at t = 1/p: runs with p > 1/t_end must fail on both paths.
  const std::size_t runs = 300;
  std::vector<T> y0(runs, T(1));
  const std::vector<T> p = linspace<T>(0.1, 2.0, runs);
  for (Method m : {Method::dopri5, Method::rk4, Method::tsit5}) {
    SolveOptions o = base_options(m, std::is_same_v<T, float>);
    o.t_end = 1.5;
    o.save_every = 0.25;
    o.max_steps = 20000;
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(BlowUpThreeMethods{}, y0, p, o);
    EXPECT_GT(cpu.count(Status::success), 0u);
    EXPECT_LT(cpu.count(Status::success), runs) << "some runs must fail";
    o.backend = Backend::gpu;
    o.gpu.chunks = 4;
    const SolveResult<T> gpu = solve_ivp(BlowUpThreeMethods{}, y0, p, o);
    // Near the singularity the relative sensitivity of y to its own rounding, (dy/dy0)(y0/y) = y/y0,
    // grows to ~10^3 before a run fails: the usual bound, scaled by that growth.
    batchode::testing::expect_runs_agree(gpu, cpu, 1e3 * batchode::testing::agreement_bound<T>(m, o.rtol, 1500),
                                         "blow-up " + to_string(m));
    for (std::size_t r = 0; r < runs; ++r) {
      if (gpu.status(r) == Status::success) continue;
      EXPECT_TRUE(std::isnan(gpu.state_at(r, gpu.n_saves() - 1, 0))) << "unreached save of failed run " << r;
    }
  }
}

// save_at (issue 12): 1000 points landed on and interpolated, every GPU method, in chunks, run by run
// as the CPU path. Landed points are the methods' own values: the usual bound. Interpolated ones
// carry the interpolant's own error, which in float can exceed the tolerance (the Hermite cubic
// on fehlberg78's long steps): where a rounding flips an accept/reject decision the two paths
// interpolate over different steps, so they must agree within the usual bound plus twice the
// interpolation error the CPU path shows against its landed values. Interpolated saves leave the
// GPU's steps as a solve without saves takes them, and its final state bit for bit.
TYPED_TEST(GpuVsCpu, LorenzSaveAtInterpolatedAndLanded) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(1000);
  std::vector<double> times;
  for (int k = 0; k < 1000; ++k) times.push_back(0.0007 + k * 0.000999);
  for (Method m : all_methods) {
    if (!method_info(m).gpu) continue;
    SolveOptions o = base_options(m, std::is_same_v<T, float>);
    o.backend = Backend::gpu;
    o.gpu.chunks = 3;
    const SolveResult<T> plain = solve_ivp(Lorenz{}, batch, o);
    o.save_at = times;
    SolveResult<T> results[2][2];  // [cpu, gpu][land, interpolate]
    for (int mode = 0; mode < 2; ++mode) {
      o.save_mode = mode == 0 ? SaveMode::land : SaveMode::interpolate;
      for (int path = 0; path < 2; ++path) {
        o.backend = path == 0 ? Backend::cpu : Backend::gpu;
        results[path][mode] = solve_ivp(Lorenz{}, batch, o);
        ASSERT_TRUE(results[path][mode].all_succeeded()) << to_string(m);
      }
    }
    const double bound = batchode::testing::agreement_bound<T>(m, o.rtol, 1000);
    batchode::testing::expect_runs_agree(results[1][0], results[0][0], bound, to_string(m) + " save_at landed");
    // The CPU's interpolated points against its landed ones.
    const double interpolation =
        batchode::testing::relative_difference(results[0][0].series(), results[0][1].series());
    std::printf("[ save_at  ] %-19s %s interpolated vs landed (cpu): %.2g\n", to_string(m).c_str(),
                sizeof(T) == 4 ? "float32" : "float64", interpolation);
    batchode::testing::expect_runs_agree(results[1][1], results[0][1], bound + 2 * interpolation,
                                         to_string(m) + " save_at interpolated");
    for (std::size_t r = 0; r < batch.n_runs; ++r) {
      const SolveResult<T>& dense = results[1][1];
      ASSERT_EQ(dense.counters(r).accepted_steps, plain.counters(r).accepted_steps) << to_string(m) << " run " << r;
      ASSERT_EQ(dense.final_state(r, 0), plain.final_state(r, 0)) << to_string(m) << " run " << r;
    }
  }
}

/// Lorenz with two observables: x y and the distance from the origin. Built for the methods its tests
/// solve it with (compiled_methods: every method's kernels for a system made this file nvcc's longest
/// compile, alone at the end of CI's cuda build).
struct LorenzObserved : Lorenz {
  static constexpr Method compiled_methods[] = {Method::dopri5, Method::rk4, Method::tsit5, Method::rodas4};
  static constexpr std::size_t n_observables = 2;
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T, const T* y, const T*, T* out) const {
    out[0] = y[0] * y[1];
    out[1] = batchode::port::sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
  }
};

// Observables on the GPU, landed and interpolated, in 3 chunks: each the function of the saved state
// (to rounding: the device may fuse the products), and the CPU's run by run.
TYPED_TEST(GpuVsCpu, LorenzObservablesAreThoseOfTheSavedStates) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(1000);
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    SolveResult<T> cpu_landed;
    for (SaveMode mode : {SaveMode::land, SaveMode::interpolate}) {
      SolveOptions o = saving_options(m, std::is_same_v<T, float>, mode);
      const std::string what = saving_name(m, mode);
      o.backend = Backend::gpu;
      const SolveResult<T> gpu = solve_ivp(LorenzObserved{}, batch, o);
      o.backend = Backend::cpu;
      const SolveResult<T> cpu = solve_ivp(LorenzObserved{}, batch, o);
      ASSERT_TRUE(gpu.all_succeeded()) << what;
      ASSERT_TRUE(cpu.all_succeeded()) << what;
      ASSERT_EQ(gpu.observables().size(), batch.n_runs * gpu.n_saves() * 2) << what;
      const double eps = std::numeric_limits<T>::epsilon();
      // GPU against CPU: x y relative to max(1, |x|) max(1, |y|) (near x = 0 or y = 0 it is no smaller
      // than its factors' errors), the distance relative to max(1, itself); a NaN counts as infinite.
      double worst = 0;
      for (std::size_t r = 0; r < batch.n_runs; ++r) {
        for (std::size_t k = 0; k < gpu.n_saves(); ++k) {
          const double x = gpu.state_at(r, k, 0), y = gpu.state_at(r, k, 1), z = gpu.state_at(r, k, 2);
          ASSERT_NEAR(gpu.observable_at(r, k, 0), x * y, 8 * eps * std::max(1.0, std::fabs(x * y))) << what;
          const double d = std::sqrt(x * x + y * y + z * z);
          ASSERT_NEAR(gpu.observable_at(r, k, 1), d, 8 * eps * std::max(1.0, d)) << what;
          for (std::size_t o2 = 0; o2 < 2; ++o2) {
            const double c = cpu.observable_at(r, k, o2);
            const double scale = o2 == 0 ? std::max(1.0, std::fabs(x)) * std::max(1.0, std::fabs(y))
                                         : std::max(1.0, std::fabs(c));
            const double diff = std::fabs(gpu.observable_at(r, k, o2) - c) / scale;
            worst = std::max(worst, std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff);
          }
        }
      }
      // Interpolation adds its own error to the two steppers' difference: bounded by the CPU's
      // interpolated observables against its landed ones.
      if (mode == SaveMode::land) cpu_landed = cpu;
      const double interpolation =
          mode == SaveMode::land ? 0.0
                                 : batchode::testing::relative_difference(cpu_landed.observables(), cpu.observables());
      // Each observable's difference is at most about the sum of its factors' (x y) or its terms' (the
      // distance): within twice the states' bound; four times, for margin.
      const double bound = 4 * batchode::testing::agreement_bound<T>(m, o.rtol, 1000) + 2 * interpolation;
      EXPECT_LT(worst, bound) << what;
      std::printf("[ observables ] %-8s %s %s GPU vs CPU: %.2g (bound %.2g)\n", to_string(m).c_str(),
                  mode == SaveMode::land ? "landed      " : "interpolated", sizeof(T) == 4 ? "float32" : "float64",
                  worst, bound);
    }
  }
}

// Statistics across runs reduced on the GPU (issue 52), in 3 chunks: a solve keeping moments and no
// series reduces each chunk's states and observables on the device (kernels::series_moments); its
// statistics are those of the same GPU solve keeping its series (reduced on the host), its final states
// that solve's.
TYPED_TEST(GpuVsCpu, LorenzStatisticsReducedOnTheGpuAreThoseOfTheKeptSeries) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(1000);
  SolveOptions o = saving_options(Method::dopri5, std::is_same_v<T, float>, SaveMode::interpolate);
  o.backend = Backend::gpu;
  o.statistics.metrics = {"count", "mean", "var", "min", "max"};
  const SolveResult<T> kept = solve_ivp(LorenzObserved{}, batch, o);
  o.outputs.series = false;
  const SolveResult<T> reduced = solve_ivp(LorenzObserved{}, batch, o);
  ASSERT_TRUE(reduced.execution().at(0).backend.is_gpu());
  ASSERT_NE(reduced.statistics(), nullptr);
  EXPECT_EQ(reduced.n_saves(), 0u);
  EXPECT_EQ(reduced.final_state(), kept.final_state());
  EXPECT_EQ(reduced.statistics()->count().size(), kept.n_saves() * 5);  // 3 states, 2 observables
  batchode::testing::expect_same_statistics(*reduced.statistics(), *kept.statistics(),
                                            sizeof(T) == 4 ? "float32" : "float64");
}

// The series' variables chosen by name (save_variables), landed and interpolated, in 3 chunks: the GPU
// writes the chosen columns of its own full series bit for bit (the masked sinks change no arithmetic),
// and they agree with the CPU's chosen columns run by run.
TYPED_TEST(GpuVsCpu, LorenzChosenSeriesVariablesAreColumnsOfTheFullSeries) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(1000);
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    SolveResult<T> cpu_landed;
    for (SaveMode mode : {SaveMode::land, SaveMode::interpolate}) {
      SolveOptions o = saving_options(m, std::is_same_v<T, float>, mode);
      const std::string what = saving_name(m, mode);
      o.backend = Backend::gpu;
      const SolveResult<T> full = solve_ivp(LorenzObserved{}, batch, o);
      o.save_variables = {"observable1", "y2"};  // z and the distance, in the system's order
      const SolveResult<T> gpu = solve_ivp(LorenzObserved{}, batch, o);
      o.backend = Backend::cpu;
      const SolveResult<T> cpu = solve_ivp(LorenzObserved{}, batch, o);
      ASSERT_TRUE(gpu.all_succeeded()) << what;
      ASSERT_EQ(gpu.series_states(), (std::vector<std::size_t>{2})) << what;
      ASSERT_EQ(gpu.observable_names(), (std::vector<std::string>{"observable1"})) << what;
      ASSERT_EQ(gpu.series().size(), batch.n_runs * gpu.n_saves()) << what;
      ASSERT_EQ(gpu.observables().size(), batch.n_runs * gpu.n_saves()) << what;
      for (std::size_t r = 0; r < batch.n_runs; ++r) {
        for (std::size_t k = 0; k < gpu.n_saves(); ++k) {
          ASSERT_EQ(gpu.state_at(r, k, 0), full.state_at(r, k, 2)) << what << " run " << r << " save " << k;
          ASSERT_EQ(gpu.observable_at(r, k, 0), full.observable_at(r, k, 1)) << what << " run " << r << " save " << k;
        }
      }
      // Against the CPU's chosen columns: within the states' bound (the distance: its terms', twice), plus
      // what interpolation adds (the CPU's interpolated columns against its landed ones).
      if (mode == SaveMode::land) cpu_landed = cpu;
      const double interpolation =
          mode == SaveMode::land ? 0.0
                                 : std::max(batchode::testing::relative_difference(cpu_landed.series(), cpu.series()),
                                            batchode::testing::relative_difference(cpu_landed.observables(),
                                                                                   cpu.observables()));
      const double bound = 4 * batchode::testing::agreement_bound<T>(m, o.rtol, 1000) + 2 * interpolation;
      const double states = batchode::testing::relative_difference(cpu.series(), gpu.series());
      const double distance = batchode::testing::relative_difference(cpu.observables(), gpu.observables());
      EXPECT_LT(std::max(states, distance), bound) << what;
      std::printf("[ save_variables ] %-8s %s %s GPU vs CPU: z %.2g, distance %.2g (bound %.2g)\n",
                  to_string(m).c_str(), mode == SaveMode::land ? "landed      " : "interpolated",
                  sizeof(T) == 4 ? "float32" : "float64", states, distance, bound);
    }
  }
}

// Summaries (issue 11), every metric of x, y, z and the two observables, in 3 chunks: on the GPU each
// is that of its own samples (the series saved at every sample, the test's plain computation), and
// the GPU's values agree with the CPU's run by run; the same summaries without the series are
// identical (the same points); and a chunked solve with a budget gives the one-chunk solve's.
TYPED_TEST(GpuVsCpu, LorenzSummariesAreThoseOfTheSamplesAndMatchTheCpu) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(1000);
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    SolveOptions o = base_options(m, std::is_same_v<T, float>);
    o.gpu.chunks = 3;
    o.summaries.metrics = batchode::testing::every_metric;
    o.summaries.summarise_every = 0.25;
    o.summaries.sample_summaries_every = 0.01;
    o.save_every = 0.01;
    const std::string what = to_string(m);
    o.backend = Backend::gpu;
    const SolveResult<T> gpu = solve_ivp(LorenzObserved{}, batch, o);
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(LorenzObserved{}, batch, o);
    ASSERT_EQ(gpu.n_summary_windows(), 4u);
    ASSERT_EQ(gpu.summary_variables().size(), 5u);
    batchode::testing::expect_metrics_of_the_series(gpu, what + " gpu");
    batchode::testing::expect_metrics_of_the_series(cpu, what + " cpu");
    // GPU against CPU: the values (not the times of extrema, which rounding may move to a nearly equal
    // sample), relative to max(1, |value|), within the states' bound.
    const double bound = 4 * batchode::testing::agreement_bound<T>(m, o.rtol, 1000);
    double worst = 0;
    for (const char* name : {"mean", "std", "rms", "extrema", "max_magnitude"}) {
      const std::vector<T> a = cpu.summary(name), b = gpu.summary(name);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t k = 0; k < a.size(); ++k) {
        const double diff = std::fabs(double(b[k]) - double(a[k])) / std::max(1.0, std::fabs(double(a[k])));
        worst = std::max(worst, std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff);
      }
    }
    EXPECT_LT(worst, bound) << what;
    std::printf("[ summaries  ] %-8s %s GPU vs CPU: %.2g (bound %.2g)\n", what.c_str(),
                sizeof(T) == 4 ? "float32" : "float64", worst, bound);
    // Without the series, in one chunk: the same points, the same summaries, bit for bit.
    o.backend = Backend::gpu;
    o.save_every.reset();
    o.gpu.chunks = 1;
    const SolveResult<T> alone = solve_ivp(LorenzObserved{}, batch, o);
    EXPECT_EQ(alone.n_saves(), 0u);
    EXPECT_TRUE(batchode::testing::same_values(alone.summaries(), gpu.summaries())) << what;
  }
}

// Each run's own save times (save_at_per_run), in 3 chunks with the runs ordered on the device: the
// GPU agrees with the CPU run by run, and a run saves exactly (bit for bit) what a GPU solve of that
// run alone with its times shared saves, landed and interpolated.
TYPED_TEST(GpuVsCpu, LorenzSaveAtPerRunEqualsEachRunsOwnList) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const std::size_t runs = 1000, n = 300;
  const Batch<T> batch = lorenz_sweep<T>(runs);
  std::vector<double> times;
  for (std::size_t r = 0; r < runs; ++r) {
    for (std::size_t k = 0; k < n; ++k) times.push_back(0.0007 + double(k) * 0.0031 + double(r) * 3e-5);
  }
  for (Method m : {Method::dopri5, Method::tsit5, Method::rk4, Method::rodas4}) {
    SolveResult<T> cpu_landed;
    for (SaveMode mode : {SaveMode::land, SaveMode::interpolate}) {
      SolveOptions o = base_options(m, std::is_same_v<T, float>);
      o.gpu.chunks = 3;
      o.save_mode = mode;
      o.save_at_per_run = PerRunSaveTimes(n, times);
      const std::string what = to_string(m) + (mode == SaveMode::land ? " landed" : " interpolated");
      o.backend = Backend::cpu;
      const SolveResult<T> cpu = solve_ivp(Lorenz{}, batch, o);
      o.backend = Backend::gpu;
      const SolveResult<T> gpu = solve_ivp(Lorenz{}, batch, o);
      ASSERT_TRUE(cpu.all_succeeded()) << what;
      ASSERT_TRUE(gpu.all_succeeded()) << what;
      ASSERT_EQ(gpu.times(), cpu.times());
      // Interpolation adds its own error to the two steppers' difference: bounded by the CPU's
      // interpolated points against its landed ones (as LorenzSaveAtInterpolatedAndLanded).
      if (mode == SaveMode::land) cpu_landed = cpu;
      const double interpolation =
          mode == SaveMode::land ? 0.0 : batchode::testing::relative_difference(cpu_landed.series(), cpu.series());
      const double bound = batchode::testing::agreement_bound<T>(m, o.rtol, 1000) + 2 * interpolation;
      batchode::testing::expect_runs_agree(gpu, cpu, bound, what + " save_at_per_run");
      SolveOptions alone = o;
      alone.save_at_per_run = PerRunSaveTimes();
      alone.gpu.chunks = 0;
      for (std::size_t r : {std::size_t{0}, std::size_t{1}, std::size_t{333}, std::size_t{500}, runs - 1}) {
        alone.save_at.assign(times.begin() + r * n, times.begin() + (r + 1) * n);
        Batch<T> one;
        one.n_runs = 1;
        one.y0.assign(batch.y0.begin() + r * 3, batch.y0.begin() + r * 3 + 3);
        one.params.assign(batch.params.begin() + r * 3, batch.params.begin() + r * 3 + 3);
        const SolveResult<T> single = solve_ivp(Lorenz{}, one, alone);
        for (std::size_t k = 0; k < n; ++k) {
          for (std::size_t s = 0; s < 3; ++s) {
            ASSERT_EQ(gpu.state_at(r, k, s), single.state_at(0, k, s)) << what << " run " << r << " save " << k;
          }
        }
        ASSERT_EQ(gpu.counters(r).accepted_steps, single.counters(0).accepted_steps) << what << " run " << r;
      }
    }
  }
}

// Events (issue 12) on the GPU, run by run as the CPU path, every GPU method: the oscillator's zeros
// recorded (5 of x's, 3 of v's, in 3 chunks), then x's first zero as a terminal event: the same
// crossings counted, their times and states and the stopped states within the usual bound.
TEST(GpuSolver, EventsRecordedAndTerminalMatchTheCpu) {
  BATCHODE_REQUIRE_GPU();
  using batchode::testing::OscillatorEvents;
  Batch<double> batch;
  batch.n_runs = 1000;
  for (double w : linspace<double>(0.5, 3.0, batch.n_runs)) {
    batch.y0.insert(batch.y0.end(), {1.0, 0.0});
    batch.params.push_back(w);
  }
  for (Method m : all_methods) {
    if (!method_info(m).gpu) continue;
    SolveOptions o = base_options(m, false);
    o.t_end = 10.0;
    if (!method_info(m).adaptive) o.dt = 1e-3;
    o.gpu.chunks = 3;
    o.events = {{"x", EventDirection::both, EventAction::record, 5}, {"v", EventDirection::both, EventAction::record, 3}};
    for (EventAction first : {EventAction::record, EventAction::terminal}) {
      o.events[0].action = first;
      o.backend = Backend::cpu;
      const SolveResult<double> cpu = solve_ivp(OscillatorEvents{}, batch, o);
      o.backend = Backend::gpu;
      const SolveResult<double> gpu = solve_ivp(OscillatorEvents{}, batch, o);
      const std::string what = to_string(m) + (first == EventAction::terminal ? " terminal" : " recorded");
      const double bound = batchode::testing::agreement_bound<double>(m, o.rtol, 10000);
      batchode::testing::expect_runs_agree(gpu, cpu, bound, what);
      std::size_t reported = 0;
      for (std::size_t r = 0; r < batch.n_runs; ++r) {
        for (std::size_t e = 0; e < 2; ++e) {
          ASSERT_EQ(gpu.event_count(r, e), cpu.event_count(r, e)) << what << " run " << r << " event " << e;
          for (std::size_t j = 0; j < gpu.event_slots(); ++j) {
            const double a = gpu.event_time(r, e, j), b = cpu.event_time(r, e, j);
            if (std::isnan(b) && std::isnan(a)) continue;
            if (!(std::fabs(a - b) <= bound * std::max(1.0, std::fabs(b))) && reported++ < 10) {
              ADD_FAILURE() << what << " run " << r << " event " << e << " crossing " << j << ": " << a << " vs " << b;
            }
            for (std::size_t s = 0; s < 2; ++s) {
              const double x = gpu.event_state(r, e, j, s), y = cpu.event_state(r, e, j, s);
              if (!(std::fabs(x - y) <= bound * std::max(1.0, std::fabs(y))) && reported++ < 10) {
                ADD_FAILURE() << what << " run " << r << " event " << e << " state " << s << ": " << x << " vs " << y;
              }
            }
          }
        }
        if (first == EventAction::terminal) EXPECT_EQ(gpu.status(r), Status::stopped_by_event) << what;
      }
      EXPECT_EQ(reported, 0u) << what;
    }
  }
}

TEST(GpuSolver, ReusedSolverGivesIdenticalResults) {
  BATCHODE_REQUIRE_GPU();
  SolveOptions o = base_options(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.gpu.chunks = 5;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const Batch<double> a = lorenz_sweep<double>(2000), b = lorenz_sweep<double>(777);
  const auto first = solver.solve(a);
  const auto other = solver.solve(b);
  const auto again = solver.solve(a);
  EXPECT_EQ(first.final_state(), again.final_state());
  EXPECT_EQ(other.n_runs(), 777u);
  const auto fresh = solve_ivp(Lorenz{}, b, o);
  EXPECT_EQ(other.final_state(), fresh.final_state());
}

TEST(GpuSolver, RecycledResultMemoryIsPinnedAndTakesTheDownloadsDirectly) {
  BATCHODE_REQUIRE_GPU();
  // 200k runs: final states of 4.8 MB, a block the Solver's pool recycles. The first result's block
  // comes back page-locked; the next solve downloads into it without staging and must give the
  // same numbers as the first (staged) solve and as the CPU.
  SolveOptions o = base_options(Method::rk4, false);
  o.t_end = 0.05;
  o.backend = Backend::gpu;
  o.gpu.chunks = 3;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const Batch<double> batch = lorenz_sweep<double>(200'000);
  std::vector<double> staged;
  const double* block = nullptr;
  {
    const auto first = solver.solve(batch);
    staged.assign(first.final_state().begin(), first.final_state().end());
    block = first.final_state().data();
    ASSERT_NE(first.memory(), nullptr);
    EXPECT_FALSE(first.memory()->is_pinned(block, staged.size() * sizeof(double)));
  }
  const auto second = solver.solve(batch);
  ASSERT_EQ(second.final_state().data(), block) << "the pool did not recycle the block";
  EXPECT_TRUE(second.memory()->is_pinned(block, staged.size() * sizeof(double)));
  EXPECT_TRUE(second.all_succeeded());
  EXPECT_TRUE(std::equal(staged.begin(), staged.end(), second.final_state().begin()));
  SolveOptions c = o;
  c.backend = Backend::cpu;
  const auto cpu = solve_ivp(Lorenz{}, batch, c);
  batchode::testing::expect_runs_agree(second, cpu, batchode::testing::agreement_bound<double>(Method::rk4, 0, 50),
                                       "pinned result vs cpu");
}

TEST(GpuSolver, NonFiniteInputInALaterChunkIsNamedAndTheSolverRecovers) {
  BATCHODE_REQUIRE_GPU();
  // The GPU path checks values while staging each chunk, so a NaN in chunk 5 of 7 is met after
  // chunks 0-4 are in flight: the error must still name the run, and the Solver's buffers must be
  // left fit for the next solve.
  SolveOptions o = base_options(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.gpu.chunks = 7;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const Batch<double> good = lorenz_sweep<double>(7000);
  const auto before = solver.solve(good);
  Batch<double> bad_y0 = good, bad_param = good;
  bad_y0.y0[5321 * 3 + 2] = std::nan("");
  bad_param.params[6999 * 3 + 1] = -INFINITY;
  try {
    (void)solver.solve(bad_y0);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("initial value of run 5321 (index 2)"), std::string::npos) << what;
  }
  try {
    (void)solver.solve(bad_param);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("parameter of run 6999 (index 1) is -inf"), std::string::npos) << what;
  }
  const auto after = solver.solve(good);
  EXPECT_EQ(before.final_state(), after.final_state());
  EXPECT_TRUE(after.all_succeeded());
}

TEST(GpuSolver, AStopRequestEndsTheSolveBetweenChunksAndTheSolverRecovers) {
  BATCHODE_REQUIRE_GPU();
  // SolveOptions.stop (Ctrl-C in Python): checked before each chunk is queued; here set before the
  // solve, so it stops before chunk 0 and the Solver's buffers stay fit for the next solve. (A stop
  // in the middle of a solve, with chunks in flight: python/tests' test_ctrl_c_stops_a_gpu_solve.)
  std::atomic<bool> stop{false};
  SolveOptions o = base_options(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.gpu.chunks = 7;
  o.stop = &stop;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const Batch<double> batch = lorenz_sweep<double>(7000);
  const auto before = solver.solve(batch);
  stop = true;
  try {
    (void)solver.solve(batch);
    FAIL() << "expected SolveInterrupted";
  } catch (const SolveInterrupted& e) {
    EXPECT_NE(std::string(e.what()).find("on GPU 0 before chunk 0 of 7"), std::string::npos) << e.what();
  }
  stop = false;
  const auto after = solver.solve(batch);
  EXPECT_EQ(before.final_state(), after.final_state());
  EXPECT_TRUE(after.all_succeeded());
}

TEST(GpuSolver, ImpossibleBudgetIsRefusedWithNumbers) {
  BATCHODE_REQUIRE_GPU();
  SolveOptions o = base_options(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.gpu.memory_bytes = 16;  // less than one run needs
  try {
    (void)solve_ivp(Lorenz{}, lorenz_sweep<double>(100), o);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
  }
}

TEST(GpuSolver, TimingEventsRecordedPerChunk) {
  BATCHODE_REQUIRE_GPU();
  TimeLogger log(nullptr, Verbosity::normal);
  register_solver_events(log);
  std::ostringstream sink;
  log.set_output(&sink);
  SolveOptions o = base_options(Method::rk4, true);
  o.backend = Backend::gpu;
  o.gpu.chunks = 7;
  o.verbosity.reset();
  (void)solve_ivp(Lorenz{}, lorenz_sweep<float>(5000), o, log);
  EXPECT_EQ(log.stats(events::kernel_launch).count, 7u);
  EXPECT_EQ(log.stats(events::kernel_launch).gpu_count, 7u);
  EXPECT_GT(log.stats(events::kernel_launch).total_gpu_ms, 0.0);
  EXPECT_EQ(log.stats(events::h2d_transfer_initial_values).count, 7u);
  EXPECT_EQ(log.stats(events::d2h_transfer_state).count, 7u);
  EXPECT_EQ(log.stats(events::h2d_transfer_initial_values).total_nbytes, 5000 * 3 * 4);
  EXPECT_NE(sink.str().find("kernel_launch"), std::string::npos) << "summary printed at verbosity default";
}

}  // namespace
