// Our CPU solve against Boost.Odeint used directly (its own controlled dopri5 at a much tighter
// tolerance, none of our code in the loop) as the reference, on three nonlinear systems with swept
// parameters: Lorenz, Van der Pol and Lotka-Volterra.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <batchode/batchode.hpp>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "test_systems.hpp"

namespace {

namespace odeint = boost::numeric::odeint;
using batchode::Method;
using batchode::testing::Lorenz;
using batchode::testing::LotkaVolterra;
using batchode::testing::VanDerPol;

// The reference: odeint's dopri5 controlled at 1e-13 (its own max-norm controller), in double.
// Its global error is ~1e-11 relative on these problems, below what the bounds below resolve.
constexpr double kReferenceTol = 1e-13;

template <class System>
std::vector<double> odeint_reference(const System& sys, const std::vector<double>& y0,
                                     const std::vector<double>& params, double t0, double t_end) {
  constexpr std::size_t N = System::n_states, P = System::n_params;
  using state = std::array<double, N>;
  const std::size_t runs = y0.size() / N;
  std::vector<double> out(y0.size());
  for (std::size_t r = 0; r < runs; ++r) {
    state x;
    std::copy(y0.begin() + r * N, y0.begin() + (r + 1) * N, x.begin());
    const double* p = params.data() + r * P;
    auto rhs = [&](const state& s, state& dsdt, double t) { sys(t, s.data(), p, dsdt.data()); };
    odeint::integrate_adaptive(odeint::make_controlled<odeint::runge_kutta_dopri5<state>>(kReferenceTol, kReferenceTol),
                               rhs, x, t0, t_end, 1e-4);
    std::copy(x.begin(), x.end(), out.begin() + r * N);
  }
  return out;
}

// Largest over runs of max_i |ours_i - ref_i| / max(1, max_i |ref_i|): relative to the size of the
// run's state, since single components cross zero.
template <class T>
double worst_relative_error(const batchode::ResultArray<T>& ours, const std::vector<double>& ref, std::size_t n) {
  double worst = 0;
  for (std::size_t r = 0; r < ref.size() / n; ++r) {
    double scale = 1, diff = 0;
    for (std::size_t i = 0; i < n; ++i) {
      scale = std::max(scale, std::fabs(ref[r * n + i]));
      diff = std::max(diff, std::fabs(double(ours[r * n + i]) - ref[r * n + i]));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

template <class T>
std::vector<T> cast(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// rtol = atol = 1e-10 bounds each step's local error, not the global one: that is the sum of every
// step's local error, each amplified by the flow until t_end. With O(100-1000) steps per run and
// amplification up to e^(lambda t) ~ 6 (Lorenz, lambda ~ 0.9, t = 2), and the controller keeping
// each local error a safety factor below tolerance, a method that meets its tolerance stays below
// ~1e3 * rtol = 1e-7. Measured: 2e-11 (tsit5, fehlberg78) to 4e-9 (bogacki_shampine32), so the bound
// has a 25x margin, and a method that did not control its error (wrong estimate, norm or controller
// exponent) misses it by orders of magnitude.
constexpr double kRtol = 1e-10;
constexpr double kDoubleBound = 1e3 * kRtol;

batchode::SolveOptions options(Method m, double t_end, double rtol) {
  batchode::SolveOptions opt;
  opt.method = m;
  opt.t_end = t_end;
  opt.rtol = rtol;
  opt.atol = rtol;
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  return opt;
}

constexpr Method kAdaptive[] = {Method::dopri5, Method::tsit5, Method::cash_karp54, Method::fehlberg78,
                                Method::bogacki_shampine32};

struct Problem {
  std::string name;
  double t_end;
  std::vector<double> y0, params;
};

// The three problems, each a batch sweeping a parameter.
template <class Fill>
Problem make(std::string name, double t_end, std::size_t runs, Fill fill) {
  Problem pr{std::move(name), t_end, {}, {}};
  for (std::size_t r = 0; r < runs; ++r) fill(r, pr.y0, pr.params);
  return pr;
}
Problem lorenz_problem() {
  // t_end = 2: before chaos amplifies differences by more than ~10 (largest Lyapunov exponent ~0.9).
  return make("lorenz", 2.0, 8, [](std::size_t r, auto& y0, auto& p) {
    y0.insert(y0.end(), {1.0, 1.0 + 0.1 * double(r), 1.0});
    p.insert(p.end(), {10.0, 20.0 + 2.0 * double(r), 8.0 / 3.0});
  });
}
Problem van_der_pol_problem() {
  return make("van_der_pol", 10.0, 9, [](std::size_t r, auto& y0, auto& p) {
    y0.insert(y0.end(), {2.0, 0.0});
    p.push_back(1.0 + 0.5 * double(r));  // mu = 1 .. 5
  });
}
Problem lotka_volterra_problem() {
  return make("lotka_volterra", 15.0, 6, [](std::size_t r, auto& y0, auto& p) {
    y0.insert(y0.end(), {1.0 + 0.5 * double(r), 1.0});
    p.insert(p.end(), {1.5, 1.0, 3.0, 1.0});
  });
}

template <class System>
void check_against_odeint(const System& sys, const Problem& pr) {
  const auto ref = odeint_reference(sys, pr.y0, pr.params, 0.0, pr.t_end);
  for (Method m : kAdaptive) {
    const auto res = batchode::solve_ivp(sys, pr.y0, pr.params, options(m, pr.t_end, kRtol));
    ASSERT_TRUE(res.all_succeeded()) << pr.name << " " << to_string(m);
    const double err = worst_relative_error(res.final_state(), ref, System::n_states);
    EXPECT_LT(err, kDoubleBound) << pr.name << " " << to_string(m);
    std::cout << "  " << pr.name << " " << to_string(m) << ": worst relative error " << err << '\n';
  }
}

TEST(OdeintReference, Lorenz) { check_against_odeint(Lorenz{}, lorenz_problem()); }
TEST(OdeintReference, VanDerPolMuSwept) { check_against_odeint(VanDerPol{}, van_der_pol_problem()); }
TEST(OdeintReference, LotkaVolterra) { check_against_odeint(LotkaVolterra{}, lotka_volterra_problem()); }

// Float: rtol = 1e-5 sits two decades above float's epsilon (1.2e-7), so the tolerance, not
// rounding, mostly sets the error: measured 8e-5 to 1.8e-4 (~10 x rtol, plus O(steps x eps) = 1e-5
// of rounding). Bound: 200 x rtol = 2e-3, an 11x margin.
TEST(OdeintReference, FloatRunsAgainstTheDoubleReference) {
  for (const Problem& pr : {van_der_pol_problem(), lotka_volterra_problem()}) {
    for (Method m : {Method::dopri5, Method::tsit5}) {
      const auto opt = options(m, pr.t_end, 1e-5);
      double err;
      if (pr.name == "van_der_pol") {
        const auto res = batchode::solve_ivp(VanDerPol{}, cast<float>(pr.y0), cast<float>(pr.params), opt);
        ASSERT_TRUE(res.all_succeeded());
        err = worst_relative_error(res.final_state(), odeint_reference(VanDerPol{}, pr.y0, pr.params, 0.0, pr.t_end),
                                   2);
      } else {
        const auto res = batchode::solve_ivp(LotkaVolterra{}, cast<float>(pr.y0), cast<float>(pr.params), opt);
        ASSERT_TRUE(res.all_succeeded());
        err = worst_relative_error(res.final_state(),
                                   odeint_reference(LotkaVolterra{}, pr.y0, pr.params, 0.0, pr.t_end), 2);
      }
      EXPECT_LT(err, 2e-3) << pr.name << " " << to_string(m);
      std::cout << "  float " << pr.name << " " << to_string(m) << ": worst relative error " << err << '\n';
    }
  }
}

}  // namespace
