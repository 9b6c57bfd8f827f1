// kernels/linalg/: dense LU with partial pivoting for one run's small N x N matrix, host and device.
//
// Up to annotations.hpp's unrolled_states (16) states every loop has a compile-time trip count and is
// unrolled, and rows are swapped with selects ("if r is the pivot row") instead of indexing by the
// pivot, so the matrix stays in registers. Past that the matrix is in local memory whatever the code,
// and N^3 unrolled operations took ptxas minutes (64 states: over 400 s); the loops stay loops
// (unrolled BATCHODE_STATE_LOOP_UNROLL times) and rows are swapped by index: the same operations in the
// same order, so the same numbers. The price of the unrolled form: factorisation is N^3/3
// multiply-adds plus O(N^3) selects, and the matrix needs N^2 registers per thread. Where performance falls
// (an estimate from register counts, not yet measured across N): a thread has at most 255 32-bit registers
// (NVIDIA and AMD alike); a Rosenbrock step holds W (N^2), the stages (s N) and J in double, i.e. 2 (2 N^2 +
// s N) registers, so beyond N of about 7-8 in double (10-11 in float) the matrices spill to local memory
// (cached, but each access is a memory round trip), and occupancy drops well before that. Unrolled code also
// grows as N^3. Up to a few dozen states this still works; beyond that a block per run (shared-memory LU) is
// the better design.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/linalg/complex.hpp"  // magnitude

