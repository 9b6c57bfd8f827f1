// gpu/src (private): the one place that includes the vendor GPU runtime. Only gpu/src/*.cpp (and
// benchmarks/host_primitives, which measures the runtime's own primitives) include it; no public
// header does, so users never see the runtime or the names below.
//
// batchode's runtime calls are written once, in HIP names. This header makes them compile:
//  - BATCHODE_WITH_HIP (AMD):     the real HIP runtime;
//  - BATCHODE_WITH_CUDA (NVIDIA): HIP names mapped onto CUDA's. Debian's HIP 5.2 NVIDIA headers do
//    not compile against CUDA 13 (cudaMemPrefetchAsync and cudaDeviceProp changed), so we map only
//    what we use;
//  - neither:                     nothing; the callers compile to stubs that throw GpuError.
// It also defines BATCHODE_CHECK (a runtime call turned into a GpuError naming the call, file and
// line) and the conversions between the public opaque handles and the vendor's.
#pragma once

#include "batchode/gpu/gpu_error.hpp"
#include "batchode/gpu/runtime.hpp"

#if defined(BATCHODE_WITH_HIP)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif

#elif defined(BATCHODE_WITH_CUDA)
#include <cuda_runtime_api.h>
// The HIP names batchode uses, mapped onto CUDA. Keep this list to what the sources call.
using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipDeviceProp_t = cudaDeviceProp;
using hipMemcpyKind = cudaMemcpyKind;
using hipFuncAttributes = cudaFuncAttributes;
#define hipSuccess cudaSuccess
#define hipErrorNotReady cudaErrorNotReady
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipHostMallocDefault cudaHostAllocDefault
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipGetDeviceCount cudaGetDeviceCount
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMemGetInfo cudaMemGetInfo
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipHostMalloc(ptr, size, flags) cudaHostAlloc(ptr, size, flags)
#define hipHostFree cudaFreeHost
#define hipHostRegister cudaHostRegister
#define hipHostUnregister cudaHostUnregister
#define hipHostRegisterPortable cudaHostRegisterPortable
#define hipMemcpyAsync cudaMemcpyAsync
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventQuery cudaEventQuery
#define hipEventElapsedTime cudaEventElapsedTime
#define hipFuncGetAttributes cudaFuncGetAttributes
#endif

#if BATCHODE_HAS_GPU_RUNTIME
/// Checks a runtime call; throws batchode::GpuError naming the call, the file and the line.
#define BATCHODE_CHECK(call)                                                                     \
  do {                                                                                           \
    const hipError_t batchode_check_status_ = (call);                                            \
    if (batchode_check_status_ != hipSuccess) {                                                  \
      throw ::batchode::GpuError(#call, static_cast<int>(batchode_check_status_),                \
                                 hipGetErrorString(batchode_check_status_), __FILE__, __LINE__); \
    }                                                                                            \
  } while (0)

namespace batchode::gpu::detail {
// The public handles are the vendor's pointers under another name (runtime.hpp): a cast, no lookup.
inline hipStream_t vendor(stream_t stream) noexcept { return reinterpret_cast<hipStream_t>(stream); }
inline hipEvent_t vendor(event_t event) noexcept { return reinterpret_cast<hipEvent_t>(event); }
inline stream_t opaque(hipStream_t stream) noexcept { return reinterpret_cast<stream_t>(stream); }
inline event_t opaque(hipEvent_t event) noexcept { return reinterpret_cast<event_t>(event); }
}  // namespace batchode::gpu::detail
#endif
