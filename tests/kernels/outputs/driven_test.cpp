// Driven systems (issue 11, drivers): a system reads time-varying inputs given as samples. ForcedDecay,
// y' = -a y + b u(t) + v(t), has a closed-form solution for the inputs as fitted (piecewise
// polynomials: tests/support/forced_decay_reference.hpp), so every path is held to its own error
// only: CPU and the GPU kernel's body (on the host), explicit and Rosenbrock methods (whose df/dt runs
// through the drivers by AD), linear and cubic, shared and per-run. Against the sine the samples came
// from, the error falls with the sample spacing at the interpolation's order (h^2 linear, h^4 cubic).
//
// Knots and adaptive steps: a linear driver's slope jumps at its knots, so y'' does, and an embedded
// error estimate misjudges a step across the kink (dopri5 at rtol 1e-11 with samples 0.1 apart: 2e-8
// off the closed form, 1000x its tolerance); a cubic spline's third derivative jumps there (5.5e-8 at
// 1e-10 on the GPU test's faster signals). Adaptive steps therefore end on the drivers' knots
// (run_integrator.hpp, stop_at_break; DriverSpec::land = false opts out), which the closed-form tests
// below pin. A fixed-step method keeps its steps and loses order across a kink (O(h^3) per knot, not
// O(h^5)): rk4 at dt 1e-3 with 50 knots stays within 1e-7.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "forced_decay_reference.hpp"
#include "expect_invalid_input.hpp"
#include "kernel_body_on_host.hpp"
#include "oscillator_batch.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::forced_decay_exact;
using batchode::testing::ForcedDecay;
using batchode::testing::invalid_input_message;
using batchode::testing::run_kernel_body_on_host;
using ::testing::HasSubstr;

constexpr double t_end = 5.0;

/// u: sin(w t) sampled every h from 0 (uniform), w = 1 + 0.3 r per run when per_run, else w = 1.3.
DriverSpec sine_driver(int order, double h, bool per_run, std::size_t runs) {
  const std::size_t samples = static_cast<std::size_t>(std::lround(t_end / h)) + 1;
  DriverSpec u = batchode::testing::sampled_driver("u", h, samples, per_run ? runs : 0, [&](std::size_t r, double t) {
    return std::sin((per_run ? 1.0 + 0.3 * double(r) : 1.3) * t);
  });
  u.order = order;
  return u;
}

/// v: 0.5 cos(2 t) at uneven times (given, not uniform), the same for every run.
DriverSpec cosine_driver(int order) { return batchode::testing::uneven_cosine_driver(order, t_end); }

/// Runs with a = 0.5 + 0.25 r, b = 1 - 0.1 r, y0 = 1 - 0.2 r.
Batch<double> forced_batch(std::size_t runs) {
  Batch<double> b;
  b.n_runs = runs;
  for (std::size_t r = 0; r < runs; ++r) {
    b.y0.push_back(1.0 - 0.2 * double(r));
    b.params.push_back(0.5 + 0.25 * double(r));
    b.params.push_back(1.0 - 0.1 * double(r));
  }
  return b;
}

SolveOptions forced_options(Method m, double tolerance) {
  SolveOptions o;
  o.method = m;
  o.t_end = t_end;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.rtol = o.atol = tolerance;
  if (m == Method::rk4) o.dt = 1e-3;
  o.save_every = 0.25;
  o.outputs.counters = true;  // (the kernel body's helper fills them)
  return o;
}

/// The largest difference of the saved series from the closed form of the fitted inputs.
template <class T>
double worst_from_exact(const SolveResult<T>& r, const Batch<double>& batch, const std::vector<FittedDriver>& fit) {
  double worst = 0;
  for (std::size_t i = 0; i < r.n_runs(); ++i) {
    std::vector<double> times;
    for (std::size_t k = 0; k < r.n_saves(); ++k) times.push_back(static_cast<double>(r.time(i, k)));
    const std::vector<double> exact = forced_decay_exact(fit[0], fit[1], i, batch.params[2 * i],
                                                         batch.params[2 * i + 1], batch.y0[i], 0.0, times);
    for (std::size_t k = 0; k < r.n_saves(); ++k) {
      worst = std::max(worst, std::fabs(static_cast<double>(r.state_at(i, k, 0)) - exact[k]));
    }
  }
  return worst;
}

