// kernels/linalg/: the band of a system's Jacobian, for the Rosenbrock methods of large systems. A system
// whose f_i reads only y_j with j - i in [-L, U] may say so:
//   static constexpr port::size_t jacobian_lower_bandwidth = L, jacobian_upper_bandwidth = U;
// (generated model code does, from its symbolic Jacobian: models/). It may then also give the band
// itself, band_jacobian(t, y, p, Jb), in BandShape's storage; otherwise forward-mode AD fills it with
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
  /// Values a Jacobian and an LU factorisation take in this layout.
  static constexpr port::size_t jacobian_size = banded ? N * jacobian_width : N * N;
  static constexpr port::size_t lu_size = banded ? N * lu_width : N * N;
};

namespace detail {
template <class S, class = void>
struct declared_band {
  static constexpr port::size_t lower = S::n_states - 1, upper = S::n_states - 1;
};
template <class S>
struct declared_band<S, port::void_t<decltype(port::size_t{S::jacobian_lower_bandwidth}),
                                     decltype(port::size_t{S::jacobian_upper_bandwidth})>> {
  static constexpr port::size_t lower = S::jacobian_lower_bandwidth, upper = S::jacobian_upper_bandwidth;
};

template <class S, class T, class = void>
struct has_band_jacobian : port::false_type {};
template <class S, class T>
struct has_band_jacobian<S, T,
                         port::void_t<decltype(port::declval<const S&>().band_jacobian(
                             port::declval<T>(), port::declval<const T*>(), port::declval<const T*>(),
                             port::declval<T*>()))>> : port::true_type {};
}  // namespace detail

/// System's Jacobian layout: its declared band, or dense.
template <class System>
using JacobianBand = BandShape<System::n_states, detail::declared_band<System>::lower,
                               detail::declared_band<System>::upper>;

/// True when System gives its banded Jacobian itself: band_jacobian(t, y, p, Jb) in precision T.
template <class System, class T>
inline constexpr bool has_band_jacobian_v = detail::has_band_jacobian<System, T>::value;

}  // namespace batchode::kernels
