// gpu/: GpuError, the exception every failed GPU runtime call becomes.
#pragma once

#include <stdexcept>
#include <string>

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
  /// The runtime's error code (hipError_t / cudaError_t as int; -1 when no runtime call failed,
  /// e.g. in a build without a GPU backend).
  int code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace batchode
