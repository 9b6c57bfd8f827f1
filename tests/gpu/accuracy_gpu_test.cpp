// The standing accuracy sweep (tests/support/accuracy_problems.hpp) on the device: every method the
// GPU runs, on every problem and tolerance, against the exact solutions with the bounds of the CPU
// sweep (tests/kernels/methods/accuracy_test.cpp), and against the CPU backend run by run.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>

#include "accuracy_problems.hpp"
#include "gpu_compare.hpp"
#include "require_gpu.hpp"

namespace {

using namespace batchode;
using namespace batchode::testing::accuracy;

template <class T>
class GpuAccuracy : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuAccuracy, Precisions);

TYPED_TEST(GpuAccuracy, EveryMethodMeetsItsToleranceAndMatchesTheCpu) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  for_each_problem([&](auto problem) {
    using Problem = decltype(problem);
    const Batch<T> batch = batch_of<Problem, T>();
    for (Method m : adaptive_methods()) {
      if (cpu_only(m)) continue;
      for (double tol : tolerances<T>()) {
        SolveOptions o = sweep_options(m, Problem::t0, Problem::t_end, tol);
        const SolveResult<T> cpu = solve_ivp(Problem{}, batch, o);
        o.backend = Backend::gpu;
        const SolveResult<T> gpu = solve_ivp(Problem{}, batch, o);
        const std::string what = to_string(m) + " on " + Problem::name + " at tol " + std::to_string(tol);
        ASSERT_EQ(gpu.execution().at(0).backend, batchode::BackendId::gpu(0)) << what;
        const double e = scaled_error<Problem>(gpu, tol, tol);
        EXPECT_LE(e, Bounds::max_scaled_error(m, most_steps(gpu))) << what;
        EXPECT_GE(e, Bounds::min_scaled_error) << what;
        EXPECT_LE(most_steps(gpu), step_ceiling(m, tol, Problem::stiff)) << what;
        batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(m, tol, 1000), what);
      }
    }
  });
}

// Fixed steps: the GPU takes the CPU's steps on every non-stiff problem, from t0 != 0 too.
TYPED_TEST(GpuAccuracy, FixedStepMethodsMatchTheCpu) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  for_each_problem([&](auto problem) {
    using Problem = decltype(problem);
    if (Problem::stiff) return;
    const Batch<T> batch = batch_of<Problem, T>();
    for (Method m : all_methods) {
      if (method_info(m).adaptive) continue;
      SolveOptions o = sweep_options(m, Problem::t0, Problem::t_end, 1e-6);
      o.dt = 1.0 / 64;
      const SolveResult<T> cpu = solve_ivp(Problem{}, batch, o);
      o.backend = Backend::gpu;
      const SolveResult<T> gpu = solve_ivp(Problem{}, batch, o);
      const std::size_t steps = static_cast<std::size_t>((Problem::t_end - Problem::t0) * 64);
      batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(m, 1e-6, steps),
                                           to_string(m) + " on " + Problem::name);
    }
  });
}

}  // namespace
