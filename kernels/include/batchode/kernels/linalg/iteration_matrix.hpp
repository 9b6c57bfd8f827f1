// kernels/linalg/: the iteration matrix of the stiff methods, W = M diag - J (diag = 1 / (gamma h); M = I
// for an ODE, zero in the algebraic rows of a DAE), in the layout the system's Jacobian is kept in
// (Shape: dense, its declared band, or its own sparse LU; kernels/linalg/jacobian.hpp's RosenbrockShape):
// J and f_t at a point, W factorised, a solve with it. The Rosenbrock stepper solves each stage with it
// (kernels/methods/rosenbrock_stepper.hpp), the ESDIRK stepper each simplified Newton iteration
// (kernels/methods/esdirk_stepper.hpp): one description of the three layouts for both.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/linalg/band.hpp"
#include "batchode/kernels/linalg/band_lu.hpp"
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

/// W = M diag - J factorised in place (Shape's layout; M = I for an ODE, else zero in the algebraic
/// rows: a system's own sparse LU adds diag to its differential rows itself); false when singular
/// (sparse: when a pivot is lost in rounding).
BATCHODE_HD_TEMPLATE
template <class Shape, class System, class T>
BATCHODE_HOST_DEVICE bool factor_iteration_matrix(const System& sys, T diag, const T* J, T* W, int* piv) {
  constexpr port::size_t N = Shape::n;
  constexpr port::size_t first_algebraic = N - n_algebraic_v<System>;
  if constexpr (Shape::sparse) {
    (void)piv;
    return sys.sparse_lu_factor(diag, J, W);
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
            inside ? (c == L && i < first_algebraic ? diag : T(0)) - J[i * Shape::jacobian_width + c] : T(0);
      }
    }
    return band_lu_factor<Shape>(W, piv);
  } else {
    (void)sys;
    BATCHODE_UNROLL_STATES
    for (port::size_t i = 0; i < N; ++i) {
      BATCHODE_UNROLL_STATES
      for (port::size_t j = 0; j < N; ++j) {
        W[i * N + j] = (i == j && i < first_algebraic ? diag : T(0)) - J[i * N + j];
      }
    }
    return lu_factor<N>(W, piv);
  }
}

/// b = W^-1 b with W as factor_iteration_matrix left it.
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

}  // namespace batchode::kernels
