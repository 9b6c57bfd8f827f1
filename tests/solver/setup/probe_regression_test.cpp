// Regressions from the bad-input probe (issue 20): each case once gave a wrong answer as success, a
// hang or undefined behaviour. Now: the right answer, or an InvalidInput that names the problem.
//  1  ros3p's blind embedded estimate (wrong answers as success on linear problems)
//  2  fixed steps whose count overflows 64 bits (hang, UB) or exceeds max_steps
//  6  options valid in double but not in float (span, save spacing, range)
//  7  tolerances that round to 0 in float
//  8  max_steps beyond the 32-bit step counters
//  13 rosenbrock4 on a time-dependent problem (Boost's d4 sign)
// and from the second probe (issue 44):
//  4  float32 with a tolerance float32 cannot meet (a floor, said in a warning)
//  7  events missed where steps outgrow them (dt_max, which the command line and Python now offer)
//  14 a span t_end - t0 that overflows to infinity
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "expect_invalid_input.hpp"
#include "kernel_body_on_host.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using ::testing::HasSubstr;
using batchode::testing::Decay;

/// y' = p y.
struct Linear {
  static constexpr std::size_t n_states = 1, n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = p[0] * y[0];
  }
};

/// y' = -2 (y - cos t) - sin t, y(0) = 2: y = cos t + exp(-2 t).
struct Forced {
  static constexpr std::size_t n_states = 1, n_params = 0;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T*, T* f) const {
    using std::cos, std::sin;
    f[0] = -2 * (y[0] - cos(t)) - sin(t);
  }
};

SolveOptions quiet(Method m) {
  SolveOptions o;
  o.outputs.counters = true;  // read below (counters are off by default)
  o.method = m;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  return o;
}

/// y' = 0 with one event function, sin(10 t): it crosses zero at t = k pi / 10, whatever the state.
struct Ticking {
  static constexpr std::size_t n_states = 1, n_params = 0, n_events = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T*, const T*, T* f) const {
    f[0] = 0;
  }
  template <class T>
  BATCHODE_HOST_DEVICE void events(T t, const T*, const T*, T* g) const {
    using std::sin;
    g[0] = sin(10 * t);
  }
};

/// The InvalidInput message of solving one run (y0, p) of `sys` with `o` in precision T.
template <class T = double, class System>
std::string refusal(const System& sys, const SolveOptions& o, std::vector<T> y0, std::vector<T> p) {
  return batchode::testing::invalid_input_message([&] { (void)solve_ivp(sys, y0, p, o); });
}

// Item 1: the probe's three cases, for ros3p and every other stiff method.
TEST(ProbeRegression, StiffMethodsMeetTheToleranceOnLinearProblems) {
  for (Method m : stiff_methods) {
    SolveOptions o = quiet(m);
    o.rtol = o.atol = 1e-6;
    const SolveResult<double> growth = solve_ivp(Linear{}, std::vector<double>{1}, std::vector<double>{8}, o);
    ASSERT_EQ(growth.status(0), Status::success) << to_string(m);
    EXPECT_NEAR(growth.final_state(0, 0) / std::exp(8.0), 1.0, 1e-4) << to_string(m);

    o.t_end = 10;
    const SolveResult<double> osc =
        solve_ivp(batchode::testing::Oscillator{}, std::vector<double>{1, 0}, std::vector<double>{1}, o);
    EXPECT_NEAR(osc.final_state(0, 0), std::cos(10.0), 1e-4) << to_string(m);

    o.t_end = 1;
    o.rtol = o.atol = 1e-9;
    const SolveResult<double> decay = solve_ivp(Linear{}, std::vector<double>{1}, std::vector<double>{-1}, o);
    EXPECT_NEAR(decay.final_state(0, 0), std::exp(-1.0), 1e-7) << to_string(m);
    EXPECT_GT(decay.counters(0).accepted_steps, 10u) << to_string(m) << " cannot meet 1e-9 in a few steps";
  }
}

