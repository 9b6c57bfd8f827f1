// runtime_model: what a model defined at run time costs (issue 16).
//  - first solve of a new model: parse + codegen + compile + load + a 1-run solve, with a cold cache
//    (a fresh folder each time) and with the cache warm (a new RuntimeModel object, same folder), for
//    Lorenz (3 states) and Lorenz-96 with 32 and 64 states; medians of --reps. On the CPU path (host
//    compiler) and, where a GPU is usable, on the GPU path (NVRTC / hipRTC; the GPU context is
//    created before the clock starts: that cost is the process's, not the model's).
//  - throughput: the runtime-compiled Lorenz against the same system compiled in, dopri5 at 1e-8 on
//    a rho sweep of --runs runs on every core, median of --reps solves each, interleaved.
// No Google Benchmark: compiles take seconds and are measured a few times, by wall clock.
//
//   runtime_model [--reps 5] [--runs 65536] [--method dopri5]
#include <algorithm>
#include <batchode/batchode.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

std::string lorenz_toml() {
  return "name = \"lorenz\"\n"
         "equations = \"\"\"\n"
         "dx = sigma * (y - x)\n"
         "dy = x * (rho - z) - y\n"
         "dz = x * y - beta * z\n"
         "\"\"\"\n"
         "[states]\nx = 1.0\ny = 0.0\nz = 0.0\n"
         "[parameters]\nrho = 28.0\n"
         "[constants]\nsigma = 10.0\nbeta = 2.6666666666666665\n";
}

/// Lorenz-96 with n states: dx_i = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F.
std::string lorenz96_toml(int n) {
  std::string eq, states;
  for (int i = 0; i < n; ++i) {
    auto x = [&](int k) { return "x" + std::to_string(((k % n) + n) % n); };
    eq += "d" + x(i) + " = (" + x(i + 1) + " - " + x(i - 2) + ") * " + x(i - 1) + " - " + x(i) + " + F\n";
    states += x(i) + " = " + (i == 0 ? "8.01" : "8.0") + "\n";
  }
  return "name = \"lorenz96_" + std::to_string(n) + "\"\nequations = \"\"\"\n" + eq + "\"\"\"\n[states]\n" +
         states + "[parameters]\nF = 8.0\n";
}

struct LorenzCompiledIn {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 1;
  static constexpr const char* name = "bench_lorenz_compiled_in";
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    const T sigma = T(10), beta = T(2.6666666666666665), rho = p[0];
    dydt[0] = sigma * (y[1] - y[0]);
    dydt[1] = y[0] * (rho - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - beta * y[2];
  }
};

/// Wall time of parse + codegen + compile-or-load + a 1-run solve, with `cache` as the cache folder.
double first_solve_ms(const std::string& toml, const std::string& cache, batchode::Method method,
                      batchode::Backend backend) {
  batchode::TimeLogger quiet(nullptr, batchode::Verbosity::none);
  const auto start = Clock::now();
  batchode::RuntimeModelOptions o;
  o.cache_directory = cache;
  batchode::RuntimeModel<double> model(
      batchode::models::parse_model(batchode::models::read_model_toml(toml, "bench.toml")), o, quiet);
  batchode::SolveOptions options;
  options.method = method;
  options.backend = backend;
  options.verbosity = batchode::Verbosity::none;
  options.t_end = 0.1;
  (void)batchode::solve_ivp(model, model.default_y0(), model.default_params(), options, quiet);
  return ms_since(start);
}

