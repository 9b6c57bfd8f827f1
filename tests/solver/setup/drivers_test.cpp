// Driver inputs (issue 11, first part): the fit of samples into polynomial pieces and their evaluation
// (kernels/core/drivers.hpp), against closed forms: linear interpolation between samples; cubic splines
// that reproduce the cubics their ends allow (not-a-knot: any cubic; clamped: one with flat ends;
// natural: any line), converge as h^4 on smooth signals, and, periodic and wrapped, join smoothly;
// one set per run; every bad input named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/checks/invalid_input.hpp>
#include <batchode/solver/setup/driver_inputs.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace batchode;
using ::testing::HasSubstr;

constexpr double pi = 3.14159265358979323846;

/// Evaluates set `set` of a fitted driver at t, in precision T.
template <class T = double>
T value(const FittedDriver& fit, double t, std::size_t set = 0) {
  std::vector<T> c, k;
  return driver_value(fit.pieces<T>(set, c, k), static_cast<T>(t));
}

DriverSpec sampled(const std::function<double(double)>& f, const std::vector<double>& times, int order,
                   SplineEnd end = SplineEnd::natural) {
  DriverSpec s;
  s.name = "u";
  s.times = times;
  for (double t : times) s.values.push_back(f(t));
  s.order = order;
  s.end = end;
  return s;
}

std::vector<double> uniform(double a, double b, std::size_t pieces) {
  std::vector<double> t;
  for (std::size_t k = 0; k <= pieces; ++k) t.push_back(a + (b - a) * double(k) / double(pieces));
  return t;
}

/// The largest error of the fit of f against f on a fine grid of [a, b].
double worst_error(const FittedDriver& fit, const std::function<double(double)>& f, double a, double b) {
  double worst = 0;
  for (double t : uniform(a, b, 997)) worst = std::max(worst, std::fabs(value(fit, t) - f(t)));
  return worst;
}

TEST(Drivers, LinearGoesThroughTheSamplesAndStraightBetween) {
  const std::vector<double> times = {0.0, 0.3, 1.0, 1.7, 2.0};
  const auto f = [](double t) { return std::sin(3 * t); };
  const FittedDriver fit = fit_driver(sampled(f, times, 1), 0.0, 2.0);
  for (std::size_t k = 0; k + 1 < times.size(); ++k) {
    EXPECT_DOUBLE_EQ(value(fit, times[k]), f(times[k])) << k;
    const double mid = 0.5 * (times[k] + times[k + 1]);
    EXPECT_NEAR(value(fit, mid), 0.5 * (f(times[k]) + f(times[k + 1])), 1e-15) << k;
  }
  EXPECT_NEAR(value(fit, 2.0), f(2.0), 1e-15);
  // The same samples uniform (dt, from t0) give the same values; float is within its rounding.
  DriverSpec u = sampled(f, uniform(0.0, 2.0, 8), 1);
  const FittedDriver by_times = fit_driver(u, 0.0, 2.0);
  u.times.clear();
  u.dt = 0.25;
  const FittedDriver by_dt = fit_driver(u, 0.0, 2.0);
  for (double t : uniform(0.0, 2.0, 37)) {
    EXPECT_NEAR(value(by_dt, t), value(by_times, t), 1e-15) << t;
    EXPECT_NEAR(value<float>(by_dt, t), value(by_times, t), 4e-7) << t;
  }
}

