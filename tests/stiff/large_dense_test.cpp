// Stiff methods on an 1100-state system with a dense Jacobian, on the CPU path (issue 44): a dense
// J and its LU are N^2 values each (9.7 MB in double here), each more than a worker thread's 8 MiB
// stack, so the stepper's matrices must live on the heap (rodas4's J and W, odeint's rosenbrock4's J). The
// solve runs on a thread whose stack is bounded to 8 MiB as a worker's is (one run: integrate_batch runs it
// on the calling thread), so a matrix on the stack crashes this test whatever the shell's stack limit. The
// final state is checked against the closed form. A system whose run would not fit in a thread's stack even
// so is refused up front, by size.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "bounded_stack.hpp"
#include "large_linear_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::mirrored_decay_solution;
using batchode::testing::MirroredDecay;

constexpr std::size_t kStates = 1100;
constexpr double kA = 1.0, kB = 0.5;

SolveOptions large_options(Method m) {
  SolveOptions o;
  o.outputs.counters = true;
  o.method = m;
  o.t_end = 1;
  o.rtol = 1e-6;
  o.atol = 1e-9;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  return o;
}

class LargeDense : public ::testing::TestWithParam<Method> {};

TEST_P(LargeDense, SolvesOnAWorkerSizedStack) {
  const SolveOptions o = large_options(GetParam());
  std::vector<double> y0(kStates);
  for (std::size_t i = 0; i < kStates; ++i) y0[i] = 1.0 + double(i % 7) / 7.0;
  const std::vector<double> p{kA, kB};
  const SolveResult<double> r =
      batchode::testing::on_bounded_stack([&] { return solve_ivp(MirroredDecay<kStates>{}, y0, p, o); });
  ASSERT_EQ(r.status(0), Status::success) << to_string(o.method);
  const std::vector<double> exact = mirrored_decay_solution(y0, kA, kB, o.t_end);
  double worst = 0;
  for (std::size_t i = 0; i < kStates; ++i) {
    worst =
        std::max(worst, std::fabs(r.final_state(0, i) - exact[i]) / (o.atol + o.rtol * std::fabs(exact[i])));
  }
  // Global error over a run: within a few local tolerances (reference_test.cpp's factor).
  EXPECT_LE(worst, 50.0) << to_string(o.method);
  std::printf("[ %s, %zu dense states ] worst error / (atol + rtol |exact|) = %.3g, %u steps\n",
              to_string(o.method).c_str(), kStates, worst, r.counters(0).accepted_steps);
}

INSTANTIATE_TEST_SUITE_P(Methods, LargeDense, ::testing::Values(Method::rodas4, Method::rosenbrock4),
                         [](const ::testing::TestParamInfo<Method>& param_info) {
                           return to_string(param_info.param);
                         });

// 100000 states at 64 bytes a state (an explicit method's vectors in double) is past the 6 MiB a run may
// take of a thread's stack: refused before any work, naming the state count and the limit.
struct TooManyStates : MirroredDecay<100000> {
  static constexpr Method compiled_methods[] = {Method::rk4};
};

TEST(LargeSystems, ARunTooLargeForAThreadsStackIsRefusedBySize) {
  SolveOptions o = large_options(Method::rk4);
  o.dt = 0.1;
  const std::vector<double> y0(TooManyStates::n_states, 1.0), p{kA, kB};
  try {
    (void)solve_ivp(TooManyStates{}, y0, p, o);
    ADD_FAILURE() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(
        std::string(e.what()).find("the system has 100000 states, more than the 98304 that method rk4 in "
                                   "double can take on the CPU"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
