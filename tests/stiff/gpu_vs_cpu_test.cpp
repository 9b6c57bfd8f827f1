// The stiff GPU path against the CPU path, run by run: a Robertson sweep over k3 (1e2 .. 1e6) with
// rodas4, ros3p, rodas5p, kvaerno5, radau5, kvaerno3 and kencarp4, float and double, final states, statuses
// and step counts; BRUSS (16 states) in band storage with rodas4, rodas5p, kvaerno5 and radau5; Robertson as
// a DAE (y3 algebraic) with rodas4, rodas5p and radau5, from an inconsistent guess.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>

#include "gpu_compare.hpp"
#include "require_gpu.hpp"
#include "stiff_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Robertson;

template <class T>
class StiffGpuVsCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(StiffGpuVsCpu, Precisions);

TYPED_TEST(StiffGpuVsCpu, RobertsonK3Sweep) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<T> y0, p;
  batchode::testing::robertson_k3_sweep<T>(2000, y0, p);
  for (Method m : {Method::rodas4, Method::ros3p, Method::rodas5p, Method::kvaerno5, Method::radau5,
                   Method::kvaerno3, Method::kencarp4}) {
    SolveOptions o;
    o.outputs.counters = true;  // read below (counters are off by default)
    o.method = m;
    o.t_end = 40;
    o.rtol = std::is_same_v<T, float> ? 1e-4 : 1e-6;
    o.atol = std::is_same_v<T, float> ? 1e-8 : 1e-10;
    o.verbosity = Verbosity::none;
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(Robertson{}, y0, p, o);
    ASSERT_TRUE(cpu.all_succeeded()) << to_string(m);
    o.backend = Backend::gpu;
    const SolveResult<T> gpu = solve_ivp(Robertson{}, y0, p, o);
    ASSERT_EQ(gpu.execution().at(0).backend, BackendId::gpu(0));
    batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 1000),
                                         to_string(m));
    std::size_t step_mismatch = 0;
    for (std::size_t r = 0; r < cpu.n_runs(); ++r) {
      if (std::abs(int(gpu.counters(r).accepted_steps) - int(cpu.counters(r).accepted_steps)) > 2) ++step_mismatch;
    }
    // Double: the same decisions up to rounding. Float: an accept/reject flip now and then is allowed,
    // and more for an implicit method, whose Newton iteration adds decisions that rounding flips (the
    // iterations a stage takes, a Jacobian kept or not): kvaerno5, 192 of 2000 runs on the H200.
    const bool implicit = tableau::dispatch(m, [](auto tag) {
      using Tab = typename decltype(tag)::type;
      return tableau::is_esdirk_v<Tab> || tableau::is_radau_v<Tab>;
    });
    const std::size_t allowed = std::is_same_v<T, double> ? 0 : cpu.n_runs() / (implicit ? 5 : 20);
    EXPECT_LE(step_mismatch, allowed)
        << to_string(m) << ": " << step_mismatch << " of " << cpu.n_runs() << " runs took other step counts";
  }
}

// The DAE path (mass matrix, the consistent start by Newton at t0): Robertson with y3 algebraic, a k3
// sweep from the guess y3 = 0.5, saves at four times, the GPU's runs against the CPU's.
TYPED_TEST(StiffGpuVsCpu, RobertsonDaeK3Sweep) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<T> y0, p;
  batchode::testing::robertson_k3_sweep<T>(2000, y0, p);
  for (std::size_t r = 0; r < y0.size() / 3; ++r) y0[3 * r + 2] = T(0.5);
  for (Method m : {Method::rodas4, Method::rodas5p, Method::radau5}) {
    SolveOptions o;
    o.outputs.counters = true;
    o.method = m;
    o.t_end = 40;
    o.save_every = 10;
    o.rtol = std::is_same_v<T, float> ? 1e-4 : 1e-6;
    o.atol = std::is_same_v<T, float> ? 1e-8 : 1e-10;
    o.verbosity = Verbosity::none;
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(batchode::testing::RobertsonDae{}, y0, p, o);
    ASSERT_TRUE(cpu.all_succeeded()) << to_string(m);
    EXPECT_EQ(cpu.state_at(0, 0, 2), T(0)) << "the consistent y3 at t0";
    o.backend = Backend::gpu;
    const SolveResult<T> gpu = solve_ivp(batchode::testing::RobertsonDae{}, y0, p, o);
    ASSERT_EQ(gpu.execution().at(0).backend, BackendId::gpu(0));
    batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 1000),
                                         to_string(m) + " DAE");
  }
}

// A stiff system in band storage (BRUSS, 16 states, rodas4, rodas5p, kvaerno5 and radau5: J by AD in 5 column
// groups, a band LU), a sweep of A: the GPU's runs against the CPU's. 16 states keeps this file's build in
// CI's budget (every method is instantiated for the system); the loops past 16 states run on the GPU in
// solver_runtime_model_gpu_test's 64-state BRUSS.
TYPED_TEST(StiffGpuVsCpu, BrussInBandStorage) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  constexpr std::size_t m = 8;
  const std::vector<double> start = batchode::testing::bruss_initial_state(m);
  std::vector<T> y0, a;
  for (std::size_t r = 0; r < 1000; ++r) {
    for (double v : start) y0.push_back(T(v));
    a.push_back(T(0.9 + 0.2 * double(r) / 1000.0));
  }
  for (Method method : {Method::rodas4, Method::rodas5p, Method::kvaerno5, Method::radau5}) {
    SolveOptions o;
    o.outputs.counters = true;
    o.method = method;
    o.t_end = 1;
    o.rtol = std::is_same_v<T, float> ? 1e-4 : 1e-6;
    o.atol = o.rtol;
    o.verbosity = Verbosity::none;
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(batchode::testing::Bruss<m>{}, y0, a, o);
    ASSERT_TRUE(cpu.all_succeeded()) << to_string(method);
    o.backend = Backend::gpu;
    const SolveResult<T> gpu = solve_ivp(batchode::testing::Bruss<m>{}, y0, a, o);
    ASSERT_EQ(gpu.execution().at(0).backend, BackendId::gpu(0));
    batchode::testing::expect_runs_agree(
        gpu, cpu, batchode::testing::agreement_bound<T>(method, o.rtol, 1000), "bruss " + to_string(method));
  }
}

}  // namespace