TEST(Drivers, CubicSplinesReproduceTheCubicsTheirEndsAllow) {
  const std::vector<double> uneven = {0.0, 0.2, 0.5, 0.9, 1.4, 1.6, 2.0};
  // Not-a-knot: any cubic, exactly.
  const auto cubic = [](double t) { return 1 - 2 * t + 0.5 * t * t + 0.3 * t * t * t; };
  EXPECT_LT(worst_error(fit_driver(sampled(cubic, uneven, 3, SplineEnd::not_a_knot), 0, 2), cubic, 0, 2),
            1e-13);
  // Clamped (flat ends): 3 t^2 - 2 t^3 on [0, 1], whose slope is 0 at both ends.
  const auto smoothstep = [](double t) { return 3 * t * t - 2 * t * t * t; };
  const std::vector<double> unit = {0.0, 0.1, 0.35, 0.5, 0.8, 1.0};
  EXPECT_LT(worst_error(fit_driver(sampled(smoothstep, unit, 3, SplineEnd::clamped), 0, 1), smoothstep, 0, 1),
            1e-14);
  // scipy 1.10.1's CubicSpline values of the same fits (published values to compare with).
  const std::vector<double> x = {0.0, 0.3, 1.0, 1.7, 2.0};
  const FittedDriver clamped =
      fit_driver(sampled([](double t) { return std::cos(t); }, x, 3, SplineEnd::clamped), 0, 2);
  EXPECT_NEAR(value(clamped, 0.77), 0.7076624209681595, 1e-15);
  EXPECT_NEAR(value(clamped, 1.9), -0.37105463810251715, 1e-15);
  // Natural (no curvature at the ends): any line.
  const auto line = [](double t) { return 2 - 0.7 * t; };
  EXPECT_LT(worst_error(fit_driver(sampled(line, uneven, 3, SplineEnd::natural), 0, 2), line, 0, 2), 1e-14);
  // And not others: a natural spline of the cubic misses it (its ends are curved).
  EXPECT_GT(worst_error(fit_driver(sampled(cubic, uneven, 3, SplineEnd::natural), 0, 2), cubic, 0, 2), 1e-3);
}

TEST(Drivers, CubicSplinesConvergeAsTheFourthPowerOfTheSpacing) {
  // sin on [0, pi] has no curvature at its ends, so the natural spline keeps its order there too.
  const auto f = [](double t) { return std::sin(t); };
  for (SplineEnd end : {SplineEnd::natural, SplineEnd::not_a_knot}) {
    const double coarse = worst_error(fit_driver(sampled(f, uniform(0, pi, 16), 3, end), 0, pi), f, 0, pi);
    const double fine = worst_error(fit_driver(sampled(f, uniform(0, pi, 32), 3, end), 0, pi), f, 0, pi);
    // At least the fourth power (not-a-knot does better here: 31.8, as scipy's CubicSpline).
    EXPECT_GT(coarse / fine, 12.0) << to_string(end) << ": " << coarse << " -> " << fine;
    EXPECT_LT(fine, 1e-6) << to_string(end);
  }
  // Linear: the square.
  const double coarse = worst_error(fit_driver(sampled(f, uniform(0, pi, 16), 1), 0, pi), f, 0, pi);
  const double fine = worst_error(fit_driver(sampled(f, uniform(0, pi, 32), 1), 0, pi), f, 0, pi);
  EXPECT_NEAR(coarse / fine, 4.0, 0.5);
}

TEST(Drivers, PeriodicSplinesWrapSmoothly) {
  // One period of sin(2 pi t), sampled at 20 points of [0, 1] (the last equal to the first), wrapped
  // over a span of three periods.
  const auto f = [](double t) { return std::sin(2 * pi * t); };
  DriverSpec s;
  s.name = "forcing";
  s.dt = 1.0 / 20;
  for (std::size_t k = 0; k <= 20; ++k) s.values.push_back(k == 20 ? 0.0 : f(double(k) / 20));
  s.order = 3;
  s.end = SplineEnd::periodic;
  s.wrap = true;
  const FittedDriver fit = fit_driver(s, 0.0, 3.0);
  // scipy 1.10.1: CubicSpline(x, y, bc_type="periodic") on the same samples misses sin(2 pi t) by at
  // most 2.5676337440661e-05 on 998 points of [0, 1] (the classical bound 5/384 h^4 max|f''''| is 1.3e-4).
  EXPECT_NEAR(worst_error(fit, f, 0, 1), 2.5676337440661e-05, 1e-12);
  EXPECT_LT(worst_error(fit, f, 0, 3), 1.3e-4);
  for (double t : {0.13, 0.5, 0.99}) {
    EXPECT_NEAR(value(fit, t + 1), value(fit, t), 1e-14) << t;
    EXPECT_NEAR(value(fit, t + 2), value(fit, t), 1e-14) << t;
  }
  // Across the join (t = 1): the slope is the signal's, 2 pi, from both sides.
  const double h = 1e-6;
  EXPECT_NEAR((value(fit, 1 + h) - value(fit, 1)) / h, 2 * pi, 1e-3);
  EXPECT_NEAR((value(fit, 1) - value(fit, 1 - h)) / h, 2 * pi, 1e-3);
  // Halving the spacing: the fourth power.
  DriverSpec finer = s;
  finer.dt = 1.0 / 40;
  finer.values.clear();
  for (std::size_t k = 0; k <= 40; ++k) finer.values.push_back(k == 40 ? 0.0 : f(double(k) / 40));
  const double ratio = worst_error(fit, f, 0, 1) / worst_error(fit_driver(finer, 0.0, 3.0), f, 0, 1);
  EXPECT_GT(ratio, 12.0);
  EXPECT_LT(ratio, 20.0);
}

