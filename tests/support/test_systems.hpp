// Systems shared by the CPU and GPU tests (host+device functors) and their exact solutions.
#pragma once

#include <cmath>
#include <cstddef>

#include "batchode/kernels/core/annotations.hpp"

namespace batchode::testing {

/// dy/dt = -k y, y(t) = y0 exp(-k t). p = {k}.
struct Decay {
  static constexpr std::size_t n_states = 1;
  static constexpr std::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = -p[0] * y[0];
  }
};

/// x'' = -w^2 x as (x, v); x(t) = x0 cos(w t) + v0/w sin(w t). p = {w}.
struct Oscillator {
  static constexpr std::size_t n_states = 2;
  static constexpr std::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = y[1];
    dydt[1] = -p[0] * p[0] * y[0];
  }
};

/// x'' + 2 zeta x' + w^2 x = 0 as (x, v), p = {w, zeta}, with named states and its energy
/// (v^2 + w^2 x^2) / 2 as an observable (summaries: kernels/outputs/summaries.hpp).
struct DampedOscillator {
  static constexpr std::size_t n_states = 2;
  static constexpr std::size_t n_params = 2;
  static constexpr const char* state_names[] = {"x", "v"};
  static constexpr std::size_t n_observables = 1;
  static constexpr const char* observable_names[] = {"energy"};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = y[1];
    dydt[1] = -p[0] * p[0] * y[0] - T(2) * p[1] * y[1];
  }
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T, const T* y, const T* p, T* out) const {
    out[0] = T(0.5) * (y[1] * y[1] + p[0] * p[0] * y[0] * y[0]);
  }
};

/// Decay forced by two drivers, y' = -a y + b u(t) + v(t) (a = p[0], b = p[1]): linear, so its exact
/// solution for any piecewise-polynomial input is a closed form (tests/kernels/outputs/driven_test.cpp). The
/// drivers are named out of the order a spec list may give them in; the observables are the drivers'
/// values and their sum with the state, so a saved point shows exactly what the system read.
struct ForcedDecay {
  static constexpr std::size_t n_states = 1;
  static constexpr std::size_t n_params = 2;
  static constexpr std::size_t n_drivers = 2;
  static constexpr const char* state_names[] = {"y"};
  static constexpr const char* driver_names[] = {"u", "v"};
  static constexpr std::size_t n_observables = 2;
  static constexpr const char* observable_names[] = {"u_seen", "y_plus_v"};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, const T* u, T* dydt) const {
    dydt[0] = -p[0] * y[0] + p[1] * u[0] + u[1];
  }
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T, const T* y, const T*, const T* u, T* out) const {
    out[0] = u[0];
    out[1] = y[0] + u[1];
  }
};

/// The oscillator from (1, 0) with two event functions: x (zero at (k + 1/2) pi / w, falling for even
/// k) and v = -w sin(w t) (zero at k pi / w, k >= 1, rising for odd k).
struct OscillatorEvents : Oscillator {
  static constexpr std::size_t n_events = 2;
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* g) const {
    g[0] = y[0];
    g[1] = y[1];
  }
};

/// Decay with one event function, y - 1/2: y0 = 1 crosses it at t = ln 2 / k.
struct DecayHalf : Decay {
  static constexpr std::size_t n_events = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* g) const {
    g[0] = y[0] - T(0.5);
  }
};

/// Lorenz; p = {sigma, rho, beta}.
struct Lorenz {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 3;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * (y[1] - y[0]);
    dydt[1] = y[0] * (p[1] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - p[2] * y[2];
  }
};

/// Van der Pol: x' = v, v' = mu (1 - x^2) v - x. p = {mu}.
struct VanDerPol {
  static constexpr std::size_t n_states = 2;
  static constexpr std::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = y[1];
    dydt[1] = p[0] * (T(1) - y[0] * y[0]) * y[1] - y[0];
  }
};

/// Lotka-Volterra: x' = a x - b x y, y' = d x y - c y. p = {a, b, c, d}.
/// Invariant: V = d x - c ln x + b y - a ln y.
struct LotkaVolterra {
  static constexpr std::size_t n_states = 2;
  static constexpr std::size_t n_params = 4;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dydt[1] = p[3] * y[0] * y[1] - p[2] * y[1];
  }
};

/// dy/dt = p y^2 blows up at t = 1 / (p y0): used to check failing runs. p = {p}.
struct BlowUp {
  static constexpr std::size_t n_states = 1;
  static constexpr std::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * y[0] * y[0];
  }
};

}  // namespace batchode::testing
