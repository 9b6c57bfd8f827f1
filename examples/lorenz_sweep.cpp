// examples/lorenz_sweep: the main job. A Lorenz parameter sweep (rho over [0, 21], sigma = 10,
// beta = 8/3, y0 = (1, 0, 0), t in [0, 1], as in the GPU ODE benchmarks), split into several chunks,
// printing the timing summary (stderr) and a few results (stdout). Runs on the GPU when one is usable,
// on the CPU otherwise, with the same output.
//
//   lorenz_sweep [--runs N] [--method rk4|dopri5|...] [--chunks K] [--float] [--backend cpu|gpu|automatic]
//                [--trace FILE.json]
// --trace (or BATCHODE_TRACE=FILE.json) writes the solve's timeline: open it in Perfetto, or draw it
// with scripts/plot_trace.py FILE.json FILE.png.
#include <batchode/batchode.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Lorenz {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 3;  // sigma, rho, beta
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * (y[1] - y[0]);
    dydt[1] = y[0] * (p[1] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - p[2] * y[2];
  }
};

struct Args {
  std::size_t runs = 1 << 16;
  batchode::Method method = batchode::Method::rk4;
  std::size_t chunks = 8;
  bool single = false;
  batchode::Backend backend = batchode::Backend::automatic;
  std::string trace;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw batchode::InvalidInput(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--runs") {
      a.runs = std::stoull(value());
    } else if (arg == "--method") {
      a.method = batchode::parse_method(value());
    } else if (arg == "--chunks") {
      a.chunks = std::stoull(value());
    } else if (arg == "--float") {
      a.single = true;
    } else if (arg == "--backend") {
      const std::string b = value();
      a.backend = b == "cpu" ? batchode::Backend::cpu : b == "gpu" ? batchode::Backend::gpu : batchode::Backend::automatic;
    } else if (arg == "--trace") {
      a.trace = value();
    } else {
      throw batchode::InvalidInput("unknown argument '" + arg +
                                   "'; usage: lorenz_sweep [--runs N] [--method M] [--chunks K] [--float] "
                                   "[--backend cpu|gpu|automatic] [--trace FILE.json]");
    }
  }
  return a;
}

template <class T>
int sweep(const Args& a) {
  batchode::GridBuilder<T> grid({T(1), T(0), T(0)}, {T(10), T(28), T(8.0 / 3.0)});
  grid.names({"x", "y", "z"}, {"sigma", "rho", "beta"}).param("rho", batchode::linspace<T>(0.0, 21.0, a.runs));

  batchode::SolveOptions options;
  options.method = a.method;
  options.t0 = 0.0;
  options.t_end = 1.0;
  if (!batchode::method_info(a.method).adaptive) options.dt = 1e-3;
  options.backend = a.backend;
  options.gpu.chunks = a.chunks;  // several chunks even where the whole batch would fit
  options.cpu_threads = 0;        // all cores when running on the CPU

  const batchode::SolveResult<T> result = batchode::solve_ivp(Lorenz{}, grid.build(batchode::GridKind::verbatim), options);

  const auto& where = result.execution().front();
  std::printf("lorenz_sweep: %zu runs, %s, %s precision, ran on %s (%s)\n", result.n_runs(),
              batchode::to_string(a.method).c_str(), sizeof(T) == 4 ? "single" : "double",
              batchode::to_string(where.backend).c_str(), batchode::sched::to_string(where.reason));
  std::printf("%10s %14s %14s %14s %8s\n", "rho", "x(1)", "y(1)", "z(1)", "status");
  for (std::size_t i : {std::size_t(0), result.n_runs() / 4, result.n_runs() / 2, result.n_runs() - 1}) {
    std::printf("%10.4f %14.7g %14.7g %14.7g %8s\n", 21.0 * double(i) / double(result.n_runs() - 1),
                double(result.final_state(i, 0)), double(result.final_state(i, 1)), double(result.final_state(i, 2)),
                batchode::to_string(result.status(i)).c_str());
  }
  std::printf("succeeded: %zu of %zu runs\n", result.count(batchode::Status::success), result.n_runs());
  return result.all_succeeded() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse(argc, argv);
    if (!a.trace.empty()) batchode::default_timelogger().start_trace(a.trace);
    const int status = a.single ? sweep<float>(a) : sweep<double>(a);
    const std::string trace = batchode::default_timelogger().stop_trace();
    if (!trace.empty()) std::printf("timeline written to %s\n", trace.c_str());
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lorenz_sweep: %s\n", e.what());
    return 2;
  }
}
