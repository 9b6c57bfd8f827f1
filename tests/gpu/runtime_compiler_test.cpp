// tests/gpu/: the runtime compiler (gpu::RuntimeCompiler, NVRTC in CUDA builds and hipRTC in HIP
// builds, opened with dlopen) without a GPU: it is found, it compiles the core's batch kernel for a
// Lorenz system written as text (runtime_kernel_program) into a binary image (a CUBIN for sm_90, a
// code object for gfx90a) holding both kernels under their lowered names, and a program with an
// error gives RuntimeCompileError with the compiler's log and the program's label. Also, without
// any GPU: the architecture options, the program text, RuntimeGpuRunner built by the host compiler
// (it refuses kernels that do not fit the request before touching the device) and Module refusing
// bytes that are no code image; a generated model's lane-group kernel (several lanes per run) and the
// check that its lanes are the device code's. Where no runtime compiler is found (a CPU-only build, no
// toolkit) the compiling cases skip, saying which libraries were tried.
#include <gtest/gtest.h>

#include <batchode/backends/gpu/runtime_gpu_runner.hpp>
#include <batchode/backends/gpu/runtime_kernel_source.hpp>
#include <batchode/backends/gpu/runtime_kernels.hpp>
#include <batchode/batchode.hpp>
#include <batchode/gpu/module.hpp>
#include <batchode/gpu/runtime_compiler.hpp>
#include <batchode/models/codegen.hpp>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "runtime_model_systems.hpp"

namespace {

using namespace batchode;
using gpu::RuntimeCompiler;

// Lorenz as a model's generated code would be: an empty struct, sizes in batchode::port, and the
// arithmetic of tests/support/test_systems.hpp's Lorenz.
constexpr const char* kLorenzSource = R"(
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
)";

// The architecture a compiler targets here, with no device: the H100/H200 (sm_90) or an MI200 (gfx90a).
std::string test_architecture(const RuntimeCompiler& compiler) {
  return RuntimeCompiler::architecture_option(compiler.kind() == RuntimeCompiler::Kind::nvrtc ? "sm_90"
                                                                                              : "gfx90a");
}

std::vector<std::string> test_options(const RuntimeCompiler& compiler) {
  std::vector<std::string> options = compiler.kernel_options({BATCHODE_TEST_KERNELS_INCLUDE_DIR});
  options.push_back(test_architecture(compiler));
  return options;
}

#define BATCHODE_REQUIRE_RUNTIME_COMPILER(compiler)                                \
  std::string why_not;                                                             \
  const std::optional<RuntimeCompiler> compiler = RuntimeCompiler::load(&why_not); \
  if (!compiler) GTEST_SKIP() << "no runtime compiler: " << why_not

TEST(RuntimeCompiler, LoadsTheBuildsCompilerOrSaysWhyNot) {
  std::string why_not;
  const std::optional<RuntimeCompiler> compiler = RuntimeCompiler::load(&why_not);
  if (std::string(gpu::compiled_backend()) == "off") {
    EXPECT_FALSE(compiler.has_value());
    EXPECT_NE(why_not.find("without a GPU backend"), std::string::npos) << why_not;
    GTEST_SKIP() << "CPU-only build: " << why_not;
  }
  if (!compiler) GTEST_SKIP() << "no runtime compiler: " << why_not;
  const bool cuda = std::string(gpu::compiled_backend()) == "cuda";
  EXPECT_EQ(compiler->kind(), cuda ? RuntimeCompiler::Kind::nvrtc : RuntimeCompiler::Kind::hiprtc);
  EXPECT_GT(compiler->version_major(), 0);
  const std::string name = compiler->name_and_version();
  EXPECT_EQ(name.rfind(cuda ? "NVRTC " : "hipRTC ", 0), 0u) << name;
  std::cout << "  runtime compiler: " << name << "\n";
  // A second load is the same library (searched once per process).
  EXPECT_EQ(RuntimeCompiler::load()->name_and_version(), name);
}