std::vector<FittedDriver> fitted(const SolveOptions& o) {
  return fit_drivers(o.drivers, {"u", "v"}, 2, o.t0, o.t_end);
}

TEST(Driven, TheSolutionIsTheClosedFormOfTheFittedInputsOnEveryPath) {
  const std::size_t runs = 5;
  const Batch<double> batch = forced_batch(runs);
  for (Method m : {Method::dopri5, Method::tsit5, Method::rk4, Method::rodas4}) {
    for (int order : {1, 3}) {
      for (bool per_run : {false, true}) {
        const double tolerance = m == Method::rodas4 ? 1e-9 : 1e-11;
        SolveOptions o = forced_options(m, tolerance);
        // v first: matched to the system's driver_names, not taken in the order given.
        o.drivers = {cosine_driver(order), sine_driver(order, 0.1, per_run, runs)};
        const std::vector<FittedDriver> fit = fitted(o);
        const std::string what = to_string(m) + (order == 1 ? " linear" : " cubic") + (per_run ? " per-run" : " shared");
        const SolveResult<double> cpu = solve_ivp(ForcedDecay{}, batch, o);
        ASSERT_TRUE(cpu.all_succeeded()) << what;
        const SolveResult<double> body = run_kernel_body_on_host(ForcedDecay{}, batch, o);
        ASSERT_TRUE(body.all_succeeded()) << what;
        // rk4 at dt 1e-3 crosses 50 kinks of a linear u (O(h^3) each); the adaptive ones hold their
        // tolerance's order across them.
        const double bound = m == Method::rk4 ? 1e-7 : m == Method::rodas4 ? 2e-7 : 2e-9;
        EXPECT_LT(worst_from_exact(cpu, batch, fit), bound) << what << " (CPU)";
        EXPECT_LT(worst_from_exact(body, batch, fit), bound) << what << " (kernel body)";
      }
    }
  }
}

TEST(Driven, AdaptiveStepsEndOnTheSamplesTimesElseTheErrorExceedsTheTolerance) {
  const std::size_t runs = 3;
  const Batch<double> batch = forced_batch(runs);
  for (bool land : {true, false}) {
    SolveOptions o = forced_options(Method::dopri5, 1e-11);
    o.drivers = {sine_driver(1, 0.1, false, runs), cosine_driver(1)};
    for (DriverSpec& d : o.drivers) d.land = land;
    const SolveResult<double> r = solve_ivp(ForcedDecay{}, batch, o);
    const double worst = worst_from_exact(r, batch, fitted(o));
    if (land) {
      EXPECT_LT(worst, 2e-9);
      // At least one step per piece of u (50) and of v (~50).
      EXPECT_GE(r.counters(0).accepted_steps, 100u);
    } else {
      EXPECT_GT(worst, 5e-9) << "straddling the kinks should cost accuracy (this test pins why steps land)";
    }
  }
}

TEST(Driven, PerRunDriversAreEachRunsOwn) {
  // Each run of a per-run batch gives what it gives solved alone with its own samples shared, bit for bit.
  const std::size_t runs = 4;
  const Batch<double> batch = forced_batch(runs);
  SolveOptions o = forced_options(Method::dopri5, 1e-9);
  const DriverSpec per_run = sine_driver(3, 0.1, true, runs);
  o.drivers = {per_run, cosine_driver(3)};
  const SolveResult<double> all = solve_ivp(ForcedDecay{}, batch, o);
  const std::size_t samples = per_run.n_samples;
  for (std::size_t r = 0; r < runs; ++r) {
    SolveOptions alone = o;
    alone.drivers[0].values.assign(per_run.values.begin() + static_cast<std::ptrdiff_t>(r * samples),
                                   per_run.values.begin() + static_cast<std::ptrdiff_t>((r + 1) * samples));
    alone.drivers[0].n_samples = 0;
    Batch<double> one;
    one.n_runs = 1;
    one.y0 = {batch.y0[r]};
    one.params = {batch.params[2 * r], batch.params[2 * r + 1]};
    const SolveResult<double> single = solve_ivp(ForcedDecay{}, one, alone);
    for (std::size_t k = 0; k < all.n_saves(); ++k) {
      ASSERT_EQ(all.state_at(r, k, 0), single.state_at(0, k, 0)) << "run " << r << " save " << k;
    }
  }
}

