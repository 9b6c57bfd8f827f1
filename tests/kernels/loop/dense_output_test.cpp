// Dense output and save_at (issue 12): saved points interpolated from the steps a solve without saves
// takes (the method's own extension: dopri5, tsit5, vern7, vern9, dop853, rodas4, rodas5p, radau5's
// collocation polynomial; else the cubic Hermite), or landed on;
// checked against exact solutions, against the solve without saves (same steps, same final state), for their
// convergence order, and on the GPU kernel's body.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "kernel_body_on_host.hpp"
#include "oscillator_batch.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Decay;
using batchode::testing::Oscillator;
using batchode::testing::run_kernel_body_on_host;

// x'' = -w^2 x from (1, 0): x = cos(w t), v = -w sin(w t).
double exact_x(double w, double t) { return std::cos(w * t); }

std::vector<double> linspace_times(double a, double b, std::size_t n) {
  std::vector<double> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = i + 1 == n ? b : a + (b - a) * double(i) / double(n - 1);
  return t;
}

constexpr auto oscillators = batchode::testing::oscillator_batch;
constexpr auto options = batchode::testing::quiet_cpu_options;

// 10^4 interpolated points leave the steps, the counters and the final state of the solve without
// saves exactly as they were; landing on the same points takes many more steps (what the switch is for).
// vern7, vern9 and dop853 evaluate their interpolants' own stages (6, 10, 3) on each step that passes a
// point (here every step), and only those.
TEST(SaveAt, InterpolatedSavesLeaveTheStepsAsTheyAre) {
  const Batch<double> batch = oscillators(16, 0.5, 3.0);
  for (Method m : {Method::dopri5, Method::tsit5, Method::rodas4, Method::rodas5p, Method::vern7,
                   Method::vern9, Method::dop853}) {
    const std::uint32_t interpolant_stages = m == Method::vern7    ? 6
                                             : m == Method::vern9  ? 10
                                             : m == Method::dop853 ? 3
                                                                   : 0;
    SolveOptions plain = options(m, 10.0);
    plain.rtol = plain.atol = 1e-8;
    SolveOptions dense = plain;
    dense.save_at = linspace_times(0.0, 10.0, 10'000);
    dense.save_mode = SaveMode::interpolate;
    const auto a = solve_ivp(Oscillator{}, batch, plain);
    const auto b = solve_ivp(Oscillator{}, batch, dense);
    ASSERT_EQ(b.n_saves(), 10'000u);
    SolveOptions landed = dense;
    landed.save_mode = SaveMode::land;
    const auto c = solve_ivp(Oscillator{}, batch, landed);
    for (std::size_t r = 0; r < batch.n_runs; ++r) {
      ASSERT_EQ(b.status(r), Status::success) << to_string(m);
      EXPECT_EQ(b.counters(r).accepted_steps, a.counters(r).accepted_steps) << to_string(m) << " run " << r;
      EXPECT_EQ(b.counters(r).rejected_steps, a.counters(r).rejected_steps) << to_string(m) << " run " << r;
      // Each has its own dense output, from the step's stages: not one evaluation more (rodas4 with
      // the Hermite cubic would evaluate f at the ends of every step that passes a point), but for
      // the interpolant's own stages.
      EXPECT_EQ(b.counters(r).rhs_evaluations,
                a.counters(r).rhs_evaluations + interpolant_stages * a.counters(r).accepted_steps)
          << to_string(m) << " run " << r;
      EXPECT_EQ(b.final_state(r, 0), a.final_state(r, 0)) << to_string(m) << " run " << r;
      EXPECT_GE(c.counters(r).accepted_steps, 9'999u)
          << to_string(m) << " run " << r;  // one per point after t0
    }
  }
}

// Fixed steps saved every few steps (save_every a whole number of dt): the steps of the solve
// without saves, t0 + j dt (kernels/loop/run_integrator.hpp: integrate_fixed_saving_every), so the final
// state and the counters are those of the solve without saves, bit for bit, on the CPU path and the
// kernel's body, in float and double; each save is the state at its time, to rk4's error; a span
// that is no whole number of saves ends on t_end as before, and a save at t_end is the landing step's.
TEST(SaveEvery, FixedStepsSavedEveryFewStepsAreTheStepsOfTheSolveWithoutSaves) {
  const Batch<double> batch = oscillators(8, 0.5, 3.0);
  const Batch<float> batch32 = batchode::testing::in_precision<float>(batch);
  for (const double t_end : {3.0, 3.055}) {
    SolveOptions plain = options(Method::rk4, t_end);
    plain.dt = 0.01;
    SolveOptions saving = plain;
    saving.save_every = 0.1;  // 10 steps
    const auto a = solve_ivp(Oscillator{}, batch, plain);
    const auto b = solve_ivp(Oscillator{}, batch, saving);
    // The kernel's body (the register stepper): against its own solve without saves.
    const auto c0 = run_kernel_body_on_host(Oscillator{}, batch, plain);
    const auto c = run_kernel_body_on_host(Oscillator{}, batch, saving);
    const auto c0_32 = run_kernel_body_on_host(Oscillator{}, batch32, plain);
    const auto c32 = run_kernel_body_on_host(Oscillator{}, batch32, saving);
    ASSERT_EQ(b.n_saves(), 31u);  // 0, 0.1, ..., 3.0
    for (std::size_t r = 0; r < batch.n_runs; ++r) {
      for (std::size_t s = 0; s < 2; ++s) {
        EXPECT_EQ(b.final_state(r, s), a.final_state(r, s)) << "t_end " << t_end << " run " << r;
        EXPECT_EQ(c.final_state(r, s), c0.final_state(r, s)) << "t_end " << t_end << " run " << r;
        EXPECT_EQ(c32.final_state(r, s), c0_32.final_state(r, s)) << "t_end " << t_end << " run " << r;
      }
      EXPECT_EQ(b.counters(r).accepted_steps, a.counters(r).accepted_steps);
      EXPECT_EQ(c.counters(r).accepted_steps, c0.counters(r).accepted_steps);
      const double w = batch.params[r];
      for (std::size_t k = 0; k < b.n_saves(); ++k) {
        // rk4 at dt = 0.01, w <= 3: about 1e-8 over the span.
        EXPECT_NEAR(b.state_at(r, k, 0), exact_x(w, b.time(r, k)), 1e-7) << "run " << r << " save " << k;
        EXPECT_NEAR(c.state_at(r, k, 0), exact_x(w, c.time(r, k)), 1e-7) << "run " << r << " save " << k;
      }
      // A whole number of saves: the last one lands on t_end, the landing step's.
      if (t_end == 3.0) {
        EXPECT_EQ(b.state_at(r, 30, 0), b.final_state(r, 0));
        EXPECT_EQ(c.state_at(r, 30, 0), c.final_state(r, 0));
      }
    }
  }
}

// The interpolant's error is bounded by h^4 max|y''''| / 384 per step: with steps of at most 0.01
// and w <= 3 that is below 3e-10, under the error a 1e-10 tolerance leaves. Both methods with their
// own slopes (dopri5) and with slopes evaluated for the dense output (rodas4).
TEST(SaveAt, InterpolatedValuesMatchTheExactSolution) {
  const Batch<double> batch = oscillators(8, 0.5, 3.0);
  for (Method m : {Method::dopri5, Method::rodas4}) {
    SolveOptions o = options(m, 5.0);
    o.rtol = o.atol = m == Method::rodas4 ? 1e-9 : 1e-10;
    o.step_control.dt_max = 0.01;
    o.save_at = linspace_times(0.0013, 4.9971, 997);  // off any step boundary
    const auto r = solve_ivp(Oscillator{}, batch, o);
    for (std::size_t i = 0; i < batch.n_runs; ++i) {
      ASSERT_EQ(r.status(i), Status::success);
      double worst = 0;
      for (std::size_t k = 0; k < r.n_saves(); ++k) {
        worst = std::max(worst, std::fabs(r.state_at(i, k, 0) - exact_x(batch.params[i], r.times()[k])));
      }
      EXPECT_LT(worst, m == Method::rodas4 ? 2e-6 : 2e-8) << to_string(m) << " run " << i;
    }
  }
}

// The dense output's observed order on both paths (0: the CPU, 1: the kernel body the GPU runs):
// `method` with constant steps of base_dt, base_dt / 2, base_dt / 4 (dt and dt_max, tolerances too
// loose to reject any step) over 40 points off every step boundary; log2 of the error ratios.
std::vector<double> observed_orders(Method method, double base_dt, int path) {
  const Batch<double> batch = oscillators(4, 1.0, 2.0);
  std::vector<double> times;
  for (int k = 0; k < 40; ++k) times.push_back((k + 0.37) * base_dt);
  double errors[3];
  for (int j = 0; j < 3; ++j) {
    SolveOptions o = options(method, 40 * base_dt);
    o.rtol = o.atol = 1e3;
    o.dt = o.step_control.dt_max = base_dt / (1 << j);
    o.save_at = times;
    o.save_mode = SaveMode::interpolate;
    const auto r =
        path == 0 ? solve_ivp(Oscillator{}, batch, o) : run_kernel_body_on_host(Oscillator{}, batch, o);
    double worst = 0;
    for (std::size_t i = 0; i < batch.n_runs; ++i) {
      EXPECT_EQ(r.counters(i).accepted_steps, 40u << j);  // the steps of a solve without saves
      for (std::size_t k = 0; k < r.n_saves(); ++k) {
        worst = std::max(worst, std::fabs(r.state_at(i, k, 0) - exact_x(batch.params[i], times[k])));
      }
    }
    errors[j] = worst;
  }
  return {std::log2(errors[0] / errors[1]), std::log2(errors[1] / errors[2])};
}

// rk4's fixed steps: the dense output's error falls as dt^4 (the Hermite interpolant's local h^4, as
// rk4's own global error); a linear interpolant would fall as dt^2.
TEST(SaveAt, DenseOutputConvergesAtFourthOrder) {
  for (int path = 0; path < 2; ++path) {
    for (double order : observed_orders(Method::rk4, 0.1, path))
      EXPECT_NEAR(order, 4.0, 0.35) << "path " << path;
  }
}

// dopri5 and tsit5 interpolate with their own continuous extensions (fourth order: local error h^5):
// the error falls as h^5, where the Hermite cubic would give h^4. Both paths (dopri5: the register
// stepper's formula and Boost.Odeint's calc_state; tsit5: the register stepper's weights on both).
TEST(SaveAt, Dopri5AndTsit5InterpolateWithTheirOwnFourthOrderExtensions) {
  for (int path = 0; path < 2; ++path) {
    for (double order : observed_orders(Method::dopri5, 0.2, path))
      EXPECT_NEAR(order, 5.0, 0.4) << "path " << path;
    // tsit5's points converge faster still on this linear problem (measured 5.9): above 4.6 tells its
    // own extension from the Hermite cubic's 4.
    for (double order : observed_orders(Method::tsit5, 0.2, path))
      EXPECT_GT(order, 4.6) << "tsit5 path " << path;
  }
}

// vern7, vern9 and dop853 interpolate with their own extensions, of orders 7, 9 and 7 (local errors
// h^8, h^10, h^8): the points fall as h^7.1-7.3, h^9.7-10.4 and h^8.0-8.1 on this linear problem (vern7's
// points carry its own global h^7), where the Hermite cubic gives h^4 and a wrong coefficient of an
// extra stage an interpolant of lower order. (tableau_test pins each extension's order by its trees.)
TEST(SaveAt, HighOrderMethodsInterpolateWithTheirOwnExtensions) {
  const struct {
    Method method;
    double base_dt, least;
  } cases[] = {{Method::vern7, 0.4, 6.5}, {Method::vern9, 0.8, 9.2}, {Method::dop853, 0.4, 7.5}};
  for (const auto& c : cases) {
    for (int path = 0; path < 2; ++path) {
      const std::vector<double> orders = observed_orders(c.method, c.base_dt, path);
      std::printf("[ %s ] path %d: observed orders %.2f %.2f\n", to_string(c.method).c_str(), path, orders[0],
                  orders[1]);
      for (double order : orders) EXPECT_GT(order, c.least) << to_string(c.method) << " path " << path;
    }
  }
}

// rodas4 interpolates with its own third-order formula (rodas.f's): with rodas4's own fourth-order
// global error the points fall as h^4 (a wrong coefficient leaves a linear interpolant: h^2).
TEST(SaveAt, Rodas4InterpolatesWithItsOwnExtension) {
  for (int path = 0; path < 2; ++path) {
    for (double order : observed_orders(Method::rodas4, 0.1, path))
      EXPECT_NEAR(order, 4.0, 0.4) << "path " << path;
  }
}

// rodas5p interpolates with its own fourth-order formula (Steinebach's three rows): the points fall
// at least as h^5 (measured on this linear problem: 5.4 and 5.6), where the Hermite cubic would give
// h^4 and a wrong coefficient in any row an interpolant of order 1 (each row is O(h)).
TEST(SaveAt, Rodas5pInterpolatesWithItsOwnFourthOrderExtension) {
  for (int path = 0; path < 2; ++path) {
    for (double order : observed_orders(Method::rodas5p, 0.1, path)) {
      EXPECT_GT(order, 4.6) << "path " << path;
    }
  }
}

// Landing on a list of times is landing on save_every's grid when the two are the same times: the
// same steps and the same values, bit for bit. Points at t0 and t_end are the run's own values.
TEST(SaveAt, LandingOnTheListEqualsSaveEvery) {
  const Batch<double> batch = oscillators(8, 0.5, 3.0);
  SolveOptions every = options(Method::dopri5, 2.0);
  every.save_every = 0.25;
  SolveOptions at = options(Method::dopri5, 2.0);
  at.save_at = linspace_times(0.0, 2.0, 9);
  at.save_mode = SaveMode::land;
  const auto a = solve_ivp(Oscillator{}, batch, every);
  const auto b = solve_ivp(Oscillator{}, batch, at);
  ASSERT_EQ(a.times(), b.times());
  ASSERT_EQ(a.series().size(), b.series().size());
  for (std::size_t v = 0; v < a.series().size(); ++v) ASSERT_EQ(a.series()[v], b.series()[v]) << v;
  for (std::size_t r = 0; r < batch.n_runs; ++r) {
    EXPECT_EQ(a.counters(r).accepted_steps, b.counters(r).accepted_steps);
  }

  at.save_mode = SaveMode::interpolate;
  const auto c = solve_ivp(Oscillator{}, batch, at);
  for (std::size_t r = 0; r < batch.n_runs; ++r) {
    EXPECT_EQ(c.state_at(r, 0, 0), 1.0);
    EXPECT_EQ(c.state_at(r, 8, 0), c.final_state(r, 0));
    EXPECT_EQ(c.state_at(r, 8, 1), c.final_state(r, 1));
  }
}

// The kernel body (register stepper, device series layout) interpolates as the CPU path does, run by
// run, for an explicit, a fixed-step and a Rosenbrock method, in float and double.
template <class T>
class DenseOnKernelBody : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DenseOnKernelBody, Precisions);

TYPED_TEST(DenseOnKernelBody, EqualsTheCpuPathRunByRun) {
  using T = TypeParam;
  const Batch<T> batch = batchode::testing::in_precision<T>(oscillators(32, 0.5, 3.0));
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-9;
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4, Method::rodas5p}) {
    SolveOptions o = options(m, 3.0);
    o.rtol = o.atol = tol;
    if (m == Method::rk4) o.dt = 0.01;
    o.save_at = linspace_times(0.05, 3.0, 300);
    const auto cpu = solve_ivp(Oscillator{}, batch, o);
    const auto body = run_kernel_body_on_host(Oscillator{}, batch, o);
    for (std::size_t r = 0; r < batch.n_runs; ++r) {
      ASSERT_EQ(cpu.status(r), Status::success);
      ASSERT_EQ(body.status(r), Status::success);
      for (std::size_t k = 0; k < cpu.n_saves(); ++k) {
        for (std::size_t s = 0; s < 2; ++s) {
          // Two implementations of each method (Boost.Odeint's and the register stepper) agree to
          // the tolerance, not bitwise; the interpolant adds nothing of its own.
          ASSERT_NEAR(cpu.state_at(r, k, s), body.state_at(r, k, s), 50 * tol * 3)
              << to_string(m) << " run " << r << " save " << k << " state " << s;
        }
      }
    }
  }
}