TEST(Drivers, EachRunsOwnSetIsFittedAsItWouldBeAlone) {
  DriverSpec both;
  both.name = "u";
  both.dt = 0.5;
  both.n_samples = 5;
  both.order = 3;
  both.end = SplineEnd::not_a_knot;
  both.values = {0, 1, 0, -1, 0, /* run 1 */ 2, 2.5, 3, 3.5, 4};
  const FittedDriver fit = fit_driver(both, 0.0, 2.0);
  ASSERT_EQ(fit.n_sets, 2u);
  for (std::size_t r = 0; r < 2; ++r) {
    DriverSpec alone = both;
    alone.n_samples = 0;
    alone.values.assign(both.values.begin() + long(r * 5), both.values.begin() + long(r * 5 + 5));
    const FittedDriver one = fit_driver(alone, 0.0, 2.0);
    for (double t : uniform(0, 2, 23)) EXPECT_EQ(value(fit, t, r), value(one, t)) << r << " " << t;
  }
  // Run 1's samples lie on a line, which the spline keeps; run 0's as scipy's CubicSpline (-0.728).
  EXPECT_NEAR(value(fit, 1.3, 1), 2 + 1.3, 1e-14);
  EXPECT_NEAR(value(fit, 1.3, 0), -0.728, 1e-15);
}

void expect_refused(const std::function<void(DriverSpec&)>& change, const std::string& message,
                    double t_end = 1.0) {
  DriverSpec s;
  s.name = "u";
  s.dt = 0.25;
  s.values = {0, 1, 2, 3, 4};
  s.order = 3;
  change(s);
  try {
    (void)fit_driver(s, 0.0, t_end);
    FAIL() << "accepted: " << message;
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr(message));
  }
}

TEST(Drivers, TheNextKnotIsTheNextSampleTimeUnlessTheDriverDoesNotLand) {
  const double inf = std::numeric_limits<double>::infinity();
  auto next = [](const FittedDriver& fit, double t) {
    std::vector<double> c, k;
    return driver_next_knot(fit.pieces<double>(0, c, k), t);
  };
  DriverSpec u;
  u.name = "u";
  u.dt = 0.25;
  u.values = {0, 1, 0, 1, 0};  // knots 0, 0.25, .., 1
  const FittedDriver uniform_fit = fit_driver(u, 0.0, 1.0);
  EXPECT_EQ(next(uniform_fit, 0.0), 0.25);
  EXPECT_EQ(next(uniform_fit, 0.1), 0.25);
  EXPECT_EQ(next(uniform_fit, 0.25), 0.5);  // on a knot: the one after
  EXPECT_EQ(next(uniform_fit, std::nextafter(0.5, 0.0)), 0.5);
  EXPECT_EQ(next(uniform_fit, 0.9), 1.0);
  EXPECT_EQ(next(uniform_fit, 1.0), inf);
  u.wrap = true;  // the pattern repeats every 1: knots at 1.25, 1.5, ..
  const FittedDriver wrapped = fit_driver(u, 0.0, 3.0);
  EXPECT_DOUBLE_EQ(next(wrapped, 1.1), 1.25);
  EXPECT_DOUBLE_EQ(next(wrapped, 2.8), 3.0);
  DriverSpec given;
  given.name = "g";
  given.times = {0.0, 0.1, 0.7, 1.0};
  given.values = {1, 2, 3, 4};
  const FittedDriver at_times = fit_driver(given, 0.0, 1.0);
  EXPECT_EQ(next(at_times, 0.0), 0.1);
  EXPECT_EQ(next(at_times, 0.1), 0.7);
  EXPECT_EQ(next(at_times, 0.5), 0.7);
  EXPECT_EQ(next(at_times, 1.0), inf);
  given.order = 3;
  EXPECT_EQ(next(fit_driver(given, 0.0, 1.0), 0.5), 0.7);
  given.land = false;
  EXPECT_EQ(next(fit_driver(given, 0.0, 1.0), 0.5), inf);
}

