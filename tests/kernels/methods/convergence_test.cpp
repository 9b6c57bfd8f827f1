// Measured order of every method: constant steps over the harmonic oscillator (exact solution),
// halving the step. Adaptive methods are driven step by step through both steppers that carry them
// (the GPU's register stepper and the CPU path's odeint stepper), since integrate_run would adapt the
// step; the fixed-step methods are also measured end to end through solve_ivp with dt.
// A linear problem checks only the "tall" order conditions; tableau_test checks every tree up to
// order 5 on the coefficients themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/backends/cpu/odeint_steppers.hpp>
#include <batchode/batchode.hpp>
#include <batchode/kernels/methods/rk_stepper.hpp>
#include <batchode/kernels/methods/tableaux.hpp>
#include <cmath>
#include <string>

#include "test_systems.hpp"

namespace {

namespace tableau = batchode::tableau;
using batchode::testing::Oscillator;

// An order differing by more than 0.3 from the method's is a wrong method, not pre-asymptotic noise:
// at the steps below, the measured orders sit within 0.07 of the theoretical ones.
constexpr double kOrderTol = 0.3;

// The span and coarsest step count of each method, chosen in the asymptotic range and with the finest
// error (n0 * 4 steps) still >= floor, 1e-12 (four decades above the 1e-16 rounding floor) but for
// vern9: its ninth order leaves no step in double where the error is both asymptotic and that far
// above rounding, so its floor is 1e-14 and its first ratio (h -> h/2) may still come from above, by
// up to `above` (measured: 9.57 then 9.17 for the global error, 9.66 then 9.28 for the estimate).
struct Range {
  double t_end;
  int n0;
  double floor = 1e-12;
  double above = 0.0;
};
template <class Tab>
constexpr Range range() {
  switch (Tab::method) {
    case batchode::Method::euler: return {1.0, 64};
    case batchode::Method::tsit5: return {10.0, 128};  // Tsit5 reaches its asymptotic order late
    case batchode::Method::fehlberg78: return {10.0, 16};
    case batchode::Method::dop853:
      return {10.0, 10};
    case batchode::Method::vern7:
      return {10.0, 18};  // 7.24 and 7.07; finest error 3.8e-12
    case batchode::Method::vern9:
      return {10.0, 14, 1e-14, 0.7};
    default: return {10.0, 64};
  }
}

struct Errors {
  double global;  // |y_n - y(t_end)| after n steps
  double local;   // |embedded estimate| of the first step
};

// Oscillator with w = 1 from (1, 0): y(t) = (cos t, -sin t).
template <class Stepper>
Errors oscillator_errors(double t_end, int n) {
  const Oscillator sys;
  const double p[1] = {1.0};
  Stepper stepper;
  typename Stepper::state_type y{}, y_new{}, err{};
  y[0] = 1.0;
  y[1] = 0.0;
  const double h = t_end / n;
  // dop853 weighs its two estimates by the tolerances' scale (any: on this problem it cancels).
  if constexpr (batchode::detail::takes_tolerances<Stepper, double>::value)
    stepper.use_tolerances(1e-6, 1e-6);
  stepper.reset(sys, 0.0, y, p);
  double local = 0;
  for (int k = 0; k < n; ++k) {
    stepper.step(sys, k * h, y, p, h, y_new, err);
    if (k == 0 && Stepper::adaptive) local = std::hypot(err[0], err[1]);
    y = y_new;
    stepper.accept(sys, (k + 1) * h, y, p);
  }
  return {std::hypot(y[0] - std::cos(t_end), y[1] + std::sin(t_end)), local};
}

template <class Tab>
class Convergence : public ::testing::Test {};
using AllTableaux = ::testing::Types<tableau::Euler, tableau::Rk4, tableau::BogackiShampine32,
                                     tableau::CashKarp54, tableau::Dopri5, tableau::Tsit5,
                                     tableau::Fehlberg78, tableau::Vern7, tableau::Vern9, tableau::Dop853>;
class TableauName {
 public:
  template <class Tab>
  static std::string GetName(int) {
    return batchode::to_string(Tab::method);
  }
};
TYPED_TEST_SUITE(Convergence, AllTableaux, TableauName);

template <class Stepper, class Tab>
void expect_orders(const char* which) {
  const Range r = range<Tab>();
  const Errors e1 = oscillator_errors<Stepper>(r.t_end, r.n0);
  const Errors e2 = oscillator_errors<Stepper>(r.t_end, 2 * r.n0);
  const Errors e4 = oscillator_errors<Stepper>(r.t_end, 4 * r.n0);
  ASSERT_GT(e4.global, r.floor) << which << ": finest error at the rounding floor, the order would be noise";
  const double first = std::log2(e1.global / e2.global);
  EXPECT_NEAR(first, Tab::order + r.above / 2, kOrderTol + r.above / 2) << which << " h -> h/2";
  EXPECT_NEAR(std::log2(e2.global / e4.global), Tab::order, kOrderTol) << which << " h/2 -> h/4";
  if (Tab::adaptive) {
    // The embedded estimate of one step is the local error of the lower-order solution: O(h^(q+1)).
    ASSERT_GT(e4.local, std::min(1e-14, r.floor)) << which;
    EXPECT_NEAR(std::log2(e1.local / e2.local), Tab::error_order + 1 + r.above / 2, kOrderTol + r.above / 2)
        << which << " estimate";
    EXPECT_NEAR(std::log2(e2.local / e4.local), Tab::error_order + 1, kOrderTol) << which << " estimate";
  }
}

TYPED_TEST(Convergence, RegisterStepperHasTheMethodsOrder) {
  expect_orders<batchode::RkStepper<TypeParam, double, 2>, TypeParam>("RkStepper");
}

TYPED_TEST(Convergence, OdeintStepperHasTheMethodsOrder) {
  if constexpr (batchode::cpu::has_odeint_stepper_v<TypeParam>) {
    expect_orders<batchode::cpu::OdeintStepper<TypeParam, Oscillator, double>, TypeParam>("OdeintStepper");
  } else {
    SUCCEED() << "the CPU path runs the register stepper for this table (checked above)";
  }
}

// The fixed-step methods end to end: solve_ivp with dt, a batch of frequencies w, each run's final
// error against cos/sin. Every run must show the order (w scales the error constant, not the order).
TEST(ConvergenceSolveIvp, FixedStepMethodsHaveTheirOrder) {
  const std::vector<double> w = {0.5, 1.0, 1.5};
  std::vector<double> y0;
  for (std::size_t i = 0; i < w.size(); ++i) y0.insert(y0.end(), {1.0, 0.0});
  for (batchode::Method m : {batchode::Method::euler, batchode::Method::rk4}) {
    const bool euler = m == batchode::Method::euler;
    batchode::SolveOptions opt;
    opt.outputs.counters = true;  // read below (counters are off by default)
    opt.method = m;
    opt.backend = batchode::Backend::cpu;
    opt.verbosity = batchode::Verbosity::none;
    opt.t_end = euler ? 1.0 : 10.0;
    std::vector<std::vector<double>> errors(w.size());
    for (int n : {64, 128, 256}) {
      opt.dt = opt.t_end / n;
      const auto res = batchode::solve_ivp(Oscillator{}, y0, w, opt);
      for (std::size_t i = 0; i < w.size(); ++i) {
        ASSERT_EQ(res.status(i), batchode::Status::success);
        ASSERT_EQ(res.counters(i).accepted_steps, static_cast<std::uint32_t>(n)) << "a fixed step is fixed";
        const double t = opt.t_end;
        errors[i].push_back(std::hypot(res.final_state(i, 0) - std::cos(w[i] * t),
                                       res.final_state(i, 1) + w[i] * std::sin(w[i] * t)));
      }
    }
    const double order = batchode::method_info(m).order;
    for (std::size_t i = 0; i < w.size(); ++i) {
      EXPECT_NEAR(std::log2(errors[i][0] / errors[i][1]), order, kOrderTol) << to_string(m) << " w=" << w[i];
      EXPECT_NEAR(std::log2(errors[i][1] / errors[i][2]), order, kOrderTol) << to_string(m) << " w=" << w[i];
    }
  }
}

}  // namespace
