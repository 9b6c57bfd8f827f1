// The step controller's log and exp on the host (kernels/loop/controller_math.hpp): within 1 and 2 ulps of
// libm's over the ranges the controller uses, the edge values right, the vector form (a block of runs
// in SIMD lanes, backends/cpu/run_blocks.hpp) the scalar form's bits lane by lane, and the controller's
// parts composing to its rejected() and accepted() where a block relies on it.
#include "batchode/kernels/loop/controller_math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "batchode/kernels/loop/step_control.hpp"

namespace {

using batchode::detail::controller_exp;
using batchode::detail::controller_log;
namespace host_math = batchode::detail::host_math;

/// |a - b| in units of b's last place.
double ulps(double a, double b) {
  if (a == b) return 0;
  const double b_abs = std::fabs(b);
  return std::fabs(a - b) / (std::nextafter(b_abs, std::numeric_limits<double>::infinity()) - b_abs);
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

TEST(ControllerMath, LogAndExpAreWithinOneAndTwoUlpsOfLibm) {
  std::mt19937_64 gen(48);
  std::uniform_real_distribution<double> log_x(-700, 709), exp_x(-707, 709.78);
  double worst_log = 0, worst_exp = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = std::exp(log_x(gen)), y = exp_x(gen);
    worst_log = std::max(worst_log, ulps(host_math::log(x), std::log(x)));
    worst_exp = std::max(worst_exp, ulps(host_math::exp(y), std::exp(y)));
  }
  EXPECT_LE(worst_log, 1.0);
  EXPECT_LE(worst_exp, 2.0);
  // Float rounds the double result: within half an ulp of float, and mostly libm's float.
  for (float x : {1e-8f, 0.3f, 1.0f, 2.5f, 3e38f})
    EXPECT_NEAR(controller_log(x), std::log(x), 1e-6f * std::fabs(std::log(x)) + 1e-7f);
  for (float x : {-80.0f, -1.0f, 0.0f, 1.0f, 80.0f})
    EXPECT_NEAR(controller_exp(x), std::exp(x), 1e-6f * std::exp(x));
}

TEST(ControllerMath, EdgeValues) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(host_math::log(1.0), 0.0);
  EXPECT_EQ(host_math::log(2.0), std::log(2.0));
  EXPECT_EQ(host_math::log(1e-8), std::log(1e-8));
  EXPECT_EQ(host_math::log(std::numeric_limits<double>::max()), std::log(std::numeric_limits<double>::max()));
  EXPECT_EQ(host_math::exp(0.0), 1.0);
  EXPECT_LE(ulps(host_math::exp(709.78), std::exp(709.78)), 2.0);  // n = 1024: the largest finite results
  EXPECT_EQ(host_math::exp(709.79), inf);
  EXPECT_EQ(host_math::exp(inf), inf);
  EXPECT_EQ(host_math::exp(-inf), 0.0);
  EXPECT_EQ(host_math::exp(-1000.0), 0.0);
  EXPECT_TRUE(std::isnan(host_math::exp(std::numeric_limits<double>::quiet_NaN())));
}

template <class T, std::size_t W>
void expect_lanes_give_the_scalar_bits() {
  std::mt19937_64 gen(16);
  std::uniform_real_distribution<double> log_x(-80, 80), exp_x(-90, 90);
  for (int round = 0; round < 2000; ++round) {
    T x[W], y[W], log_out[W], exp_out[W];
    for (std::size_t l = 0; l < W; ++l) {
      x[l] = static_cast<T>(std::exp(log_x(gen)));
      y[l] = static_cast<T>(exp_x(gen));
    }
    if (round == 0) {  // what the lanes of ended runs may hold
      y[0] = std::numeric_limits<T>::quiet_NaN();
      y[1] = std::numeric_limits<T>::infinity();
      y[2] = -std::numeric_limits<T>::infinity();
    }
    host_math::log_lanes(x, log_out);
    host_math::exp_lanes(y, exp_out);
    for (std::size_t l = 0; l < W; ++l) {
      ASSERT_TRUE(same_bits(log_out[l], controller_log(x[l]))) << "log of " << x[l] << " in lane " << l;
      ASSERT_TRUE(same_bits(exp_out[l], controller_exp(y[l]))) << "exp of " << y[l] << " in lane " << l;
    }
  }
}

TEST(ControllerMath, TheVectorFormGivesEachLaneTheScalarBits) {
  expect_lanes_give_the_scalar_bits<double, 16>();
  expect_lanes_give_the_scalar_bits<float, 32>();
  expect_lanes_give_the_scalar_bits<double, 4>();
}

// A block takes one log a lane, log_of(e2), for rejected lanes too: the same as rejected()'s log(e2)
// wherever e2 > 1 is finite, so the factor is the scalar loop's.
TEST(ControllerMath, TheControllersPartsGiveItsFactors) {
  batchode::RunSettings<double> plan{};
  plan.safety = 0.9;
  plan.min_factor = 0.2;
  plan.max_factor = 10;
  plan.ki = 0.7;
  plan.kp = 0.4;
  using Control = batchode::detail::PiController<double, 4>;
  const Control control(plan);
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> log10_e2(-12, 300), log_prev(-18.5, 0);
  for (int i = 0; i < 100000; ++i) {
    const double e2 = std::pow(10.0, log10_e2(gen)), prev = log_prev(gen);
    const double log_e2 = Control::log_of(e2);
    if (e2 > 1) {
      const double factor =
          Control::rejected_factor(true, controller_exp(Control::rejected_exponent(log_e2)), plan);
      ASSERT_TRUE(same_bits(factor, Control::rejected(e2, true, plan))) << "e2 " << e2;
    } else {
      const auto next = control.accepted(e2, prev, plan);
      const double factor =
          Control::accepted_factor(e2, controller_exp(control.accepted_exponent(log_e2, prev)), plan);
      ASSERT_TRUE(same_bits(factor, next.factor) && same_bits(log_e2, next.log_e2)) << "e2 " << e2;
    }
  }
  EXPECT_EQ(Control::rejected(std::numeric_limits<double>::quiet_NaN(), false, plan), plan.min_factor);
}

}  // namespace
