// gpu/: run-time discovery of usable GPUs. Whatever was compiled, the program decides at run time:
// no device, no driver or a GPU build on a CPU machine all mean "no GPU", never a crash.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace batchode::gpu {

/// One GPU as the runtime reports it.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t total_memory = 0;  ///< bytes
  std::size_t free_memory = 0;   ///< bytes, at discovery time
  int multiprocessors = 0;
  int warp_size = 0;
  int compute_major = 0;  ///< compute capability (CUDA) or gfx major (HIP)
  int compute_minor = 0;
  /// What a runtime compiler targets for this device: "sm_90" (CUDA, from the compute capability) or
  /// the device's gcnArchName, e.g. "gfx90a:sramecc+:xnack-" (HIP).
  std::string architecture;
};

/// What the runtime said when asked for devices.
struct Discovery {
  bool available = false;  ///< at least one usable device
  std::string reason;      ///< why no device is usable (empty when available)
  std::vector<DeviceInfo> devices;
};

/// The GPU backend compiled into the library: "hip", "cuda" or "off".
const char* compiled_backend() noexcept;

/// Queries the runtime once (thread-safe, cached) and never throws: runtime errors become `reason`.
const Discovery& discover() noexcept;

/// The architecture of `device` as DeviceInfo::architecture names it, queried now (not cached).
/// Throws batchode::GpuError on failure and in a build without a GPU backend.
std::string device_architecture(int device);

/// Free and total memory of `device` right now, in bytes (throws batchode::GpuError on failure).
void memory_info(int device, std::size_t& free_bytes, std::size_t& total_bytes);

}  // namespace batchode::gpu
