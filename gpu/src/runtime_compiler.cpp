// gpu/: NVRTC and hipRTC through dlopen. Their few functions are declared here by hand (the C API,
// stable across versions: every call returns an int-sized result code, a program is a pointer), so
// neither nvrtc.h nor hiprtc.h is needed to build, and neither library to link.
#include "batchode/gpu/runtime_compiler.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "batchode/gpu/device.hpp"
#include "batchode/gpu/gpu_error.hpp"
#include "batchode/gpu/runtime.hpp"

namespace batchode::gpu {

// The functions both compilers share, by their role. nvrtcResult and hiprtcResult are C enums (int);
// nvrtcProgram and hiprtcProgram opaque pointers.
struct RuntimeCompiler::Api {
  using Program = void*;
  using CreateProgram = int (*)(Program* program, const char* source, const char* name, int n_headers,
                                const char* const* headers, const char* const* include_names);
  using AddNameExpression = int (*)(Program program, const char* name_expression);
  using CompileProgram = int (*)(Program program, int n_options, const char* const* options);
  using GetSize = int (*)(Program program, std::size_t* size);
  using GetBytes = int (*)(Program program, char* bytes);
  using GetLoweredName = int (*)(Program program, const char* name_expression, const char** lowered_name);
  using DestroyProgram = int (*)(Program* program);
  using Version = int (*)(int* major, int* minor);
  using GetErrorString = const char* (*)(int result);

  Kind kind = Kind::nvrtc;
  std::string library;  // the name or path dlopen succeeded with
  void* handle = nullptr;
  int major = 0, minor = 0;
  CreateProgram create_program = nullptr;
  AddNameExpression add_name_expression = nullptr;
  CompileProgram compile_program = nullptr;
  GetSize get_log_size = nullptr;
  GetBytes get_log = nullptr;
  GetSize get_code_size = nullptr;
  GetBytes get_code = nullptr;
  GetLoweredName get_lowered_name = nullptr;
  DestroyProgram destroy_program = nullptr;
  Version version = nullptr;
  GetErrorString error_string = nullptr;

