// kernels/: driver inputs (issue 11): time-varying inputs given as samples, evaluated where a run
// needs them as piecewise polynomials fitted on the host (solver/drivers.hpp: linear, or a cubic
// spline with natural, clamped, periodic or not-a-knot ends). Plain data and one evaluation, the
// same on the CPU and a device; no standard headers, so a runtime compiler builds it too.
#pragma once

#include "batchode/kernels/annotations.hpp"
#include "batchode/kernels/portable.hpp"

namespace batchode {

/// One driver's polynomial pieces. Piece s covers [knot_s, knot_{s+1}) and is
/// c_0 + c_1 u + ... + c_order u^order with u = t - knot_s; its order + 1 coefficients are at
/// coefficients[s * (order + 1)]. Knots are t_first + s dt (knots null: uniform samples) or knots[s].
/// Before the first knot and after the last the end pieces go on (the host checks that a solve's span
/// is covered), unless `wrap`: then t is taken modulo the knots' span (a periodic signal).
template <class T>
struct DriverPieces {
  const T* coefficients = nullptr;
  const T* knots = nullptr;   ///< n_pieces + 1 increasing times, or null (uniform)
  T t_first{}, dt{}, span{};  ///< first knot, spacing (uniform), last knot - first knot
  port::uint32_t n_pieces = 0;
  port::uint32_t order = 1;  ///< 1 (linear) or 3 (cubic)
  port::uint32_t wrap = 0;
};

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

}  // namespace detail

/// The driver's value at t.
template <class T>
BATCHODE_HOST_DEVICE T driver_value(const DriverPieces<T>& d, T t) {
  if (d.wrap != 0) {
    const T offset = t - d.t_first;
    t = d.t_first + (offset - d.span * detail::floor_of(offset / d.span));
  }
  const port::uint32_t s = detail::piece_of(d, t);
  const T knot = d.knots == nullptr ? port::fma(static_cast<T>(s), d.dt, d.t_first) : d.knots[s];
  const T u = t - knot;
  const T* c = d.coefficients + static_cast<port::size_t>(s) * (d.order + 1);
  if (d.order == 3) return c[0] + u * (c[1] + u * (c[2] + u * c[3]));  // Horner
  return c[0] + u * c[1];
}

}  // namespace batchode
