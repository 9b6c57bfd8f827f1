// Work-precision on the Lorenz sweep of cpu_lorenz.cpp: batchode's CPU path against the plain
// Boost.Odeint loop (integrate_adaptive(make_controlled<runge_kutta_dopri5>) per run, first dt 0.01),
// both dopri5, at rtol = atol in a list of tolerances. The two controllers norm the error differently
// (batchode: Hairer's RMS norm, PI controller; odeint: max norm over eps_abs + eps_rel (|x| + dt |dxdt|),
// I controller with a dead band), so equal nominal tolerances are not equal accuracies: this program
// reports cost (steps and right-hand-side evaluations per run) against the error actually reached.
//
// Deterministic metrics only (no wall time unless --time): per run, accepted + rejected steps and RHS
// evaluations (odeint's counted in the right-hand side it is given), and the relative global error of
// the final state, |y - y_ref|_2 / |y_ref|_2, against a reference from odeint's controlled
// runge_kutta_fehlberg78 at rtol = atol = 1e-14 (checked against dopri5 at 1e-12 below).
//
// Problem: N runs (default 2000), rho = linspace(0, 21, N), sigma = 10, beta = 8/3, y0 = (1, 0, 0),
// t in [0, 1], final state only.
//
// Flags: --runs=N  --tols=1e-4,1e-5,...  --safety=X --ki=X --kp=X --min-factor=X --max-factor=X
// (override batchode's StepControl defaults), --time (also time both sides at the matched tolerance,
// best of 5; wall time is only meaningful on a quiet machine).
//
// Printed: one row per tolerance and side (err max: the worst run, nearly always rho ~ 0, where |y(1)|
// is ~5e-5 and the absolute tolerance rules); then, for each odeint tolerance, the batchode rtol whose
// median error matches odeint's (bisection) and batchode's cost there over odeint's.
#include <algorithm>
#include <array>
#include <batchode/batchode.hpp>
#include <boost/numeric/odeint.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "lorenz3.hpp"

namespace {

namespace odeint = boost::numeric::odeint;
using State = std::array<double, 3>;
constexpr double kSigma = 10.0, kBeta = 8.0 / 3.0, kTEnd = 1.0;

using Lorenz = bench::Lorenz3;

struct Side {
  double accepted = 0, rejected = 0, rhs = 0;  // means per run
  double err_median = 0, err_max = 0;
  std::vector<State> final;
};

struct Config {
  std::size_t runs = 2000;
  std::vector<double> tols = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
  batchode::StepControl control;
  bool time = false;
};

struct Rhs {
  double rho;
  std::size_t* evaluations;
  void operator()(const State& x, State& dxdt, double) const {
    ++*evaluations;
    dxdt[0] = kSigma * (x[1] - x[0]);
    dxdt[1] = x[0] * (rho - x[2]) - x[1];
    dxdt[2] = x[0] * x[1] - kBeta * x[2];
  }
};

double rel_error(const State& y, const State& ref) {
  double d = 0, n = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    d += (y[i] - ref[i]) * (y[i] - ref[i]);
    n += ref[i] * ref[i];
  }
  return std::sqrt(d / n);
}

void fill_errors(Side& s, const std::vector<State>& ref) {
  std::vector<double> e(ref.size());
  for (std::size_t r = 0; r < ref.size(); ++r) e[r] = rel_error(s.final[r], ref[r]);
  std::sort(e.begin(), e.end());
  const std::size_t m = e.size() / 2;
  s.err_median = e.size() % 2 ? e[m] : 0.5 * (e[m - 1] + e[m]);
  s.err_max = e.back();
}

template <class Stepper>
std::vector<State> odeint_finals(const std::vector<double>& rho, Stepper stepper, double dt0) {
  std::vector<State> out(rho.size());
  std::size_t evals = 0;
  for (std::size_t r = 0; r < rho.size(); ++r) {
    State x = {1.0, 0.0, 0.0};
    odeint::integrate_adaptive(stepper, Rhs{rho[r], &evals}, x, 0.0, kTEnd, dt0);
    out[r] = x;
  }
  return out;
}

