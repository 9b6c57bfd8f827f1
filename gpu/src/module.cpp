// gpu/: the runtime calls behind module.hpp: loading a code image, looking up its kernels, launching.
#include "batchode/gpu/module.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "vendor_runtime.hpp"

namespace batchode::gpu {

namespace {

#if BATCHODE_HAS_GPU_RUNTIME
// Throws GpuError for a failed call, naming it with what it was about (the module, the kernel).
// Load, lookup and launch errors are not sticky but stay in the last-error slot; clear it so a
// later launch check (hipGetLastError) does not report it against an innocent kernel.
void check(hipError_t status, const std::string& call, const char* file, int line) {
  if (status == hipSuccess) return;
  (void)hipGetLastError();
  throw GpuError(call, static_cast<int>(status), hipGetErrorString(status), file, line);
}

std::string about(const std::string& label) { return label.empty() ? std::string() : " of " + label; }
#else
[[noreturn]] void no_backend(const std::string& call, const char* file, int line) {
  throw GpuError(call, -1, "batchode was built without a GPU backend (BATCHODE_GPU=off)", file, line);
}
#endif

}  // namespace

Module::Module(const std::vector<char>& image, std::string label)
    : Module(image.data(), image.size(), std::move(label)) {}

Module::Module(const void* image, std::size_t bytes, std::string label) : label_(std::move(label)) {
#if BATCHODE_HAS_GPU_RUNTIME
#if defined(BATCHODE_WITH_CUDA)
  const char* call = "cudaLibraryLoadData";
#else
  const char* call = "hipModuleLoadData";
#endif
  if (image == nullptr || bytes == 0) {
    throw GpuError(std::string(call) + about(label_), -1, "the code image is empty", __FILE__, __LINE__);
  }
#if defined(BATCHODE_WITH_CUDA)
  // We load only what NVRTC made for a real architecture: a CUBIN, an ELF file. cudaLibraryLoadData
  // also takes PTX text, and took 64 bytes of garbage without an error (CUDA 13, lazy loading), so
  // the format is checked here rather than at the first launch.
  if (bytes < 4 || std::memcmp(image,
                               "\x7f"
                               "ELF",
                               4) != 0) {
    throw GpuError(std::string(call) + about(label_), -1, "the code image is not a CUBIN (no ELF header)",
                   __FILE__, __LINE__);
  }
#endif
  image_.assign(static_cast<const char*>(image), static_cast<const char*>(image) + bytes);
  check(hipGetDevice(&device_), call + about(label_) + " (hipGetDevice)", __FILE__, __LINE__);
#if defined(BATCHODE_WITH_CUDA)
  cudaLibrary_t library = nullptr;
  check(cudaLibraryLoadData(&library, image_.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        call + about(label_), __FILE__, __LINE__);
  module_ = library;
#else
  hipModule_t module = nullptr;
  check(hipModuleLoadData(&module, image_.data()), call + about(label_), __FILE__, __LINE__);
  module_ = module;
#endif
#else
  (void)image;
  (void)bytes;
  no_backend("hipModuleLoadData", __FILE__, __LINE__);
#endif
}

Module::~Module() { release(); }

Module::Module(Module&& other) noexcept
    : module_(std::exchange(other.module_, nullptr)),
      device_(other.device_),
      label_(std::move(other.label_)),
      image_(std::move(other.image_)) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    release();
    module_ = std::exchange(other.module_, nullptr);
    device_ = other.device_;
    label_ = std::move(other.label_);
    image_ = std::move(other.image_);
  }
  return *this;
}

// An unload failure only follows an earlier fatal error (a kernel fault that poisoned the context),
// which the code that enqueued the work has reported or will: ignored here, as in buffers.cpp.
void Module::release() noexcept {
#if BATCHODE_HAS_GPU_RUNTIME
  if (module_ == nullptr) return;
#if defined(BATCHODE_WITH_CUDA)
  if (cudaLibraryUnload(static_cast<cudaLibrary_t>(module_)) != cudaSuccess) (void)cudaGetLastError();
#else
  if (hipModuleUnload(static_cast<hipModule_t>(module_)) != hipSuccess) (void)hipGetLastError();
#endif
#endif
  module_ = nullptr;
}

