// kernels/linalg/: the linearisation a Rosenbrock step needs at (t, y): f, J = df/dy (row-major,
// J[i * N + j] = df_i / dy_j) and f_t = df/dt. A system may give J itself (its jacobian member),
// otherwise J comes from forward-mode AD (kernels/core/dual.hpp) through its templated call operator;
// f_t comes from AD in t, unless the system also has a time_derivative member. With both (generated
// model code has them: models/) linearize makes no dual-number call at all, so the call operator need
// not accept dual numbers. The members and their traits (has_jacobian_v, has_time_derivative_v,
// has_analytic_linearization_v): kernels/core/system.hpp; whether the call operator takes the dual
// number a step would use (can_linearize_v) is asked here, where that number's type is chosen. A
// system with its own sparse LU (kernels/linalg/sparse_lu.hpp) gives J as its structural nonzeros
// (linearize_sparse), and the layout a Rosenbrock step keeps J and W in is chosen here
// (RosenbrockShape: sparse, band or dense). Host and device.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/linalg/band.hpp"
#include "batchode/kernels/core/dual.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/linalg/sparse_lu.hpp"

namespace batchode::kernels {

/// The columns of a dense Jacobian one AD call of linearize() differentiates: all N up to
/// unrolled_states (one call), else groups of dense_ad_columns, one call each (a loop). A call with
/// N + 1 directions costs about N + 2 evaluations of f either way, but its code grows with N times the
/// model's: a 64-state system's dense Rosenbrock kernel took nvcc 74 s with 65 directions.
/// BATCHODE_DENSE_AD_COLUMNS: another group size, for a benchmark (benchmarks/large_systems/bruss_kernel.sh,
/// AD_GROUPS).
#ifndef BATCHODE_DENSE_AD_COLUMNS
#define BATCHODE_DENSE_AD_COLUMNS 8
#endif
inline constexpr port::size_t dense_ad_columns = BATCHODE_DENSE_AD_COLUMNS;
template <port::size_t N>
inline constexpr port::size_t dense_ad_group = N <= unrolled_states ? N : dense_ad_columns;

/// The dual number linearize() calls the system with: a group of columns and t under AD (N + 1
/// directions up to unrolled_states states), one (t) with an analytic J. The trait below asks about
/// exactly this type: nvcc warns (an error under -Werror) about a declared-but-unused specialisation of
/// a call operator in an anonymous namespace.
template <class System, class T>
using LinearizeDual =
    Dual<T, has_jacobian_v<System, T> ? 1 : static_cast<int>(dense_ad_group<System::n_states>) + 1>;

/// The Jacobian layout a Rosenbrock method uses for System in precision T: the system's own sparse LU
/// where it gives one (kernels/linalg/sparse_lu.hpp); else its declared band where that is narrow
/// enough to pay (BandShape::banded) and the band can be had (band_jacobian, or AD: a system that gives
/// only a dense analytic J keeps the dense path); else dense. A block of runs (T a RunPack) keeps its
/// runs' layout.
template <class System, class T, class U = lane_value_t<T>>
using RosenbrockShape =
    port::conditional_t<has_sparse_lu_v<System, U>,
                        SparseShape<System::n_states, jacobian_nonzeros_v<System>, sparse_lu_size_v<System>>,
                        port::conditional_t<JacobianBand<System>::banded && (has_band_jacobian_v<System, U> ||
                                                                             !has_jacobian_v<System, U>),
                                            JacobianBand<System>, BandShape<System::n_states>>>;

/// The dual number linearize_band() calls the system with: the band's L + U + 1 column groups and t
/// under AD, one (t) with band_jacobian given.
template <class System, class T>
using LinearizeBandDual =
    Dual<T, has_band_jacobian_v<System, T> ? 1 : static_cast<int>(JacobianBand<System>::jacobian_width) + 1>;

namespace detail {
// The dual number a Rosenbrock step calls System with (its layout's), and whether it calls with none.
template <class System, class T, class Shape = RosenbrockShape<System, T>, bool Banded = Shape::banded,
          bool Sparse = Shape::sparse>
struct used_linearization {
  using dual = LinearizeDual<System, T>;
  static constexpr bool analytic = has_analytic_linearization_v<System, T>;
};
template <class System, class T, class Shape>
struct used_linearization<System, T, Shape, true, false> {
  using dual = LinearizeBandDual<System, T>;
  static constexpr bool analytic = has_band_jacobian_v<System, T> && has_time_derivative_v<System, T>;
};
// The sparse J is the system's own: only f_t may need AD (one direction, t).
template <class System, class T, class Shape>
struct used_linearization<System, T, Shape, false, true> {
  using dual = Dual<T, 1>;
  static constexpr bool analytic = has_time_derivative_v<System, T>;
};

// With J and f_t analytic the call operator is never asked about dual numbers (not even in a trait: nvcc
// would warn about the declared, unused specialisation, see LinearizeDual).
template <class System, class T, bool Analytic = used_linearization<System, T>::analytic>
struct can_linearize : port::true_type {};
template <class System, class T>
struct can_linearize<System, T, false>
    : batchode::detail::has_rhs<System, typename used_linearization<System, T>::dual> {};
}  // namespace detail

/// sizeof the dual number a Rosenbrock step calls System with in precision T (its Jacobian layout's), 0
/// when it calls with none (J and f_t analytic): the CPU path counts a run's arrays of them against a
/// worker's stack (backends/cpu/cpu_backend.hpp).
template <class System, class T>
inline constexpr port::size_t rosenbrock_dual_bytes =
    detail::used_linearization<System, T>::analytic
        ? 0
        : sizeof(typename detail::used_linearization<System, T>::dual);

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

// Which direction of which AD call differentiates column j of the Jacobian, and where an entry goes.
// Dense: columns in groups of dense_ad_group<N>, call g seeding columns g G .. g G + G - 1 (one call
// up to unrolled_states states).
template <port::size_t N>
struct DenseColumns {
  static constexpr port::size_t width = dense_ad_group<N>, calls = (N + width - 1) / width;
  /// y_j as call `call` passes it: seeded in its direction if column j is in the call's group.
  template <class D, class T>
  BATCHODE_HOST_DEVICE static D seed(T yj, port::size_t j, port::size_t call) {
    return j >= call * width && j < (call + 1) * width ? D::variable(yj, static_cast<int>(j - call * width))
                                                       : D(yj);
  }
  template <class D, class T>
  BATCHODE_HOST_DEVICE static void store(const D& fi, port::size_t i, port::size_t call, T* J) {
    BATCHODE_UNROLL
    for (port::size_t k = 0; k < width; ++k) {
      if (call * width + k < N) J[i * N + call * width + k] = fi.d[k];
    }
  }
};
// Band (kernels/linalg/band.hpp): one call, column j seeded in direction j mod (L + U + 1) (Curtis, Powell &
// Reid's grouping: row i depends on no two columns of one group), J in band storage.
template <class Shape>
struct BandColumns {
  static constexpr port::size_t width = Shape::jacobian_width, calls = 1;
  template <class D, class T>
  BATCHODE_HOST_DEVICE static D seed(T yj, port::size_t j, port::size_t) {
    return D::variable(yj, static_cast<int>(j % width));
  }
  template <class D, class T>
  BATCHODE_HOST_DEVICE static void store(const D& fi, port::size_t i, port::size_t, T* Jb) {
    constexpr port::size_t N = Shape::n, L = Shape::lower;
    BATCHODE_UNROLL_STATES
    for (port::size_t c = 0; c < width; ++c) {  // column j = i - L + c
      if (c + i >= L && c + i - L < N) Jb[i * width + c] = fi.d[(c + i - L) % width];
    }
  }
};

/// f, J (in Columns' layout) and f_t by forward-mode AD: Columns::calls calls of the system with
/// D = Dual<T, Columns::width + 1> (the columns' directions and t, seeded in the first call only,
/// which also gives f). Every entry takes the operations of the one-call dense AD on its own
/// direction, so it has that AD's bits however the columns are grouped (a model whose branches look at
/// derivatives, such as pow with a variable exponent, excepted).
BATCHODE_HD_TEMPLATE
template <port::size_t N, port::size_t P, class Columns, class D, class System, class T>
BATCHODE_HOST_DEVICE void linearize_by_ad(const System& sys, T t, const T* y, const T* p, T* f, T* J,
                                          T* f_t) {
  constexpr int t_direction = static_cast<int>(Columns::width);
  D yd[N], pd[P > 0 ? P : 1], fd[N];
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < P; ++i) pd[i] = D(p[i]);
  // A loop, never unrolled: unrolling would put the model's code back `calls` times.
  BATCHODE_NO_UNROLL
  for (port::size_t call = 0; call < Columns::calls; ++call) {
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) yd[i] = Columns::template seed<D>(y[i], i, call);
    sys(call == 0 ? D::variable(t, t_direction) : D(t), yd, P > 0 ? pd : nullptr, fd);
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) {
      if (call == 0) f[i] = fd[i].v;
      Columns::store(fd[i], i, call, J);
      if (call == 0) f_t[i] = fd[i].d[t_direction];
    }
  }
}
}  // namespace detail