// Automatic interpolates save_at where the dense output keeps up with the method and lands otherwise:
// the Hermite cubic under fehlberg78's long steps is off by far more than the tolerance (cash_karp54's
// too); rodas5p's own fourth-order extension keeps up with its fifth order, vern7's, vern9's and
// dop853's with theirs.
TEST(SaveAt, SaveModeAutomaticLandsWhereTheInterpolantCannotKeepUp) {
  std::vector<Method> methods(std::begin(all_methods), std::end(all_methods));
  methods.push_back(Method::rodas5p);
  for (Method m : methods) {
    SolveOptions o = options(m, 1.0);
    o.save_at = {0.5};
    const bool expected = m != Method::cash_karp54 && m != Method::fehlberg78;
    EXPECT_EQ(interpolates_saves(o), expected) << to_string(m);
    o.save_mode = SaveMode::interpolate;
    EXPECT_TRUE(interpolates_saves(o));
    o.save_at.clear();
    o.save_every = 0.5;
    o.save_mode = SaveMode::automatic;
    EXPECT_FALSE(interpolates_saves(o));
  }
  const Batch<double> batch = oscillators(8, 0.5, 3.0);
  SolveOptions o = options(Method::fehlberg78, 10.0);
  o.rtol = o.atol = 1e-8;
  o.save_at = linspace_times(0.001, 9.999, 500);
  const auto landed = solve_ivp(Oscillator{}, batch, o);
  o.save_mode = SaveMode::interpolate;
  const auto dense = solve_ivp(Oscillator{}, batch, o);
  double landed_error = 0, dense_error = 0;
  for (std::size_t i = 0; i < batch.n_runs; ++i) {
    for (std::size_t k = 0; k < o.save_at.size(); ++k) {
      const double exact = exact_x(batch.params[i], o.save_at[k]);
      landed_error = std::max(landed_error, std::fabs(landed.state_at(i, k, 0) - exact));
      dense_error = std::max(dense_error, std::fabs(dense.state_at(i, k, 0) - exact));
    }
  }
  EXPECT_LT(landed_error, 1e-6);
  EXPECT_GT(dense_error, 10 * landed_error)
      << "the Hermite cubic under fehlberg78 was expected to lose accuracy";
}

