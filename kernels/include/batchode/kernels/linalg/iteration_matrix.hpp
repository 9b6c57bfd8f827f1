// kernels/linalg/: the iteration matrix of the stiff methods, W = M diag - J (diag = 1 / (gamma h); M = I
// for an ODE, zero in the algebraic rows of a DAE), in the layout the system's Jacobian is kept in
// (Shape: dense, its declared band, or its own sparse LU; kernels/linalg/jacobian.hpp's RosenbrockShape):
// J and f_t at a point, W factorised, a solve with it. The Rosenbrock stepper solves each stage with it
// (kernels/methods/rosenbrock_stepper.hpp), the ESDIRK stepper each simplified Newton iteration
// (kernels/methods/esdirk_stepper.hpp), the Radau IIA stepper its real and complex systems
// (kernels/methods/radau_stepper.hpp): one description of the three layouts for all. Also the consistent
// initial values of a DAE's algebraic states, by the same factorisation.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/linalg/band.hpp"
#include "batchode/kernels/linalg/band_lu.hpp"
#include "batchode/kernels/linalg/complex.hpp"
#include "batchode/kernels/linalg/jacobian.hpp"
#include "batchode/kernels/linalg/lu.hpp"

namespace batchode::kernels {

/// f, J (in Shape's layout) and f_t at (t, y).
BATCHODE_HD_TEMPLATE
template <class Shape, class System, class T>
BATCHODE_HOST_DEVICE void linearize_in(const System& sys, T t, const T* y, const T* p, T* f, T* J, T* f_t) {
  constexpr port::size_t N = Shape::n;
  if constexpr (Shape::sparse) {
    linearize_sparse<N, System::n_params>(sys, t, y, p, f, J, f_t);
  } else if constexpr (Shape::banded) {
    static_assert(Shape::lower == JacobianBand<System>::lower && Shape::upper == JacobianBand<System>::upper,
                  "linearize_in: a band the system does not declare");
    linearize_band<N, System::n_params>(sys, t, y, p, f, J, f_t);
  } else {
    linearize<N, System::n_params>(sys, t, y, p, f, J, f_t);
  }
}

/// The values W holds in Shape's layout with entries of type D (T, or Complex<T> for Radau IIA's complex
/// W): the LU's, and for a complex W of a system's own sparse LU a complex copy of J's nonzeros after them
/// (its generated factorisation takes J in W's type).
template <class Shape, class D, class T>
inline constexpr port::size_t iteration_matrix_size =
    Shape::lu_size + (Shape::sparse && !port::is_same_v<D, T> ? Shape::jacobian_size : 0);

/// W = M diag - J factorised in place (Shape's layout; M = I for an ODE, else zero in the algebraic
/// rows: a system's own sparse LU adds diag to its differential rows itself); false when singular
/// (sparse: when a pivot is lost in rounding; for a block of runs, T a RunPack, the lanes that kept
/// theirs: kernels/linalg/sparse_lu.hpp's PivotsKept). diag and W are real (T), or complex (Complex<T>:
/// W then holds iteration_matrix_size<Shape, Complex<T>, T> values).
BATCHODE_HD_TEMPLATE
template <class Shape, class System, class T, class D>
BATCHODE_HOST_DEVICE auto factor_iteration_matrix(const System& sys, D diag, const T* J, D* W, int* piv) {
  constexpr port::size_t N = Shape::n;
  constexpr port::size_t first_algebraic = N - n_algebraic_v<System>;
  if constexpr (Shape::sparse) {
    (void)piv;
    if constexpr (port::is_same_v<D, T>) {
      return sys.sparse_lu_factor(diag, J, W);
    } else {
      D* Jd = W + Shape::lu_size;
      for (port::size_t k = 0; k < Shape::jacobian_size; ++k) Jd[k] = D(J[k]);
      return bool(sys.sparse_lu_factor(diag, static_cast<const D*>(Jd), W));
    }
  } else if constexpr (Shape::banded) {
    (void)sys;
    constexpr port::size_t L = Shape::lower, U = Shape::upper;
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) {
      // Row i's slots: columns i - L .. i + L + U; those past i + U (the fill) and outside 0 .. N - 1
      // start at zero (the latter are never read).
      BATCHODE_UNROLL_STATES
      for (port::size_t c = 0; c < Shape::lu_width; ++c) {
        const bool inside = c + i >= L && c + i - L < N && c <= L + U;
        W[i * Shape::lu_width + c] =
            inside ? (c == L && i < first_algebraic ? diag : D(0)) - J[i * Shape::jacobian_width + c] : D(0);
      }
    }
    return band_lu_factor<Shape>(W, piv);
  } else {
    (void)sys;
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) {
      BATCHODE_UNROLL_STATES
      for (port::size_t j = 0; j < N; ++j) {
        W[i * N + j] = (i == j && i < first_algebraic ? diag : D(0)) - J[i * N + j];
      }
    }
    return lu_factor<N>(W, piv);
  }
}

