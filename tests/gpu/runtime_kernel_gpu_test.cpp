// tests/gpu/: kernels compiled at run time against the same kernels compiled in. Lorenz is written
// as text (as a model's generated code is), compiled with the core's batch kernel by the runtime
// compiler (NVRTC / hipRTC), loaded as a gpu::Module and run by RuntimeGpuRunner on 10^5 runs, in
// float and double, rk4 and dopri5, with and without a series. Its results must equal, bit for
// bit, those of GpuRunner with test_systems.hpp's Lorenz (the same arithmetic compiled by nvcc or
// hipcc: both compilers contract into FMA the same way, neither uses fast math), and agree with the
// CPU path within gpu_compare.hpp's bounds. The two runners must also time the same phases under the
// same names (chunk_pipeline.hpp is shared), and the runtime kernel's first load is timed once.
#include <gtest/gtest.h>

#include <batchode/backends/gpu/gpu_runner.hpp>
#include <batchode/backends/gpu/runtime_gpu_runner.hpp>
#include <batchode/backends/gpu/runtime_kernel_source.hpp>
#include <batchode/backends/gpu/runtime_kernels.hpp>
#include <batchode/batchode.hpp>
#include <batchode/gpu/runtime_compiler.hpp>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "gpu_compare.hpp"
#include "require_gpu.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using LorenzCompiledIn = batchode::testing::Lorenz;

// The same system as LorenzCompiledIn, as text: an empty struct, sizes in batchode::port.
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

constexpr std::size_t kRuns = 100000;

template <class T>
Batch<T> lorenz_sweep(std::size_t runs) {
  GridBuilder<T> grid({T(1), T(0), T(0)}, {T(10), T(28), T(8.0 / 3)});
  grid.param(1, linspace<T>(0.0, 21.0, runs));
  return grid.build(GridKind::verbatim);
}

template <class T>
SolveOptions lorenz_options(Method m, bool series) {
  constexpr bool single = std::is_same_v<T, float>;
  SolveOptions o;
  o.method = m;
  o.t_end = 1.0;
  if (!method_info(m).adaptive) o.dt = 1e-3;
  o.rtol = o.atol = single ? 1e-5 : 1e-8;
  if (series) o.save_every = 0.1;
  o.outputs.counters = true;
  o.verbosity = Verbosity::none;
  return o;
}

// The runtime compiler, loaded once; a test that needs it fails (a GPU machine must have it).
const gpu::RuntimeCompiler& compiler() {
  static const std::optional<gpu::RuntimeCompiler> loaded = [] {
    std::string why_not;
    std::optional<gpu::RuntimeCompiler> c = gpu::RuntimeCompiler::load(&why_not);
    if (!c) ADD_FAILURE() << "no runtime compiler on a machine with a GPU: " << why_not;
    return c;
  }();
  if (!loaded) throw std::runtime_error("no runtime compiler");
  return *loaded;
}

// Kernels per (method, precision), compiled and loaded once for the whole test program, on device 0.
template <class T>
const RuntimeKernels& runtime_kernels(Method method) {
  static std::map<Method, RuntimeKernels> cache;
  auto found = cache.find(method);
  if (found != cache.end()) return found->second;
  const gpu::RuntimeCompiler& c = compiler();
  const RuntimeKernelProgram program =
      runtime_kernel_program(kLorenzSource, "Lorenz", method, precision_type_name<T>());
  std::vector<std::string> options = c.kernel_options({BATCHODE_TEST_KERNELS_INCLUDE_DIR});
  options.push_back(gpu::RuntimeCompiler::architecture_option(0));
  const std::string label = "lorenz_" + to_string(method) + "_" + precision_type_name<T>();
  const gpu::CompiledKernels compiled = c.compile(program.source, program.name_expressions, options, label);
  gpu::set_device(0);
  return cache.emplace(method, load_runtime_kernels<T>(method, compiled, label)).first->second;
}

