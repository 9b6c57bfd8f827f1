// gpu/: code compiled at run time, loaded and launched: a Module holds one image (a CUBIN from NVRTC,
// a code object from hipRTC) loaded on the GPU, its Kernels are looked up by their lowered (mangled)
// names, and Module::launch enqueues one on a stream. No vendor type here: a Kernel is an opaque
// handle, like stream_t. CUDA: the runtime API's libraries (cudaLibraryLoadData, cudaLibraryGetKernel,
// cudaLaunchKernel), so the statically linked cudart is all it needs; HIP: hipModuleLoadData,
// hipModuleGetFunction, hipModuleLaunchKernel.
//
// In a build without a GPU runtime the same names exist and throw GpuError saying so.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "batchode/gpu/runtime.hpp"

namespace batchode::gpu {

struct KernelHandle;  // never defined: stands for the vendor's kernel (CUkern_st / ihipModuleSymbol_t)
/// A kernel of a loaded Module: the vendor's handle (cudaKernel_t / hipFunction_t), opaque.
using kernel_t = KernelHandle*;

/// One kernel of a Module. Valid while its Module lives; copying copies the handle.
struct Kernel {
  kernel_t handle = nullptr;
  std::string name;  ///< the lowered name it was looked up by (for error messages)
  explicit operator bool() const noexcept { return handle != nullptr; }
};

/// A code image loaded on the GPU. Movable, not copyable; unloaded by the destructor.
class Module {
 public:
  /// Loads `image` (CUDA: a CUBIN for the device's architecture; HIP: a code object) on the device
  /// current for the calling thread. `label` names the module in error messages (e.g. the model and
  /// method it holds). The image is copied and kept for the module's life. Throws GpuError naming the
  /// call (cudaLibraryLoadData / hipModuleLoadData) and the label, also for an empty image.
  explicit Module(const std::vector<char>& image, std::string label = {});
  Module(const void* image, std::size_t bytes, std::string label = {});
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;

  /// The kernel named `lowered_name` (as a runtime compiler's lowered name gives it). Throws GpuError
  /// naming the call, the name and the module's label when the module has no such kernel.
  Kernel function(const std::string& lowered_name) const;

  /// Enqueues `kernel` on `stream` with `grid` blocks of `block` threads and `shared_bytes` of dynamic
  /// shared memory a block.
  /// `args` holds one pointer per kernel parameter, in order, each to a value of the parameter's type
  /// (copied at the launch: they need not outlive the call). HIP: the current device must be the one
  /// the module was loaded on. Throws GpuError naming the call, the kernel and the module.
  void launch(const Kernel& kernel, unsigned grid, unsigned block, stream_t stream, void** args,
              std::size_t shared_bytes = 0) const;

  /// The device current when the module was loaded.
  int device() const noexcept { return device_; }
  /// Whether its kernels may be launched on `device`: CUDA libraries serve every device (each loads
  /// the kernel on first use), a HIP module only the device it was loaded on.
  bool usable_on(int device) const noexcept;
  const std::string& label() const noexcept { return label_; }
  std::size_t image_bytes() const noexcept { return image_.size(); }

 private:
  void release() noexcept;

  void* module_ = nullptr;  // cudaLibrary_t / hipModule_t
  int device_ = 0;
  std::string label_;
  std::vector<char> image_;
};

/// Registers and local memory of `kernel` as the runtime reports them. On CUDA the first query also
/// loads the kernel on the current device (lazy loading), as the first launch would. Throws GpuError.
KernelAttributes kernel_attributes(const Kernel& kernel);

}  // namespace batchode::gpu
