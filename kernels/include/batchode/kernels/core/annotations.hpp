// kernels/core/: the annotations of host+device code, and nothing else: no runtime, no standard header,
// so the integrator core compiles under plain C++ compilers, under nvcc/hipcc, and under the runtime
// compilers (NVRTC, hipRTC), which define __CUDACC_RTC__ / __HIPCC_RTC__ and know __host__ and
// __device__ without any header.
#pragma once

#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#define BATCHODE_RTC 1  // compiled by a runtime compiler: device code only, no host standard library
#else
#define BATCHODE_RTC 0
#endif

// --- Which compiler is compiling this translation unit? ---------------------------------------
#if defined(__HIPCC__) || defined(__CUDACC__) || BATCHODE_RTC
#define BATCHODE_GPU_COMPILER 1  // device code is compiled in this translation unit
#else
#define BATCHODE_GPU_COMPILER 0
#endif

#if BATCHODE_GPU_COMPILER
#define BATCHODE_HOST_DEVICE __host__ __device__
#define BATCHODE_DEVICE __device__
#define BATCHODE_FORCEINLINE __forceinline__
#else
#define BATCHODE_HOST_DEVICE
#define BATCHODE_DEVICE
#define BATCHODE_FORCEINLINE inline
#endif

// A Butcher table's lookups (kernels/methods/tableaux.hpp: a(i, j) returns an element of an array local
// to it), inlined at every call by the host compiler too, so that a stage index made constant by
// unrolling folds the coefficient into an immediate. GCC at -O3 kept a 16-stage table's a(i, j) out of
// line and built its array at each call (vern9 a run at a time on the CPU: 40 % of a solve). The device
// compilers inline them already: nothing there, so the kernels are the same text.
#if BATCHODE_GPU_COMPILER
#define BATCHODE_TABLE_LOOKUP
#else
#define BATCHODE_TABLE_LOOKUP [[gnu::always_inline]]
#endif

// Host+device templates that are also instantiated with host-only types (the CPU path runs
// integrate_run with Boost.Odeint steppers): nvcc would flag the host calls in those instantiations,
// which never run on the device. This tells nvcc not to check the next function template.
#if defined(__CUDACC__) && !defined(__clang__)
#define BATCHODE_HD_TEMPLATE _Pragma("nv_exec_check_disable")
#else
#define BATCHODE_HD_TEMPLATE
#endif

// Full unrolling of loops with compile-time trip counts: it keeps per-stage arrays in registers.
#if BATCHODE_GPU_COMPILER || defined(__clang__)
#define BATCHODE_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define BATCHODE_UNROLL _Pragma("GCC unroll 16")
#else
#define BATCHODE_UNROLL
#endif

// Loops over the N states of a stiff step's linear algebra (kernels/linalg/band_lu.hpp, lu.hpp,
// jacobian.hpp, and rosenbrock_stepper.hpp's assembly of W; the step's other loops are
// BATCHODE_UNROLL_STEP_STATES's, below; trip counts fixed at compile time): fully unrolled up to
// batchode::kernels::unrolled_states states,
// where a step's arrays can stay in registers; beyond, loops unrolled BATCHODE_STATE_LOOP_UNROLL times.
// Past that size the arrays leave the registers either way, and fully unrolled code whose thousands of
// values all spill took ptxas minutes (benchmarks/RESULTS.md, "Large systems"); as loops they live in
// local memory, indexed, and the code stops growing with N. The loop's N (a template parameter or a
// constant in scope) must be the state count. Up to unrolled_states the code is what BATCHODE_UNROLL
// gives (BRUSS: the same PTX with 3 and 8 states; with 16, the same instructions, a few reordered).
#if BATCHODE_GPU_COMPILER || defined(__clang__)
#define BATCHODE_UNROLL_STATES _Pragma("unroll ::batchode::kernels::state_loop_unroll(N)")
#elif defined(__GNUC__)
#define BATCHODE_UNROLL_STATES _Pragma("GCC unroll 16")
#else
#define BATCHODE_UNROLL_STATES
#endif

