// kernels/linalg/: LU with partial pivoting of one run's N x N band matrix (L sub-, U superdiagonals), host
// and device, in kernels/linalg/band.hpp's storage: row i keeps columns i - L .. i + L + U, the last L for
// the fill that row swaps bring (a pivot comes from at most L rows below). The same algorithm as
// kernels/linalg/lu.hpp, loop for loop, with the operations on entries known to be zero left out, so both
// give the same bits for finite input: N L (L + U) multiply-adds instead of N^3 / 3, and N (2 L + U + 1)
// values instead of N^2. Loops are unrolled with compile-time indices as in lu.hpp (row swaps are
// selects), which keeps what fits in registers there; past annotations.hpp's unrolled_states the loop
// over the columns stays a loop (BATCHODE_UNROLL_STATES), so the code stops growing with N.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/linalg/band.hpp"
#include "batchode/kernels/linalg/complex.hpp"  // magnitude

namespace batchode::kernels {

/// Where entry (i, j), j - i in [-L, L + U], of a band LU lies (BandShape::lu_width a row).
template <class Shape>
BATCHODE_HOST_DEVICE constexpr port::size_t band_lu_at(port::size_t i, port::size_t j) {
  return i * Shape::lu_width + (j + Shape::lower - i);
}

/// Factorises band matrix A in place into L (unit lower, the multipliers below the diagonal) and U,
/// recording the pivot row of each column in piv. Entries of A in columns i + U + 1 .. i + L + U of
/// row i must be zero on entry. Returns false when a pivot is exactly zero (as lu_factor). The inner
/// loops run over offsets from column k (rows k + d, columns k + c) with a guard at the matrix's edge,
/// so their trip counts are constants whatever k is: they unroll fully, also where the loop over k
/// stays a loop.
BATCHODE_HD_TEMPLATE
template <class Shape, class T>
BATCHODE_HOST_DEVICE bool band_lu_factor(T* A, int* piv) {
  constexpr port::size_t N = Shape::n, L = Shape::lower, U = Shape::upper;
  bool regular = true;
  BATCHODE_UNROLL_STATES
  for (port::size_t k = 0; k < N; ++k) {
    const T diagonal = A[band_lu_at<Shape>(k, k)];
    auto best = magnitude(diagonal);
    int p = static_cast<int>(k);
    BATCHODE_UNROLL
    for (port::size_t d = 1; d <= L; ++d) {
      if (k + d < N) {
        const T a = A[band_lu_at<Shape>(k + d, k)];
        const auto v = magnitude(a);
        if (v > best) {
          best = v;
          p = static_cast<int>(k + d);
        }
      }
    }
    piv[k] = p;
    BATCHODE_UNROLL
    for (port::size_t d = 1; d <= L; ++d) {
      if (k + d < N) {
        const bool swap = (p == static_cast<int>(k + d));
        BATCHODE_UNROLL
        for (port::size_t c = 0; c <= L + U; ++c) {
          if (k + c < N) {
            const T a = A[band_lu_at<Shape>(k, k + c)], b = A[band_lu_at<Shape>(k + d, k + c)];
            A[band_lu_at<Shape>(k, k + c)] = swap ? b : a;
            A[band_lu_at<Shape>(k + d, k + c)] = swap ? a : b;
          }
        }
      }
    }
    const T pivot = A[band_lu_at<Shape>(k, k)];
    if (pivot == T(0)) {
      regular = false;
      continue;  // leave the column; the caller discards the factorisation
    }
    const T inv = T(1) / pivot;
    BATCHODE_UNROLL
    for (port::size_t d = 1; d <= L; ++d) {
      if (k + d < N) {
        const T l = A[band_lu_at<Shape>(k + d, k)] * inv;
        A[band_lu_at<Shape>(k + d, k)] = l;
        BATCHODE_UNROLL
        for (port::size_t c = 1; c <= L + U; ++c) {
          if (k + c < N) A[band_lu_at<Shape>(k + d, k + c)] -= l * A[band_lu_at<Shape>(k, k + c)];
        }
      }
    }
  }
  return regular;
}

/// Solves A x = b in place in b, with the factorisation of band_lu_factor.
BATCHODE_HD_TEMPLATE
template <class Shape, class T>
BATCHODE_HOST_DEVICE void band_lu_solve(const T* LU, const int* piv, T* b) {
  constexpr port::size_t N = Shape::n, L = Shape::lower, U = Shape::upper;
  BATCHODE_UNROLL_STATES
  for (port::size_t k = 0; k < N; ++k) {
    BATCHODE_UNROLL
    for (port::size_t d = 1; d <= L; ++d) {
      if (k + d < N) {
        const bool swap = (piv[k] == static_cast<int>(k + d));
        const T a = b[k], c = b[k + d];
        b[k] = swap ? c : a;
        b[k + d] = swap ? a : c;
      }
    }
    BATCHODE_UNROLL
    for (port::size_t d = 1; d <= L; ++d) {
      if (k + d < N) b[k + d] -= LU[band_lu_at<Shape>(k + d, k)] * b[k];
    }
  }
  BATCHODE_UNROLL_STATES
  for (port::size_t kk = 0; kk < N; ++kk) {
    const port::size_t k = N - 1 - kk;
    T s = b[k];
    BATCHODE_UNROLL
    for (port::size_t c = 1; c <= L + U; ++c) {
      if (k + c < N) s -= LU[band_lu_at<Shape>(k, k + c)] * b[k + c];
    }
    b[k] = s / LU[band_lu_at<Shape>(k, k)];
  }
}

}  // namespace batchode::kernels
