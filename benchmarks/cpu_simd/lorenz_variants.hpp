// benchmarks/cpu_simd/: the ways one CPU core can advance many runs of one system at once (issue 48,
// measured first). One translation unit, lorenz_variants.cpp, is compiled once per instruction set
// (baseline x86-64, AVX2, AVX-512: CMake names each with BATCHODE_SIMD_VARIANT), so the same source is
// timed at each vector width. Every variant steps the Lorenz rho sweep with RK4 in the same operations
// in the same order (the translation units are built with -ffp-contract=off), so each gives the scalar
// loop's numbers bit for bit, which the driver checks.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace batchode_bench_simd {

/// One way of stepping the sweep: `run(rho, runs, dt, steps, out)` integrates runs r = 0..runs-1 from
/// (1, 0, 0) with parameter rho[r] for `steps` RK4 steps of dt and writes the final (x, y, z) of run r
/// to out[3 r .. 3 r + 2].
template <class T>
struct Variant {
  std::string name;
  void (*run)(const T* rho, std::size_t runs, T dt, int steps, T* out);
};

/// The variants one translation unit gives (its instruction set in their names).
struct Variants {
  std::vector<Variant<float>> single;
  std::vector<Variant<double>> dual;
};

Variants variants_baseline();
Variants variants_avx2();
Variants variants_avx512();

}  // namespace batchode_bench_simd
