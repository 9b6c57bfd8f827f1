// kernels/: the annotations of host+device code, and nothing else: no runtime, no standard header,
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

// No unrolling: a loop over an array indexed by its counter keeps the array in (cached, per-thread)
// memory instead of registers (the summary accumulators: kernels/summaries.hpp).
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

