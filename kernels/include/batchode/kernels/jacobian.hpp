// kernels/: the linearisation a Rosenbrock step needs at (t, y): f, J = df/dy (row-major,
// J[i * N + j] = df_i / dy_j) and f_t = df/dt. A system may give J itself through a member
//   template <class T> BATCHODE_HOST_DEVICE void jacobian(T t, const T* y, const T* p, T* J) const;
// otherwise J comes from forward-mode AD (kernels/dual.hpp) through its templated call operator.
// f_t comes from AD in t, unless the system also has a member
//   template <class T> BATCHODE_HOST_DEVICE void time_derivative(T t, const T* y, const T* p, T* f_t) const;
// with both members (generated model code has them: models/) linearize makes no dual-number call at
// all, so the call operator need not accept dual numbers. Host and device.
#pragma once

#include "batchode/kernels/annotations.hpp"
#include "batchode/kernels/band.hpp"
#include "batchode/kernels/dual.hpp"
#include "batchode/kernels/portable.hpp"

namespace batchode::kernels {

namespace detail {
template <class S, class T, class = void>
struct has_jacobian : port::false_type {};
template <class S, class T>
struct has_jacobian<S, T,
                    port::void_t<decltype(port::declval<const S&>().jacobian(port::declval<T>(), port::declval<const T*>(),
                                                                             port::declval<const T*>(),
                                                                             port::declval<T*>()))>>
    : port::true_type {};

template <class S, class D, class = void>
struct callable_with : port::false_type {};
template <class S, class D>
struct callable_with<S, D,
                     port::void_t<decltype(port::declval<const S&>()(port::declval<D>(), port::declval<const D*>(),
                                                                     port::declval<const D*>(), port::declval<D*>()))>>
    : port::true_type {};

template <class S, class T, class = void>
struct has_time_derivative : port::false_type {};
template <class S, class T>
struct has_time_derivative<
    S, T,
    port::void_t<decltype(port::declval<const S&>().time_derivative(
        port::declval<T>(), port::declval<const T*>(), port::declval<const T*>(), port::declval<T*>()))>>
    : port::true_type {};
}  // namespace detail

/// True when System provides an analytic `jacobian(t, y, p, J)` in precision T.
template <class System, class T>
inline constexpr bool has_jacobian_v = detail::has_jacobian<System, T>::value;

/// True when System provides an analytic `time_derivative(t, y, p, f_t)` (df/dt) in precision T.
template <class System, class T>
inline constexpr bool has_time_derivative_v = detail::has_time_derivative<System, T>::value;

/// True when System gives both J and f_t itself: linearize() then makes no dual-number call.
template <class System, class T>
inline constexpr bool has_analytic_linearization_v =
    has_jacobian_v<System, T> && has_time_derivative_v<System, T>;

/// The dual number linearize() calls the system with: N + 1 directions (states and t) under AD, one
/// (t) with an analytic J. The trait below asks about exactly this type: nvcc warns (an error under
/// -Werror) about a declared-but-unused specialisation of a call operator in an anonymous namespace.
template <class System, class T>
using LinearizeDual = Dual<T, has_jacobian_v<System, T> ? 1 : static_cast<int>(System::n_states) + 1>;

/// The Jacobian layout a Rosenbrock method uses for System in precision T: its declared band where
/// that is narrow enough to pay (BandShape::banded) and the band can be had (band_jacobian, or AD: a
/// system that gives only a dense analytic J keeps the dense path), else dense.
template <class System, class T>
using RosenbrockShape =
    port::conditional_t<JacobianBand<System>::banded && (has_band_jacobian_v<System, T> || !has_jacobian_v<System, T>),
                        JacobianBand<System>, BandShape<System::n_states>>;

/// The dual number linearize_band() calls the system with: the band's L + U + 1 column groups and t
/// under AD, one (t) with band_jacobian given.
template <class System, class T>
using LinearizeBandDual =
    Dual<T, has_band_jacobian_v<System, T> ? 1 : static_cast<int>(JacobianBand<System>::jacobian_width) + 1>;

namespace detail {
// The dual number a Rosenbrock step calls System with (its layout's), and whether it calls with none.
template <class System, class T, bool Banded = RosenbrockShape<System, T>::banded>
struct used_linearization {
  using dual = LinearizeDual<System, T>;
  static constexpr bool analytic = has_analytic_linearization_v<System, T>;
};
template <class System, class T>
struct used_linearization<System, T, true> {
  using dual = LinearizeBandDual<System, T>;
  static constexpr bool analytic = has_band_jacobian_v<System, T> && has_time_derivative_v<System, T>;
};

// With J and f_t analytic the call operator is never asked about dual numbers (not even in a trait: nvcc
// would warn about the declared, unused specialisation, see LinearizeDual).
template <class System, class T, bool Analytic = used_linearization<System, T>::analytic>
struct can_linearize : port::true_type {};
template <class System, class T>
struct can_linearize<System, T, false> : callable_with<System, typename used_linearization<System, T>::dual> {};
}  // namespace detail

/// True when a Rosenbrock method can linearise System in precision T: its call operator accepts dual
/// numbers (a template over the number type). Needed for f_t even when J is analytic, unless the
/// system also gives f_t itself (has_analytic_linearization_v).
template <class System, class T>
inline constexpr bool can_linearize_v = detail::can_linearize<System, T>::value;

namespace detail {
/// f_t = df/dt by one call with one dual direction (t): for a system that gives J but not f_t.
BATCHODE_HD_TEMPLATE
template <port::size_t N, port::size_t P, class System, class T>
BATCHODE_HOST_DEVICE void time_derivative_by_ad(const System& sys, T t, const T* y, const T* p, T* f_t) {
  using D = Dual<T, 1>;
  D yd[N], pd[P > 0 ? P : 1], fd[N];
  BATCHODE_UNROLL_STATES
  for (port::size_t i = 0; i < N; ++i) yd[i] = D(y[i]);
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < P; ++i) pd[i] = D(p[i]);
  sys(D::variable(t, 0), yd, P > 0 ? pd : nullptr, fd);
  BATCHODE_UNROLL_STATES
  for (port::size_t i = 0; i < N; ++i) f_t[i] = fd[i].d[0];
}
}  // namespace detail