namespace batchode::kernels {

/// T is a real type or a Complex (kernels/linalg/complex.hpp: Radau IIA's complex W), pivots chosen by
/// magnitude().
/// Factorises A (row-major N x N) in place into L (unit lower, below the diagonal) and U, recording
/// the pivot row of each column in piv. Returns false when a pivot is exactly zero (A singular); a
/// NaN pivot is not reported here and propagates to the solution.
namespace detail {
/// lu_factor past unrolled_states: loops, rows swapped by index.
BATCHODE_HD_TEMPLATE
template <port::size_t N, class T>
BATCHODE_HOST_DEVICE bool lu_factor_loops(T* A, int* piv) {
  bool regular = true;
  BATCHODE_UNROLL_STATES
  for (port::size_t k = 0; k < N; ++k) {
    auto best = magnitude(A[k * N + k]);
    port::size_t p = k;
    BATCHODE_UNROLL_STATES
    for (port::size_t r = k + 1; r < N; ++r) {
      const auto v = magnitude(A[r * N + k]);
      if (v > best) {
        best = v;
        p = r;
      }
    }
    piv[k] = static_cast<int>(p);
    if (p != k) {  // columns k.. only, as lu_factor
      BATCHODE_UNROLL_STATES
      for (port::size_t j = k; j < N; ++j) {
        const T a = A[k * N + j];
        A[k * N + j] = A[p * N + j];
        A[p * N + j] = a;
      }
    }
    const T pivot = A[k * N + k];
    if (pivot == T(0)) {
      regular = false;
      continue;
    }
    const T inv = T(1) / pivot;
    BATCHODE_UNROLL_STATES
    for (port::size_t r = k + 1; r < N; ++r) {
      const T l = A[r * N + k] * inv;
      A[r * N + k] = l;
      BATCHODE_UNROLL_STATES
      for (port::size_t j = k + 1; j < N; ++j) A[r * N + j] -= l * A[k * N + j];
    }
  }
  return regular;
}

/// lu_solve past unrolled_states: loops, entries swapped by index.
BATCHODE_HD_TEMPLATE
template <port::size_t N, class T>
BATCHODE_HOST_DEVICE void lu_solve_loops(const T* LU, const int* piv, T* b) {
  BATCHODE_UNROLL_STATES
  for (port::size_t k = 0; k < N; ++k) {
    const port::size_t p = static_cast<port::size_t>(piv[k]);
    if (p != k) {
      const T a = b[k];
      b[k] = b[p];
      b[p] = a;
    }
    BATCHODE_UNROLL_STATES
    for (port::size_t r = k + 1; r < N; ++r) b[r] -= LU[r * N + k] * b[k];
  }
  BATCHODE_UNROLL_STATES
  for (port::size_t kk = 0; kk < N; ++kk) {
    const port::size_t k = N - 1 - kk;
    T s = b[k];
    BATCHODE_UNROLL_STATES
    for (port::size_t j = k + 1; j < N; ++j) s -= LU[k * N + j] * b[j];
    b[k] = s / LU[k * N + k];
  }
}
}  // namespace detail

BATCHODE_HD_TEMPLATE
template <port::size_t N, class T>
BATCHODE_HOST_DEVICE bool lu_factor(T* A, int* piv) {
  if constexpr (N > unrolled_states) {
    return detail::lu_factor_loops<N>(A, piv);
  } else {
    bool regular = true;
    BATCHODE_UNROLL
    for (port::size_t k = 0; k < N; ++k) {
      auto best = magnitude(A[k * N + k]);
      int p = static_cast<int>(k);
      BATCHODE_UNROLL
      for (port::size_t r = k + 1; r < N; ++r) {
        const auto v = magnitude(A[r * N + k]);
        if (v > best) {
          best = v;
          p = static_cast<int>(r);
        }
      }
      piv[k] = p;
      BATCHODE_UNROLL
      for (port::size_t r = k + 1; r < N; ++r) {
        const bool swap = (p == static_cast<int>(r));
        // Columns k.. only: the multipliers of earlier columns stay in the rows they were made in, as
        // lu_solve applies each column's swap and elimination in turn (LINPACK's order). Swapping them
        // too (LAPACK's order) pairs with a solve that applies every swap first.
        BATCHODE_UNROLL
        for (port::size_t j = k; j < N; ++j) {
          const T a = A[k * N + j], b = A[r * N + j];
          A[k * N + j] = swap ? b : a;
          A[r * N + j] = swap ? a : b;
        }
      }
      const T pivot = A[k * N + k];
      if (pivot == T(0)) {
        regular = false;
        continue;  // leave the column; the caller discards the factorisation
      }
      const T inv = T(1) / pivot;
      BATCHODE_UNROLL
      for (port::size_t r = k + 1; r < N; ++r) {
        const T l = A[r * N + k] * inv;
        A[r * N + k] = l;
        BATCHODE_UNROLL
        for (port::size_t j = k + 1; j < N; ++j) A[r * N + j] -= l * A[k * N + j];
      }
    }
    return regular;
  }
}

/// Solves A x = b in place in b, with the factorisation of lu_factor.
BATCHODE_HD_TEMPLATE
template <port::size_t N, class T>
BATCHODE_HOST_DEVICE void lu_solve(const T* LU, const int* piv, T* b) {
  if constexpr (N > unrolled_states) {
    detail::lu_solve_loops<N>(LU, piv, b);
  } else {
    BATCHODE_UNROLL
    for (port::size_t k = 0; k < N; ++k) {
      BATCHODE_UNROLL
      for (port::size_t r = k + 1; r < N; ++r) {
        const bool swap = (piv[k] == static_cast<int>(r));
        const T a = b[k], c = b[r];
        b[k] = swap ? c : a;
        b[r] = swap ? a : c;
      }
      BATCHODE_UNROLL
      for (port::size_t r = k + 1; r < N; ++r) b[r] -= LU[r * N + k] * b[k];
    }
    BATCHODE_UNROLL
    for (port::size_t kk = 0; kk < N; ++kk) {
      const port::size_t k = N - 1 - kk;
      T s = b[k];
      BATCHODE_UNROLL
      for (port::size_t j = k + 1; j < N; ++j) s -= LU[k * N + j] * b[j];
      b[k] = s / LU[k * N + k];
    }
  }
}

}  // namespace batchode::kernels
