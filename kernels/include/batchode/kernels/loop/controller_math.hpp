// kernels/loop/: the logarithm and the exponential of the step-size controller (step_control.hpp).
// Device code calls the device math library, as before. Host code calls the functions below, written
// out in plain arithmetic on the bits, with no call and no branch: the scalar loop and a block of runs
// in SIMD lanes (backends/cpu/run_blocks.hpp) then compute them the same way, the block for all its
// lanes in vector instructions (a call of libm's log and exp per lane and step took a fifth of a
// dopri5 block's time), and each run's step sizes are its scalar ones, bit for bit.
// Accuracy, against libm: log within 1 ulp (fdlibm's), exp within 2 (a degree-13 Taylor polynomial on
// |r| <= ln 2 / 2); float rounds the double result. The controller only asks them for step-size
// factors, where a few ulp change nothing but the last bits of h.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode::detail {

// (Declared in a device compiler's device pass too, where host code that calls it is parsed; not
// under the runtime compilers, which see device code only.)
#if !BATCHODE_RTC
namespace host_math {

// One text for a double and for a GCC vector of doubles (V, with U its unsigned 64-bit integers): the
// same operations in the same order, so a lane of the vector form gives the scalar form's bits. The
// vector form is written out rather than left to the auto-vectoriser, which vectorised these loops
// alone but not inside a block's whole step. c ? a : b works lane by lane on GCC's and clang's
// vectors. Vectors are passed by reference: a vector argument or result is another ABI under
// each instruction set (-Wpsabi).

/// log(x) for a positive, finite, normal x (the controller's max(e2, 1e-8) and the finite e2 > 1 of a
/// rejected step); any other x gives some number, without a trap. fdlibm's e_log.c (as musl's log.c):
/// x = 2^k m with m in [sqrt(2)/2, sqrt(2)), log(m) = log(1 + f) from s = f / (2 + f).
template <class V, class U>
inline void log_of(const V& x, V& out) {
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  constexpr double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
                   Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
                   Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                   Lg7 = 1.479819860511658591e-01;
  const U bits = __builtin_bit_cast(U, x);
  // The high word moved so that m's range starts at sqrt(2)/2: its exponent field is then k + 1023.
  const U hx = (bits >> 32) + port::uint64_t{0x3ff00000u - 0x3fe6a09eu};
  const U k_biased = (hx >> 20) & port::uint64_t{0x7ffu};  // k + 1023
  const U m_bits =
      ((((hx & port::uint64_t{0x000fffffu}) + port::uint64_t{0x3fe6a09eu}) & port::uint64_t{0xffffffffu})
       << 32) |
      (bits & port::uint64_t{0xffffffffu});
  const V m = __builtin_bit_cast(V, m_bits);
  // k as a double without an integer conversion (which AVX2 has no vector form of): 2^52 + k + 1023
  // written into a double's bits, less 2^52 + 1023.
  const V dk = __builtin_bit_cast(V, k_biased | port::uint64_t{0x4330000000000000ull}) - (0x1p52 + 1023.0);
  const V f = m - 1.0;
  const V hfsq = 0.5 * f * f;
  const V s = f / (2.0 + f);
  const V z = s * s;
  const V w = z * z;
  const V t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
  const V t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
  const V r = t2 + t1;
  out = s * (hfsq + r) + dk * ln2_lo - hfsq + f + dk * ln2_hi;
}

/// exp(x): +inf above log(DBL_MAX), 0 below -707 (no subnormal results: the controller clamps its
/// factors far above), NaN for NaN. x = n ln 2 + r, n = round(x / ln 2) by the 1.5 * 2^52 shift, r in
/// two parts (Cody and Waite), exp(r) by its Taylor polynomial of degree 13, times 2^(n-1) written into
/// a double's exponent field, times 2 (n reaches 1024 just below log(DBL_MAX)).
template <class V, class U>
inline void exp_of(const V& x, V& out) {
  constexpr double log2e = 1.44269504088896338700e+00;
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  constexpr double shift = 0x1.8p52;
  constexpr double high = 709.782712893383973096, low = -707.0;
  const V lows = V{} + low, highs = V{} + high;          // (V{} + c: c in every lane)
  const V xc = x < low ? lows : (x > high ? highs : x);  // a NaN stays NaN to the end
  const V kd = xc * log2e + shift;                       // n in the low bits of kd's mantissa
  const V n = kd - shift;
  const V r = (xc - n * ln2_hi) - n * ln2_lo;
  // sum_{j<=13} r^j / j! by Estrin's scheme: pairs, then pairs of pairs, so the chain the step size
  // waits on is 8 operations deep, not Horner's 26 (a scalar run's step, which has no other work to
  // overlap it with, lost a fifth of its speed with Horner).
  const V r2 = r * r;
  const V r4 = r2 * r2;
  const V r8 = r4 * r4;
  const V p01 = 1.0 + r, p23 = 0.5 + r * (1.0 / 6.0), p45 = (1.0 / 24.0) + r * (1.0 / 120.0),
          p67 = (1.0 / 720.0) + r * (1.0 / 5040.0), p89 = (1.0 / 40320.0) + r * (1.0 / 362880.0),
          p1011 = (1.0 / 3628800.0) + r * (1.0 / 39916800.0),
          p1213 = (1.0 / 479001600.0) + r * (1.0 / 6227020800.0);
  const V p03 = p01 + r2 * p23, p47 = p45 + r2 * p67, p811 = p89 + r2 * p1011;
  const V p07 = p03 + r4 * p47, p813 = p811 + r4 * p1213;
  const V p = p07 + r8 * p813;
  // 2^(n-1): n + 1022 (in [2, 2046]) into the exponent field; kd's bits above n's shift out.
  const V scale = __builtin_bit_cast(V, (__builtin_bit_cast(U, kd) + port::uint64_t{1022u}) << 52);
  const V e = (p * scale) * 2.0;
  const V infs = V{} + port::numeric_limits<double>::infinity(), zeros = V{};
  out = x > high ? infs : (x < low ? zeros : e);
}

inline double log(double x) {
  double y;
  log_of<double, port::uint64_t>(x, y);
  return y;
}
inline double exp(double x) {
  double y;
  exp_of<double, port::uint64_t>(x, y);
  return y;
}

// nvcc's front end stops with a segmentation fault on the vector form (CUDA 13): code it compiles takes
// the lanes one at a time, with the same bits.
#if !defined(__NVCC__)
/// W doubles as one GCC vector (V), and W unsigned 64-bit integers (U): the block sizes of
/// backends/cpu/simd_set.hpp and the smaller packs the tests use.
template <port::size_t W>
struct Vectors;
#define BATCHODE_HOST_MATH_VECTORS(w)                                          \
  template <>                                                                  \
  struct Vectors<w> {                                                          \
    typedef double V __attribute__((vector_size(w * sizeof(double))));         \
    typedef port::uint64_t U __attribute__((vector_size(w * sizeof(double)))); \
  };
BATCHODE_HOST_MATH_VECTORS(2)
BATCHODE_HOST_MATH_VECTORS(4)
BATCHODE_HOST_MATH_VECTORS(8)
BATCHODE_HOST_MATH_VECTORS(16)
BATCHODE_HOST_MATH_VECTORS(32)
#undef BATCHODE_HOST_MATH_VECTORS
#endif

/// The two functions as the lanes' loop below takes them: F::vector over a GCC vector, F::scalar over
/// a double.
struct Log {
  template <class V, class U>
  static void vector(const V& x, V& out) {
    log_of<V, U>(x, out);
  }
  static double scalar(double x) { return log(x); }
};
struct Exp {
  template <class V, class U>
  static void vector(const V& x, V& out) {
    exp_of<V, U>(x, out);
  }
  static double scalar(double x) { return exp(x); }
};

/// out[l] = F(x[l]) for W lanes at once, in the vector form (T float: in double, as controller_log
/// and controller_exp). out may be x.
template <class F, class T, port::size_t W>
inline void in_lanes(const T (&x)[W], T (&out)[W]) {
#if !defined(__NVCC__)
  using V = typename Vectors<W>::V;
  V v;
  for (port::size_t l = 0; l < W; ++l) v[l] = static_cast<double>(x[l]);
  F::template vector<V, typename Vectors<W>::U>(V(v), v);
  for (port::size_t l = 0; l < W; ++l) out[l] = static_cast<T>(v[l]);
#else
  for (port::size_t l = 0; l < W; ++l) out[l] = static_cast<T>(F::scalar(static_cast<double>(x[l])));
#endif
}

/// controller_log and controller_exp of W lanes at once.
template <class T, port::size_t W>
inline void log_lanes(const T (&x)[W], T (&out)[W]) {
  in_lanes<Log>(x, out);
}
template <class T, port::size_t W>
inline void exp_lanes(const T (&x)[W], T (&out)[W]) {
  in_lanes<Exp>(x, out);
}

}  // namespace host_math
#endif

/// The controller's log: the device library's on the GPU, host_math's on the host.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T controller_log(T x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || BATCHODE_RTC
  return port::log(x);
#else
  return static_cast<T>(host_math::log(static_cast<double>(x)));
#endif
}

/// The controller's exp: the device library's on the GPU, host_math's on the host.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T controller_exp(T x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || BATCHODE_RTC
  return port::exp(x);
#else
  return static_cast<T>(host_math::exp(static_cast<double>(x)));
#endif
}

}  // namespace batchode::detail