TEST(Driven, TheErrorFromTheSineFallsAtTheInterpolationsOrder) {
  // y' = -a y + b sin(1.3 t) + 0 from y0: closed form. Halving the spacing divides the error by ~4
  // (linear) or ~16 (cubic, not-a-knot ends); the solver's own error is far below both.
  const double a = 0.5, b = 1.0, w = 1.3, y0 = 1.0;
  const double c = b / (a * a + w * w);
  auto exact = [&](double t) { return (y0 + c * w) * std::exp(-a * t) + c * (a * std::sin(w * t) - w * std::cos(w * t)); };
  Batch<double> batch;
  batch.n_runs = 1;
  batch.y0 = {y0};
  batch.params = {a, b};
  for (int order : {1, 3}) {
    double previous = 0;
    for (double h : {0.2, 0.1, 0.05}) {
      SolveOptions o = forced_options(Method::dopri5, 1e-12);
      DriverSpec zero;
      zero.name = "v";
      zero.dt = t_end;
      zero.values = {0.0, 0.0};
      o.drivers = {sine_driver(order, h, false, 1), zero};
      o.drivers[0].end = SplineEnd::not_a_knot;
      const SolveResult<double> r = solve_ivp(ForcedDecay{}, batch, o);
      double worst = 0;
      for (std::size_t k = 0; k < r.n_saves(); ++k) worst = std::max(worst, std::fabs(r.state_at(0, k, 0) - exact(r.time(0, k))));
      if (previous > 0) {
        const double ratio = previous / worst;
        if (order == 1) {
          EXPECT_GT(ratio, 3.0) << "linear, h " << h;
          EXPECT_LT(ratio, 5.0) << "linear, h " << h;
        } else {
          EXPECT_GT(ratio, 12.0) << "cubic, h " << h;
        }
      }
      // The interpolation's error bounds the solution's: |y - exact| <= b max|u - sin| / a.
      EXPECT_LT(worst, b * (order == 1 ? w * w * h * h / 8 : w * w * w * w * h * h * h * h) / a) << order << " " << h;
      previous = worst;
    }
  }
}

TEST(Driven, ObservablesSeeTheDriversTheSystemRead) {
  const std::size_t runs = 3;
  const Batch<double> batch = forced_batch(runs);
  for (bool per_run : {false, true}) {
    SolveOptions o = forced_options(Method::dopri5, 1e-8);
    o.drivers = {sine_driver(3, 0.1, per_run, runs), cosine_driver(1)};
    o.save_mode = SaveMode::interpolate;  // the points between steps too
    Solver<ForcedDecay, double> solver(ForcedDecay{}, o);
    const SolveResult<double> r = solver.solve(batch);
    const SolveResult<double> body = run_kernel_body_on_host(ForcedDecay{}, batch, o);
    const DriverTable<double>& table = *solver.drivers();
    ASSERT_EQ(table.size(), 2u);
    for (std::size_t i = 0; i < runs; ++i) {
      for (std::size_t k = 0; k < r.n_saves(); ++k) {
        const double t = r.time(i, k);
        EXPECT_EQ(r.observable_at(i, k, 0), driver_value(table.pieces()[0], i, t)) << i << " " << k;
        EXPECT_EQ(r.observable_at(i, k, 1), r.state_at(i, k, 0) + driver_value(table.pieces()[1], i, t));
        EXPECT_EQ(body.observable_at(i, k, 0), r.observable_at(i, k, 0)) << i << " " << k;
      }
    }
  }
}

TEST(Driven, FloatRunsHoldFloatsAccuracy) {
  const std::size_t runs = 3;
  const Batch<float> batch = batchode::testing::in_precision<float>(forced_batch(runs));
  SolveOptions o = forced_options(Method::dopri5, 1e-6);
  o.drivers = {sine_driver(3, 0.1, true, runs), cosine_driver(3)};
  const SolveResult<float> r = solve_ivp(ForcedDecay{}, batch, o);
  ASSERT_TRUE(r.all_succeeded());
  EXPECT_LT(worst_from_exact(r, forced_batch(runs), fitted(o)), 2e-5);
}

