// gpu/: what the rest of batchode (and its users) may know about the GPU runtime: whether one was
// linked, opaque stream and event handles, and the few device-wide calls the GPU path makes. No
// vendor header and no vendor name: the runtime itself (HIP or CUDA) is included only by gpu/src
// (vendor_runtime.hpp), and the one header that launches a kernel is backends/gpu/launch.hpp.
//
// In a build without a GPU runtime (BATCHODE_HAS_GPU_RUNTIME == 0) the same names exist, so code
// using them compiles everywhere; the functions throw GpuError saying the build has no GPU backend.
#pragma once

#include <cstddef>

#include "batchode/gpu/gpu_error.hpp"
// BATCHODE_GPU_COMPILER, tested together with BATCHODE_HAS_GPU_RUNTIME to decide whether a
// translation unit carries the GPU path, and BATCHODE_HOST_DEVICE for users' systems.
#include "batchode/kernels/core/annotations.hpp"

// --- Was the library built against a GPU runtime? (BATCHODE_WITH_* come from batchode::gpu) ----
#if defined(BATCHODE_WITH_HIP) || defined(BATCHODE_WITH_CUDA)
#define BATCHODE_HAS_GPU_RUNTIME 1
#else
#define BATCHODE_HAS_GPU_RUNTIME 0
#endif

namespace batchode::gpu {

struct StreamHandle;  // never defined: stands for the vendor's stream (ihipStream_t / CUstream_st)
struct EventHandle;   // never defined: stands for the vendor's event (ihipEvent_t / CUevent_st)
/// A GPU stream: the vendor's handle (hipStream_t / cudaStream_t), opaque. nullptr is the default
/// stream. backends/gpu/launch.hpp turns it back into the vendor's type for a kernel launch.
using stream_t = StreamHandle*;
/// A GPU event: the vendor's handle (hipEvent_t / cudaEvent_t), opaque.
using event_t = EventHandle*;

/// Makes `device` current for the calling thread (hipSetDevice). Throws GpuError.
void set_device(int device);
/// The device current on the calling thread (hipGetDevice). Throws GpuError.
int current_device();
/// Waits for all work on the current device (hipDeviceSynchronize). Throws GpuError.
void synchronize_device();

/// Checks the kernel launch just made on this thread (hipGetLastError right after the <<<>>>):
/// throws GpuError naming `kernel` and the launch's file and line when the launch failed.
/// The runtime is linked statically or shared once per process (batchode's components are static
/// libraries), so this sees the launch made in the caller's translation unit.
void check_last_launch(const char* kernel, const char* file, int line);

/// What the compiler made of a kernel, as the runtime reports it.
struct KernelAttributes {
  int registers = 0;            ///< registers per thread
  std::size_t local_bytes = 0;  ///< local (spill and stack) memory per thread, bytes
};
/// The attributes of `kernel`, the address of a __global__ function (hipFuncGetAttributes). The
/// first query of a kernel also loads its module (lazy loading on CUDA). Throws GpuError.
KernelAttributes kernel_attributes(const void* kernel);

}  // namespace batchode::gpu