// radau5 interpolates with its collocation polynomial (order 3, through the step's start and its three
// stages): on the oscillator at 1e-8 its 500 interpolated points are as close to the exact solution as
// the landed ones' tolerance allows, with the steps of the solve without saves (a polynomial through the
// wrong points, or the wrong step's, is off by the step's change, 1e-2 here).
TEST(SaveAt, Radau5InterpolatesOnItsCollocationPolynomial) {
  const Batch<double> batch = oscillators(8, 0.5, 3.0);
  SolveOptions o = options(Method::radau5, 10.0);
  o.rtol = o.atol = 1e-8;
  o.outputs.counters = true;
  const auto plain = solve_ivp(Oscillator{}, batch, o);
  o.save_at = linspace_times(0.001, 9.999, 500);
  o.save_mode = SaveMode::interpolate;
  const auto dense = solve_ivp(Oscillator{}, batch, o);
  double dense_error = 0;
  for (std::size_t i = 0; i < batch.n_runs; ++i) {
    EXPECT_EQ(dense.counters(i).accepted_steps, plain.counters(i).accepted_steps) << "run " << i;
    EXPECT_EQ(dense.final_state(i, 0), plain.final_state(i, 0)) << "run " << i;
    for (std::size_t k = 0; k < o.save_at.size(); ++k) {
      dense_error =
          std::max(dense_error, std::fabs(dense.state_at(i, k, 0) - exact_x(batch.params[i], o.save_at[k])));
    }
  }
  std::printf("[ radau5 ] interpolated points' largest error %.3g\n", dense_error);
  EXPECT_LT(dense_error, 1e-6);
}

