// Problems with exact solutions for the standing accuracy tests (tests/kernels/methods/accuracy_test.cpp on
// the CPU paths, tests/gpu/accuracy_gpu_test.cpp on the device): linear growth, decay from t0 != 0,
// oscillation, a stiff linear system, a non-autonomous problem from t0 != 0 and a nonlinear one.
// Each is a host+device system with a few runs (parameters and initial values per run), the span it
// is solved over, its exact solution, and how hard it is for explicit methods (stiff).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "batchode/kernels/core/annotations.hpp"

namespace batchode::testing::accuracy {

/// y' = p y, y(0) = 1: y = exp(p t). On this problem ROS3P's published estimate is identically 0.
struct Growth {
  static constexpr std::size_t n_states = 1, n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = p[0] * y[0];
  }
  static constexpr const char* name = "growth";
  static constexpr double t0 = 0, t_end = 1;
  static constexpr bool stiff = false;
  static std::vector<std::vector<double>> params() { return {{1}, {4}, {8}}; }
  static std::vector<double> y0(const std::vector<double>&) { return {1}; }
  static std::vector<double> exact(double t, const std::vector<double>& p) { return {std::exp(p[0] * t)}; }
};

/// y' = -p y from t0 = 2, y(2) = 1: y = exp(-p (t - 2)). An autonomous problem that starts late.
struct DecayFromT0 {
  static constexpr std::size_t n_states = 1, n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = -p[0] * y[0];
  }
  static constexpr const char* name = "decay_from_t0";
  static constexpr double t0 = 2, t_end = 7;
  static constexpr bool stiff = false;
  static std::vector<std::vector<double>> params() { return {{0.5}, {1}, {2}}; }
  static std::vector<double> y0(const std::vector<double>&) { return {1}; }
  static std::vector<double> exact(double t, const std::vector<double>& p) { return {std::exp(-p[0] * (t - t0))}; }
};

/// x'' = -w^2 x as (x, v), x(0) = 1, v(0) = 0: x = cos(w t), v = -w sin(w t).
struct Oscillation {
  static constexpr std::size_t n_states = 2, n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = y[1];
    f[1] = -p[0] * p[0] * y[0];
  }
  static constexpr const char* name = "oscillation";
  static constexpr double t0 = 0, t_end = 10;
  static constexpr bool stiff = false;
  static std::vector<std::vector<double>> params() { return {{1}, {2}, {3}}; }
  static std::vector<double> y0(const std::vector<double>&) { return {1, 0}; }
  static std::vector<double> exact(double t, const std::vector<double>& p) {
    return {std::cos(p[0] * t), -p[0] * std::sin(p[0] * t)};
  }
};

/// y1' = -y1, y2' = -p y2 + (p - 1) y1, y(0) = (1, 2): y1 = exp(-t), y2 = exp(-t) + exp(-p t).
/// Eigenvalues -1 and -p: stiff for p = 1000, where explicit methods are held by stability.
struct StiffLinear {
  static constexpr std::size_t n_states = 2, n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = -y[0];
    f[1] = -p[0] * y[1] + (p[0] - T(1)) * y[0];
  }
  static constexpr const char* name = "stiff_linear";
  static constexpr double t0 = 0, t_end = 2;
  static constexpr bool stiff = true;
  static std::vector<std::vector<double>> params() { return {{100}, {1000}}; }
  static std::vector<double> y0(const std::vector<double>&) { return {1, 2}; }
  static std::vector<double> exact(double t, const std::vector<double>& p) {
    return {std::exp(-t), std::exp(-t) + std::exp(-p[0] * t)};
  }
};

/// y' = -p (y - cos t) - sin t from t0 = 1, y(1) = cos 1 + 1: y = cos t + exp(-p (t - 1)).
/// The right-hand side depends on t: a stage evaluated at the wrong time, or a wrong df/dt term,
/// shows here.
struct NonAutonomous {
  static constexpr std::size_t n_states = 1, n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* f) const {
    using std::cos, std::sin;
    f[0] = -p[0] * (y[0] - cos(t)) - sin(t);
  }
  static constexpr const char* name = "non_autonomous";
  static constexpr double t0 = 1, t_end = 4;
  static constexpr bool stiff = false;
  static std::vector<std::vector<double>> params() { return {{1}, {2}, {5}}; }
  static std::vector<double> y0(const std::vector<double>&) { return {std::cos(1.0) + 1}; }
  static std::vector<double> exact(double t, const std::vector<double>& p) {
    return {std::cos(t) + std::exp(-p[0] * (t - t0))};
  }
};

/// The logistic equation y' = p y (1 - y), y(0) = 0.1: y = 1 / (1 + 9 exp(-p t)). Nonlinear.
struct Logistic {
  static constexpr std::size_t n_states = 1, n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = p[0] * y[0] * (T(1) - y[0]);
  }
  static constexpr const char* name = "logistic";
  static constexpr double t0 = 0, t_end = 8;
  static constexpr bool stiff = false;
  static std::vector<std::vector<double>> params() { return {{1}, {2}}; }
  static std::vector<double> y0(const std::vector<double>&) { return {0.1}; }
  static std::vector<double> exact(double t, const std::vector<double>& p) {
    return {1 / (1 + 9 * std::exp(-p[0] * t))};
  }
};

