// jit/: a shared object loaded into this process (a model compiled at run time), closed when its last
// owner lets go. Callers keep it alive as long as any function taken from it may run.
#pragma once

#include <cstring>
#include <filesystem>
#include <type_traits>

#include "batchode/jit/jit_error.hpp"

namespace batchode::jit {

/// dlopen(RTLD_NOW | RTLD_LOCAL) of a file: every symbol is resolved up front (a missing one fails
/// here, not in the middle of a solve) and none leaks into the global namespace of later objects.
/// Movable, not copyable; dlclose on destruction.
class SharedObject {
 public:
  /// Throws JitError naming the file, with dlerror()'s text.
  explicit SharedObject(const std::filesystem::path& path);
  ~SharedObject();
  SharedObject(SharedObject&& other) noexcept;
  SharedObject& operator=(SharedObject&& other) noexcept;
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;

  /// The address of an exported symbol. Throws JitError naming the symbol and the file when there is
  /// none (also for one compiled with hidden visibility).
  void* symbol(const char* name) const;

  /// The exported function `name` as the function pointer type F (e.g. `int (*)(double)`); the caller
  /// vouches that the type matches the definition. Throws as symbol() does.
  template <class F>
  F function(const char* name) const {
    static_assert(std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>,
                  "SharedObject::function<F>: F must be a pointer to a function");
    static_assert(sizeof(F) == sizeof(void*), "function and object pointers differ in size");
    void* address = symbol(name);
    F f;
    std::memcpy(&f, &address, sizeof f);  // POSIX guarantees the conversion; memcpy keeps -Wpedantic quiet
    return f;
  }

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  void* handle_ = nullptr;
  std::filesystem::path path_;
};

}  // namespace batchode::jit