// The loop of cpu_lorenz.cpp's BM_odeint_loop, counting. A controlled FSAL dopri5 evaluates the right-hand
// side once at its first try_step and 6 times per attempt after, so attempts = (evaluations - 1) / 6.
Side run_odeint(const std::vector<double>& rho, double tol) {
  Side s;
  s.final.resize(rho.size());
  std::size_t accepted = 0, attempts = 0, evals_total = 0;
  for (std::size_t r = 0; r < rho.size(); ++r) {
    std::size_t evals = 0;
    State x = {1.0, 0.0, 0.0};
    accepted += odeint::integrate_adaptive(odeint::make_controlled<odeint::runge_kutta_dopri5<State>>(tol, tol),
                                           Rhs{rho[r], &evals}, x, 0.0, kTEnd, 0.01);
    attempts += (evals - 1) / 6;
    evals_total += evals;
    s.final[r] = x;
  }
  const double n = double(rho.size());
  s.accepted = double(accepted) / n;
  s.rejected = double(attempts - accepted) / n;
  s.rhs = double(evals_total) / n;
  return s;
}

struct Batch {
  std::vector<double> y0, params;
};

Batch make_batch(const std::vector<double>& rho) {
  Batch b;
  for (double rh : rho) {
    b.y0.insert(b.y0.end(), {1.0, 0.0, 0.0});
    b.params.insert(b.params.end(), {kSigma, rh, kBeta});
  }
  return b;
}

batchode::SolveOptions batchode_options(const Config& cfg, double tol) {
  batchode::SolveOptions opt;
  opt.outputs.counters = true;  // read below (counters are off by default)
  opt.method = batchode::Method::dopri5;
  opt.t_end = kTEnd;
  opt.rtol = tol;
  opt.atol = tol;
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  opt.cpu_threads = 1;
  opt.step_control = cfg.control;
  return opt;
}

Side run_batchode(const Config& cfg, const Batch& b, double tol) {
  batchode::Solver<Lorenz> solver(Lorenz{}, batchode_options(cfg, tol));
  const auto res = solver.solve(b.y0, b.params);
  if (!res.all_succeeded()) {
    std::fprintf(stderr, "batchode: a run failed at tol %g\n", tol);
    std::exit(1);
  }
  Side s;
  const std::size_t n = res.n_runs();
  s.final.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < 3; ++i) s.final[r][i] = res.final_state(r, i);
    const auto& c = res.counters(r);
    s.accepted += c.accepted_steps;
    s.rejected += c.rejected_steps;
    s.rhs += c.rhs_evaluations;
  }
  s.accepted /= double(n);
  s.rejected /= double(n);
  s.rhs /= double(n);
  return s;
}

void print_row(const char* who, double tol, const Side& s) {
  std::printf("%-9s %8.0e %9.2f %9.2f %9.2f %9.1f %11.3e %11.3e\n", who, tol, s.accepted + s.rejected, s.accepted,
              s.rejected, s.rhs, s.err_median, s.err_max);
}

// The batchode rtol (= atol) whose median error matches `target`: bisection in log rtol over [1e-11, 1e-2].
double match_rtol(const Config& cfg, const Batch& b, const std::vector<State>& ref, double target) {
  double lo = std::log(1e-11), hi = std::log(1e-2);
  for (int it = 0; it < 30; ++it) {
    const double mid = 0.5 * (lo + hi);
    Side s = run_batchode(cfg, b, std::exp(mid));
    fill_errors(s, ref);
    (s.err_median > target ? hi : lo) = mid;
  }
  return std::exp(lo);
}