/// f, J and f_t at (t, y). Without an analytic Jacobian: ONE call of the system with N + 1 dual
/// directions (the N states and t), which costs about (N + 2) evaluations of f but gives all three;
/// past unrolled_states states, one call per group of dense_ad_columns columns (the same bits).
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
    detail::linearize_by_ad<N, P, detail::DenseColumns<N>, LinearizeDual<System, T>>(sys, t, y, p, f, J, f_t);
  }
}

/// linearize() for a system with a declared band (kernels/linalg/band.hpp, JacobianBand<System>::banded): J
/// in band storage, Jb[i * jacobian_width + (j - i + L)] for the columns j of row i's band in 0 .. N - 1
/// (the slots of columns outside are left as they are). Without band_jacobian: one call with
/// L + U + 2 dual directions, column j seeded in direction j mod (L + U + 1) (Curtis, Powell & Reid's
/// grouping: row i depends on no two columns of one group), t in the last; each entry equals the dense
/// AD's bit for bit. With band_jacobian (and time_derivative), as linearize() with jacobian.
BATCHODE_HD_TEMPLATE
template <port::size_t N, port::size_t P, class System, class T>
BATCHODE_HOST_DEVICE void linearize_band(const System& sys, T t, const T* y, const T* p, T* f, T* Jb, T* f_t) {
  using Shape = JacobianBand<System>;
  if constexpr (has_band_jacobian_v<System, T> && has_time_derivative_v<System, T>) {
    sys(t, y, p, f);
    sys.band_jacobian(t, y, p, Jb);
    sys.time_derivative(t, y, p, f_t);
  } else if constexpr (has_band_jacobian_v<System, T>) {
    sys(t, y, p, f);
    sys.band_jacobian(t, y, p, Jb);
    detail::time_derivative_by_ad<N, P>(sys, t, y, p, f_t);
  } else {
    detail::linearize_by_ad<N, P, detail::BandColumns<Shape>, LinearizeBandDual<System, T>>(sys, t, y, p, f,
                                                                                            Jb, f_t);
  }
}

