// runtime_solve: the C++ side of the Python package's overhead check (issue 17). One Solver over the
// runtime-compiled Lorenz model (examples/models/lorenz.toml), the batch given as run-major arrays,
// solved --reps times after one warm-up; prints each solve's wall time and the median, one line each
// in the form benchmarks/python_overhead.py reads. The Python side does the very same solve through
// batchode.Solver (same model file, options and arrays), so the difference is the package's cost.
//
//   runtime_solve [--runs 1048576] [--method rk4] [--dt 1e-3] [--precision float64|float32]
//                 [--backend auto|cpu|gpu] [--reps 10]
#include <algorithm>
#include <batchode/batchode.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Args {
  std::size_t runs = std::size_t(1) << 20;
  std::string method = "rk4";
  double dt = 1e-3;
  std::string precision = "float64";
  std::string backend = "auto";
  int reps = 10;
  std::string model = BATCHODE_SOURCE_DIR "/examples/models/lorenz.toml";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--runs") a.runs = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag == "--method") a.method = value;
    else if (flag == "--dt") a.dt = std::atof(value.c_str());
    else if (flag == "--precision") a.precision = value;
    else if (flag == "--backend") a.backend = value;
    else if (flag == "--reps") a.reps = std::atoi(value.c_str());
    else if (flag == "--model") a.model = value;
    else {
      std::fprintf(stderr, "runtime_solve: unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return a;
}

template <class T>
int run(const Args& a) {
  batchode::TimeLogger quiet(nullptr, batchode::Verbosity::none);  // no tables on stderr for loading
  batchode::RuntimeModel<T> model(batchode::load_model(a.model, quiet), {}, quiet);
  batchode::SolveOptions o;
  o.t0 = 0.0;
  o.t_end = 1.0;
  o.method = batchode::parse_method(a.method);
  o.dt = a.dt;
  o.backend = a.backend == "cpu" ? batchode::Backend::cpu
              : a.backend == "gpu" ? batchode::Backend::gpu
                                   : batchode::Backend::automatic;
  o.verbosity = batchode::Verbosity::none;
  // The Python benchmark's inputs: y0 = the model's defaults, rho = linspace(0, 21, runs).
  std::vector<T> y0(a.runs * 3), params(a.runs);
  const std::vector<T> defaults = model.default_y0();
  for (std::size_t r = 0; r < a.runs; ++r) {
    std::copy(defaults.begin(), defaults.end(), y0.begin() + static_cast<std::ptrdiff_t>(3 * r));
    params[r] = static_cast<T>(21.0 * static_cast<double>(r) / static_cast<double>(a.runs - 1));
  }
  batchode::Solver<batchode::RuntimeModel<T>, T> solver(model, o);
  std::vector<double> walls;
  std::string where;
  for (int rep = 0; rep <= a.reps; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    batchode::SolveResult<T> r = solver.solve(y0.data(), params.data(), a.runs);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (rep == 0) {
      where = batchode::to_string(r.execution().front().backend);
      continue;  // warm-up: compiles or loads the model, sizes buffers
    }
    walls.push_back(ms);
    std::printf("cpp_solve_ms %.3f\n", ms);
  }
  std::sort(walls.begin(), walls.end());
  std::printf("cpp_median_ms %.3f runs %zu method %s precision %s backend %s\n", walls[walls.size() / 2], a.runs,
              a.method.c_str(), a.precision.c_str(), where.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  if (a.reps < 1 || a.runs < 2) {
    std::fprintf(stderr, "runtime_solve: --reps >= 1 and --runs >= 2\n");
    return 2;
  }
  return a.precision == "float32" ? run<float>(a) : run<double>(a);
}
