// Models defined at run time asked for the GPU: what the request says depends on the build (no GPU
// backend, or a backend without a device or a runtime compiler), so these run in every build
// (tests/solver/systems/CMakeLists.txt), and automatic runs them on the CPU.
#include <gtest/gtest.h>

#include <string>

#include "batchode/batchode.hpp"
#include "batchode/models/model.hpp"
#include "runtime_model_fixture.hpp"
#include "runtime_model_systems.hpp"

namespace {

using namespace batchode::testing::runtime_model_fixture;

TEST_F(RuntimeModelTest, AGpuRequestSaysWhyAndAutomaticRunsOnTheCpu) {
  RuntimeModel<double> runtime(parse(kLorenzToml), options());
  batchode::SolveOptions o = cpu_options<double>(Method::dopri5);
  o.backend = batchode::Backend::gpu;
  if (batchode::gpu::discover()
          .available) {  // a GPU machine: the request is met (runtime_model_gpu_test checks it)
    const auto r = batchode::solve_ivp(runtime, runtime.default_y0(), runtime.default_params(), o);
    EXPECT_TRUE(r.execution().at(0).backend.is_gpu());
    return;
  }
  try {
    (void)batchode::solve_ivp(runtime, runtime.default_y0(), runtime.default_params(), o);
    ADD_FAILURE() << "expected GpuUnavailable";
  } catch (const batchode::GpuUnavailable& e) {
    // Why depends on the build and the machine: no GPU backend, no runtime compiler, or no device.
    const std::string why = e.what();
    if (std::string(batchode::gpu::compiled_backend()) == "off") {
      EXPECT_NE(why.find("no GPU backend"), std::string::npos) << why;
    } else {
      EXPECT_TRUE(why.find("runtime compiler") != std::string::npos ||
                  why.find(batchode::gpu::discover().reason) != std::string::npos)
          << why;
    }
  }
  o.backend = batchode::Backend::automatic;
  const auto r = batchode::solve_ivp(runtime, runtime.default_y0(), runtime.default_params(), o);
  ASSERT_EQ(r.execution().size(), 1u);
  EXPECT_FALSE(r.execution()[0].backend.is_gpu());
  EXPECT_EQ(r.execution()[0].reason, batchode::sched::Reason::gpu_unavailable);
}

// rosenbrock4 names rodas4, the same RODAS4 method with a GPU kernel, as the compiled-in path does.
TEST_F(RuntimeModelTest, RosenbrockFourOnTheGpuNamesRodas4) {
  RuntimeModel<double> runtime(parse(kLorenzToml), options());
  EXPECT_EQ(runtime.gpu_unavailable(Method::rosenbrock4), batchode::cpu_only_reason(Method::rosenbrock4));
  EXPECT_NE(runtime.gpu_unavailable(Method::rosenbrock4).find("use --method rodas4"), std::string::npos);
}

}  // namespace
