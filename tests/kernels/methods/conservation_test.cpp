// Invariants along saved series: Lotka-Volterra's first integral under the adaptive methods, and the
// harmonic oscillator's energy under rk4, whose decay per step is known exactly.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <complex>
#include <vector>

#include "test_systems.hpp"

namespace {

using batchode::Method;
using batchode::testing::LotkaVolterra;
using batchode::testing::Oscillator;

batchode::SolveOptions cpu_options() {
  batchode::SolveOptions opt;
  opt.outputs.counters = true;  // read below (counters are off by default)
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  return opt;
}

// V = d x - c ln x + b y - a ln y is constant along exact Lotka-Volterra orbits.
double lv_invariant(double x, double y, const double* p) {
  return p[3] * x - p[2] * std::log(x) + p[1] * y - p[0] * std::log(y);
}

// rtol = 1e-8 over t in [0, 20] (about 4 periods, ~300 steps): the per-step error is below
// rtol |y| and V's gradient is O(1) relative to V, so the drift of V, a sum of per-step errors that
// do not cancel in general, stays below 100 x rtol. Measured: 1.1e-8 (dopri5) to 3.6e-8 (cash_karp54).
// An uncontrolled or wrongly-scaled error estimate drifts by 1e-5 or more.
TEST(Conservation, LotkaVolterraInvariantAlongTheSeries) {
  const double rtol = 1e-8;
  const std::size_t runs = 8;
  std::vector<double> y0, params;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {0.5 + 0.4 * double(r), 1.0 + 0.2 * double(r)});
    params.insert(params.end(), {1.5, 1.0, 3.0, 1.0});
  }
  for (Method m : {Method::dopri5, Method::tsit5, Method::cash_karp54, Method::fehlberg78}) {
    auto opt = cpu_options();
    opt.method = m;
    opt.t_end = 20.0;
    opt.save_every = 0.1;
    opt.rtol = rtol;
    opt.atol = rtol;
    const auto res = batchode::solve_ivp(LotkaVolterra{}, y0, params, opt);
    ASSERT_EQ(res.n_saves(), 201u);
    double worst = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      ASSERT_EQ(res.status(r), batchode::Status::success);
      const double* p = &params[r * 4];
      const double v0 = lv_invariant(res.state_at(r, 0, 0), res.state_at(r, 0, 1), p);
      for (std::size_t k = 1; k < res.n_saves(); ++k) {
        const double v = lv_invariant(res.state_at(r, k, 0), res.state_at(r, k, 1), p);
        worst = std::max(worst, std::fabs(v - v0) / std::fabs(v0));
      }
    }
    EXPECT_LT(worst, 100 * rtol) << to_string(m);
    // The series is the integrator's: a solution saved without error control (or not at all)
    // could not stay this close; and it is not trivially constant.
    EXPECT_NE(res.state_at(0, 0, 0), res.state_at(0, 100, 0));
  }
}

// rk4 on x'' = -w^2 x multiplies (w x, v) by |R(i w h)| times a rotation every step, with
// R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24 (the method's stability function). So after n steps the
// energy E = (v^2 + w^2 x^2) / 2 is exactly E0 |R(i w h)|^(2n): a decay of (w h)^6 / 72 per step.
// The saved energies must match that prediction to rounding (1e-12 relative over 2000 steps), which
// pins the step count between saves, the landing on save times and the rk4 arithmetic together.
TEST(Conservation, Rk4OscillatorEnergyDecaysAsPredicted) {
  const std::vector<double> w = {0.5, 1.0, 2.0, 4.0};
  std::vector<double> y0;
  for (std::size_t r = 0; r < w.size(); ++r) y0.insert(y0.end(), {1.0, 0.3});
  auto opt = cpu_options();
  opt.method = Method::rk4;
  opt.dt = 0.05;
  opt.t_end = 100.0;
  opt.save_every = 1.0;  // 20 steps between saves
  const auto res = batchode::solve_ivp(Oscillator{}, y0, w, opt);
  ASSERT_EQ(res.n_saves(), 101u);
  for (std::size_t r = 0; r < w.size(); ++r) {
    ASSERT_EQ(res.status(r), batchode::Status::success);
    ASSERT_EQ(res.counters(r).accepted_steps, 2000u);
    const std::complex<double> z(0.0, w[r] * *opt.dt);
    const double amp2 = std::norm(1.0 + z + z * z / 2.0 + z * z * z / 6.0 + z * z * z * z / 24.0);
    auto energy = [&](std::size_t k) {
      const double x = res.state_at(r, k, 0), v = res.state_at(r, k, 1);
      return 0.5 * (v * v + w[r] * w[r] * x * x);
    };
    const double e0 = energy(0);
    for (std::size_t k = 0; k < res.n_saves(); ++k) {
      const double predicted = e0 * std::pow(amp2, 20.0 * double(k));
      EXPECT_NEAR(energy(k), predicted, 1e-12 * e0) << "w=" << w[r] << " save " << k;
    }
    // The decay itself is resolved (above rounding) for the larger w, and bounded for all:
    // |E(100) / E0 - 1| ~ 2000 (w h)^6 / 72 <= 1.8e-3 for w h <= 0.2.
    const double drift = std::fabs(energy(100) / e0 - 1);
    EXPECT_LT(drift, 2e-3) << "w=" << w[r];
    if (w[r] >= 2.0) {
      EXPECT_GT(drift, 1e-8) << "w=" << w[r];
    }
  }
}

}  // namespace