std::string fresh_folder() {
  std::string dir = (std::filesystem::temp_directory_path() / "batchode-bench-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) std::abort();
  return dir;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::size_t runs = 65536;
  batchode::Method method = batchode::Method::dopri5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--runs")) runs = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--method")) method = batchode::parse_method(argv[i + 1]);
  }
  std::printf(
      "first solve of a new model (parse + codegen + compile + load + 1-run solve), %s, median of %d\n",
      batchode::to_string(method).c_str(), reps);
  const bool gpu = batchode::gpu::discover().available;
  if (gpu) batchode::gpu::set_device(0);  // the context, before any clock starts
  std::printf(
      "| model | states | CPU cold cache ms | CPU warm cache ms | GPU cold cache ms | GPU warm cache ms |\n"
      "|---|---|---|---|---|---|\n");
  struct Case {
    std::string label, toml;
    int states;
  };
  const std::vector<Case> cases{
      {"lorenz", lorenz_toml(), 3}, {"lorenz96", lorenz96_toml(32), 32}, {"lorenz96", lorenz96_toml(64), 64}};
  // One cache folder: the CPU path's precompiled prelude is built once per machine (compiler and
  // headers), by the first model ever compiled there; timed apart. Every repetition then solves a
  // model never seen before (its name, and so its source, is new), cold, and a second object of it.
  const std::string shared = fresh_folder();
  const double prelude_ms = first_solve_ms(lorenz_toml(), shared, method, batchode::Backend::cpu);
  int fresh = 0;
  auto renamed = [&fresh](std::string toml) {
    const std::size_t end = toml.find('"', toml.find('"') + 1);
    return toml.insert(end, "_" + std::to_string(++fresh));
  };
  for (const Case& c : cases) {
    std::vector<double> cold, warm, gpu_cold, gpu_warm;
    for (int r = 0; r < reps; ++r) {
      const std::string toml = renamed(c.toml);
      cold.push_back(first_solve_ms(toml, shared, method, batchode::Backend::cpu));
      warm.push_back(first_solve_ms(toml, shared, method, batchode::Backend::cpu));
      if (gpu) {
        gpu_cold.push_back(first_solve_ms(toml, shared, method, batchode::Backend::gpu));
        gpu_warm.push_back(first_solve_ms(toml, shared, method, batchode::Backend::gpu));
      }
    }
    if (gpu) {
      std::printf("| %s | %d | %.0f | %.1f | %.0f | %.1f |\n", c.label.c_str(), c.states, median(cold),
                  median(warm), median(gpu_cold), median(gpu_warm));
    } else {
      std::printf("| %s | %d | %.0f | %.1f | no GPU | no GPU |\n", c.label.c_str(), c.states, median(cold),
                  median(warm));
    }
  }

  std::printf(
      "the first model ever compiled in a cache folder (also builds the precompiled prelude): %.0f ms\n",
      prelude_ms);
  std::filesystem::remove_all(shared);

  // Throughput: runtime-compiled against compiled-in, interleaved.
  const std::string dir = fresh_folder();
  batchode::RuntimeModelOptions o;
  o.cache_directory = dir;
  batchode::RuntimeModel<double> runtime(
      batchode::models::parse_model(batchode::models::read_model_toml(lorenz_toml())), o);
  std::vector<double> y0, params;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {1.0, 0.0, 0.0});
    params.push_back(100.0 * static_cast<double>(r) / static_cast<double>(runs));
  }
  batchode::SolveOptions options;
  options.method = method;
  options.backend = batchode::Backend::cpu;
  options.verbosity = batchode::Verbosity::none;
  options.rtol = options.atol = 1e-8;
  if (method == batchode::Method::rk4 || method == batchode::Method::euler) options.dt = 1e-3;
  batchode::Solver<batchode::RuntimeModel<double>, double> a(runtime, options);
  batchode::Solver<LorenzCompiledIn, double> b(LorenzCompiledIn{}, options);
  (void)a.solve(y0, params);
  (void)b.solve(y0, params);
  std::vector<double> ta, tb;
  bool same = true;
  for (int r = 0; r < reps; ++r) {
    auto start = Clock::now();
    const auto ra = a.solve(y0, params);
    ta.push_back(ms_since(start));
    start = Clock::now();
    const auto rb = b.solve(y0, params);
    tb.push_back(ms_since(start));
    for (std::size_t i = 0; i < runs * 3; ++i) same = same && ra.final_state()[i] == rb.final_state()[i];
  }
  std::printf("\nCPU throughput, Lorenz rho sweep [0, 100], %zu runs, %s at 1e-8, all cores, median of %d\n",
              runs, batchode::to_string(method).c_str(), reps);
  std::printf(
      "| system | ms | ratio |\n|---|---|---|\n| compiled in | %.1f | 1.000 |\n| runtime model | %.1f | %.3f "
      "|\n",
      median(tb), median(ta), median(ta) / median(tb));
  std::printf("final states bitwise equal: %s\n", same ? "yes" : "NO");
  std::filesystem::remove_all(dir);
  return same ? 0 : 1;
}
