// gpu/: device discovery and memory queries.
#include "batchode/gpu/device.hpp"

#include <exception>
#include <string>

#include "vendor_runtime.hpp"

namespace batchode::gpu {

const char* compiled_backend() noexcept {
#if defined(BATCHODE_WITH_HIP)
  return "hip";
#elif defined(BATCHODE_WITH_CUDA)
  return "cuda";
#else
  return "off";
#endif
}

namespace {

#if BATCHODE_HAS_GPU_RUNTIME
std::string architecture_of(const hipDeviceProp_t& props) {
#if defined(BATCHODE_WITH_CUDA)
  return "sm_" + std::to_string(props.major) + std::to_string(props.minor);
#else
  return props.gcnArchName;
#endif
}
#endif

Discovery query_runtime() noexcept {
  Discovery found;
#if BATCHODE_HAS_GPU_RUNTIME
  try {
    int count = 0;
    const hipError_t status = hipGetDeviceCount(&count);
    if (status != hipSuccess) {
      // Clear the sticky error so later calls are not poisoned by this probe.
      (void)hipGetLastError();
      found.reason = std::string("the GPU runtime reports no usable device: ") + hipGetErrorString(status);
      return found;
    }
    if (count == 0) {
      found.reason = "no GPU device found";
      return found;
    }
    for (int i = 0; i < count; ++i) {
      hipDeviceProp_t props{};
      if (hipGetDeviceProperties(&props, i) != hipSuccess) continue;
      DeviceInfo info;
      info.index = i;
      info.name = props.name;
      info.total_memory = props.totalGlobalMem;
      info.multiprocessors = props.multiProcessorCount;
      info.warp_size = props.warpSize;
      info.compute_major = props.major;
      info.compute_minor = props.minor;
      info.architecture = architecture_of(props);
      std::size_t free_bytes = 0, total_bytes = 0;
      if (hipSetDevice(i) == hipSuccess && hipMemGetInfo(&free_bytes, &total_bytes) == hipSuccess) {
        info.free_memory = free_bytes;
      } else {
        (void)hipGetLastError();
        continue;  // a device we cannot allocate on is not usable
      }
      found.devices.push_back(info);
    }
    if (!found.devices.empty()) (void)hipSetDevice(found.devices.front().index);
    found.available = !found.devices.empty();
    if (!found.available) found.reason = "GPU devices exist but none could be initialised";
  } catch (const std::exception& e) {
    found.available = false;
    found.reason = std::string("GPU discovery failed: ") + e.what();
  }
#else
  found.reason = "batchode was built without a GPU backend (BATCHODE_GPU=off)";
#endif
  return found;
}

}  // namespace

const Discovery& discover() noexcept {
  static const Discovery found = query_runtime();  // thread-safe initialisation (C++11 magic static)
  return found;
}

std::string device_architecture(int device) {
#if BATCHODE_HAS_GPU_RUNTIME
  hipDeviceProp_t props{};
  BATCHODE_CHECK(hipGetDeviceProperties(&props, device));
  return architecture_of(props);
#else
  throw GpuError("device_architecture(" + std::to_string(device) + ")", -1,
                 "batchode was built without a GPU backend (BATCHODE_GPU=off)", __FILE__, __LINE__);
#endif
}

void memory_info(int device, std::size_t& free_bytes, std::size_t& total_bytes) {
#if BATCHODE_HAS_GPU_RUNTIME
  BATCHODE_CHECK(hipSetDevice(device));
  BATCHODE_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
#else
  (void)device;
  free_bytes = total_bytes = 0;
  throw GpuError("memory_info", 0, "batchode was built without a GPU backend", __FILE__, __LINE__);
#endif
}

}  // namespace batchode::gpu
