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

/// The ball's k-th bounce time (k = 0, 1, ...): the first at sqrt(2 h0 / g), then flights of
/// 2 e^k v1 / g; T* = t1 + 2 e v1 / (g (1 - e)) is where they accumulate.
inline double bounce_time(double e, int k) {
  const double t1 = std::sqrt(2 * h0 / g), v1 = g * t1;
  return t1 + 2 * v1 / g * e * (1 - std::pow(e, k)) / (1 - e);
}

}  // namespace batchode::testing
