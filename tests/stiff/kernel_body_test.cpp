// The GPU kernel's per-thread body (kernels::integrate_chunk_run with the Rosenbrock stepper) run on
// the host against the CPU path on a Robertson sweep over k3: the stiff GPU path's numerics are
// checked in CI, where no GPU exists (stiff_gpu_test repeats this on a device).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>

#include "gpu_compare.hpp"
#include "kernel_body_on_host.hpp"
#include "stiff_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Robertson;

template <class T>
class StiffKernelBody : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(StiffKernelBody, Precisions);

TYPED_TEST(StiffKernelBody, RobertsonSweepMatchesCpuPath) {
  using T = TypeParam;
  std::vector<T> y0, p;
  batchode::testing::robertson_k3_sweep<T>(64, y0, p);
  for (Method m : {Method::rodas4, Method::ros3p}) {
    SolveOptions o;
    o.outputs.counters = true;  // read below (counters are off by default)
    o.method = m;
    o.t_end = 40;
    o.rtol = std::is_same_v<T, float> ? 1e-4 : 1e-6;
    o.atol = std::is_same_v<T, float> ? 1e-8 : 1e-10;
    o.backend = Backend::cpu;
    o.verbosity = Verbosity::none;
    const SolveResult<T> cpu = solve_ivp(Robertson{}, y0, p, o);
    ASSERT_TRUE(cpu.all_succeeded()) << to_string(m);
    Batch<T> batch;
    batch.y0 = y0;
    batch.params = p;
    batch.n_runs = y0.size() / 3;
    const SolveResult<T> body = batchode::testing::run_kernel_body_on_host(Robertson{}, batch, o);
    // Same stepper code on both sides: equal up to the compiler's contraction choices.
    batchode::testing::expect_runs_agree(body, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 1000),
                                         to_string(m));
    for (std::size_t r = 0; r < cpu.n_runs(); ++r) {
      EXPECT_NEAR(double(body.counters(r).accepted_steps), double(cpu.counters(r).accepted_steps), 2.0);
    }
  }
}

}  // namespace