template <class T>
SolveResult<T> run_runtime(const Batch<T>& batch, const SolveOptions& o, TimeLogger& log,
                           RuntimeGpuRunner<T>* runner = nullptr) {
  std::unique_ptr<RuntimeGpuRunner<T>> own;
  if (runner == nullptr) {
    own = std::make_unique<RuntimeGpuRunner<T>>();
    runner = own.get();
  }
  SolveResult<T> r(batch.n_runs, 3, count_saves(o), o);
  runner->run(runtime_kernels<T>(o.method), 3, 3, make_gpu_run_request(o), make_run_settings<T>(o),
              batch.y0.data(), batch.params.data(), batch.n_runs, r.view(), log);
  return r;
}

// The first differing element of two arrays, compared as bytes (NaN of unsaved points included).
template <class V>
void expect_bitwise_equal(const V* got, const V* ref, std::size_t n, const std::string& what) {
  if (n == 0) return;
  ASSERT_NE(got, nullptr) << what;
  ASSERT_NE(ref, nullptr) << what;
  if (std::memcmp(got, ref, n * sizeof(V)) == 0) return;
  std::size_t differing = 0, first = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(got + i, ref + i, sizeof(V)) != 0) {
      if (first == n) first = i;
      ++differing;
    }
  }
  ADD_FAILURE() << what << ": " << differing << " of " << n << " elements differ, the first at " << first;
}

template <class T>
class RuntimeKernelGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RuntimeKernelGpu, Precisions);

TYPED_TEST(RuntimeKernelGpu, EqualsTheCompiledInKernelBitwiseAndAgreesWithTheCpu) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(kRuns);
  for (Method m : {Method::rk4, Method::dopri5}) {
    for (bool series : {false, true}) {
      const std::string what = to_string(m) + (series ? " with series" : " final state only");
      SCOPED_TRACE(what);
      SolveOptions o = lorenz_options<T>(m, series);
      TimeLogger log(nullptr, Verbosity::none);
      SolveResult<T> runtime = run_runtime(batch, o, log);
      ASSERT_TRUE(runtime.all_succeeded());

      o.backend = Backend::gpu;
      SolveResult<T> compiled_in = solve_ivp(LorenzCompiledIn{}, batch, o);
      ASSERT_EQ(compiled_in.execution().at(0).backend, BackendId::gpu(0));
      ASSERT_EQ(runtime.n_saves(), compiled_in.n_saves());
      expect_bitwise_equal(runtime.final_state_data(), compiled_in.final_state_data(), kRuns * 3,
                           what + ": final states");
      expect_bitwise_equal(runtime.series_data(), compiled_in.series_data(), kRuns * runtime.n_saves() * 3,
                           what + ": series");
      expect_bitwise_equal(runtime.status_data(), compiled_in.status_data(), kRuns, what + ": statuses");
      expect_bitwise_equal(runtime.counters_data(), compiled_in.counters_data(), kRuns, what + ": counters");

      o.backend = Backend::cpu;
      const SolveResult<T> cpu = solve_ivp(LorenzCompiledIn{}, batch, o);
      batchode::testing::expect_runs_agree(
          runtime, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 1000), what + " against the CPU");
    }
  }
}

