// The integrator core (kernels/include/batchode/kernels/) compiled by the runtime compilers, as issue
// 19 asks: every core header, a user's system and the batch kernel for explicit (dopri5, rk4) and
// Rosenbrock (rodas4) methods in float and double, with no include path but the core's, so no
// standard library (the core takes what it needs from kernels/core/portable.hpp). NVRTC must give PTX with
// each kernel's entry; hipRTC, where present, a code object naming each kernel. A program with a
// deliberate error must fail with that error in the log, so a compiler that accepts anything (or a
// test that compiles nothing) cannot pass. Where a runtime compiler was not found at configure time
// its cases skip, saying so.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#if BATCHODE_HAVE_NVRTC
#include <nvrtc.h>
#endif
#if BATCHODE_HAVE_HIPRTC
#include <hip/hiprtc.h>
#endif

#include "core_headers.hpp"  // generated: kCoreHeaders, BATCHODE_CORE_INCLUDE_DIR

namespace {

// (Only where a runtime compiler is linked: the programs below are its input.)
#if BATCHODE_HAVE_NVRTC || BATCHODE_HAVE_HIPRTC
// A user's systems as written for a runtime compiler: sizes as batchode::port::size_t, math through
// batchode::port (float and double) and argument-dependent lookup (the Rosenbrock path's dual numbers).
constexpr const char* kSystems = R"(
struct Lorenz {
  static constexpr batchode::port::size_t n_states = 3;
  static constexpr batchode::port::size_t n_params = 3;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * (y[1] - y[0]);
    dydt[1] = y[0] * (p[1] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - p[2] * y[2];
  }
};
struct DampedPendulum {
  static constexpr batchode::port::size_t n_states = 2;
  static constexpr batchode::port::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* dydt) const {
    using batchode::port::exp;
    using batchode::port::sin;
    dydt[0] = y[1];
    dydt[1] = -p[0] * sin(y[0]) - T(0.1) * exp(-t) * y[1];
  }
};
// Lorenz-96 with one component of its right-hand side: a run split over lanes
// (kernels/launch/lane_group.hpp).
struct Lorenz96 {
  static constexpr batchode::port::size_t n_states = 16;
  static constexpr batchode::port::size_t n_params = 1;
  template <class T, class State>
  BATCHODE_HOST_DEVICE T rhs_component(batchode::port::size_t i, T, const State& y, const T* p) const {
    return (y[(i + 1) % 16] - y[(i + 14) % 16]) * y[(i + 15) % 16] - y[i] + p[0];
  }
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* dydt) const {
    for (batchode::port::size_t i = 0; i < 16; ++i) dydt[i] = rhs_component(i, t, y, p);
  }
};
static_assert(batchode::is_ode_system_v<Lorenz, float> && batchode::is_ode_system_v<DampedPendulum, double>);
static_assert(batchode::has_rhs_component_v<Lorenz96, double>);
// The Rosenbrock kernels below must integrate, not compile to the empty body of an unavailable method.
static_assert(batchode::kernels::StepperFor<batchode::tableau::Rodas4, Lorenz, float>::available);
static_assert(batchode::kernels::StepperFor<batchode::tableau::Rodas4, DampedPendulum, double>::available);
)";

struct KernelCase {
  const char* tableau;
  const char* save_series;
  const char* system;
  const char* precision;
  // The summary kinds' mask (kernels/outputs/summaries.hpp), spelled even when 0: hipRTC finds a kernel by
  // its demangled name, which spells the defaulted argument.
  const char* summaries = "0u";
  // Lanes per run: the lane-group kernel (kernels/launch/lane_group_kernel.hpp; final state, so save_series
  // "false"), spelled as its demangled name spells a size_t.
  const char* lanes = nullptr;
  std::string name() const {
    if (lanes != nullptr) {
      return std::string("batchode::kernels::integrate_chunk_in_lane_groups<batchode::tableau::") + tableau +
             ", " + system + ", " + precision + ", " + lanes + ">";
    }
    return std::string("batchode::kernels::integrate_chunk<batchode::tableau::") + tableau + ", " + save_series +
           ", " + system + ", " + precision + ", " + summaries + ">";
  }
  std::string explicit_instantiation() const {
    const std::string t = precision;
    return "template __global__ void " + name() + "(" + system + ", batchode::RunSettings<" + t +
           ">, batchode::kernels::DeviceInputs<" + t + ">, batchode::kernels::DeviceOutputs<" + t + ">);\n";
  }
};

