// kernels/core/: RunPack<T, W>, the values of one quantity in W runs at once, as one number. The CPU
// path integrates a block of W runs through a system's templated call operator with T = RunPack
// (backends/cpu/run_blocks.hpp); every operation is a loop over the W lanes, which the host compiler
// turns into vector instructions, several per operation (two AVX-512 vectors of doubles at W = 16), so
// that independent lanes hide each other's latency as a GPU's warps do.
//
// Lane l is the block's run l throughout and no operation mixes lanes: a run's numbers are the
// operations it would make alone, in the same order, so they are its scalar numbers bit for bit where
// the compiler contracts neither (batchode's own builds compile host code with -ffp-contract=off).
// There are no comparisons: a system that branches on a value cannot take a pack (kernels/core/
// system.hpp's simd_runs says it does not). Host code only; nothing on a GPU uses it.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode::kernels {

template <class T, port::size_t W>
struct RunPack {
  static_assert(W > 0, "a pack holds at least one run");
  T v[W];

  RunPack() = default;  // lanes left as T leaves them: the steppers' arrays are written before read
  /// x in every lane: the constants of a system (T(2.5)) and the step's times and sizes of a block.
  template <class U, class = port::enable_if_t<port::is_arithmetic_v<U>>>
  BATCHODE_FORCEINLINE constexpr RunPack(U x) : v{} {
    for (port::size_t l = 0; l < W; ++l) v[l] = static_cast<T>(x);
  }

  BATCHODE_FORCEINLINE T& operator[](port::size_t l) { return v[l]; }
  BATCHODE_FORCEINLINE const T& operator[](port::size_t l) const { return v[l]; }

  /// f applied lane by lane (the math functions below).
  template <class F>
  BATCHODE_FORCEINLINE RunPack map(F f) const {
    RunPack r;
    for (port::size_t l = 0; l < W; ++l) r.v[l] = f(v[l]);
    return r;
  }
  template <class F>
  BATCHODE_FORCEINLINE friend RunPack zip(const RunPack& a, const RunPack& b, F f) {
    RunPack r;
    for (port::size_t l = 0; l < W; ++l) r.v[l] = f(a.v[l], b.v[l]);
    return r;
  }

  BATCHODE_FORCEINLINE friend RunPack operator+(const RunPack& a) { return a; }
  BATCHODE_FORCEINLINE friend RunPack operator-(const RunPack& a) {
    RunPack r;
    for (port::size_t l = 0; l < W; ++l) r.v[l] = -a.v[l];
    return r;
  }
#define BATCHODE_RUN_PACK_OPERATOR(op)                                                  \
  BATCHODE_FORCEINLINE friend RunPack operator op(const RunPack& a, const RunPack& b) { \
    RunPack r;                                                                          \
    for (port::size_t l = 0; l < W; ++l) r.v[l] = a.v[l] op b.v[l];                     \
    return r;                                                                           \
  }                                                                                     \
  BATCHODE_FORCEINLINE RunPack& operator op##=(const RunPack& b) {                      \
    for (port::size_t l = 0; l < W; ++l) v[l] = v[l] op b.v[l];                         \
    return *this;                                                                       \
  }
  BATCHODE_RUN_PACK_OPERATOR(+)
  BATCHODE_RUN_PACK_OPERATOR(-)
  BATCHODE_RUN_PACK_OPERATOR(*)
  BATCHODE_RUN_PACK_OPERATOR(/)
#undef BATCHODE_RUN_PACK_OPERATOR

  // The math functions, lane by lane, found by argument-dependent lookup as Dual's are
  // (kernels/core/dual.hpp: `using std::exp; exp(x)`), and by model_math's overloads.
#define BATCHODE_RUN_PACK_MATH1(name, port_name)               \
  BATCHODE_FORCEINLINE friend RunPack name(const RunPack& x) { \
    return x.map([](T a) { return port::port_name(a); });      \
  }
#define BATCHODE_RUN_PACK_MATH2(name)                                            \
  BATCHODE_FORCEINLINE friend RunPack name(const RunPack& a, const RunPack& b) { \
    return zip(a, b, [](T x, T y) { return port::name(x, y); });                 \
  }
  BATCHODE_RUN_PACK_MATH1(exp, exp)
  BATCHODE_RUN_PACK_MATH1(log, log)
  BATCHODE_RUN_PACK_MATH1(sqrt, sqrt)
  BATCHODE_RUN_PACK_MATH1(sin, sin)
  BATCHODE_RUN_PACK_MATH1(cos, cos)
  BATCHODE_RUN_PACK_MATH1(tan, tan)
  BATCHODE_RUN_PACK_MATH1(asin, asin)
  BATCHODE_RUN_PACK_MATH1(acos, acos)
  BATCHODE_RUN_PACK_MATH1(atan, atan)
  BATCHODE_RUN_PACK_MATH1(sinh, sinh)
  BATCHODE_RUN_PACK_MATH1(cosh, cosh)
  BATCHODE_RUN_PACK_MATH1(tanh, tanh)
  BATCHODE_RUN_PACK_MATH1(fabs, fabs)
  BATCHODE_RUN_PACK_MATH1(abs, fabs)
  BATCHODE_RUN_PACK_MATH1(floor, floor)
  BATCHODE_RUN_PACK_MATH2(pow)
  BATCHODE_RUN_PACK_MATH2(atan2)
#undef BATCHODE_RUN_PACK_MATH1
#undef BATCHODE_RUN_PACK_MATH2
};

/// True for RunPack types.
template <class T>
struct is_run_pack : port::false_type {};
template <class T, port::size_t W>
struct is_run_pack<RunPack<T, W>> : port::true_type {};

/// W values of U, one per lane of a block: what a stepper keeps for each of its runs apart (a count of
/// evaluations, whether a factorisation kept its pivots) where a run alone keeps one U.
template <class U, port::size_t W>
struct LaneArray {
  U v[W];
  LaneArray() = default;
  /// x in every lane.
  BATCHODE_FORCEINLINE constexpr LaneArray(U x) : v{} {  // NOLINT(google-explicit-constructor): a run's U
    for (port::size_t l = 0; l < W; ++l) v[l] = x;
  }
  BATCHODE_FORCEINLINE U& operator[](port::size_t l) { return v[l]; }
  BATCHODE_FORCEINLINE const U& operator[](port::size_t l) const { return v[l]; }
};

/// The number type of one run's values: T itself, or a pack's lane type.
template <class T>
struct lane_value {
  using type = T;
};
template <class T, port::size_t W>
struct lane_value<RunPack<T, W>> {
  using type = T;
};
template <class T>
using lane_value_t = typename lane_value<T>::type;

/// What a stepper in number type T keeps per run: one U for a run alone, W of them (LaneArray) for a
/// block of W runs.
template <class T, class U>
struct per_run {
  using type = U;
};
template <class T, port::size_t W, class U>
struct per_run<RunPack<T, W>, U> {
  using type = LaneArray<U, W>;
};
template <class T, class U>
using per_run_t = typename per_run<T, U>::type;

}  // namespace batchode::kernels
