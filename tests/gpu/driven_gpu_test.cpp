// Driven systems on the GPU (issue 11, drivers): ForcedDecay, y' = -a y + b u(t) + v(t), 1000 runs in 3
// chunks (so a chunk's runs read per-run sets from its first run on), u one set per run, v shared at
// uneven times, linear and cubic, dopri5, rk4 and rodas4, float and double. Run by run the GPU equals
// the CPU (the usual agreement bounds), the drivers the system read (its observables) are the CPU's,
// and the series is the closed form of the fitted inputs (tests/support/forced_decay_reference.hpp).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "forced_decay_reference.hpp"
#include "gpu_compare.hpp"
#include "require_gpu.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::ForcedDecay;

constexpr double t_end = 5.0;
constexpr std::size_t runs = 1000;

template <class T>
Batch<T> forced_batch() {
  Batch<T> b;
  b.n_runs = runs;
  for (std::size_t r = 0; r < runs; ++r) {
    b.y0.push_back(static_cast<T>(1.0 - 0.001 * double(r)));
    b.params.push_back(static_cast<T>(0.5 + 0.002 * double(r)));
    b.params.push_back(static_cast<T>(1.0 - 0.0005 * double(r)));
  }
  return b;
}

/// u: run r's sin((1 + 0.002 r) t) every 0.1; v: 0.5 cos(2 t) at uneven times, shared.
std::vector<DriverSpec> forced_drivers(int order) {
  DriverSpec u = batchode::testing::sampled_driver(
      "u", 0.1, 51, runs, [](std::size_t r, double t) { return std::sin((1 + 0.002 * double(r)) * t); });
  u.order = order;
  return {u, batchode::testing::uneven_cosine_driver(order, t_end)};
}

template <class T>
class DrivenGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DrivenGpu, Precisions);

TYPED_TEST(DrivenGpu, ForcedDecayEqualsTheCpuAndTheClosedFormRunByRun) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  constexpr bool single = std::is_same_v<T, float>;
  const Batch<T> batch = forced_batch<T>();
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    for (int order : {1, 3}) {
      SolveOptions o;
      o.method = m;
      o.t_end = t_end;
      o.verbosity = Verbosity::none;
      o.outputs.counters = true;
      o.rtol = o.atol = single ? 1e-6 : 1e-10;
      if (m == Method::rk4) o.dt = 1e-3;
      o.save_every = 0.25;
      o.gpu.chunks = 3;
      o.drivers = forced_drivers(order);
      const std::string what = to_string(m) + (order == 1 ? " linear" : " cubic") + (single ? " float32" : " float64");
      o.backend = Backend::gpu;
      const SolveResult<T> gpu = solve_ivp(ForcedDecay{}, batch, o);
      ASSERT_EQ(gpu.execution().at(0).backend, BackendId::gpu(0)) << what;
      ASSERT_EQ(gpu.execution().at(0).chunks, 3u) << what;
      o.backend = Backend::cpu;
      const SolveResult<T> cpu = solve_ivp(ForcedDecay{}, batch, o);
      ASSERT_TRUE(gpu.all_succeeded()) << what;
      ASSERT_TRUE(cpu.all_succeeded()) << what;
      const double bound = batchode::testing::agreement_bound<T>(m, o.rtol, 5000);
      batchode::testing::expect_runs_agree(gpu, cpu, bound, what);
      // The drivers the system read: u itself, and y + v.
      const double u_differs = batchode::testing::relative_difference(gpu.observables(), cpu.observables());
      EXPECT_LT(u_differs, 2 * bound) << what;
      // The closed form of the fitted inputs.
      const std::vector<FittedDriver> fit = fit_drivers(o.drivers, {"u", "v"}, 2, 0.0, t_end);
      double worst = 0;
      for (std::size_t r = 0; r < runs; ++r) {
        std::vector<double> times;
        for (std::size_t k = 0; k < gpu.n_saves(); ++k) times.push_back(static_cast<double>(gpu.time(r, k)));
        const std::vector<double> exact =
            batchode::testing::forced_decay_exact(fit[0], fit[1], r, batch.params[2 * r], batch.params[2 * r + 1],
                                                  batch.y0[r], 0.0, times);
        for (std::size_t k = 0; k < gpu.n_saves(); ++k) {
          worst = std::max(worst, std::fabs(static_cast<double>(gpu.state_at(r, k, 0)) - exact[k]));
        }
      }
      const double exact_bound = single ? 5e-5 : m == Method::rk4 ? 1e-7 : m == Method::rodas4 ? 5e-8 : 2e-9;
      EXPECT_LT(worst, exact_bound) << what;
      std::printf("[ driven ] %-7s %s GPU vs CPU %.2g (bound %.2g), vs closed form %.2g (bound %.2g)\n",
                  to_string(m).c_str(), what.c_str() + to_string(m).size(), u_differs, bound, worst, exact_bound);
    }
  }
}

}  // namespace