TYPED_TEST(RuntimeKernelGpu, TimesTheSamePhasesAsTheCompiledInRunner) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(3000);
  SolveOptions o = lorenz_options<T>(Method::rk4, true);
  o.gpu.chunks = 3;
  const RunSettings<T> settings = make_run_settings<T>(o);
  const GpuRunRequest request = make_gpu_run_request(o);

  // A fresh copy of the kernels, not yet loaded in this test's sense: its first run times the load.
  RuntimeKernels kernels = runtime_kernels<T>(o.method);
  kernels.first_load_claimed = std::make_shared<RuntimeKernels::FirstLoads>();
  RuntimeGpuRunner<T> runtime_runner;
  GpuRunner<LorenzCompiledIn, T> compiled_runner;
  TimeLogger runtime_log(nullptr, Verbosity::normal), compiled_log(nullptr, Verbosity::normal);
  register_solver_events(runtime_log);  // what a Solver does for its logger; the runners only time
  register_solver_events(compiled_log);
  SolveResult<T> a(batch.n_runs, 3, count_saves(o), o), b(batch.n_runs, 3, count_saves(o), o);
  runtime_runner.run(kernels, 3, 3, request, settings, batch.y0.data(), batch.params.data(), batch.n_runs,
                     a.view(), runtime_log);
  compiled_runner.run(LorenzCompiledIn{}, request, settings, batch.y0.data(), batch.params.data(),
                      batch.n_runs, b.view(), compiled_log);
  EXPECT_EQ(runtime_runner.last_plan().n_chunks, 3u);
  EXPECT_EQ(compiled_runner.last_plan().n_chunks, 3u);
  expect_bitwise_equal(a.final_state_data(), b.final_state_data(), batch.n_runs * 3, "final states");

  for (const char* label :
       {events::chunk_planning, events::kernel_run_execution, events::host_staging, events::host_transpose,
        events::h2d_transfer_initial_values, events::h2d_transfer_parameters, events::kernel_launch,
        events::d2h_transfer_state, events::d2h_transfer_status_codes,
        events::d2h_transfer_iteration_counters, events::run_ordering}) {
    SCOPED_TRACE(label);
    const std::vector<Occurrence> got = runtime_log.occurrences(label);
    const std::vector<Occurrence> want = compiled_log.occurrences(label);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      for (const char* key : {keys::chunk_index, keys::numruns, keys::chunk_slice, keys::nbytes,
                              keys::is_chunked, keys::backend, keys::total_runs, keys::num_chunks}) {
        EXPECT_EQ(got[i].metadata.find(key) != nullptr, want[i].metadata.find(key) != nullptr) << key;
      }
    }
  }
  const std::vector<Occurrence> loads = runtime_log.occurrences(events::kernel_compile);
  ASSERT_EQ(loads.size(), 1u) << "the runtime kernel's first load is timed once";
  ASSERT_NE(loads[0].metadata.find("registers"), nullptr);
  EXPECT_GT(loads[0].metadata.find("registers")->as_int(), 0);

  // The load is timed once over all copies of the kernels, and not at all where the caller claimed it.
  TimeLogger again(nullptr, Verbosity::normal);
  register_solver_events(again);
  runtime_runner.run(kernels, 3, 3, request, settings, batch.y0.data(), batch.params.data(), batch.n_runs,
                     a.view(), again);
  EXPECT_TRUE(again.occurrences(events::kernel_compile).empty());
}

TYPED_TEST(RuntimeKernelGpu, RefusesKernelsOfAnotherMethodOrPrecision) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  using Other = std::conditional_t<std::is_same_v<T, float>, double, float>;
  const Batch<T> batch = lorenz_sweep<T>(10);
  SolveOptions o = lorenz_options<T>(Method::rk4, false);
  TimeLogger log(nullptr, Verbosity::none);
  RuntimeGpuRunner<T> runner;
  SolveResult<T> r(batch.n_runs, 3, 0, o);
  GpuRunRequest request = make_gpu_run_request(o);
  request.method = Method::dopri5;
  EXPECT_THROW(runner.run(runtime_kernels<T>(Method::rk4), 3, 3, request, make_run_settings<T>(o),
                          batch.y0.data(), batch.params.data(), batch.n_runs, r.view(), log),
               std::invalid_argument);
  EXPECT_THROW(
      runner.run(runtime_kernels<Other>(Method::rk4), 3, 3, make_gpu_run_request(o), make_run_settings<T>(o),
                 batch.y0.data(), batch.params.data(), batch.n_runs, r.view(), log),
      std::invalid_argument);
}

}  // namespace
