// kernels/linalg/: the band of a system's Jacobian, for the Rosenbrock methods of large systems. A system
// whose f_i reads only y_j with j - i in [-L, U] may say so (jacobian_lower_bandwidth = L,
// jacobian_upper_bandwidth = U; generated model code does, from its symbolic Jacobian: models/). It may
// then also give the band itself, band_jacobian(t, y, p, Jb), in BandShape's storage (the members and
// their traits: kernels/core/system.hpp); otherwise forward-mode AD fills it with
// L + U + 1 directions (columns L + U + 1 apart share one: each row sees one of them), not N.
// A declared band is a promise: entries outside it are taken as zero, never computed.
//
// Why: a dense N x N Jacobian and LU per run cost N^2 storage and N^3 work, which past N ~ 8-16 leave
// a thread's registers (benchmarks/RESULTS.md, "The registers behind the cliff"); a band holds
// N (2 L + U + 1) and factorises in N L (L + U) (kernels/linalg/band_lu.hpp). For finite values the band path
// computes what the dense one does, bit for bit: it only leaves out operations on exact zeros.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/system.hpp"

namespace batchode::kernels {

/// The Jacobian layout of an N-state system with L sub- and U superdiagonals. `banded`: the band LU's
/// rows (2 L + U + 1 entries: L more superdiagonals for the fill of partial pivoting) are shorter than
/// N, so band storage pays; otherwise the dense path runs. Band storage is row-major: entry (i, j) of
/// the Jacobian at i * jacobian_width + (j - i + L), of the LU at i * lu_width + (j - i + L).
template <port::size_t N, port::size_t L = N - 1, port::size_t U = N - 1>
struct BandShape {
  static constexpr port::size_t n = N;
  static constexpr port::size_t lower = L < N ? L : N - 1;
  static constexpr port::size_t upper = U < N ? U : N - 1;
  static constexpr port::size_t jacobian_width = lower + upper + 1;
  static constexpr port::size_t lu_width = 2 * lower + upper + 1;
  static constexpr bool banded = lu_width < N;
  static constexpr bool sparse = false;  // (kernels/linalg/sparse_lu.hpp's SparseShape: true)
  /// Values a Jacobian and an LU factorisation take in this layout.
  static constexpr port::size_t jacobian_size = banded ? N * jacobian_width : N * N;
  static constexpr port::size_t lu_size = banded ? N * lu_width : N * N;
};

/// System's Jacobian layout: its declared band (kernels/core/system.hpp), or dense.
template <class System>
using JacobianBand =
    BandShape<System::n_states, jacobian_lower_bandwidth_v<System>, jacobian_upper_bandwidth_v<System>>;

}  // namespace batchode::kernels