TEST(RuntimeCompiler, CompilesLorenzAndTheBatchKernelIntoAnImage) {
  BATCHODE_REQUIRE_RUNTIME_COMPILER(compiler);
  // With the summary kernel of a few kinds (kernels/outputs/summaries.hpp: its accumulators in registers).
  const std::uint32_t kinds =
      summary_bit(SummaryKind::mean) | summary_bit(SummaryKind::max) | summary_bit(SummaryKind::peaks);
  const RuntimeKernelProgram program =
      runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float", kinds);
  ASSERT_EQ(program.name_expressions.size(), 4u);
  const auto start = std::chrono::steady_clock::now();
  const gpu::CompiledKernels compiled = compiler->compile(program.source, program.name_expressions,
                                                          test_options(*compiler), "lorenz_rk4_float");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(compiled.image.empty());
  // Both a CUBIN and an AMD code object are ELF files (not PTX text: nothing is left for a driver JIT).
  ASSERT_GE(compiled.image.size(), 4u);
  EXPECT_EQ(std::string(compiled.image.data(), 4),
            "\x7f"
            "ELF");
  ASSERT_EQ(compiled.lowered_names.size(), 4u);
  const std::string image(compiled.image.begin(), compiled.image.end());
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string& lowered = compiled.lowered_names[i];
    EXPECT_EQ(lowered.rfind("_Z", 0), 0u) << program.name_expressions[i] << " lowered to " << lowered;
    EXPECT_NE(lowered.find(i != 2 ? "integrate_chunk" : "run_order_"), std::string::npos) << lowered;
    // The symbol table holds each kernel's lowered name.
    EXPECT_NE(image.find(lowered), std::string::npos) << lowered << " is not in the image";
  }
  EXPECT_NE(compiled.lowered_names[0], compiled.lowered_names[1]);
  EXPECT_NE(compiled.lowered_names[1], compiled.lowered_names[3]);
  std::cout << "  " << compiler->name_and_version() << ": rk4 float, 4 kernels, " << compiled.image.size()
            << " bytes for " << test_architecture(*compiler) << " in " << seconds << " s\n";
}

TEST(RuntimeCompiler, AnErrorInTheProgramGivesTheLogAndTheLabel) {
  BATCHODE_REQUIRE_RUNTIME_COMPILER(compiler);
  // Not an ODE system: runtime_kernel_program's own check fails, after the whole core has been read.
  const std::string broken = "struct NotASystem {};\n";
  const RuntimeKernelProgram program = runtime_kernel_program(broken, "NotASystem", Method::rk4, "double");
  try {
    compiler->compile(program.source, program.name_expressions, test_options(*compiler), "broken_model");
    FAIL() << "a program whose static_assert fails compiled";
  } catch (const gpu::RuntimeCompileError& e) {
    EXPECT_EQ(e.label(), "broken_model");
    EXPECT_NE(e.log().find("NotASystem is not an ODE system"), std::string::npos) << "log:\n" << e.log();
    const std::string what = e.what();
    EXPECT_NE(what.find("broken_model"), std::string::npos) << what;
    EXPECT_NE(what.find("CompileProgram"), std::string::npos) << what;
    EXPECT_NE(what.find("NotASystem is not an ODE system"), std::string::npos) << what;
  }
  // A system that is not empty cannot be launched with the 1-byte placeholder: refused at compile time.
  const std::string stateful = std::string(kLorenzSource) + "struct Stateful : Lorenz { double k = 1; };\n";
  const RuntimeKernelProgram p2 = runtime_kernel_program(stateful, "Stateful", Method::dopri5, "double");
  try {
    compiler->compile(p2.source, p2.name_expressions, test_options(*compiler), "stateful_model");
    FAIL() << "a system with data members compiled";
  } catch (const gpu::RuntimeCompileError& e) {
    EXPECT_NE(e.log().find("must be an empty struct"), std::string::npos) << "log:\n" << e.log();
  }
}

