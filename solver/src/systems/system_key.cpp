// solver/systems/: where a System's tag lies, for its cost-model name (system_key.hpp says why).
#include "batchode/solver/systems/system_key.hpp"

#include <cstdint>
#include <cstdio>

#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#define BATCHODE_HAS_DLADDR 1
#else
#define BATCHODE_HAS_DLADDR 0
#endif

namespace batchode::detail {

std::string module_offset(const void* address) {
  char text[40];
#if BATCHODE_HAS_DLADDR
  Dl_info info{};
  if (dladdr(address, &info) != 0 && info.dli_fbase != nullptr) {
    // The file name without its folder: the main program's is argv[0], which differs between
    // "./prog" and "/path/to/prog" although the program is the same.
    std::string module = info.dli_fname != nullptr ? info.dli_fname : "";
    module = module.substr(module.find_last_of('/') + 1);
    const auto offset = reinterpret_cast<std::uintptr_t>(address) - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    std::snprintf(text, sizeof text, "+0x%llx", static_cast<unsigned long long>(offset));
    return module + text;
  }
#endif
  std::snprintf(text, sizeof text, "%p", address);
  return text;
}

}  // namespace batchode::detail