/// f, J and f_t at (t, y). Without an analytic Jacobian: ONE call of the system with N + 1 dual
/// directions (the N states and t), which costs about (N + 2) evaluations of f but gives all three.
/// With one: f by a plain call, J by `jacobian`, f_t by a call with one dual direction. With both
/// `jacobian` and `time_derivative`: three plain calls.
BATCHODE_HD_TEMPLATE
template <port::size_t N, port::size_t P, class System, class T>
BATCHODE_HOST_DEVICE void linearize(const System& sys, T t, const T* y, const T* p, T* f, T* J, T* f_t) {
  if constexpr (has_analytic_linearization_v<System, T>) {
    sys(t, y, p, f);
    sys.jacobian(t, y, p, J);
    sys.time_derivative(t, y, p, f_t);
  } else if constexpr (has_jacobian_v<System, T>) {
    sys(t, y, p, f);
    sys.jacobian(t, y, p, J);
    detail::time_derivative_by_ad<N, P>(sys, t, y, p, f_t);
  } else {
    constexpr int M = static_cast<int>(N) + 1;
    using D = LinearizeDual<System, T>;
    D yd[N], pd[P > 0 ? P : 1], fd[N];
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) yd[i] = D::variable(y[i], static_cast<int>(i));
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < P; ++i) pd[i] = D(p[i]);
    sys(D::variable(t, M - 1), yd, P > 0 ? pd : nullptr, fd);
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) {
      f[i] = fd[i].v;
      BATCHODE_UNROLL_STATES
      for (port::size_t j = 0; j < N; ++j) J[i * N + j] = fd[i].d[j];
      f_t[i] = fd[i].d[M - 1];
    }
  }
}

/// linearize() for a system with a declared band (kernels/band.hpp, JacobianBand<System>::banded): J
/// in band storage, Jb[i * jacobian_width + (j - i + L)] for the columns j of row i's band in 0 .. N - 1
/// (the slots of columns outside are left as they are). Without band_jacobian: one call with
/// L + U + 2 dual directions, column j seeded in direction j mod (L + U + 1) (Curtis, Powell & Reid's
/// grouping: row i depends on no two columns of one group), t in the last; each entry equals the dense
/// AD's bit for bit. With band_jacobian (and time_derivative), as linearize() with jacobian.
BATCHODE_HD_TEMPLATE
template <port::size_t N, port::size_t P, class System, class T>
BATCHODE_HOST_DEVICE void linearize_band(const System& sys, T t, const T* y, const T* p, T* f, T* Jb, T* f_t) {
  using Shape = JacobianBand<System>;
  constexpr port::size_t L = Shape::lower, width = Shape::jacobian_width;
  if constexpr (has_band_jacobian_v<System, T> && has_time_derivative_v<System, T>) {
    sys(t, y, p, f);
    sys.band_jacobian(t, y, p, Jb);
    sys.time_derivative(t, y, p, f_t);
  } else if constexpr (has_band_jacobian_v<System, T>) {
    sys(t, y, p, f);
    sys.band_jacobian(t, y, p, Jb);
    detail::time_derivative_by_ad<N, P>(sys, t, y, p, f_t);
  } else {
    constexpr int M = static_cast<int>(width) + 1;
    using D = LinearizeBandDual<System, T>;
    D yd[N], pd[P > 0 ? P : 1], fd[N];
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) yd[i] = D::variable(y[i], static_cast<int>(i % width));
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < P; ++i) pd[i] = D(p[i]);
    sys(D::variable(t, M - 1), yd, P > 0 ? pd : nullptr, fd);
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) {
      f[i] = fd[i].v;
      BATCHODE_UNROLL_STATES
      for (port::size_t c = 0; c < width; ++c) {  // column j = i - L + c
        if (c + i >= L && c + i - L < N) Jb[i * width + c] = fd[i].d[(c + i - L) % width];
      }
      f_t[i] = fd[i].d[M - 1];
    }
  }
}

}  // namespace batchode::kernels