// A model's generated rhs_component (a ring of 64 states: one formula over i) splits an explicit
// method's runs over lanes where one thread's registers would not hold them (kernels::lanes_for_size:
// dopri5 in double over 16 lanes, rk4 over 8); the program builds the lane-group kernel under its name,
// and refuses, by a static_assert naming the system, lanes that are not the device code's own.
TEST(RuntimeCompiler, ARingOfSixtyFourStatesBuildsItsLaneGroupKernel) {
  const std::string source = models::generate_system(
      batchode::testing::parse_model_text(batchode::testing::lorenz96_toml(64)), {"Ring", false});
  EXPECT_EQ(runtime_lanes_per_run(Method::dopri5, 64, sizeof(double), true), 16u);
  EXPECT_EQ(runtime_lanes_per_run(Method::rk4, 64, sizeof(double), true), 8u);
  EXPECT_EQ(runtime_lanes_per_run(Method::rk4, 64, sizeof(float), true), 1u);  // 448 words: one thread
  EXPECT_EQ(runtime_lanes_per_run(Method::rodas4, 64, sizeof(double), true), 1u);
  EXPECT_EQ(runtime_lanes_per_run(Method::dopri5, 64, sizeof(double), false), 1u);
  RuntimeKernelChoice choice = RuntimeKernelChoice::only(kernels::ChunkKernel::final_state, 0, false);
  choice.lanes_per_run = runtime_lanes_per_run(Method::dopri5, 64, sizeof(double), true);
  const RuntimeKernelProgram program =
      runtime_kernel_program(source, "Ring", Method::dopri5, "double", choice);
  ASSERT_EQ(program.name_expressions,
            std::vector<std::string>{"batchode::kernels::integrate_chunk_in_lane_groups<batchode::tableau::"
                                     "Dopri5, Ring, double, 16ul>"});
  BATCHODE_REQUIRE_RUNTIME_COMPILER(compiler);
  const gpu::CompiledKernels compiled =
      compiler->compile(program.source, program.name_expressions, test_options(*compiler), "ring_lanes");
  ASSERT_EQ(compiled.lowered_names.size(), 1u);
  EXPECT_NE(compiled.lowered_names[0].find("integrate_chunk_in_lane_groups"), std::string::npos)
      << compiled.lowered_names[0];
  choice.lanes_per_run = 8;
  const RuntimeKernelProgram wrong = runtime_kernel_program(source, "Ring", Method::dopri5, "double", choice);
  try {
    compiler->compile(wrong.source, wrong.name_expressions, test_options(*compiler), "ring_wrong_lanes");
    FAIL() << "lanes that are not the device code's compiled";
  } catch (const gpu::RuntimeCompileError& e) {
    EXPECT_NE(e.log().find("Ring: the host's lanes per run are not the device code's"), std::string::npos)
        << "log:\n"
        << e.log();
  }
}

TEST(RuntimeCompiler, CompilesTheRunOrderKernelAlone) {
  BATCHODE_REQUIRE_RUNTIME_COMPILER(compiler);
  const RuntimeKernelProgram program = run_order_program("float");
  const gpu::CompiledKernels compiled =
      compiler->compile(program.source, program.name_expressions, test_options(*compiler), "run_order_float");
  ASSERT_EQ(compiled.lowered_names.size(), 1u);
  EXPECT_NE(compiled.lowered_names[0].find("run_order_"), std::string::npos) << compiled.lowered_names[0];
  const std::string image(compiled.image.begin(), compiled.image.end());
  EXPECT_NE(image.find(compiled.lowered_names[0]), std::string::npos);
}

TEST(RuntimeCompiler, ArchitectureOptions) {
  EXPECT_EQ(RuntimeCompiler::architecture_option("sm_90"), "--gpu-architecture=sm_90");
  EXPECT_EQ(RuntimeCompiler::architecture_option("gfx90a:sramecc+:xnack-"),
            "--offload-arch=gfx90a:sramecc+:xnack-");
  EXPECT_THROW(RuntimeCompiler::architecture_option("compute_90"), std::invalid_argument);
  if (!gpu::discover().available) {
    EXPECT_THROW(RuntimeCompiler::architecture_option(0), GpuError);
  }
}

TEST(RuntimeKernelProgram, NamesBothKernelsAndRefusesCpuOnlyMethods) {
  const RuntimeKernelProgram p = runtime_kernel_program(kLorenzSource, "Lorenz", Method::dopri5, "double");
  ASSERT_EQ(p.name_expressions.size(), 3u);
  EXPECT_EQ(p.name_expressions[2], "batchode::kernels::run_order_segments<double>");
  EXPECT_EQ(p.name_expressions[0],
            "batchode::kernels::integrate_chunk<batchode::tableau::Dopri5, false, Lorenz, double, 0u>");
  EXPECT_EQ(p.name_expressions[1],
            "batchode::kernels::integrate_chunk<batchode::tableau::Dopri5, true, Lorenz, double, 0u>");
  EXPECT_NE(p.source.find(kLorenzSource), std::string::npos);
  EXPECT_EQ(tableau_type_name(Method::rodas4), "batchode::tableau::Rodas4");
  EXPECT_STREQ(precision_type_name<float>(), "float");
  EXPECT_THROW(runtime_kernel_program(kLorenzSource, "Lorenz", Method::rosenbrock4, "double"),
               std::invalid_argument);
  EXPECT_THROW(runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "half"), std::invalid_argument);
  // A solve keeping summaries: a fourth kernel, built for exactly its kinds.
  const std::uint32_t kinds = summary_bit(SummaryKind::mean) | summary_bit(SummaryKind::peaks);
  const RuntimeKernelProgram s = runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float", kinds);
  ASSERT_EQ(s.name_expressions.size(), 4u);
  EXPECT_EQ(s.name_expressions[3],
            "batchode::kernels::integrate_chunk<batchode::tableau::Rk4, true, Lorenz, float, " +
                std::to_string(kinds) + "u>");
  EXPECT_NE(s.source.find("template __global__ void " + s.name_expressions[3] + "("), std::string::npos);
  EXPECT_THROW(runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float", 1u << 20),
               std::invalid_argument);
}