/// linearize() for a system with its own sparse LU (kernels/linalg/sparse_lu.hpp): J as its
/// jacobian_nonzeros values, by sparse_jacobian; f by a plain call; f_t by time_derivative, or by a
/// call with one dual direction (a driven model's: its drivers' slopes).
BATCHODE_HD_TEMPLATE
template <port::size_t N, port::size_t P, class System, class T>
BATCHODE_HOST_DEVICE void linearize_sparse(const System& sys, T t, const T* y, const T* p, T* f, T* Js, T* f_t) {
  sys(t, y, p, f);
  sys.sparse_jacobian(t, y, p, Js);
  if constexpr (has_time_derivative_v<System, T>) {
    sys.time_derivative(t, y, p, f_t);
  } else {
    detail::time_derivative_by_ad<N, P>(sys, t, y, p, f_t);
  }
}

}  // namespace batchode::kernels

namespace batchode {

/// True when a Rosenbrock method can linearise System in precision T: its call operator accepts dual
/// numbers (a template over the number type). Needed for f_t even when J is analytic, unless the
/// system also gives f_t itself (has_analytic_linearization_v). A trait over a system, so in
/// `batchode` (kernels/core/system.hpp's namespace rule); defined here, where its dual type is chosen.
template <class System, class T>
inline constexpr bool can_linearize_v = kernels::detail::can_linearize<System, T>::value;

}  // namespace batchode
