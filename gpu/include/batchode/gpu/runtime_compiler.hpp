// gpu/: the runtime compiler of the build's GPU vendor, found at run time: NVRTC in CUDA builds,
// hipRTC in HIP builds, each opened with dlopen, so a machine without it still runs everything else
// (load() says why not) and no compiler header is needed to build batchode. It turns one source
// text into a code image for Module (gpu/module.hpp): a CUBIN for the device's exact architecture
// (no PTX, so the driver never JIT-compiles at load) or an AMD code object.
//
// The libraries are opened once per process and never closed. Compiling is thread-safe (each call
// has its own program). In a build without a GPU runtime load() finds nothing and says so.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace batchode::gpu {

/// A program the runtime compiler refused (or a failed call of its API): what() names the label and
/// the call and carries the compiler's log; log() and label() give them alone.
class RuntimeCompileError : public std::runtime_error {
 public:
  RuntimeCompileError(const std::string& label, const std::string& message, std::string log)
      : std::runtime_error(label + ": " + message + (log.empty() ? std::string() : "\n" + log)),
        label_(label),
        log_(std::move(log)) {}
  const std::string& label() const noexcept { return label_; }
  const std::string& log() const noexcept { return log_; }

 private:
  std::string label_, log_;
};

/// What a compilation gives: the code image, the lowered (mangled) name of each name expression in
/// the order they were given, and the compiler's log (warnings; often empty).
struct CompiledKernels {
  std::vector<char> image;
  std::vector<std::string> lowered_names;
  std::string log;
};

/// A loaded runtime compiler. Copies share the loaded library.
class RuntimeCompiler {
 public:
  /// Which runtime compiler this is.
  enum class Kind { nvrtc, hiprtc };

  /// Opens the build's runtime compiler: CUDA builds try libnvrtc.so.13, libnvrtc.so, then
  /// /usr/local/cuda/lib64/libnvrtc.so*; HIP builds libhiprtc.so.6, libhiprtc.so.5, libhiprtc.so,
  /// then libamdhip64.so.5 / libamdhip64.so (ROCm 5 keeps hipRTC in the HIP runtime). The first
  /// library that has every function wins. Returns nothing when none does, with `why_not` (when
  /// given) naming each library tried and what dlopen/dlsym said. Cached: the libraries are searched
  /// once per process. Never throws.
  static std::optional<RuntimeCompiler> load(std::string* why_not = nullptr);

  Kind kind() const noexcept;
  /// "NVRTC 13.0" / "hipRTC 5.2" and the library it came from, e.g. "NVRTC 13.0 (libnvrtc.so.13)".
  std::string name_and_version() const;
  /// The compiler's version as it reports it (nvrtcVersion / hiprtcVersion).
  int version_major() const noexcept;
  int version_minor() const noexcept;

  /// Compiles `source` (named `label` in the compiler's messages) with `options`, after registering
  /// each of `name_expressions` (e.g. "batchode::kernels::integrate_chunk<...>"), whose lowered names
  /// come back in the same order. NVRTC gives a CUBIN: `options` must name a real architecture
  /// (architecture_option()), not a virtual one. Throws RuntimeCompileError with the label and the
  /// compiler's log when the program does not compile, or naming the call when the API fails.
  CompiledKernels compile(const std::string& source, const std::vector<std::string>& name_expressions,
                          const std::vector<std::string>& options, const std::string& label) const;

  /// The option that targets `device`: "--gpu-architecture=sm_90" from its compute capability
  /// (CUDA), "--offload-arch=gfx90a:sramecc+:xnack-" from its gcnArchName (HIP). Throws GpuError
  /// (no such device, or no GPU backend).
  static std::string architecture_option(int device);
  /// The same option for an architecture named as DeviceInfo::architecture names it ("sm_90",
  /// "gfx90a"), for compiling without a device.
  static std::string architecture_option(const std::string& architecture);

  /// The options batchode's kernels compile with, besides the architecture: C++17, and for NVRTC
  /// -default-device (the core's unannotated constexpr helpers and lambdas are host-device under
  /// nvcc's rules; NVRTC would take them for host functions), then -I for each of `include_dirs`.
  /// No fast-math: results must match the compiled-in kernels bit for bit (both contract into FMA by
  /// default, as nvcc and hipcc do).
  std::vector<std::string> kernel_options(const std::vector<std::string>& include_dirs) const;

  struct Api;  // the opened library and its functions (runtime_compiler.cpp)

 private:
  explicit RuntimeCompiler(std::shared_ptr<const Api> api) : api_(std::move(api)) {}
  std::shared_ptr<const Api> api_;
};

}  // namespace batchode::gpu