const std::vector<KernelCase> kKernels = {
    {"Dopri5", "true", "Lorenz", "float"},
    {"Dopri5", "false", "Lorenz", "double"},
    {"Rk4", "true", "Lorenz", "float"},
    {"Rk4", "false", "Lorenz", "double"},
    {"Rodas4", "true", "Lorenz", "float"},
    {"Rodas4", "false", "Lorenz", "double"},
    {"Rodas4", "true", "DampedPendulum", "double"},
    // The implicit steppers: kvaerno5's Newton iteration, radau5's complex LU.
    {"Kvaerno5", "false", "Lorenz", "float"},
    {"RadauIIA5", "false", "DampedPendulum", "double"},
    // Summary kernels: mean, max and peaks (accumulators in registers); every kind in double (memory).
    {"Rk4", "true", "Lorenz", "float", "265u"},
    {"Dopri5", "true", "Lorenz", "double", "16383u"},
    // A run over 4 lanes (dopri5: the error norm and first step summed over the lanes), and over 8.
    {"Dopri5", "false", "Lorenz96", "double", "0u", "4ul"},
    {"Rk4", "false", "Lorenz96", "float", "0u", "8ul"},
};

std::string core_includes() {
  std::string source;
  for (const char* header : kCoreHeaders) source += std::string("#include \"") + header + "\"\n";
  return source;
}

std::string core_program() {
  std::string source = core_includes() + kSystems;
  for (const KernelCase& k : kKernels) source += k.explicit_instantiation();
  return source;
}

// Fails to compile in the program's own line, after the whole core has been read.
constexpr const char* kNegativeMarker = "batchode_runtime_compiler_negative_check";
std::string broken_program() {
  return core_includes() +
         "struct NotASystem {};\nstatic_assert(batchode::is_ode_system_v<NotASystem, float>, \"" +
         kNegativeMarker + "\");\n";
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const KernelCase& k : kKernels) names.push_back(k.name());
  return names;
}
#endif  // BATCHODE_HAVE_NVRTC || BATCHODE_HAVE_HIPRTC

/// What a runtime compiler made of a program: its log, its output (PTX or code object) and the
/// lowered (mangled) name of each requested kernel.
struct Compiled {
  bool ok = false;
  std::string log;
  std::string code;
  std::vector<std::string> lowered;
};

#if BATCHODE_HAVE_NVRTC
#define BATCHODE_NVRTC_CHECK(call)                                                      \
  do {                                                                                  \
    const nvrtcResult result_ = (call);                                                 \
    ASSERT_EQ(result_, NVRTC_SUCCESS) << #call << ": " << nvrtcGetErrorString(result_); \
  } while (0)

