// jit/: dlopen/dlsym/dlclose behind SharedObject. dlerror() is per thread in glibc, so reading it
// right after the failing call gives that call's reason even with other threads loading objects.
#include "batchode/jit/shared_object.hpp"

#include <dlfcn.h>

#include <utility>

namespace batchode::jit {

SharedObject::SharedObject(const std::filesystem::path& path) : path_(path) {
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* error = ::dlerror();
    throw JitError("cannot load the shared object '" + path.string() +
                   "': " + (error != nullptr ? error : "unknown error"));
  }
}

SharedObject::~SharedObject() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

SharedObject::SharedObject(SharedObject&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

SharedObject& SharedObject::operator=(SharedObject&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) ::dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

void* SharedObject::symbol(const char* name) const {
  if (handle_ == nullptr) {
    throw JitError(std::string("symbol '") + name + "' asked of a moved-from SharedObject");
  }
  ::dlerror();  // clear a stale message, so the one read below is this lookup's
  void* address = ::dlsym(handle_, name);
  if (address == nullptr) {
    const char* error = ::dlerror();
    throw JitError(
        std::string("symbol '") + name + "' is not exported by '" + path_.string() + "'" +
        (error != nullptr ? std::string(": ") + error : std::string()) +
        " (compiled with -fvisibility=hidden: entry points need __attribute__((visibility(\"default\"))))");
  }
  return address;
}

}  // namespace batchode::jit
