// Systems whose events change the state (kernels/core/system.hpp's event_assignments and event_assign),
// with closed forms: shared by the CPU tests (tests/kernels/loop/event_actions_test.cpp) and the GPU's
// (tests/gpu/event_actions_gpu_test.cpp). Host and device functors.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/methods/method.hpp"

namespace batchode::testing {

inline constexpr double g = 9.81, h0 = 10.0;

/// A ball dropped from h0: h' = v, v' = -g; at h = 0 falling, v = -e v. p = {e}.
struct BouncingBall {
  static constexpr std::size_t n_states = 2, n_params = 1, n_events = 1;
  static constexpr std::uint32_t event_assignments = 1;
  static constexpr Method compiled_methods[] = {Method::dopri5, Method::rk4, Method::tsit5, Method::rodas4};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T*, T* dydt) const {
    dydt[0] = y[1];
    dydt[1] = T(-g);
  }
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* ev) const {
    ev[0] = y[0];
  }
  template <class T>
  BATCHODE_HOST_DEVICE void event_assign(std::size_t, T, T* y, const T* p) const {
    y[1] = -p[0] * y[1];
  }
};

/// Leaky integrate-and-fire: tau v' = -v + I R, a spike at v = theta (rising) resets v to 0.
/// p = {I}; tau = 10, R = 1, theta = 1. The period is tau ln(I R / (I R - theta)) for I R > theta.
struct LeakyIntegrateAndFire {
  static constexpr std::size_t n_states = 1, n_params = 1, n_events = 1;
  static constexpr std::uint32_t event_assignments = 1;
  static constexpr Method compiled_methods[] = {Method::dopri5, Method::rodas5p};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = (-y[0] + p[0]) / T(10);
  }
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* ev) const {
    ev[0] = y[0] - T(1);
  }
  template <class T>
  BATCHODE_HOST_DEVICE void event_assign(std::size_t, T, T* y, const T*) const {
    y[0] = T(0);
  }
};

inline double lif_period(double current) { return 10.0 * std::log(current / (current - 1.0)); }

/// One compartment with doses at given times (kernels/core/system.hpp's time_events and event_time):
/// A' = -k A, p = {k, D, tau, t_first}. Event 0 records A falling through `low` (a crossing); event 1
/// doses D at t_first + i tau (A += D); event 2 samples A every 5 from t = 5 (recorded only; at 80 and
/// 200 it meets a dose of t_first = 8, tau = 24).
struct Dosing {
  static constexpr double low = 0.5;
  static constexpr std::size_t n_states = 1, n_params = 4, n_events = 3;
  static constexpr std::uint32_t event_assignments = 0b010, time_events = 0b110;
  static constexpr Method compiled_methods[] = {Method::dopri5, Method::rk4, Method::tsit5, Method::rodas4};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = -p[0] * y[0];
  }
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* ev) const {
    ev[0] = y[0] - T(low);
  }
  template <class T>
  BATCHODE_HOST_DEVICE T event_time(std::size_t e, std::uint32_t i, const T* p) const {
    return e == 1 ? p[3] + T(i) * p[2] : T(5) * T(i + 1);
  }
  template <class T>
  BATCHODE_HOST_DEVICE void event_assign(std::size_t, T, T* y, const T* p) const {
    y[0] += p[1];
  }
};

/// A rate switched by events (kernels/core/system.hpp's parameter_assignments): x' = -k x, p = {k}; at
/// t = 5 (an event at a given time) k triples; where x falls through 0.1 (a crossing) k halves.
struct SwitchedDecay {
  static constexpr std::size_t n_states = 1, n_params = 1, n_events = 2;
  static constexpr std::uint32_t event_assignments = 0b11, parameter_assignments = 0b11, time_events = 0b01;
  static constexpr Method compiled_methods[] = {Method::dopri5, Method::rk4, Method::rodas4};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = -p[0] * y[0];
  }
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* ev) const {
    ev[1] = y[0] - T(0.1);
  }
  template <class T>
  BATCHODE_HOST_DEVICE T event_time(std::size_t, std::uint32_t i, const T*) const {
    return i == 0 ? T(5) : T(INFINITY);
  }
  template <class T>
  BATCHODE_HOST_DEVICE void event_assign(std::size_t e, T, T*, T* p) const {
    p[0] *= e == 0 ? T(3) : T(0.5);
  }
};

/// SwitchedDecay's x at t from x(0) = 1 and k: the switch at 5, then the crossing of 0.1 (if any by t).
inline double switched_decay(double k, double t) {
  const double x5 = std::exp(-5 * k), k2 = 3 * k;
  const double t_low = x5 > 0.1 ? 5 + std::log(x5 / 0.1) / k2 : std::log(10.0) / k;  // the crossing
  if (t_low < 5) {  // crossed before the switch: k / 2 from t_low, then 3 k / 2 from 5
    if (t <= t_low) return std::exp(-k * t);
    if (t <= 5) return 0.1 * std::exp(-0.5 * k * (t - t_low));
    return 0.1 * std::exp(-0.5 * k * (5 - t_low)) * std::exp(-1.5 * k * (t - 5));
  }
  if (t <= 5) return std::exp(-k * t);
  if (t <= t_low) return x5 * std::exp(-k2 * (t - 5));
  return 0.1 * std::exp(-0.5 * k2 * (t - t_low));
}

/// Dosing's A at t from A(t0 = 0) = a0, the doses at t_first + i tau up to t (before t: A(t-), a dose
/// at t left out) or through it (A(t+)).
inline double dosed_amount(double a0, const double* p, double t, bool through) {
  double a = a0 * std::exp(-p[0] * t);
  for (int i = 0;; ++i) {
    const double ti = p[3] + i * p[2];
    if (ti > t || (ti == t && !through)) break;
    a += p[1] * std::exp(-p[0] * (t - ti));
  }
  return a;
}

/// The ball's k-th bounce time (k = 0, 1, ...): the first at sqrt(2 h0 / g), then flights of
/// 2 e^k v1 / g; T* = t1 + 2 e v1 / (g (1 - e)) is where they accumulate.
inline double bounce_time(double e, int k) {
  const double t1 = std::sqrt(2 * h0 / g), v1 = g * t1;
  return t1 + 2 * v1 / g * e * (1 - std::pow(e, k)) / (1 - e);
}

}  // namespace batchode::testing