// -default-device: the core's unannotated helpers (the generic lambdas of rosenbrock_stepper.hpp's
// static_for, constexpr member functions) are host-device under nvcc's rules; NVRTC otherwise takes
// them for host functions, which it refuses. No -I but the core's: no standard library is reachable.
void compile_with_nvrtc(const std::string& source, const std::vector<std::string>& names, Compiled& out) {
  nvrtcProgram program{};
  BATCHODE_NVRTC_CHECK(nvrtcCreateProgram(&program, source.c_str(), "batchode_core.cu", 0, nullptr, nullptr));
  for (const std::string& name : names) BATCHODE_NVRTC_CHECK(nvrtcAddNameExpression(program, name.c_str()));
  const std::string include = std::string("-I") + BATCHODE_CORE_INCLUDE_DIR;
  const char* options[] = {"--std=c++17", "-arch=compute_90", "-default-device", include.c_str()};
  const nvrtcResult compiled = nvrtcCompileProgram(program, 4, options);
  std::size_t size = 0;
  BATCHODE_NVRTC_CHECK(nvrtcGetProgramLogSize(program, &size));
  out.log.assign(size, '\0');
  BATCHODE_NVRTC_CHECK(nvrtcGetProgramLog(program, out.log.data()));
  while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();  // the size counts the terminator
  out.ok = compiled == NVRTC_SUCCESS;
  if (out.ok) {
    BATCHODE_NVRTC_CHECK(nvrtcGetPTXSize(program, &size));
    out.code.assign(size, '\0');
    BATCHODE_NVRTC_CHECK(nvrtcGetPTX(program, out.code.data()));
    for (const std::string& name : names) {
      const char* lowered = nullptr;
      BATCHODE_NVRTC_CHECK(nvrtcGetLoweredName(program, name.c_str(), &lowered));
      out.lowered.emplace_back(lowered);
    }
  }
  BATCHODE_NVRTC_CHECK(nvrtcDestroyProgram(&program));
}
#endif

#if BATCHODE_HAVE_HIPRTC
#define BATCHODE_HIPRTC_CHECK(call)                                                       \
  do {                                                                                    \
    const hiprtcResult result_ = (call);                                                  \
    ASSERT_EQ(result_, HIPRTC_SUCCESS) << #call << ": " << hiprtcGetErrorString(result_); \
  } while (0)

// gfx90a (MI200): any AMD target would do; hipRTC compiles without a device present.
void compile_with_hiprtc(const std::string& source, const std::vector<std::string>& names, Compiled& out) {
  hiprtcProgram program{};
  BATCHODE_HIPRTC_CHECK(
      hiprtcCreateProgram(&program, source.c_str(), "batchode_core.hip", 0, nullptr, nullptr));
  for (const std::string& name : names) BATCHODE_HIPRTC_CHECK(hiprtcAddNameExpression(program, name.c_str()));
  const std::string include = std::string("-I") + BATCHODE_CORE_INCLUDE_DIR;
  const char* options[] = {"-std=c++17", "--offload-arch=gfx90a", include.c_str()};
  const hiprtcResult compiled = hiprtcCompileProgram(program, 3, options);
  std::size_t size = 0;
  BATCHODE_HIPRTC_CHECK(hiprtcGetProgramLogSize(program, &size));
  out.log.assign(size, '\0');
  if (size > 0) BATCHODE_HIPRTC_CHECK(hiprtcGetProgramLog(program, out.log.data()));
  while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
  out.ok = compiled == HIPRTC_SUCCESS;
  if (out.ok) {
    BATCHODE_HIPRTC_CHECK(hiprtcGetCodeSize(program, &size));
    out.code.assign(size, '\0');
    BATCHODE_HIPRTC_CHECK(hiprtcGetCode(program, out.code.data()));
    for (const std::string& name : names) {
      const char* lowered = nullptr;
      BATCHODE_HIPRTC_CHECK(hiprtcGetLoweredName(program, name.c_str(), &lowered));
      out.lowered.emplace_back(lowered);
    }
  }
  BATCHODE_HIPRTC_CHECK(hiprtcDestroyProgram(&program));
}
#endif

TEST(RuntimeCompiler, CoreHeadersAreListed) {
  // The glob in tests/kernels/CMakeLists.txt found the core: the headers the kernel needs are there.
  std::vector<std::string> headers(std::begin(kCoreHeaders), std::end(kCoreHeaders));
  for (const char* expected :
       {"batchode/kernels/core/annotations.hpp", "batchode/kernels/core/portable.hpp",
        "batchode/kernels/launch/batch_kernel.hpp", "batchode/kernels/methods/rosenbrock_stepper.hpp"}) {
    EXPECT_NE(std::find(headers.begin(), headers.end(), expected), headers.end()) << expected;
  }
}

