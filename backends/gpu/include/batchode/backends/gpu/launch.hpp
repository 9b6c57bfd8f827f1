// backends/gpu/: what a kernel launch needs from the vendor, and nothing more. The <<<grid, block,
// shared, stream>>> launch is compiled in the user's translation unit by nvcc or hipcc, so it needs
// the vendor's stream type there: this header turns batchode's opaque gpu::stream_t back into it.
// nvcc pre-includes cuda_runtime.h; under hipcc the HIP runtime header is included here (it also
// declares the launch machinery and the builtins, e.g. threadIdx, the batch kernel uses).
// No HIP-to-CUDA name mapping: the launch site writes the vendor-neutral <<<>>> and checks it with
// gpu::check_last_launch (gpu/runtime.hpp, implemented in gpu/src).
#pragma once

#include "batchode/gpu/runtime.hpp"

#if defined(__HIPCC__)
#if defined(BATCHODE_WITH_CUDA)
#error "batchode was built for CUDA (BATCHODE_GPU=cuda): compile its users with nvcc, not hipcc"
#endif
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime.h>

namespace batchode::gpu {
/// The vendor's stream behind `stream` (a cast: stream_t is hipStream_t under another name).
inline hipStream_t native_stream(stream_t stream) noexcept { return reinterpret_cast<hipStream_t>(stream); }
}  // namespace batchode::gpu

#elif defined(__CUDACC__)
#if defined(BATCHODE_WITH_HIP)
#error "batchode was built for HIP (BATCHODE_GPU=hip): compile its users with hipcc, not nvcc"
#endif

namespace batchode::gpu {
/// The vendor's stream behind `stream` (a cast: stream_t is cudaStream_t under another name).
inline cudaStream_t native_stream(stream_t stream) noexcept { return reinterpret_cast<cudaStream_t>(stream); }
}  // namespace batchode::gpu

#else
#error "batchode/backends/gpu/launch.hpp launches kernels: compile this file with nvcc or hipcc"
#endif