TEST(Drivers, ANonFiniteStartOrSpanIsRefused) {
  DriverSpec u;
  u.name = "u";
  u.dt = 0.5;
  u.values = {0, 1, 0};
  u.t_first = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(
      {
        try {
          fit_driver(u, 0.0, 1.0);
        } catch (const InvalidInput& e) {
          EXPECT_THAT(e.what(), HasSubstr("drivers['u']: t_first must be finite"));
          throw;
        }
      },
      InvalidInput);
  u.t_first.reset();
  u.dt = 1e308;  // a span of 2e308: not finite
  u.wrap = true;
  EXPECT_THROW(fit_driver(u, 0.0, 1.0), InvalidInput);
}

TEST(Drivers, BadInputIsRefusedByName) {
  expect_refused([](DriverSpec& s) { s.values[2] = NAN; }, "drivers['u']: values[2] = nan is not finite");
  expect_refused(
      [](DriverSpec& s) {
        s.n_samples = 5;
        s.values = {0, 1, 2, 3, 4, 0, 1, INFINITY, 3, 4};
      },
      "drivers['u']: values[1][2] = inf is not finite");
  expect_refused(
      [](DriverSpec& s) {
        s.n_samples = 5;
        s.values.resize(7);
      },
      "drivers['u']: values has 7 numbers, not a whole number of runs of n_samples = 5");
  expect_refused(
      [](DriverSpec& s) {
        s.values = {0, 1};
      },
      "drivers['u']: values has 2 samples; a cubic spline with natural ends needs at least 3");
  expect_refused(
      [](DriverSpec& s) {
        s.values = {0, 1, 0};
        s.end = SplineEnd::not_a_knot;
      },
      "needs at least 4");
  expect_refused([](DriverSpec& s) { s.order = 2; },
                 "drivers['u']: order = 2 is not 1 (linear) or 3 (cubic spline)");
  expect_refused([](DriverSpec& s) { s.name = "2u"; }, "'2u' is not a name");
  expect_refused(
      [](DriverSpec& s) {
        s.times = {0, 0.25, 0.5, 0.75, 1};
      },
      "drivers['u']: both dt and times are set: give one");
  expect_refused([](DriverSpec& s) { s.dt.reset(); },
                 "drivers['u']: give the samples' times or dt (neither is set)");
  expect_refused(
      [](DriverSpec& s) {
        s.dt.reset();
        s.times = {0, 0.5, 0.4, 0.8, 1};
      },
      "drivers['u']: times[2] = 0.4 is not after times[1] = 0.5: times must increase");
  expect_refused([](DriverSpec& s) { s.dt = -1.0; }, "drivers['u']: dt = -1 is not positive and finite");
  expect_refused([](DriverSpec& s) { (void)s; }, "covers [0, 1], shorter than the solve's span [0, 2]", 2.0);
  expect_refused([](DriverSpec& s) { s.end = SplineEnd::periodic; },
                 "drivers['u']: values[4] = 4 is not values[0] = 0: periodic ends need the first and last "
                 "samples equal");
  // Wrapped, a short signal serves any span.
  DriverSpec wrapped;
  wrapped.name = "u";
  wrapped.dt = 0.25;
  wrapped.values = {0, 1, 0, -1, 0};
  wrapped.wrap = true;
  EXPECT_NO_THROW((void)fit_driver(wrapped, 0.0, 100.0));
  EXPECT_EQ(parse_spline_end("not_a_knot"), SplineEnd::not_a_knot);
  EXPECT_THROW((void)parse_spline_end("cyclic"), InvalidInput);
}

}  // namespace
