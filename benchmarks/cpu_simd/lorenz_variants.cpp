// benchmarks/cpu_simd/: the variants of lorenz_variants.hpp, for the instruction set this unit is built
// for (BATCHODE_SIMD_VARIANT: baseline, avx2 or avx512).
#include "lorenz_variants.hpp"

#include <cstddef>
#include <experimental/simd>

#ifndef BATCHODE_SIMD_VARIANT
#error "BATCHODE_SIMD_VARIANT names the instruction set of this unit (CMake sets it)"
#endif
#define BATCHODE_SIMD_CAT2(a, b) a##b
#define BATCHODE_SIMD_CAT(a, b) BATCHODE_SIMD_CAT2(a, b)
#define BATCHODE_SIMD_STR2(a) #a
#define BATCHODE_SIMD_STR(a) BATCHODE_SIMD_STR2(a)

namespace batchode_bench_simd {
namespace {

namespace stdx = std::experimental;

constexpr double kSigma = 10.0, kBeta = 8.0 / 3.0;

/// The Lorenz right-hand side and one RK4 step on any value type that has +, - and * with itself and
/// with its scalar: a float, a GCC vector, a std::experimental::simd.
template <class V, class T>
inline void rk4_steps(V& x, V& y, V& z, const V& rho, T dt, int steps) {
  const T sigma = static_cast<T>(kSigma), beta = static_cast<T>(kBeta), half = dt / 2, sixth = dt / 6;
  for (int s = 0; s < steps; ++s) {
    const V k1x = sigma * (y - x), k1y = x * (rho - z) - y, k1z = x * y - beta * z;
    const V x2 = x + half * k1x, y2 = y + half * k1y, z2 = z + half * k1z;
    const V k2x = sigma * (y2 - x2), k2y = x2 * (rho - z2) - y2, k2z = x2 * y2 - beta * z2;
    const V x3 = x + half * k2x, y3 = y + half * k2y, z3 = z + half * k2z;
    const V k3x = sigma * (y3 - x3), k3y = x3 * (rho - z3) - y3, k3z = x3 * y3 - beta * z3;
    const V x4 = x + dt * k3x, y4 = y + dt * k3y, z4 = z + dt * k3z;
    const V k4x = sigma * (y4 - x4), k4y = x4 * (rho - z4) - y4, k4z = x4 * y4 - beta * z4;
    x = x + sixth * (k1x + T(2) * k2x + T(2) * k3x + k4x);
    y = y + sixth * (k1y + T(2) * k2y + T(2) * k3y + k4y);
    z = z + sixth * (k1z + T(2) * k2z + T(2) * k3z + k4z);
  }
}

/// One run at a time.
template <class T>
void scalar(const T* rho, std::size_t runs, T dt, int steps, T* out) {
  for (std::size_t r = 0; r < runs; ++r) {
    T x = 1, y = 0, z = 0;
    rk4_steps(x, y, z, rho[r], dt, steps);
    out[3 * r] = x, out[3 * r + 1] = y, out[3 * r + 2] = z;
  }
}

/// Blocks of W runs, each operation a loop over the block's lanes that the compiler vectorises (the
/// issue's "plain loop": structure of arrays within a block). rk4_steps's step written out per lane:
/// called per lane from the loop, it is not vectorised the same way (the point of this variant).
template <class T, int W>
void blocked_loops(const T* rho, std::size_t runs, T dt, int steps, T* out) {
  const T sigma = static_cast<T>(kSigma), beta = static_cast<T>(kBeta), half = dt / 2, sixth = dt / 6;
  std::size_t r = 0;
  for (; r + W <= runs; r += W) {
    alignas(64) T x[W], y[W], z[W], p[W];
    for (int l = 0; l < W; ++l) x[l] = 1, y[l] = 0, z[l] = 0, p[l] = rho[r + l];
    for (int s = 0; s < steps; ++s) {
#pragma GCC ivdep
      for (int l = 0; l < W; ++l) {
        const T k1x = sigma * (y[l] - x[l]), k1y = x[l] * (p[l] - z[l]) - y[l],
                k1z = x[l] * y[l] - beta * z[l];
        const T x2 = x[l] + half * k1x, y2 = y[l] + half * k1y, z2 = z[l] + half * k1z;
        const T k2x = sigma * (y2 - x2), k2y = x2 * (p[l] - z2) - y2, k2z = x2 * y2 - beta * z2;
        const T x3 = x[l] + half * k2x, y3 = y[l] + half * k2y, z3 = z[l] + half * k2z;
        const T k3x = sigma * (y3 - x3), k3y = x3 * (p[l] - z3) - y3, k3z = x3 * y3 - beta * z3;
        const T x4 = x[l] + dt * k3x, y4 = y[l] + dt * k3y, z4 = z[l] + dt * k3z;
        const T k4x = sigma * (y4 - x4), k4y = x4 * (p[l] - z4) - y4, k4z = x4 * y4 - beta * z4;
        x[l] = x[l] + sixth * (k1x + T(2) * k2x + T(2) * k3x + k4x);
        y[l] = y[l] + sixth * (k1y + T(2) * k2y + T(2) * k3y + k4y);
        z[l] = z[l] + sixth * (k1z + T(2) * k2z + T(2) * k3z + k4z);
      }
    }
    for (int l = 0; l < W; ++l)
      out[3 * (r + l)] = x[l], out[3 * (r + l) + 1] = y[l], out[3 * (r + l) + 2] = z[l];
  }
  scalar(rho + r, runs - r, dt, steps, out + 3 * r);
}

/// Blocks of W runs in a GCC vector of W lanes.
template <class T, int W>
void vector_extension(const T* rho, std::size_t runs, T dt, int steps, T* out) {
  typedef T V __attribute__((vector_size(W * sizeof(T))));
  std::size_t r = 0;
  for (; r + W <= runs; r += W) {
    V x, y, z, p;
    for (int l = 0; l < W; ++l) x[l] = 1, y[l] = 0, z[l] = 0, p[l] = rho[r + l];
    rk4_steps(x, y, z, p, dt, steps);
    for (int l = 0; l < W; ++l)
      out[3 * (r + l)] = x[l], out[3 * (r + l) + 1] = y[l], out[3 * (r + l) + 2] = z[l];
  }
  scalar(rho + r, runs - r, dt, steps, out + 3 * r);
}

/// Blocks of runs in std::experimental::simd, the native width or K of them side by side.
template <class T, int K>
void std_simd(const T* rho, std::size_t runs, T dt, int steps, T* out) {
  using V = stdx::fixed_size_simd<T, static_cast<int>(stdx::native_simd<T>::size()) * K>;
  constexpr std::size_t W = V::size();
  std::size_t r = 0;
  for (; r + W <= runs; r += W) {
    V x = 1, y = 0, z = 0, p(rho + r, stdx::element_aligned);
    rk4_steps(x, y, z, p, dt, steps);
    for (std::size_t l = 0; l < W; ++l)
      out[3 * (r + l)] = x[l], out[3 * (r + l) + 1] = y[l], out[3 * (r + l) + 2] = z[l];
  }
  scalar(rho + r, runs - r, dt, steps, out + 3 * r);
}

template <class T>
std::vector<Variant<T>> all() {
  const std::string isa = BATCHODE_SIMD_STR(BATCHODE_SIMD_VARIANT);
  const std::string native = std::to_string(stdx::native_simd<T>::size());
  return {{"scalar " + isa, &scalar<T>},
          {"loops x8 " + isa, &blocked_loops<T, 8>},
          {"loops x16 " + isa, &blocked_loops<T, 16>},
          {"loops x32 " + isa, &blocked_loops<T, 32>},
          {"gcc vector x8 " + isa, &vector_extension<T, 8>},
          {"gcc vector x16 " + isa, &vector_extension<T, 16>},
          {"std::simd x" + native + " " + isa, &std_simd<T, 1>},
          {"std::simd 2 x" + native + " " + isa, &std_simd<T, 2>}};
}

}  // namespace

Variants BATCHODE_SIMD_CAT(variants_, BATCHODE_SIMD_VARIANT)() { return {all<float>(), all<double>()}; }

}  // namespace batchode_bench_simd
