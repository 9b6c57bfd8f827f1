// kernels/linalg/: the sparse LU of a Rosenbrock method's W = I / (gamma h) - J for a system that gives
// its own (the members jacobian_nonzeros, sparse_lu_size, sparse_jacobian, sparse_lu_factor and
// sparse_lu_solve: kernels/core/system.hpp). Generated model code does, where it costs fewer operations
// than the band or the dense LU (models/sparse_lu_plan.hpp plans it, models/'s codegen writes it): J holds
// its structural nonzeros only, and W their slots and the fill of a pivot order fixed when the code was
// generated, factorised by straight-line code with no pivot search. POLLU's 20 x 20 W (the IVP test
// set's air-pollution chemistry, examples/models/pollu.toml) takes 94 slots instead of 400 values, and
// 126 multiply-adds a factorisation and 94 a solve instead of 2660 and 400. The code is a template over
// the value type: Radau IIA runs it on complex W too (kernels/linalg/complex.hpp).
//
// The order is fixed, so a pivot may vanish where partial pivoting would have swapped rows: at a large
// step, W(k, k) = 1 / (gamma h) - J(k, k) can cancel. The generated factorisation checks each pivot
// against the rounding of the terms it was computed from (usable_pivot, kernels/linalg/complex.hpp) and
// returns false for one lost in it; the stepper then rejects the step (an infinite error estimate: the
// controller's smallest factor) and the retry at a smaller h has a larger 1 / (gamma h) on the diagonal.
// Never a factorisation of noise. A block of runs in the lanes of the CPU's vector registers
// (kernels/core/run_pack.hpp) factorises all its lanes' W at once: a lane whose pivot is lost is marked
// and the others go on (pivot_lost), so each lane's step is the one its run takes alone.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_pack.hpp"
#include "batchode/kernels/linalg/complex.hpp"  // magnitude, usable_pivot

namespace batchode::kernels {

/// The Jacobian layout of a system with a sparse LU (kernels/core/system.hpp's has_sparse_lu_v): J as
/// its jacobian_nonzeros values, W as its sparse_lu_size slots. The same members as BandShape's.
template <port::size_t N, port::size_t Nonzeros, port::size_t Slots>
struct SparseShape {
  static constexpr port::size_t n = N;
  static constexpr bool banded = false;
  static constexpr bool sparse = true;
  static constexpr port::size_t jacobian_size = Nonzeros;
  static constexpr port::size_t lu_size = Slots;
};

/// What the generated factorisation returns in number type T: whether it kept every pivot (bool), or,
/// for a block of runs (RunPack), which lanes did.
template <class T>
using PivotsKept = per_run_t<T, bool>;

/// The generated factorisation's test of a pivot (usable_pivot): true where it is lost, and the
/// factorisation returns false at once. A block's lanes are tested one by one and never stop the others:
/// the lost ones are marked in `kept` (the caller throws their numbers away) and false is returned.
template <class T, class Terms>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool pivot_lost(const T& pivot, const Terms& terms, bool&) {
  return !usable_pivot(pivot, terms);
}
template <class T, port::size_t W>
BATCHODE_FORCEINLINE bool pivot_lost(const RunPack<T, W>& pivot, const RunPack<T, W>& terms,
                                     LaneArray<bool, W>& kept) {
  for (port::size_t l = 0; l < W; ++l) kept[l] = kept[l] && usable_pivot(pivot[l], terms[l]);
  return false;
}

/// magnitude() lane by lane (the generated factorisation sums its pivots' terms with it).
template <class T, port::size_t W>
BATCHODE_FORCEINLINE RunPack<T, W> magnitude(const RunPack<T, W>& x) {
  return x.map([](T a) { return magnitude(a); });
}

}  // namespace batchode::kernels