/// Calls f(Problem{}) for every problem above.
template <class F>
void for_each_problem(F&& f) {
  f(Growth{});
  f(DecayFromT0{});
  f(Oscillation{});
  f(StiffLinear{});
  f(NonAutonomous{});
  f(Logistic{});
}

/// The problem's runs as a batch in precision T.
template <class Problem, class T>
Batch<T> batch_of() {
  Batch<T> b;
  for (const std::vector<double>& p : Problem::params()) {
    for (double v : Problem::y0(p)) b.y0.push_back(static_cast<T>(v));
    for (double v : p) b.params.push_back(static_cast<T>(v));
    ++b.n_runs;
  }
  return b;
}

/// The worst over runs and states of |y - exact| / (atol + rtol |exact|) at t_end; infinity when a
/// run did not succeed.
template <class Problem, class T>
double scaled_error(const SolveResult<T>& r, double rtol, double atol) {
  const std::vector<std::vector<double>> params = Problem::params();
  double worst = 0;
  for (std::size_t run = 0; run < params.size(); ++run) {
    if (r.status(run) != Status::success) return INFINITY;
    const std::vector<double> exact = Problem::exact(Problem::t_end, params[run]);
    for (std::size_t s = 0; s < Problem::n_states; ++s) {
      const double err = std::fabs(static_cast<double>(r.final_state(run, s)) - exact[s]);
      worst = std::max(worst, err / (atol + rtol * std::fabs(exact[s])));
    }
  }
  return worst;
}

/// The most steps (accepted + rejected) any run took.
template <class T>
std::uint64_t most_steps(const SolveResult<T>& r) {
  std::uint64_t most = 0;
  for (std::size_t run = 0; run < r.n_runs(); ++run) {
    most = std::max<std::uint64_t>(most, std::uint64_t(r.counters(run).accepted_steps) + r.counters(run).rejected_steps);
  }
  return most;
}

/// The tolerances of the sweep: 1e-4 ... 1e-8 in double; in float 1e-4 and 1e-5 (float's epsilon is
/// 1.2e-7, so rounding alone, over hundreds of steps, reaches 1e-6 of the solution).
template <class T>
std::vector<double> tolerances() {
  if (std::is_same_v<T, float>) return {1e-4, 1e-5};
  return {1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
}

/// What an adaptive solve at tolerance tol (rtol = atol) must show on every problem:
///  - error at t_end (scaled as above) at most max(100, steps / 2): the controller holds each step's
///    local error to about tol, and on these problems nothing amplifies it, so the global error is at
///    most the sum over steps. Embedded pairs estimate their less accurate member and stay far below
///    (at most about 40: bogacki_shampine32 over three periods of the oscillation); ros3p's step
///    doubling keeps the more accurate halves, so it reaches about steps / 7 (172 over 1200 steps of
///    the oscillation at 1e-8). ros3p's blind embedded estimate gave 1e6 in 5-8 steps. kencarp4's
///    embedded pair underrates its local error on the oscillation about 1.5x (101 over 67 steps at
///    1e-5, the same unfiltered; its pair is Kennedy and Carpenter's, and kvaerno5 reaches 26): its
///    bound is 2 steps;
///  - error no smaller than 1e-4 tol: far tighter means the controller ignores the tolerance
///    (the smallest seen is 0.0065);
///  - steps within a ceiling from the controller's own law: steps ~ span * C tol^(-1/(q + 1)), with
///    q the estimate's order; C = 40 covers every method and problem here with a margin (explicit
///    methods on the stiff problem are held by stability instead: 4000 steps more).
struct Bounds {
  static double max_scaled_error(Method m, std::uint64_t steps) {
    return std::max(100.0, (m == Method::kencarp4 ? 2.0 : 0.5) * static_cast<double>(steps));
  }
  static constexpr double min_scaled_error = 1e-4;
};

inline std::uint64_t step_ceiling(Method m, double tol, bool stiff_problem) {
  const MethodInfo& info = method_info(m);
  const bool stiff_method = std::find(std::begin(stiff_methods), std::end(stiff_methods), m) != std::end(stiff_methods);
  const double law = 40 * std::pow(tol, -1.0 / (info.error_order + 1));
  return static_cast<std::uint64_t>(stiff_problem && !stiff_method ? law + 4000 : law);
}

/// Every adaptive method, explicit and stiff.
inline std::vector<Method> adaptive_methods() {
  std::vector<Method> all;
  for (Method m : all_methods) {
    if (method_info(m).adaptive) all.push_back(m);
  }
  for (Method m : stiff_methods) all.push_back(m);
  return all;
}

/// Options of the sweep at tolerance tol.
inline SolveOptions sweep_options(Method m, double t0, double t_end, double tol) {
  SolveOptions o;
  o.outputs.counters = true;  // read below (counters are off by default)
  o.method = m;
  o.t0 = t0;
  o.t_end = t_end;
  o.rtol = o.atol = tol;
  o.verbosity = Verbosity::none;
  o.backend = Backend::cpu;
  return o;
}

}  // namespace batchode::testing::accuracy