// Item 13: rosenbrock4 on the probe's time-dependent problem, against the exact solution.
TEST(ProbeRegression, Rosenbrock4OnATimeDependentProblem) {
  for (Method m : {Method::rosenbrock4, Method::rodas4}) {
    SolveOptions o = quiet(m);
    o.t_end = 10;
    o.rtol = o.atol = 1e-9;
    const SolveResult<double> r = solve_ivp(Forced{}, std::vector<double>{2}, std::vector<double>{}, o);
    ASSERT_EQ(r.status(0), Status::success);
    const double exact = std::cos(10.0) + std::exp(-20.0);
    EXPECT_LT(std::fabs(r.final_state(0, 0) - exact) / std::fabs(exact), 1e-7) << to_string(m);
    EXPECT_LT(r.counters(0).accepted_steps, 2000u) << to_string(m);  // Boost's d4 took 17k
  }
}

// Item 2: a fixed-step count beyond max_steps (or beyond 64 bits) is refused before any work.
TEST(ProbeRegression, FixedStepCountBeyondMaxStepsIsRefused) {
  SolveOptions o = quiet(Method::rk4);
  o.dt = 1;
  o.t_end = 1e300;
  o.max_steps = 10;
  EXPECT_THAT(refusal(Linear{}, o, {1.0}, {-1.0}), HasSubstr("more than max_steps = 10"));
  for (double dt : {1e-20, 5e-324}) {
    SolveOptions e = quiet(Method::euler);
    e.dt = dt;
    EXPECT_THAT(refusal(Linear{}, e, {1.0}, {-1.0}), HasSubstr("more than max_steps")) << dt;
  }
}

// Item 2, the loop itself (a plan that skipped validation, as a kernel gets it): no hang, no
// undefined conversion; the run stops at max_steps.
TEST(ProbeRegression, FixedStepLoopStopsAtMaxStepsWhateverTheCount) {
  for (double t_end : {1e300, 1e25, 5.0}) {
    SolveOptions o = quiet(Method::rk4);
    o.dt = 1;
    o.t_end = t_end;
    o.max_steps = 3;
    Batch<double> one;
    one.y0 = {1};
    one.params = {-1};
    one.n_runs = 1;
    const SolveResult<double> r = batchode::testing::run_kernel_body_on_host(Linear{}, one, o);
    EXPECT_EQ(r.status(0), Status::max_steps_reached) << t_end;
    EXPECT_EQ(r.counters(0).accepted_steps, 3u) << t_end;
  }
}

// Item 6: checked in the solve's precision.
TEST(ProbeRegression, OptionsAreCheckedInTheSolvesPrecision) {
  SolveOptions o = quiet(Method::dopri5);
  o.t0 = 1;
  o.t_end = 1 + 5e-8;
  o.save_every = 1e-8;
  EXPECT_THAT(refusal<float>(Linear{}, o, {1.0f}, {-1.0f}), HasSubstr("same time in float"));
  const SolveResult<double> fine = solve_ivp(Linear{}, std::vector<double>{1}, std::vector<double>{-1}, o);
  EXPECT_EQ(fine.status(0), Status::success);
  EXPECT_LT(fine.times()[1], fine.times()[2]);  // double resolves these saves

  o.t0 = 1e6;
  o.t_end = 1e6 + 1;
  o.save_every = 0.01;  // float's spacing at 1e6 is 0.0625
  EXPECT_THAT(refusal<float>(Linear{}, o, {1.0f}, {-1.0f}),
              HasSubstr("save_every = 0.01 is below 4 spacings of float"));

  SolveOptions big = quiet(Method::dopri5);
  big.t_end = 1e39;
  EXPECT_THAT(refusal<float>(Linear{}, big, {1.0f}, {-1.0f}), HasSubstr("beyond float's range"));
  big.method = Method::rk4;
  big.dt = 1;
  EXPECT_THAT(refusal<float>(Linear{}, big, {1.0f}, {-1.0f}), HasSubstr("beyond float's range"));
}

// Item 7: 1e-50 is 0 in float.
TEST(ProbeRegression, TolerancesThatRoundToZeroAreRefused) {
  SolveOptions o = quiet(Method::dopri5);
  o.rtol = o.atol = 1e-50;
  EXPECT_THAT(refusal<float>(Linear{}, o, {1.0f}, {-1.0f}), HasSubstr("rtol = 1e-50 is 0 in float"));
  o.rtol = 1e-6;
  EXPECT_THAT(refusal<float>(Linear{}, o, {1.0f}, {-1.0f}), HasSubstr("atol = 1e-50 is 0 in float"));
  const SolveResult<double> fine = solve_ivp(Linear{}, std::vector<double>{1}, std::vector<double>{-1}, o);
  EXPECT_EQ(fine.status(0), Status::success);
}

