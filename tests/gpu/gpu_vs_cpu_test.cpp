// GPU vs CPU, run by run: every method, both precisions, several chunkings (automatic, 7 forced
// chunks with a partial last one, 3 chunks), runs that must fail, series, saves landed and
// interpolated. (Outputs: gpu_vs_cpu_outputs_test.cpp; the solver's buffers, budgets and stops:
// gpu_vs_cpu_solver_test.cpp.)
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gpu_compare.hpp"
#include "gpu_vs_cpu_setup.hpp"
#include "require_gpu.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using namespace batchode::testing::gpu_vs_cpu;
using batchode::testing::Lorenz;

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
    const SolveResult<T> cpu = solve_ivp(batchode::testing::BlowUp{}, y0, p, o);
    EXPECT_GT(cpu.count(Status::success), 0u);
    EXPECT_LT(cpu.count(Status::success), runs) << "some runs must fail";
    o.backend = Backend::gpu;
    o.gpu.chunks = 4;
    const SolveResult<T> gpu = solve_ivp(batchode::testing::BlowUp{}, y0, p, o);
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

}  // namespace