double best_seconds(const std::function<void()>& f) {
  double best = 1e300;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

Config parse(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* name) -> const char* {
      const std::size_t len = std::strlen(name);
      return a.compare(0, len, name) == 0 ? argv[i] + len : nullptr;
    };
    if (const char* v = value("--runs=")) {
      cfg.runs = std::max<std::size_t>(2, std::strtoull(v, nullptr, 10));
    } else if (const char* t = value("--tols=")) {
      cfg.tols.clear();
      for (char* p = const_cast<char*>(t); *p;) {
        cfg.tols.push_back(std::strtod(p, &p));
        if (*p == ',') ++p;
      }
    } else if (const char* sf = value("--safety=")) {
      cfg.control.safety = std::atof(sf);
    } else if (const char* ki = value("--ki=")) {
      cfg.control.ki = std::atof(ki);
    } else if (const char* kp = value("--kp=")) {
      cfg.control.kp = std::atof(kp);
    } else if (const char* mn = value("--min-factor=")) {
      cfg.control.min_factor = std::atof(mn);
    } else if (const char* mx = value("--max-factor=")) {
      cfg.control.max_factor = std::atof(mx);
    } else if (a == "--time") {
      cfg.time = true;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      std::exit(2);
    }
  }
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  const Config cfg = parse(argc, argv);
  const std::vector<double> rho = batchode::linspace<double>(0.0, 21.0, cfg.runs);
  const Batch batch = make_batch(rho);

  const std::vector<State> ref =
      odeint_finals(rho, odeint::make_controlled<odeint::runge_kutta_fehlberg78<State>>(1e-14, 1e-14), 1e-3);
  {
    Side check;
    check.final = odeint_finals(rho, odeint::make_controlled<odeint::runge_kutta_dopri5<State>>(1e-12, 1e-12), 1e-3);
    fill_errors(check, ref);
    std::printf("Lorenz sweep, %zu runs, rho in [0, 21], t in [0, %g], dopri5, rtol = atol\n", cfg.runs, kTEnd);
    std::printf("reference: odeint rkf78 at 1e-14; odeint dopri5 at 1e-12 differs by median %.2e, max %.2e\n",
                check.err_median, check.err_max);
    const auto& c = cfg.control;
    std::printf("batchode StepControl: safety %g, ki %g, kp %g, min_factor %g, max_factor %g\n\n", c.safety, c.ki,
                c.kp, c.min_factor, c.max_factor);
  }

  std::printf("%-9s %8s %9s %9s %9s %9s %11s %11s\n", "side", "tol", "steps/run", "accepted", "rejected", "rhs/run",
              "err median", "err max");
  std::vector<std::pair<double, Side>> odeint_sides;
  for (double tol : cfg.tols) {
    Side o = run_odeint(rho, tol);
    fill_errors(o, ref);
    Side b = run_batchode(cfg, batch, tol);
    fill_errors(b, ref);
    print_row("odeint", tol, o);
    print_row("batchode", tol, b);
    odeint_sides.emplace_back(tol, std::move(o));
  }

  std::printf("\nmatched accuracy: batchode at the rtol = atol whose median error equals odeint's\n");
  std::printf("%8s %11s %11s | %9s %9s %9s %11s | %7s %7s\n", "odeint", "err median", "err max", "batchode",
              "steps/run", "rhs/run", "err max", "steps", "rhs");
  double matched_1e6 = 0;
  for (const auto& [tol, o] : odeint_sides) {
    const double m = match_rtol(cfg, batch, ref, o.err_median);
    if (tol == 1e-6) matched_1e6 = m;
    Side b = run_batchode(cfg, batch, m);
    fill_errors(b, ref);
    std::printf("%8.0e %11.3e %11.3e | %9.3e %9.2f %9.1f %11.3e | %7.3f %7.3f\n", tol, o.err_median, o.err_max, m,
                b.accepted + b.rejected, b.rhs, b.err_max, (b.accepted + b.rejected) / (o.accepted + o.rejected),
                b.rhs / o.rhs);
  }
  std::printf("(last two columns: batchode / odeint per run at matched median error)\n");

  if (cfg.time && matched_1e6 > 0) {
    const double matched = matched_1e6;
    batchode::Solver<Lorenz> solver(Lorenz{}, batchode_options(cfg, matched));
    const double tb = best_seconds([&] { (void)solver.solve(batch.y0, batch.params); });
    const double to = best_seconds([&] { (void)run_odeint(rho, 1e-6); });
    std::printf(
        "\nwall per run (best of 5, one core), odeint at 1e-6, batchode at %.3e: odeint %.3f us, batchode %.3f us, "
        "odeint / batchode %.2fx\n",
        matched, to / double(cfg.runs) * 1e6, tb / double(cfg.runs) * 1e6, to / tb);
  }
  return 0;
}
