// benchmarks/runtime_kernel: kernel time of a runtime-compiled Lorenz RK4 sweep (NVRTC / hipRTC,
// launched by RuntimeGpuRunner through gpu::Module) against the same system compiled in (nvcc /
// hipcc, GpuRunner), issue 16's "within 3%". gpu_lorenz's protocol: rho = linspace(0, 21, N),
// sigma = 10 and beta = 8/3 compiled in, y0 = (1, 0, 0), RK4, dt = 1e-3, t in [0, 1], final state
// only, one chunk (kernel against kernel); float and double. Kernel times from GPU events (the
// kernel_launch events' GPU time), the two runners interleaved rep by rep, medians of --reps after a
// warm-up. Also prints the compile and load times and checks the final states are bitwise equal.
//
//   runtime_kernel [--reps R] [--log2 K]   (defaults: 11 repetitions, N = 2^22)
#include <algorithm>
#include <batchode/backends/gpu/gpu_runner.hpp>
#include <batchode/backends/gpu/runtime_gpu_runner.hpp>
#include <batchode/backends/gpu/runtime_kernel_source.hpp>
#include <batchode/backends/gpu/runtime_kernels.hpp>
#include <batchode/batchode.hpp>
#include <batchode/gpu/runtime_compiler.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "lorenz_rho.hpp"

namespace {

using Lorenz = batchode_bench::LorenzRho;

// The same system as text, as a model's generated code would be.
constexpr const char* kLorenzSource = R"(
struct Lorenz {
  static constexpr batchode::port::size_t n_states = 3;
  static constexpr batchode::port::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    const T sigma = 10, beta = T(8.0 / 3.0);
    dydt[0] = sigma * (y[1] - y[0]);
    dydt[1] = y[0] * (p[0] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - beta * y[2];
  }
};
)";

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
void compare(const batchode::gpu::RuntimeCompiler& compiler, std::size_t n, int reps) {
  using namespace batchode;
  batchode::SolveOptions o;
  o.method = Method::rk4;
  o.t_end = 1.0;
  o.dt = 1e-3;
  o.gpu.chunks = 1;
  o.outputs.status = true;
  o.verbosity = Verbosity::none;
  const RunSettings<T> settings = make_run_settings<T>(o);
  const GpuRunRequest request = make_gpu_run_request(o);
  const std::vector<T> y0 = [&] {
    std::vector<T> y(3 * n, T(0));
    for (std::size_t i = 0; i < n; ++i) y[3 * i] = T(1);
    return y;
  }();
  const std::vector<T> rho = linspace<T>(0.0, 21.0, n);

  auto t0 = std::chrono::steady_clock::now();
  const RuntimeKernelProgram program =
      runtime_kernel_program(kLorenzSource, "Lorenz", o.method, precision_type_name<T>());
  std::vector<std::string> options = compiler.kernel_options({BATCHODE_BENCH_KERNELS_INCLUDE_DIR});
  options.push_back(gpu::RuntimeCompiler::architecture_option(0));
  const gpu::CompiledKernels compiled =
      compiler.compile(program.source, program.name_expressions, options, "lorenz_rk4");
  const double compile_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  gpu::set_device(0);
  const RuntimeKernels kernels = load_runtime_kernels<T>(o.method, compiled, "lorenz_rk4");
  const double load_s = seconds_since(t0);

  GpuRunner<Lorenz, T> compiled_in;
  RuntimeGpuRunner<T> runtime;
  SolveResult<T> a(n, 3, 0, o), b(n, 3, 0, o);
  std::vector<double> compiled_ms, runtime_ms;
  for (int rep = -1; rep < reps; ++rep) {  // rep -1: warm-up (module loads, buffers)
    TimeLogger la(nullptr, Verbosity::normal), lb(nullptr, Verbosity::normal);
    register_solver_events(la);
    register_solver_events(lb);
    compiled_in.run(Lorenz{}, request, settings, y0.data(), rho.data(), n, a.view(), la);
    runtime.run(kernels, 3, 1, request, settings, y0.data(), rho.data(), n, b.view(), lb);
    if (rep < 0) continue;
    la.resolve_gpu_times();
    lb.resolve_gpu_times();
    compiled_ms.push_back(la.stats(events::kernel_launch).total_gpu_ms);
    runtime_ms.push_back(lb.stats(events::kernel_launch).total_gpu_ms);
  }
  const bool equal = std::memcmp(a.final_state_data(), b.final_state_data(), 3 * n * sizeof(T)) == 0;
  const double c = median(compiled_ms), r = median(runtime_ms);
  std::printf("| %s | %zu | %.3f | %.3f | %.4f | %.3f | %.3f | %zu | %s |\n", precision_type_name<T>(), n, c,
              r, r / c, compile_s, load_s, compiled.image.size(), equal ? "yes" : "NO");
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 11, log2 = 22;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--reps") reps = std::atoi(argv[i + 1]);
    if (flag == "--log2") log2 = std::atoi(argv[i + 1]);
  }
  const batchode::gpu::Discovery& found = batchode::gpu::discover();
  if (!found.available) {
    std::printf("runtime_kernel: no usable GPU (%s)\n", found.reason.c_str());
    return 0;
  }
  std::string why_not;
  const std::optional<batchode::gpu::RuntimeCompiler> compiler =
      batchode::gpu::RuntimeCompiler::load(&why_not);
  if (!compiler) {
    std::printf("runtime_kernel: no runtime compiler (%s)\n", why_not.c_str());
    return 1;
  }
  const std::size_t n = std::size_t(1) << log2;
  std::printf("runtime_kernel on %s (%s), %s, median of %d repetitions\n", found.devices[0].name.c_str(),
              found.devices[0].architecture.c_str(), compiler->name_and_version().c_str(), reps);
  std::printf(
      "| precision | N | compiled-in kernel ms | runtime-compiled kernel ms | ratio | compile s | load s | "
      "image "
      "bytes | bitwise equal |\n|---|---|---|---|---|---|---|---|---|\n");
  compare<float>(*compiler, n, reps);
  compare<double>(*compiler, n, reps);
  return 0;
}