// A solve builds only the batch kernel it launches (RuntimeKernelChoice::only), and the run order's
// kernel, which does not depend on the system, in a program of its own.
TEST(RuntimeKernelProgram, BuildsOnlyTheChosenKernels) {
  using batchode::kernels::ChunkKernel;
  const RuntimeKernelProgram all = runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float");
  const RuntimeKernelProgram series =
      runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float",
                             RuntimeKernelChoice::only(ChunkKernel::series, 0, false));
  ASSERT_EQ(series.name_expressions, std::vector<std::string>{all.name_expressions[1]});
  EXPECT_EQ(series.source.find("run_order"), std::string::npos);
  EXPECT_EQ(series.source.find(all.name_expressions[0]), std::string::npos)
      << "the final-state kernel is built";
  const RuntimeKernelProgram final_state =
      runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float",
                             RuntimeKernelChoice::only(ChunkKernel::final_state, 0, true));
  EXPECT_EQ(final_state.name_expressions,
            (std::vector<std::string>{all.name_expressions[0], all.name_expressions[2]}));
  // The summary kernel alone, for its kinds; the kinds are ignored for another kernel.
  const std::uint32_t kinds = summary_bit(SummaryKind::mean);
  const RuntimeKernelProgram summaries =
      runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float",
                             RuntimeKernelChoice::only(ChunkKernel::summaries, kinds, false));
  EXPECT_EQ(
      summaries.name_expressions,
      std::vector<std::string>{
          runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float", kinds).name_expressions[3]});
  EXPECT_EQ(RuntimeKernelChoice::only(ChunkKernel::series, kinds, false).summary_kinds, 0u);
  EXPECT_EQ(RuntimeKernelChoice::only(ChunkKernel::series, kinds, true).count(), 2u);
  RuntimeKernelChoice none = RuntimeKernelChoice::only(ChunkKernel::series, 0, false);
  none.series = false;
  EXPECT_THROW(runtime_kernel_program(kLorenzSource, "Lorenz", Method::rk4, "float", none),
               std::invalid_argument);
  // The run order's kernel alone: no system in it.
  const RuntimeKernelProgram order = run_order_program("double");
  EXPECT_EQ(order.name_expressions,
            std::vector<std::string>{"batchode::kernels::run_order_segments<double>"});
  EXPECT_EQ(order.source.find("Lorenz"), std::string::npos);
  EXPECT_THROW(run_order_program("half"), std::invalid_argument);
}

TEST(RuntimeGpuRunner, RefusesKernelsThatDoNotFitTheRequest) {
  // Built here by the host compiler: the pipeline needs no GPU compiler. Each refusal comes before
  // any runtime call, so no GPU is needed either.
  RuntimeGpuRunner<float> runner;
  GpuRunRequest request;
  request.method = Method::rk4;
  const RunSettings<float> settings{};
  std::vector<float> y(3, 1.0f), p(3, 1.0f), out(3);
  ResultView<float> view;
  view.final_state = out.data();
  view.n_runs = 1;
  view.n_states = 3;
  TimeLogger log(nullptr, Verbosity::none);
  RuntimeKernels none;
  EXPECT_THROW(runner.run(none, 3, 3, request, settings, y.data(), p.data(), 1, view, log),
               std::invalid_argument);
  // Claimed once over all copies.
  RuntimeKernels copy = none;
  EXPECT_TRUE(copy.claim_first_load(kernels::ChunkKernel::series));
  EXPECT_FALSE(none.claim_first_load(kernels::ChunkKernel::series));
  EXPECT_TRUE(none.claim_first_load(kernels::ChunkKernel::final_state));
  EXPECT_TRUE(none.claim_first_load(kernels::ChunkKernel::summaries));
}

TEST(Module, BytesThatAreNoCodeImageGiveGpuError) {
  // No GPU, a CPU-only build, or a real GPU given garbage: a GpuError every time, never a crash.
  const std::vector<char> garbage(64, 'x');
  EXPECT_THROW(gpu::Module(garbage, "garbage"), GpuError);
  EXPECT_THROW(gpu::Module(std::vector<char>{}, "empty"), GpuError);
}

}  // namespace