// A run that fails leaves the points it never passed NaN; the points before are saved.
TEST(SaveAt, PointsAfterAFailureAreNaN) {
  Batch<double> batch;
  batch.n_runs = 1;
  batch.y0 = {1.0};
  batch.params = {-50.0};  // y = exp(50 t): beyond max_steps at a tight tolerance
  SolveOptions o = options(Method::dopri5, 10.0);
  o.rtol = o.atol = 1e-10;
  o.max_steps = 200;
  o.save_at = linspace_times(0.0, 10.0, 101);
  const auto r = solve_ivp(Decay{}, batch, o);
  ASSERT_NE(r.status(0), Status::success);
  EXPECT_EQ(r.state_at(0, 0, 0), 1.0);
  EXPECT_TRUE(std::isnan(r.state_at(0, 100, 0)));
}

void expect_refused(const SolveOptions& o, const std::string& words) {
  try {
    validate_for<float>(o);
    ADD_FAILURE() << "accepted; expected an error with '" << words << "'";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(SaveAt, BadListsAreNamedErrors) {
  SolveOptions o = options(Method::dopri5, 1.0);
  o.save_at = {0.0, 0.5, 0.25};
  expect_refused(o, "save_at must be strictly increasing: save_at[2] = 0.25 follows save_at[1] = 0.5");
  o.save_at = {0.5, 0.5};
  expect_refused(o, "strictly increasing");
  o.save_at = {0.5, 1.5};
  expect_refused(o, "save_at[1] = 1.5 is outside the span [0, 1]");
  o.save_at = {-0.1};
  expect_refused(o, "save_at[0] = -0.1 is outside the span");
  o.save_at = {0.1, std::nan("")};
  expect_refused(o, "save_at[1] = nan is not finite");
  o.save_at = {0.5, 0.5 + 1e-12};  // distinct in double, one time in float
  expect_refused(o, "are the same time in float");
  o.save_at = {0.5};
  o.save_every = 0.1;
  expect_refused(o, "save_every and save_at are both set");
  EXPECT_THROW(parse_save_mode("landing"), InvalidInput);
  EXPECT_EQ(parse_save_mode("auto"), SaveMode::automatic);
}

}  // namespace
