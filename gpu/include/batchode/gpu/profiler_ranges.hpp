// gpu/: named ranges for the vendor's profilers, so that Nsight Systems (NVTX) and rocprof (roctx)
// timelines show batchode's phase names beside its kernels and copies. The TimeLogger pushes one
// range per event while its ranges are switched on (TimeLogger::set_profiler_ranges).
//
// CUDA builds call NVTX 3, which is header-only: with no profiler attached each call is one check of
// a function pointer, and a profiler attaches through NVTX_INJECTION64_PATH, as Nsight Systems does.
// HIP builds open roctx (libroctx64.so, from roctracer) with dlopen on the first push, so nothing
// is linked that a machine may lack. Builds without a GPU runtime have no profiler API.
#pragma once

namespace batchode::gpu {

/// The profiler API the ranges go to in this build: "nvtx", "roctx", or "none". roctx is named only
/// once its library has been found (profiler_ranges_available()).
const char* profiler_ranges_api() noexcept;
/// True when pushed ranges reach a profiler API (NVTX is always there in CUDA builds; roctx only
/// when libroctx64 can be opened). Never throws.
bool profiler_ranges_available() noexcept;
/// Opens a range named `name` (NUL-terminated) on the calling thread; nested in the thread's open
/// ranges. Does nothing where no API is available. Never throws.
void push_profiler_range(const char* name) noexcept;
/// Closes the calling thread's innermost range. Never throws.
void pop_profiler_range() noexcept;

}  // namespace batchode::gpu
