// gpu/: profiler ranges, NVTX 3 (header-only) in CUDA builds and roctx (opened with dlopen) in HIP
// builds; see profiler_ranges.hpp.
#include "batchode/gpu/profiler_ranges.hpp"

#include "batchode/gpu/runtime.hpp"

#if defined(BATCHODE_WITH_CUDA)
#include <nvtx3/nvToolsExt.h>
#elif defined(BATCHODE_WITH_HIP)
#include <dlfcn.h>
#endif

namespace batchode::gpu {

#if defined(BATCHODE_WITH_CUDA)

const char* profiler_ranges_api() noexcept { return "nvtx"; }
bool profiler_ranges_available() noexcept { return true; }
void push_profiler_range(const char* name) noexcept { nvtxRangePushA(name); }
void pop_profiler_range() noexcept { nvtxRangePop(); }

#elif defined(BATCHODE_WITH_HIP)

namespace {

// roctx's two entry points (roctx.h: int roctxRangePushA(const char*); int roctxRangePop(void)),
// resolved once. The library is never closed: ranges may be popped until the process ends.
struct Roctx {
  int (*push)(const char*) = nullptr;
  int (*pop)() = nullptr;
};

const Roctx& roctx() noexcept {
  static const Roctx loaded = [] {
    Roctx found;
    for (const char* name : {"libroctx64.so", "libroctx64.so.4", "libroctx64.so.1"}) {
      void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (library == nullptr) continue;
      found.push = reinterpret_cast<int (*)(const char*)>(dlsym(library, "roctxRangePushA"));
      found.pop = reinterpret_cast<int (*)()>(dlsym(library, "roctxRangePop"));
      if (found.push != nullptr && found.pop != nullptr) return found;
      found = Roctx{};
      dlclose(library);
    }
    return found;
  }();
  return loaded;
}

}  // namespace

const char* profiler_ranges_api() noexcept { return profiler_ranges_available() ? "roctx" : "none"; }
bool profiler_ranges_available() noexcept { return roctx().push != nullptr; }
void push_profiler_range(const char* name) noexcept {
  if (const Roctx& api = roctx(); api.push != nullptr) api.push(name);
}
void pop_profiler_range() noexcept {
  if (const Roctx& api = roctx(); api.pop != nullptr) api.pop();
}

#else

const char* profiler_ranges_api() noexcept { return "none"; }
bool profiler_ranges_available() noexcept { return false; }
void push_profiler_range(const char*) noexcept {}
void pop_profiler_range() noexcept {}

#endif

}  // namespace batchode::gpu