// Loops of a Rosenbrock step over its states outside the factorisation (kernels/methods/
// rosenbrock_stepper.hpp: the stages' sums, the result and its error, the dense output): fully unrolled
// up to batchode::kernels::unrolled_step_states (32) states, beyond as BATCHODE_UNROLL_STATES. Unrolled,
// every access to a stage's array is a fixed offset, which the compiler keeps in registers across the
// generated model code between the stages; as loops of 4 they went through local memory. On the H200
// (65536 runs, float64, runtime-compiled models with their sparse LU): POLLU (20 states) rodas4 15.0 ->
// 6.1 ms, BRUSS 32 rodas4 18.7 -> 9.8 ms, ros3p 38.6 -> 19.1 ms, first solves within a second
// (benchmarks/RESULTS.md, "A Rosenbrock step's loops unrolled up to 32 states"). The
// factorisations keep BATCHODE_UNROLL_STATES: a dense LU unrolled at 32 states is ~11000 operations.
#if BATCHODE_GPU_COMPILER || defined(__clang__)
#define BATCHODE_UNROLL_STEP_STATES _Pragma("unroll ::batchode::kernels::step_loop_unroll(N)")
#elif defined(__GNUC__)
#define BATCHODE_UNROLL_STEP_STATES _Pragma("GCC unroll 16")
#else
#define BATCHODE_UNROLL_STEP_STATES
#endif

// The loops generated code folds its repeated rows into (models/src/affine_rows.hpp: a large sparse LU):
// unrolled 4 times, never fully, which would give the GPU's compiler back the straight-line code whose
// compile time the loops are there to save (BRUSS at 128 states: 16 s of NVRTC fully unrolled, 7 s so).
#if BATCHODE_GPU_COMPILER || defined(__clang__)
#define BATCHODE_UNROLL_ROWS _Pragma("unroll 4")
#elif defined(__GNUC__)
#define BATCHODE_UNROLL_ROWS _Pragma("GCC unroll 4")
#else
#define BATCHODE_UNROLL_ROWS
#endif

// No unrolling: a loop over an array indexed by its counter keeps the array in (cached, per-thread)
// memory instead of registers (the summary accumulators: kernels/outputs/summaries.hpp).
#if BATCHODE_GPU_COMPILER || defined(__clang__)
#define BATCHODE_NO_UNROLL _Pragma("unroll 1")
#elif defined(__GNUC__)
#define BATCHODE_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define BATCHODE_NO_UNROLL
#endif

// Partial unrolling of a device hot loop with a run-time trip count (the fixed-step loop): the
// counter's increment, compare and branch are paid once per 4 iterations. Host code: no hint.
#if BATCHODE_GPU_COMPILER
#define BATCHODE_UNROLL_4 _Pragma("unroll 4")
#else
#define BATCHODE_UNROLL_4
#endif


// The two settings of BATCHODE_UNROLL_STATES, as macros so that a benchmark can build other choices
// (benchmarks/large_systems/bruss_kernel.sh). Measured on the H100 (BRUSS band rodas4, 65536 runs, the
// same bits every way): at 32 states in double, loops 74 ms, unrolled twice 64 ms, 4 times 51 ms (nvcc
// 9 s), fully 23.5 ms (nvcc 23 s); at 64 states 168 / 142 / 114 ms (nvcc 10 s), fully: nvcc over 240 s.
#ifndef BATCHODE_UNROLLED_STATES
#define BATCHODE_UNROLLED_STATES 16
#endif
#ifndef BATCHODE_STATE_LOOP_UNROLL
#define BATCHODE_STATE_LOOP_UNROLL 4
#endif
#ifndef BATCHODE_UNROLLED_STEP_STATES
#define BATCHODE_UNROLLED_STEP_STATES 32
#endif

namespace batchode::kernels {
/// The most states whose stiff linear-algebra loops are fully unrolled (BATCHODE_UNROLL_STATES): BRUSS's band
/// rodas4 step already spills at 16 states in double (benchmarks/large_systems/register_use.sh).
inline constexpr unsigned long long unrolled_states = BATCHODE_UNROLLED_STATES;
/// BATCHODE_UNROLL_STATES's unroll count for a loop over n states: n (every trip) up to unrolled_states,
/// else BATCHODE_STATE_LOOP_UNROLL (a loop unrolled 4 times; 1: not at all).
BATCHODE_HOST_DEVICE constexpr int state_loop_unroll(unsigned long long n) {
  return n <= unrolled_states ? static_cast<int>(n) : BATCHODE_STATE_LOOP_UNROLL;
}
/// The most states whose Rosenbrock step loops outside the factorisation are fully unrolled
/// (BATCHODE_UNROLL_STEP_STATES), and that macro's unroll count for a loop over n states.
inline constexpr unsigned long long unrolled_step_states = BATCHODE_UNROLLED_STEP_STATES;
BATCHODE_HOST_DEVICE constexpr int step_loop_unroll(unsigned long long n) {
  return n <= unrolled_step_states ? static_cast<int>(n) : BATCHODE_STATE_LOOP_UNROLL;
}
}  // namespace batchode::kernels
