// gpu/: the device-wide calls of runtime.hpp: current device, device synchronisation, the launch
// check and kernel attributes.
#include "batchode/gpu/runtime.hpp"

#include <string>

#include "vendor_runtime.hpp"

namespace batchode::gpu {

namespace {
#if !BATCHODE_HAS_GPU_RUNTIME
[[noreturn]] void no_backend(const std::string& call, const char* file, int line) {
  throw GpuError(call, -1, "batchode was built without a GPU backend (BATCHODE_GPU=off)", file, line);
}
#endif
}  // namespace

void set_device(int device) {
#if BATCHODE_HAS_GPU_RUNTIME
  BATCHODE_CHECK(hipSetDevice(device));
#else
  no_backend("hipSetDevice(" + std::to_string(device) + ")", __FILE__, __LINE__);
#endif
}

int current_device() {
#if BATCHODE_HAS_GPU_RUNTIME
  int device = 0;
  BATCHODE_CHECK(hipGetDevice(&device));
  return device;
#else
  no_backend("hipGetDevice", __FILE__, __LINE__);
#endif
}

void synchronize_device() {
#if BATCHODE_HAS_GPU_RUNTIME
  BATCHODE_CHECK(hipDeviceSynchronize());
#else
  no_backend("hipDeviceSynchronize", __FILE__, __LINE__);
#endif
}

void check_last_launch(const char* kernel, const char* file, int line) {
#if BATCHODE_HAS_GPU_RUNTIME
  const hipError_t status = hipGetLastError();
  if (status != hipSuccess) {
    throw GpuError(std::string("launch of ") + kernel + " (hipGetLastError)", static_cast<int>(status),
                   hipGetErrorString(status), file, line);
  }
#else
  no_backend(std::string("launch of ") + kernel, file, line);
#endif
}

KernelAttributes kernel_attributes(const void* kernel) {
#if BATCHODE_HAS_GPU_RUNTIME
  hipFuncAttributes attributes{};
  BATCHODE_CHECK(hipFuncGetAttributes(&attributes, kernel));
  KernelAttributes found;
  found.registers = attributes.numRegs;
  found.local_bytes = attributes.localSizeBytes;
  return found;
#else
  (void)kernel;
  no_backend("hipFuncGetAttributes", __FILE__, __LINE__);
#endif
}

}  // namespace batchode::gpu
