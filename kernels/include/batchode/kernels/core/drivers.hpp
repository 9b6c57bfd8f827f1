// kernels/core/: driver inputs (issue 11): time-varying inputs given as samples, evaluated where a run
// needs them as piecewise polynomials fitted on the host (solver/setup/driver_inputs.hpp: linear, or a cubic
// spline with natural, clamped, periodic or not-a-knot ends). Plain data and one evaluation, the
// same on the CPU and a device; no standard headers, so a runtime compiler builds it too. A system
// reads them through kernels/outputs/driven_system.hpp.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode {

/// One driver's polynomial pieces. Piece s covers [knot_s, knot_{s+1}) and is
/// c_0 + c_1 u + ... + c_order u^order with u = t - knot_s; its order + 1 coefficients are at
/// coefficients[s * (order + 1)]. Knots are t_first + s dt (knots null: uniform samples) or knots[s].
/// Before the first knot and after the last the end pieces go on (the host checks that a solve's span
/// is covered), unless `wrap`: then t is taken modulo the knots' span (a periodic signal). With
/// n_sets > 1 every run has its own samples (one set per run of the batch, same knots): set r's
/// pieces follow set r - 1's, n_pieces * (order + 1) coefficients on.
template <class T>
struct DriverPieces {
  const T* coefficients = nullptr;
  const T* knots = nullptr;   ///< n_pieces + 1 increasing times, or null (uniform)
  T t_first{}, dt{}, span{};  ///< first knot, spacing (uniform), last knot - first knot
  port::uint32_t n_pieces = 0;
  port::uint32_t order = 1;  ///< 1 (linear) or 3 (cubic)
  port::uint32_t wrap = 0;
  port::size_t n_sets = 1;  ///< 1: one set for the batch; else one per run
  port::uint32_t land = 1;  ///< adaptive steps end on the knots (driver_next_knot); 0: they may straddle them
};

namespace kernels {
template <class T, int M>
struct Dual;
}  // namespace kernels

namespace detail {

/// floor(x) for the piece index (portable.hpp has ceil, and one rounding is as good as the other).
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T floor_of(T x) {
  return -port::ceil(-x);
}

/// The piece holding t (t already wrapped), clamped to the first and last.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE port::uint32_t piece_of(const DriverPieces<T>& d, T t) {
  const port::uint32_t last = d.n_pieces - 1;
  if (d.knots == nullptr) {
    const T s = floor_of((t - d.t_first) / d.dt);
    return s <= T(0) ? 0u : (s >= T(last) ? last : static_cast<port::uint32_t>(s));
  }
  // Binary search for the last knot <= t among knots[0 .. last].
  port::uint32_t lo = 0, hi = last;
  while (lo < hi) {
    const port::uint32_t mid = (lo + hi + 1) / 2;
    if (d.knots[mid] <= t) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/// A time's value: itself, or a dual number's value (a Rosenbrock method differentiates the system in t,
/// kernels/linalg/jacobian.hpp: the piece is chosen by the value, the derivative flows through the
/// polynomial).
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T value_of(T t) {
  return t;
}
template <class T, int M>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T value_of(const kernels::Dual<T, M>& t) {
  return t.v;
}

}  // namespace detail

/// The driver's value at t (T, or a dual number over T) for run `set` of the batch (ignored when the
/// batch shares one set; < n_sets otherwise).
template <class T, class X>
BATCHODE_HOST_DEVICE X driver_value(const DriverPieces<T>& d, port::size_t set, X t) {
  T at = detail::value_of(t);
  if (d.wrap != 0) {
    const T offset = at - d.t_first;
    const T shift = d.span * detail::floor_of(offset / d.span);
    at = at - shift;
    t = t - shift;
  }
  const port::uint32_t s = detail::piece_of(d, at);
  const T knot = d.knots == nullptr ? port::fma(static_cast<T>(s), d.dt, d.t_first) : d.knots[s];
  const X u = t - knot;
  const port::size_t width = static_cast<port::size_t>(d.n_pieces) * (d.order + 1);
  const T* c = d.coefficients + (d.n_sets > 1 ? set * width : 0) + static_cast<port::size_t>(s) * (d.order + 1);
  if (d.order == 3) return c[0] + u * (c[1] + u * (c[2] + u * c[3]));  // Horner
  return c[0] + u * c[1];
}

/// The first knot after t (+inf past the last, or for a driver that does not land). Adaptive steps land
/// on these (run_integrator.hpp): at a knot a linear driver's slope jumps, a cubic spline's third
/// derivative, and an embedded error estimate misjudges a step across the jump (run_integrator.hpp).
template <class T>
BATCHODE_HOST_DEVICE T driver_next_knot(const DriverPieces<T>& d, T t) {
  const T never = port::numeric_limits<T>::infinity();
  if (d.land == 0) return never;
  T shift = T(0);
  if (d.wrap != 0) {
    shift = d.span * detail::floor_of((t - d.t_first) / d.span);
    t = t - shift;
  } else if (t < d.t_first) {
    return d.t_first;
  }
  T knot = never;
  if (d.knots == nullptr) {
    T s = detail::floor_of((t - d.t_first) / d.dt) + T(1);
    knot = port::fma(s, d.dt, d.t_first);
    if (!(knot > t)) {  // t on a knot, the quotient rounded below it
      s = s + T(1);
      knot = port::fma(s, d.dt, d.t_first);
    }
    if (s > T(d.n_pieces)) knot = never;
  } else {
    port::uint32_t lo = 0, hi = d.n_pieces + 1;  // the first knot > t among knots[0 .. n_pieces]
    while (lo < hi) {
      const port::uint32_t mid = (lo + hi) / 2;
      if (d.knots[mid] <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo <= d.n_pieces) knot = d.knots[lo];
  }
  if (d.wrap != 0 && !(knot < d.t_first + d.span)) knot = d.t_first + d.span;  // the next period's first
  return knot + shift;
}

/// The value of a batch's shared driver (or run 0's) at t.
template <class T>
BATCHODE_HOST_DEVICE T driver_value(const DriverPieces<T>& d, T t) {
  return driver_value(d, 0, t);
}

}  // namespace batchode
