// gpu/: the one place that knows which vendor GPU runtime is in use.
//
// batchode's kernels and runtime calls are written once, in HIP. This header makes them compile:
//  - with hipcc (AMD):   the real HIP runtime;
//  - with nvcc (NVIDIA): HIP names mapped onto CUDA's. Debian's HIP 5.2 NVIDIA headers do not compile
//    against CUDA 13 (cudaMemPrefetchAsync and cudaDeviceProp changed), so we map only what we use;
//  - with neither:       nothing but the annotation macros, so CPU-only code still compiles.
// It also defines BATCHODE_HOST_DEVICE (host + device functions) and BATCHODE_CHECK (every runtime
// call turned into a batchode::GpuError naming the call, file and line).
#pragma once

#include <stdexcept>
#include <string>

#include "batchode/kernels/annotations.hpp"

// --- Which runtime was the library built against? -------------------------------------------
#if defined(BATCHODE_WITH_HIP)
#define BATCHODE_HAS_GPU_RUNTIME 1
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif

#elif defined(BATCHODE_WITH_CUDA)
#define BATCHODE_HAS_GPU_RUNTIME 1
#include <cuda_runtime_api.h>
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif
// The HIP names batchode uses, mapped onto CUDA. Keep this list to what the sources call.
using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipDeviceProp_t = cudaDeviceProp;
using hipMemcpyKind = cudaMemcpyKind;
#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorNotReady cudaErrorNotReady
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipEventDefault cudaEventDefault
#define hipHostMallocDefault cudaHostAllocDefault
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
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
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemsetAsync cudaMemsetAsync
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventQuery cudaEventQuery
#define hipEventElapsedTime cudaEventElapsedTime
#define hipFuncGetAttributes cudaFuncGetAttributes
using hipFuncAttributes = cudaFuncAttributes;

#else
#define BATCHODE_HAS_GPU_RUNTIME 0
#endif

namespace batchode {

/// A failed GPU runtime call. what() names the call, the runtime's error and where it was made.
class GpuError : public std::runtime_error {
 public:
  GpuError(const std::string& call, int code, const std::string& message, const char* file, int line)
      : std::runtime_error(call + " failed: " + message + " (code " + std::to_string(code) + ") at " +
                           file + ":" + std::to_string(line)),
        code_(code) {}
  /// The same failure with context (e.g. the chunk it happened in) put in front of the message.
  GpuError(const std::string& context, const GpuError& cause)
      : std::runtime_error(context + ": " + cause.what()), code_(cause.code()) {}
  /// The runtime's error code (hipError_t / cudaError_t as int).
  int code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace batchode

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
#endif

namespace batchode::gpu {
#if BATCHODE_HAS_GPU_RUNTIME
using stream_t = hipStream_t;  ///< a GPU stream (HIP name; CUDA's under nvcc)
using event_t = hipEvent_t;    ///< a GPU event
#else
using stream_t = void*;  ///< placeholder in CPU-only builds: no GPU stream exists
using event_t = void*;
#endif
}  // namespace batchode::gpu