// Item 8: max_steps beyond what the 32-bit counters hold.
TEST(ProbeRegression, MaxStepsBeyondTheCountersIsRefused) {
  SolveOptions o = quiet(Method::euler);
  o.dt = 2e-10;
  o.max_steps = 10'000'000'000ull;
  EXPECT_THAT(refusal(Linear{}, o, {1.0}, {-1.0}), HasSubstr("per-run step counters are 32-bit"));
  o.max_steps = max_steps_limit;
  o.dt = 0.25;
  const SolveResult<double> fine = solve_ivp(Linear{}, std::vector<double>{1}, std::vector<double>{-1}, o);
  EXPECT_EQ(fine.counters(0).accepted_steps, 4u);
}

// Issue 44 item 4: rtol 1e-12 in float32 took 93,636 steps and ended 9e-6 off exp(-1), as success
// and without a word. Now the Solver raises rtol to float32's floor (1e-6), says so on stderr naming
// both, and the answer is within what that tolerance promises.
TEST(ProbeRegression, AFloat32ToleranceBelowItsFloorIsRaisedWithAWarning) {
  SolveOptions o = quiet(Method::dopri5);
  o.t_end = 1.0;
  o.rtol = 1e-12;
  o.atol = 1e-14;
  ::testing::internal::CaptureStderr();
  Solver<Decay, float> solver(Decay{}, o);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(said, HasSubstr("batchode: warning: rtol = 1e-12 is below what float32 arithmetic can meet; using "
                              "rtol = 1e-06"));
  EXPECT_EQ(solver.options().rtol, rtol_floor<float>());
  const SolveResult<float> r = solver.solve(std::vector<float>{1.0f}, std::vector<float>{1.0f});
  ASSERT_EQ(r.status(0), Status::success);
  EXPECT_NEAR(r.final_state(0, 0), std::exp(-1.0), 1e-5 * std::exp(-1.0));
  EXPECT_LT(r.counters(0).accepted_steps, 200u) << "the steps of rtol 1e-6, not of 1e-12";
  // In float64 the same tolerance is allowed, and nothing is said.
  ::testing::internal::CaptureStderr();
  Solver<Decay, double> exact(Decay{}, o);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(exact.options().rtol, 1e-12);
}

// Issue 44 item 7: with the step as long as the span, an event function that crosses zero 31 times
// was seen to cross once. dt_max below the crossings' spacing (pi / 10) sees each one, at its time.
TEST(ProbeRegression, DtMaxBelowTheCrossingsSpacingSeesEveryCrossing) {
  for (Method m : {Method::dopri5, Method::rodas4}) {
    SolveOptions o = quiet(m);
    o.t_end = 10.0;
    o.step_control.dt_max = 0.05;
    o.events = {{"tick", EventDirection::both, EventAction::record, 40}};
    const auto r = solve_ivp(Ticking{}, std::vector<double>{0.0}, std::vector<double>{}, o);
    ASSERT_EQ(r.event_count(0, 0), 31u) << to_string(m);
    for (std::size_t k = 0; k < 31; ++k) {
      EXPECT_NEAR(r.event_time(0, 0, k), double(k + 1) * std::acos(-1.0) / 10, 1e-6) << to_string(m) << " crossing " << k;
    }
  }
}

// Issue 44 item 14: --t0 -1e308 --t-end 1e308 was accepted (each end finite) and every run ended as
// step_size_underflow: the span is infinite in double.
TEST(ProbeRegression, ASpanThatOverflowsIsRefused) {
  SolveOptions o = quiet(Method::dopri5);
  o.t0 = -1e308;
  o.t_end = 1e308;
  EXPECT_THAT(refusal(Decay{}, o, {1.0}, {1.0}), HasSubstr("the span t_end - t0 = 1e+308 - (-1e+308) overflows to infinity"));
}

}  // namespace
