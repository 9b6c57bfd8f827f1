// The GPU kernel's per-thread body (kernels::integrate_chunk_run with the Rosenbrock stepper) run on
// the host against the CPU path on a Robertson sweep over k3: the stiff GPU path's numerics are
// checked in CI, where no GPU exists (stiff_gpu_test repeats this on a device).
#include <gtest/gtest.h>

#include <batchode/arrays/device_views.hpp>
#include <batchode/batchode.hpp>
#include <batchode/kernels/batch_kernel.hpp>

#include "gpu_compare.hpp"
#include "stiff_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Robertson;

template <class Tab, class T>
SolveResult<T> run_body_on_host(const std::vector<T>& y0, std::vector<T> params, const SolveOptions& o) {
  const std::size_t runs = y0.size() / 3;
  std::vector<T> y(y0), final_state(3 * runs);
  std::vector<std::int32_t> status(runs);
  std::vector<std::uint32_t> acc(runs), rej(runs), evals(runs);
  const arrays::DeviceInputs<T> in{y.data(), params.data(), runs};
  const arrays::DeviceOutputs<T> out{final_state.data(), nullptr, status.data(), acc.data(),
                                     rej.data(),         evals.data(), runs, 0u};
  const RunPlan<T> plan = make_run_plan<T>(o);
  for (std::size_t r = 0; r < runs; ++r) kernels::integrate_chunk_run<Tab, false>(Robertson{}, plan, in, out, r);
  SolveResult<T> result(runs, 3, 0, o);
  std::copy(final_state.begin(), final_state.end(), result.final_state_data());
  for (std::size_t r = 0; r < runs; ++r) {
    result.status_data()[r] = static_cast<Status>(status[r]);
    result.counters_data()[r] = RunCounters{acc[r], rej[r], evals[r]};
  }
  return result;
}

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
    o.method = m;
    o.t_end = 40;
    o.rtol = std::is_same_v<T, float> ? 1e-4 : 1e-6;
    o.atol = std::is_same_v<T, float> ? 1e-8 : 1e-10;
    o.backend = Backend::cpu;
    o.verbosity = Verbosity::none;
    const SolveResult<T> cpu = solve_ivp(Robertson{}, y0, p, o);
    ASSERT_TRUE(cpu.all_succeeded()) << to_string(m);
    const SolveResult<T> body = tableau::dispatch(m, [&](auto tag) {
      using Tab = typename decltype(tag)::type;
      if constexpr (tableau::is_rosenbrock_v<Tab>) {
        return run_body_on_host<Tab>(y0, p, o);
      } else {
        ADD_FAILURE() << "not a Rosenbrock table";
        return cpu;
      }
    });
    // Same stepper code on both sides: equal up to the compiler's contraction choices.
    batchode::testing::expect_runs_agree(body, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 1000),
                                         to_string(m));
    for (std::size_t r = 0; r < cpu.n_runs(); ++r) {
      EXPECT_NEAR(double(body.counters(r).accepted_steps), double(cpu.counters(r).accepted_steps), 2.0);
    }
  }
}

}  // namespace
