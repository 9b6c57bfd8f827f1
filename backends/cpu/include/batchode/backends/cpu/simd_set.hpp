// backends/cpu/: the instruction sets the CPU's blocks of runs in SIMD lanes are compiled for
// (run_blocks.hpp), which one this CPU runs, and how many runs a block holds.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace batchode::cpu {

/// The instruction sets the block loops are compiled for.
enum class SimdSet { off, baseline, avx2, avx512 };

inline const char* simd_set_name(SimdSet set) {
  switch (set) {
    case SimdSet::off:
      return "off";
    case SimdSet::baseline:
      return "baseline";
    case SimdSet::avx2:
      return "avx2";
    case SimdSet::avx512:
      return "avx512";
  }
  return "?";
}

/// The sets the block loops are compiled for: a mask of block_set_bit(set) (baseline 2, avx2 4,
/// avx512 8), every one by default. A model compiled at run time is compiled for the one set its
/// process runs (solver/src/systems/runtime_model_cpu.cpp, its cache key saying which), a third of the
/// block code to compile; under another set (BATCHODE_CPU_SIMD changed after) its runs run one at a time.
#ifndef BATCHODE_CPU_BLOCK_SETS
#define BATCHODE_CPU_BLOCK_SETS 14
#endif
inline constexpr int block_set_bit(SimdSet set) {
  return set == SimdSet::off ? 0 : 1 << static_cast<int>(set);
}
static_assert(block_set_bit(SimdSet::baseline) == 2 && block_set_bit(SimdSet::avx2) == 4 &&
                  block_set_bit(SimdSet::avx512) == 8,
              "BATCHODE_CPU_BLOCK_SETS's bits (run_blocks.hpp tests them by number)");

/// The widest instruction set this CPU runs, narrowed by the environment's BATCHODE_CPU_SIMD (auto,
/// off, baseline, avx2, avx512: off runs every run alone; a set wider than the CPU's is not taken).
/// Throws std::invalid_argument naming another value.
inline SimdSet simd_set() {
  SimdSet widest = SimdSet::baseline;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")) {
    widest = SimdSet::avx512;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    widest = SimdSet::avx2;
  }
#endif
  const char* asked = std::getenv("BATCHODE_CPU_SIMD");
  if (asked == nullptr || *asked == '\0' || std::strcmp(asked, "auto") == 0) return widest;
  for (SimdSet set : {SimdSet::off, SimdSet::baseline, SimdSet::avx2, SimdSet::avx512}) {
    if (std::strcmp(asked, simd_set_name(set)) == 0) return set < widest ? set : widest;
  }
  throw std::invalid_argument(std::string("BATCHODE_CPU_SIMD is '") + asked +
                              "': it may be auto, off, baseline, avx2 or avx512");
}

/// The bytes of one quantity of a block of runs: 128 under every set (16 doubles, 32 floats), two
/// AVX-512 vectors, four AVX2 ones (benchmarks/RESULTS.md, "Runs in SIMD lanes": one vector per block
/// leaves each stage's chain of dependent operations exposed; several hide it; 64 bytes measured
/// slower under AVX2 and the baseline too, 256 under all three).
inline constexpr std::size_t block_bytes = 128;

/// Runs per block in precision T.
template <class T>
inline constexpr std::size_t block_runs = block_bytes / sizeof(T);

/// The most runs a block holds (float): the CPU's workers take ranges of runs in multiples of it
/// (cpu_backend.hpp), so that ranges are whole blocks.
inline constexpr std::size_t max_block_runs = block_runs<float>;

}  // namespace batchode::cpu