bool Module::usable_on(int device) const noexcept {
#if defined(BATCHODE_WITH_CUDA)
  (void)device;
  return module_ != nullptr;
#else
  return module_ != nullptr && device == device_;
#endif
}

Kernel Module::function(const std::string& lowered_name) const {
#if BATCHODE_HAS_GPU_RUNTIME
  if (module_ == nullptr) {
    throw GpuError("Module::function(" + lowered_name + ")", -1, "the module was moved from", __FILE__,
                   __LINE__);
  }
  Kernel kernel;
  kernel.name = lowered_name;
#if defined(BATCHODE_WITH_CUDA)
  cudaKernel_t found = nullptr;
  check(cudaLibraryGetKernel(&found, static_cast<cudaLibrary_t>(module_), lowered_name.c_str()),
        "cudaLibraryGetKernel(" + lowered_name + ")" + about(label_), __FILE__, __LINE__);
#else
  hipFunction_t found = nullptr;
  check(hipModuleGetFunction(&found, static_cast<hipModule_t>(module_), lowered_name.c_str()),
        "hipModuleGetFunction(" + lowered_name + ")" + about(label_), __FILE__, __LINE__);
#endif
  kernel.handle = reinterpret_cast<kernel_t>(found);
  return kernel;
#else
  no_backend("hipModuleGetFunction(" + lowered_name + ")", __FILE__, __LINE__);
#endif
}

void Module::launch(const Kernel& kernel, unsigned grid, unsigned block, stream_t stream, void** args,
                    std::size_t shared_bytes) const {
#if BATCHODE_HAS_GPU_RUNTIME
#if defined(BATCHODE_WITH_CUDA)
  // A cudaKernel_t passed as the function: cudaLaunchKernel takes it as is (CUDA 12+).
  const cudaError_t status = cudaLaunchKernel(reinterpret_cast<const void*>(kernel.handle), dim3(grid),
                                              dim3(block), args, shared_bytes, detail::vendor(stream));
  if (status != cudaSuccess)
    check(status, "cudaLaunchKernel(" + kernel.name + ")" + about(label_), __FILE__, __LINE__);
#else
  const hipError_t status =
      hipModuleLaunchKernel(reinterpret_cast<hipFunction_t>(kernel.handle), grid, 1, 1, block, 1, 1,
                            static_cast<unsigned>(shared_bytes), detail::vendor(stream), args, nullptr);
  if (status != hipSuccess) {
    check(status, "hipModuleLaunchKernel(" + kernel.name + ")" + about(label_), __FILE__, __LINE__);
  }
#endif
#else
  (void)grid, (void)block, (void)stream, (void)args, (void)shared_bytes;
  no_backend("hipModuleLaunchKernel(" + kernel.name + ")", __FILE__, __LINE__);
#endif
}

KernelAttributes kernel_attributes(const Kernel& kernel) {
#if BATCHODE_HAS_GPU_RUNTIME
  KernelAttributes found;
#if defined(BATCHODE_WITH_CUDA)
  // cudaFuncGetAttributes takes a cudaKernel_t as is where the pointer is no compiled-in kernel.
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel.handle)),
        "cudaFuncGetAttributes(" + kernel.name + ")", __FILE__, __LINE__);
  found.registers = attributes.numRegs;
  found.local_bytes = attributes.localSizeBytes;
#else
  const hipFunction_t function = reinterpret_cast<hipFunction_t>(kernel.handle);
  int registers = 0, local_bytes = 0;
  check(hipFuncGetAttribute(&registers, HIP_FUNC_ATTRIBUTE_NUM_REGS, function),
        "hipFuncGetAttribute(" + kernel.name + ", NUM_REGS)", __FILE__, __LINE__);
  check(hipFuncGetAttribute(&local_bytes, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function),
        "hipFuncGetAttribute(" + kernel.name + ", LOCAL_SIZE_BYTES)", __FILE__, __LINE__);
  found.registers = registers;
  found.local_bytes = static_cast<std::size_t>(local_bytes);
#endif
  return found;
#else
  no_backend("hipFuncGetAttribute(" + kernel.name + ")", __FILE__, __LINE__);
#endif
}

}  // namespace batchode::gpu