TEST(RuntimeCompiler, NvrtcCompilesTheCoreAndTheBatchKernel) {
#if BATCHODE_HAVE_NVRTC
  Compiled c;
  compile_with_nvrtc(core_program(), kernel_names(), c);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(c.ok) << "NVRTC log:\n" << c.log;
  ASSERT_FALSE(c.code.empty());
  ASSERT_EQ(c.lowered.size(), kKernels.size());
  for (std::size_t i = 0; i < kKernels.size(); ++i) {
    EXPECT_NE(c.code.find(".entry " + c.lowered[i] + "("), std::string::npos)
        << kKernels[i].name() << " (" << c.lowered[i] << ") has no entry in the PTX";
  }
  std::cout << "  NVRTC: " << std::size(kCoreHeaders) << " core headers, " << kKernels.size() << " kernels, "
            << c.code.size() << " bytes of PTX\n";
#else
  GTEST_SKIP() << "NVRTC not found at configure time (find_package(CUDAToolkit) gave no CUDA::nvrtc): "
                  "the core was not compiled by a runtime compiler";
#endif
}

TEST(RuntimeCompiler, NvrtcReportsAnErrorInTheProgram) {
#if BATCHODE_HAVE_NVRTC
  Compiled c;
  compile_with_nvrtc(broken_program(), {}, c);
  if (HasFatalFailure()) return;
  EXPECT_FALSE(c.ok) << "a failing static_assert compiled";
  EXPECT_NE(c.log.find(kNegativeMarker), std::string::npos) << "NVRTC log:\n" << c.log;
#else
  GTEST_SKIP() << "NVRTC not found at configure time (find_package(CUDAToolkit) gave no CUDA::nvrtc)";
#endif
}

TEST(RuntimeCompiler, HiprtcCompilesTheCoreAndTheBatchKernel) {
#if BATCHODE_HAVE_HIPRTC
  Compiled c;
  compile_with_hiprtc(core_program(), kernel_names(), c);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(c.ok) << "hipRTC log:\n" << c.log;
  ASSERT_FALSE(c.code.empty());
  ASSERT_EQ(c.lowered.size(), kKernels.size());
  for (std::size_t i = 0; i < kKernels.size(); ++i) {
    // The code object is an ELF file: its symbol table holds each kernel's lowered name.
    EXPECT_NE(c.code.find(c.lowered[i]), std::string::npos)
        << kKernels[i].name() << " (" << c.lowered[i] << ") is not in the code object";
  }
  std::cout << "  hipRTC: " << std::size(kCoreHeaders) << " core headers, " << kKernels.size() << " kernels, "
            << c.code.size() << " bytes of code object\n";
#else
  GTEST_SKIP() << "hipRTC not linked: not found at configure time (no hip/hiprtc.h with libhiprtc or "
                  "libamdhip64), or a sanitized build (the plain build runs this)";
#endif
}

TEST(RuntimeCompiler, HiprtcReportsAnErrorInTheProgram) {
#if BATCHODE_HAVE_HIPRTC
  Compiled c;
  compile_with_hiprtc(broken_program(), {}, c);
  if (HasFatalFailure()) return;
  EXPECT_FALSE(c.ok) << "a failing static_assert compiled";
  EXPECT_NE(c.log.find(kNegativeMarker), std::string::npos) << "hipRTC log:\n" << c.log;
#else
  GTEST_SKIP() << "hipRTC not linked: not found at configure time (no hip/hiprtc.h with libhiprtc or "
                  "libamdhip64), or a sanitized build (the plain build runs this)";
#endif
}

}  // namespace
