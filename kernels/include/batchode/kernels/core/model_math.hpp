// kernels/core/: the functions code generated from a model file calls (models/ writes that code), as
// batchode::model_math::<name>, for float, double, dual numbers (kernels/core/dual.hpp, chain rule) and
// the CPU's packs of runs (kernels/core/run_pack.hpp, lane by lane), on host and device and under the runtime
// compilers (no standard header: the float and double versions go through kernels/core/portable.hpp). One
// name per function of the model language:
//   exp log sqrt pow sin cos tan asin acos atan atan2 sinh cosh tanh abs min max floor ifelse
// plus ipow<N> for the small integer powers the generator writes as products.
//
// Generated code calls these qualified (`mm::exp(x)` after `namespace mm = batchode::model_math;`):
// unqualified calls after a using-directive would be ambiguous on host compilers, whose <cmath>
// also declares ::exp(double) in the global namespace.
//
// Semantics every evaluator of a model shares (models/'s interpreter mirrors them exactly):
// - min(a, b) is `b < a ? b : a` and max(a, b) is `a < b ? b : a` (std::min and std::max: a on a
//   tie), comparing values only, so a dual number carries the chosen argument's derivative.
// - ifelse(c, a, b) is `c ? a : b` with both branches already evaluated (for systems written by hand;
//   generated code writes the conditional operator itself, so only the chosen branch runs).
// - ipow<N>(x) for N in -2..4 is a product (x*x, (x*x)*x, (x*x)*(x*x)), 1/x or 1/(x*x): exact where
//   the operations are, cheaper than pow, and differentiable by dual numbers without pow's log.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/dual.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_pack.hpp"

namespace batchode::model_math_detail {
// Forwarders to the hidden friends of Dual (kernels/core/dual.hpp) and RunPack (kernels/core/
// run_pack.hpp), which only argument-dependent lookup finds.
// They live outside batchode::model_math so that the unqualified calls below cannot find
// model_math's own overloads (a reader need not know that a non-template beats a template).
#define BATCHODE_MODEL_MATH_FRIEND1(name)                                 \
  template <class D>                                                      \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE D friend_##name(const D& x) { \
    return name(x);                                                       \
  }
#define BATCHODE_MODEL_MATH_FRIEND2(name)                                             \
  template <class D>                                                                  \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE D friend_##name(const D& a, const D& b) { \
    return name(a, b);                                                                \
  }
BATCHODE_MODEL_MATH_FRIEND1(exp)
BATCHODE_MODEL_MATH_FRIEND1(log)
BATCHODE_MODEL_MATH_FRIEND1(sqrt)
BATCHODE_MODEL_MATH_FRIEND1(sin)
BATCHODE_MODEL_MATH_FRIEND1(cos)
BATCHODE_MODEL_MATH_FRIEND1(tan)
BATCHODE_MODEL_MATH_FRIEND1(asin)
BATCHODE_MODEL_MATH_FRIEND1(acos)
BATCHODE_MODEL_MATH_FRIEND1(atan)
BATCHODE_MODEL_MATH_FRIEND1(sinh)
BATCHODE_MODEL_MATH_FRIEND1(cosh)
BATCHODE_MODEL_MATH_FRIEND1(tanh)
BATCHODE_MODEL_MATH_FRIEND1(fabs)
BATCHODE_MODEL_MATH_FRIEND1(floor)
BATCHODE_MODEL_MATH_FRIEND2(pow)
BATCHODE_MODEL_MATH_FRIEND2(atan2)
#undef BATCHODE_MODEL_MATH_FRIEND1
#undef BATCHODE_MODEL_MATH_FRIEND2
}  // namespace batchode::model_math_detail

