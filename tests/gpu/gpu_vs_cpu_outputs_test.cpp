// GPU vs CPU, run by run, for what a solve keeps besides states: observables, chosen series
// variables, summaries and per-run save times, both precisions.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "gpu_compare.hpp"
#include "gpu_vs_cpu_setup.hpp"
#include "require_gpu.hpp"
#include "summary_reference.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using namespace batchode::testing::gpu_vs_cpu;
using batchode::testing::Lorenz;

template <class T>
class GpuVsCpuOutputs : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuVsCpuOutputs, Precisions);

/// Lorenz with two observables: x y and the distance from the origin.
struct LorenzObserved : Lorenz {
  static constexpr std::size_t n_observables = 2;
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T, const T* y, const T*, T* out) const {
    out[0] = y[0] * y[1];
    out[1] = batchode::port::sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
  }
};

// Observables on the GPU, landed and interpolated, in 3 chunks: each the function of the saved state
// (to rounding: the device may fuse the products), and the CPU's run by run.
TYPED_TEST(GpuVsCpuOutputs, LorenzObservablesAreThoseOfTheSavedStates) {
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

// The series' variables chosen by name (save_variables), landed and interpolated, in 3 chunks: the GPU
// writes the chosen columns of its own full series bit for bit (the masked sinks change no arithmetic),
// and they agree with the CPU's chosen columns run by run.
TYPED_TEST(GpuVsCpuOutputs, LorenzChosenSeriesVariablesAreColumnsOfTheFullSeries) {
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
TYPED_TEST(GpuVsCpuOutputs, LorenzSummariesAreThoseOfTheSamplesAndMatchTheCpu) {
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
TYPED_TEST(GpuVsCpuOutputs, LorenzSaveAtPerRunEqualsEachRunsOwnList) {
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

}  // namespace