/// ForcedDecay with a call operator for double only: no dual numbers, so no Rosenbrock method.
struct ForcedDecayDoubleOnly {
  static constexpr std::size_t n_states = 1, n_params = 2, n_drivers = 2;
  void operator()(double, const double* y, const double* p, const double* u, double* dydt) const {
    dydt[0] = -p[0] * y[0] + p[1] * u[0] + u[1];
  }
};
static_assert(is_ode_system_v<ForcedDecayDoubleOnly, double>);
static_assert(!can_linearize_v<Driven<ForcedDecayDoubleOnly, double>, double>);
static_assert(can_linearize_v<Driven<ForcedDecay, double>, double>);

TEST(Driven, ADrivenSystemWithoutDualNumbersSolvesExplicitlyAndRefusesStiffMethodsByName) {
  const Batch<double> batch = forced_batch(2);
  SolveOptions o = forced_options(Method::dopri5, 1e-9);
  o.drivers = {sine_driver(3, 0.1, false, 2), cosine_driver(3)};
  const SolveResult<double> plain = solve_ivp(ForcedDecayDoubleOnly{}, batch, o);
  const SolveResult<double> templated = solve_ivp(ForcedDecay{}, batch, o);
  EXPECT_EQ(plain.state_at(1, 10, 0), templated.state_at(1, 10, 0));
  o.method = Method::rodas4;
  EXPECT_THAT(invalid_input_message([&] { solve_ivp(ForcedDecayDoubleOnly{}, batch, o); }),
              HasSubstr("needs the Jacobian"));
}

TEST(Driven, BadDriversAreRefusedByName) {
  const Batch<double> batch = forced_batch(3);
  SolveOptions o = forced_options(Method::dopri5, 1e-6);
  auto solve = [&](const SolveOptions& options) { return solve_ivp(ForcedDecay{}, batch, options); };
  EXPECT_THAT(invalid_input_message([&] { solve(o); }),
              HasSubstr("no samples for driver 'u' (the model's drivers: u, v)"));
  o.drivers = {sine_driver(1, 0.1, false, 3), cosine_driver(1)};
  o.drivers[1].name = "w";
  EXPECT_THAT(invalid_input_message([&] { solve(o); }),
              HasSubstr("no driver named 'w' (the model's drivers: u, v)"));
  o.drivers[1].name = "u";
  EXPECT_THAT(invalid_input_message([&] { solve(o); }), HasSubstr("drivers['u'] is given twice"));
  o.drivers[1] = cosine_driver(1);
  o.drivers[0] = sine_driver(1, 0.1, true, 4);  // samples for 4 runs, a batch of 3
  EXPECT_THAT(invalid_input_message([&] { solve(o); }),
              HasSubstr("drivers['u'] has samples for 4 runs (one set per run) but the batch has 3 runs"));
  o.drivers[0] = sine_driver(1, 0.1, false, 3);
  o.drivers[0].values[7] = std::nan("");
  EXPECT_THAT(invalid_input_message([&] { solve(o); }),
              HasSubstr("drivers['u']: values[7] = nan is not finite"));
  o.drivers[0] = sine_driver(1, 0.1, false, 3);
  o.drivers[0].values.resize(20);  // to t = 1.9, short of t_end
  EXPECT_THAT(invalid_input_message([&] { solve(o); }), HasSubstr("shorter than the solve's span"));
  o.drivers[0] = sine_driver(1, 0.1, true, 3);
  o.drivers[0].values.pop_back();  // not whole runs of n_samples
  EXPECT_THAT(invalid_input_message([&] { solve(o); }), HasSubstr("not a whole number of runs of n_samples"));
  // Per-run drivers for different runs.
  o.drivers[0] = sine_driver(1, 0.1, true, 3);
  o.drivers[1].n_samples = o.drivers[1].times.size();
  const std::vector<double> once = o.drivers[1].values;
  o.drivers[1].values.insert(o.drivers[1].values.end(), once.begin(), once.end());  // 2 runs' sets
  EXPECT_THAT(invalid_input_message([&] { solve(o); }), HasSubstr("per-run drivers must be for the same runs"));
  // A system that reads none.
  SolveOptions plain = forced_options(Method::dopri5, 1e-6);
  plain.drivers = {sine_driver(1, 0.1, false, 3)};
  EXPECT_THAT(invalid_input_message([&] {
                solve_ivp(batchode::testing::Decay{}, std::vector<double>{1.0}, std::vector<double>{1.0}, plain);
              }),
              HasSubstr("no driver named 'u' (the model reads no drivers)"));
}

}  // namespace