/// b = W^-1 b with W as factor_iteration_matrix left it (T real or complex, as W).
BATCHODE_HD_TEMPLATE
template <class Shape, class System, class T>
BATCHODE_HOST_DEVICE void solve_iteration_matrix(const System& sys, const T* W, const int* piv, T* b) {
  if constexpr (Shape::sparse) {
    (void)piv;
    sys.sparse_lu_solve(W, b);
  } else if constexpr (Shape::banded) {
    (void)sys;
    band_lu_solve<Shape>(W, piv, b);
  } else {
    (void)sys;
    lu_solve<Shape::n>(W, piv, b);
  }
}

/// A system with algebraic states z (the last n_algebraic): makes z consistent at (t, y) by Newton's
/// method on 0 = g(t, y, z) with the differential states held, dg/dz dz = -g. Each iteration solves
/// with the stepper's own factorisation of W = M s - J (its buffers f, J, f_t, W, piv) at a diagonal s so
/// large (near the largest finite T) that the differential rows pin their own updates (J's row over s:
/// below rounding, and not applied) and the algebraic rows are -dg/dz's: one code for the dense, band and
/// sparse layouts, no second factorisation. Converged when an update is below a thousandth of the
/// tolerance it would be measured by; false after 10 iterations, for a singular dg/dz or a non-finite
/// update. `evaluations` counts the (dual-number) evaluations made. The Rosenbrock and Radau steppers'
/// make_consistent.
BATCHODE_HD_TEMPLATE
template <class Shape, class System, class T>
BATCHODE_HOST_DEVICE bool make_algebraic_consistent(const System& sys, T t, T* y, const T* p, T rtol, T atol,
                                                    port::uint32_t& evaluations, T* f, T* J, T* f_t, T* W,
                                                    int* piv) {
  constexpr port::size_t N = Shape::n;
  constexpr port::size_t first_algebraic = N - n_algebraic_v<System>;
  static_assert(n_algebraic_v<System> > 0 && n_algebraic_v<System> < N,
                "make_algebraic_consistent: a system with 1 .. n_states - 1 algebraic states");
  const T pin = port::numeric_limits<T>::max() / T(1 << 20);
  for (int iteration = 0; iteration < 10; ++iteration) {
    linearize_in<Shape>(sys, t, y, p, f, J, f_t);
    ++evaluations;
    if (!factor_iteration_matrix<Shape>(sys, pin, J, W, piv)) return false;
    T update[N];
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) update[i] = i < first_algebraic ? T(0) : f[i];
    solve_iteration_matrix<Shape>(sys, W, piv, update);
    T worst = 0;
    bool finite = true;
    for (port::size_t i = first_algebraic; i < N; ++i) {
      y[i] += update[i];
      const T scaled = port::fabs(update[i]) / (atol + rtol * port::fabs(y[i]));
      finite = finite && scaled <= port::numeric_limits<T>::max();
      worst = scaled > worst ? scaled : worst;
    }
    if (!finite) return false;
    if (worst <= T(1e-3)) return true;
  }
  return false;
}

}  // namespace batchode::kernels