namespace batchode::model_math {

// One-argument functions: float and double through port::, dual numbers through Dual's own rules, a
// pack of runs lane by lane (the CPU's blocks of runs).
#define BATCHODE_MODEL_MATH1(name, port_name)                                                        \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE float name(float x) { return port::port_name(x); }       \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE double name(double x) { return port::port_name(x); }     \
  template <class T, int M>                                                                          \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE kernels::Dual<T, M> name(const kernels::Dual<T, M>& x) { \
    return model_math_detail::friend_##port_name(x);                                                 \
  }                                                                                                  \
  template <class T, port::size_t W>                                                                 \
  BATCHODE_FORCEINLINE kernels::RunPack<T, W> name(const kernels::RunPack<T, W>& x) {                \
    return model_math_detail::friend_##port_name(x);                                                 \
  }
#define BATCHODE_MODEL_MATH2(name)                                                                       \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE float name(float a, float b) { return port::name(a, b); }    \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE double name(double a, double b) { return port::name(a, b); } \
  template <class T, int M>                                                                              \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE kernels::Dual<T, M> name(const kernels::Dual<T, M>& a,       \
                                                                     const kernels::Dual<T, M>& b) {     \
    return model_math_detail::friend_##name(a, b);                                                       \
  }                                                                                                      \
  template <class T, port::size_t W>                                                                     \
  BATCHODE_FORCEINLINE kernels::RunPack<T, W> name(const kernels::RunPack<T, W>& a,                      \
                                                   const kernels::RunPack<T, W>& b) {                    \
    return model_math_detail::friend_##name(a, b);                                                       \
  }
BATCHODE_MODEL_MATH1(exp, exp)
BATCHODE_MODEL_MATH1(log, log)
BATCHODE_MODEL_MATH1(sqrt, sqrt)
BATCHODE_MODEL_MATH1(sin, sin)
BATCHODE_MODEL_MATH1(cos, cos)
BATCHODE_MODEL_MATH1(tan, tan)
BATCHODE_MODEL_MATH1(asin, asin)
BATCHODE_MODEL_MATH1(acos, acos)
BATCHODE_MODEL_MATH1(atan, atan)
BATCHODE_MODEL_MATH1(sinh, sinh)
BATCHODE_MODEL_MATH1(cosh, cosh)
BATCHODE_MODEL_MATH1(tanh, tanh)
BATCHODE_MODEL_MATH1(abs, fabs)
BATCHODE_MODEL_MATH1(floor, floor)
BATCHODE_MODEL_MATH2(pow)
BATCHODE_MODEL_MATH2(atan2)
#undef BATCHODE_MODEL_MATH1
#undef BATCHODE_MODEL_MATH2

/// The smaller of a and b by value (b only when strictly smaller), as std::min.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T min(const T& a, const T& b) {
  return b < a ? b : a;
}
/// The larger of a and b by value (b only when strictly larger), as std::max.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T max(const T& a, const T& b) {
  return a < b ? b : a;
}
/// min and max of packs of runs, lane by lane with the same rule (a pack has no comparison of its own).
template <class T, port::size_t W>
BATCHODE_FORCEINLINE kernels::RunPack<T, W> min(const kernels::RunPack<T, W>& a,
                                                const kernels::RunPack<T, W>& b) {
  return zip(a, b, [](T x, T y) { return y < x ? y : x; });
}
template <class T, port::size_t W>
BATCHODE_FORCEINLINE kernels::RunPack<T, W> max(const kernels::RunPack<T, W>& a,
                                                const kernels::RunPack<T, W>& b) {
  return zip(a, b, [](T x, T y) { return x < y ? y : x; });
}
/// a where c holds, else b (the model language's ifelse; both already evaluated).
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T ifelse(bool c, const T& a, const T& b) {
  return c ? a : b;
}

/// x^N for the small integer exponents generated code writes as products, N in -2..4.
template <int N, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T ipow(const T& x) {
  static_assert(N >= -2 && N <= 4, "ipow covers the exponents -2..4 only");
  if constexpr (N == 0) {
    (void)x;
    return T(1);
  } else if constexpr (N == 1) {
    return x;
  } else if constexpr (N == 2) {
    return x * x;
  } else if constexpr (N == 3) {
    return x * x * x;
  } else if constexpr (N == 4) {
    const T x2 = x * x;
    return x2 * x2;
  } else if constexpr (N == -1) {
    return T(1) / x;
  } else {
    return T(1) / (x * x);
  }
}

}  // namespace batchode::model_math