  const char* name() const { return kind == Kind::nvrtc ? "NVRTC" : "hipRTC"; }
  std::string describe(int result) const {
    const char* text = error_string != nullptr ? error_string(result) : nullptr;
    return std::string(text != nullptr ? text : "unknown error") + " (code " + std::to_string(result) + ")";
  }
};

namespace {

using Api = RuntimeCompiler::Api;

#if defined(BATCHODE_WITH_CUDA)
constexpr RuntimeCompiler::Kind build_kind = RuntimeCompiler::Kind::nvrtc;
// The toolkit's libnvrtc needs nothing but libc (not libcuda), so it loads on a machine without a driver.
constexpr const char* candidates[] = {"libnvrtc.so.13", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
                                      "/usr/local/cuda/lib64/libnvrtc.so"};
#elif defined(BATCHODE_WITH_HIP)
constexpr RuntimeCompiler::Kind build_kind = RuntimeCompiler::Kind::hiprtc;
// Debian's ROCm 5.2 has no libhiprtc: hipRTC is part of libamdhip64 there (already loaded by a HIP build).
constexpr const char* candidates[] = {"libhiprtc.so.6",   "libhiprtc.so.5",
                                      "libhiprtc.so",     "/opt/rocm/lib/libhiprtc.so",
                                      "libamdhip64.so.5", "libamdhip64.so"};
#endif

#if BATCHODE_HAS_GPU_RUNTIME
std::string dl_error() {
  const char* e = ::dlerror();
  return e != nullptr ? e : "unknown dlerror";
}

// Fills `api`'s functions from `handle`; returns what is missing ("" when all are there).
std::string bind(Api& api, void* handle) {
  const std::string prefix = api.kind == RuntimeCompiler::Kind::nvrtc ? "nvrtc" : "hiprtc";
  std::string missing;
  auto find = [&](auto& fn, const char* suffix) {
    const std::string symbol = prefix + suffix;
    (void)::dlerror();
    void* address = ::dlsym(handle, symbol.c_str());
    if (address == nullptr) {
      missing += (missing.empty() ? "" : ", ") + symbol;
      return;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(address);
  };
  const bool nvrtc = api.kind == RuntimeCompiler::Kind::nvrtc;
  find(api.create_program, "CreateProgram");
  find(api.add_name_expression, "AddNameExpression");
  find(api.compile_program, "CompileProgram");
  find(api.get_log_size, "GetProgramLogSize");
  find(api.get_log, "GetProgramLog");
  find(api.get_code_size, nvrtc ? "GetCUBINSize" : "GetCodeSize");
  find(api.get_code, nvrtc ? "GetCUBIN" : "GetCode");
  find(api.get_lowered_name, "GetLoweredName");
  find(api.destroy_program, "DestroyProgram");
  find(api.version, "Version");
  find(api.error_string, "GetErrorString");
  return missing;
}

std::shared_ptr<const Api> open_compiler(std::string& why_not) {
  std::string tried;
  for (const char* candidate : candidates) {
    void* handle = ::dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      tried += std::string("\n  ") + candidate + ": " + dl_error();
      continue;
    }
    auto api = std::make_shared<Api>();
    api->kind = build_kind;
    api->library = candidate;
    api->handle = handle;
    const std::string missing = bind(*api, handle);
    if (!missing.empty()) {
      tried += std::string("\n  ") + candidate + ": lacks " + missing;
      ::dlclose(handle);
      continue;
    }
    const int version = api->version(&api->major, &api->minor);
    if (version != 0) {
      tried +=
          std::string("\n  ") + candidate + ": " + api->name() + "Version failed: " + api->describe(version);
      ::dlclose(handle);
      continue;
    }
    return api;  // never closed: compilers keep global state that does not survive being unloaded
  }
  why_not = std::string(build_kind == RuntimeCompiler::Kind::nvrtc ? "NVRTC" : "hipRTC") +
            " not found; tried:" + tried;
  return nullptr;
}
#endif

struct Loaded {
  std::shared_ptr<const Api> api;
  std::string why_not;
};

const Loaded& loaded() {
  static const Loaded found = [] {
    Loaded l;
#if BATCHODE_HAS_GPU_RUNTIME
    l.api = open_compiler(l.why_not);
#else
    l.why_not = "batchode was built without a GPU backend (BATCHODE_GPU=off): no runtime compiler";
#endif
    return l;
  }();
  return found;
}

// Destroys the program on every path out of compile().
struct ProgramGuard {
  const Api& api;
  Api::Program program = nullptr;
  ~ProgramGuard() {
    if (program != nullptr) (void)api.destroy_program(&program);
  }
};

std::string read_log(const Api& api, Api::Program program) {
  std::size_t size = 0;
  if (api.get_log_size(program, &size) != 0 || size == 0) return {};
  std::string log(size, '\0');
  if (api.get_log(program, log.data()) != 0) return {};
  while (!log.empty() && log.back() == '\0') log.pop_back();  // the size counts the terminator
  return log;
}

}  // namespace

std::optional<RuntimeCompiler> RuntimeCompiler::load(std::string* why_not) {
  try {
    const Loaded& l = loaded();
    if (l.api == nullptr) {
      if (why_not != nullptr) *why_not = l.why_not;
      return std::nullopt;
    }
    return RuntimeCompiler(l.api);
  } catch (const std::exception& e) {  // bad_alloc while building the messages
    if (why_not != nullptr) *why_not = e.what();
    return std::nullopt;
  }
}

RuntimeCompiler::Kind RuntimeCompiler::kind() const noexcept { return api_->kind; }
int RuntimeCompiler::version_major() const noexcept { return api_->major; }
int RuntimeCompiler::version_minor() const noexcept { return api_->minor; }

std::string RuntimeCompiler::name_and_version() const {
  return std::string(api_->name()) + " " + std::to_string(api_->major) + "." + std::to_string(api_->minor) +
         " (" + api_->library + ")";
}

CompiledKernels RuntimeCompiler::compile(const std::string& source,
                                         const std::vector<std::string>& name_expressions,
                                         const std::vector<std::string>& options,
                                         const std::string& label) const {
  const Api& api = *api_;
  const std::string prefix = api.kind == Kind::nvrtc ? "nvrtc" : "hiprtc";
  auto failed = [&](const char* call, int result, std::string log = {}) {
    return RuntimeCompileError(label, prefix + call + " failed: " + api.describe(result), std::move(log));
  };
  ProgramGuard guard{api};
  const std::string file_name = label.empty() ? std::string("batchode_kernels") : label;
  if (const int r =
          api.create_program(&guard.program, source.c_str(), file_name.c_str(), 0, nullptr, nullptr)) {
    guard.program = nullptr;
    throw failed("CreateProgram", r);
  }
  for (const std::string& expression : name_expressions) {
    if (const int r = api.add_name_expression(guard.program, expression.c_str())) {
      throw RuntimeCompileError(
          label, prefix + "AddNameExpression(" + expression + ") failed: " + api.describe(r), {});
    }
  }
  std::vector<const char*> option_pointers;
  option_pointers.reserve(options.size());
  for (const std::string& o : options) option_pointers.push_back(o.c_str());
  const int compiled =
      api.compile_program(guard.program, static_cast<int>(option_pointers.size()), option_pointers.data());
  CompiledKernels out;
  out.log = read_log(api, guard.program);
  if (compiled != 0) throw failed("CompileProgram", compiled, out.log);

  std::size_t size = 0;
  if (const int r = api.get_code_size(guard.program, &size)) {
    throw failed(api.kind == Kind::nvrtc ? "GetCUBINSize" : "GetCodeSize", r, out.log);
  }
  if (size == 0) {
    // NVRTC gives no CUBIN for a virtual architecture (compute_90): only PTX, which this path never loads.
    throw RuntimeCompileError(label,
                              std::string(api.name()) +
                                  " produced no binary image (was a real architecture given? "
                                  "architecture_option() names one)",
                              out.log);
  }
  out.image.resize(size);
  if (const int r = api.get_code(guard.program, out.image.data())) {
    throw failed(api.kind == Kind::nvrtc ? "GetCUBIN" : "GetCode", r, out.log);
  }
  out.lowered_names.reserve(name_expressions.size());
  for (const std::string& expression : name_expressions) {
    const char* lowered = nullptr;
    const int r = api.get_lowered_name(guard.program, expression.c_str(), &lowered);
    if (r != 0 || lowered == nullptr) {
      throw RuntimeCompileError(
          label, prefix + "GetLoweredName(" + expression + ") failed: " + api.describe(r), out.log);
    }
    out.lowered_names.emplace_back(lowered);  // owned by the program: copied before it is destroyed
  }
  return out;
}

std::string RuntimeCompiler::architecture_option(int device) {
  return architecture_option(device_architecture(device));
}

std::string RuntimeCompiler::architecture_option(const std::string& architecture) {
  if (architecture.rfind("sm_", 0) == 0) return "--gpu-architecture=" + architecture;
  if (architecture.rfind("gfx", 0) == 0) return "--offload-arch=" + architecture;
  throw std::invalid_argument("RuntimeCompiler::architecture_option: '" + architecture +
                              "' is neither an NVIDIA (sm_XY) nor an AMD (gfxNNN) architecture");
}

std::vector<std::string> RuntimeCompiler::kernel_options(const std::vector<std::string>& include_dirs) const {
  std::vector<std::string> options;
  if (api_->kind == Kind::nvrtc) {
    options = {"--std=c++17", "-default-device"};
  } else {
    options = {"-std=c++17"};
  }
  for (const std::string& dir : include_dirs) options.push_back("-I" + dir);
  return options;
}

}  // namespace batchode::gpu
