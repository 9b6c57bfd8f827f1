// benchmarks/stiff_robertson: the stiff solver's throughput on a Robertson sweep. k1 = 0.04,
// k2 = 3e7, k3 swept log-uniformly over [1e2, 1e6]; y0 = (1, 0, 0); t in [0, t_end] (default 40);
// final state only; rtol = 1e-6, atol = 1e-10 (float32 rows: rtol = 1e-4, atol = 1e-8, since 1e-6
// is within a few ulps of float's epsilon). Reported:
//  - GPU: runs/s for 2^20 runs (kernel time from GPU events, and end to end = a Solver::solve call),
//    rodas4 and ros3p, Jacobian by automatic differentiation;
//  - CPU, one core: batchode's CPU path (cpu_threads = 1) on an evenly spaced subset of the sweep;
//  - Boost.Odeint's rosenbrock4 in a plain loop (integrate_adaptive over make_controlled, Jacobian
//    written by hand), one core, same subset; and the speed-ups over it.
// odeint's rosenbrock4 has RODAS4's coefficients, so rodas4 vs odeint compares implementations.
//
//   stiff_robertson [--reps R] [--log2-runs K] [--cpu-runs M] [--t-end T]
#include <batchode/batchode.hpp>

#include <boost/numeric/odeint.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Robertson {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 3;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    const T r1 = p[0] * y[0], r2 = p[1] * y[1] * y[1], r3 = p[2] * y[1] * y[2];
    dydt[0] = -r1 + r3;
    dydt[1] = r1 - r2 - r3;
    dydt[2] = r2;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

template <class T>
void sweep(std::size_t runs, std::vector<T>& y0, std::vector<T>& p) {
  y0.assign(3 * runs, T(0));
  p.resize(3 * runs);
  for (std::size_t r = 0; r < runs; ++r) {
    y0[3 * r] = T(1);
    p[3 * r] = T(0.04);
    p[3 * r + 1] = T(3e7);
    p[3 * r + 2] = T(std::pow(10.0, 2.0 + 4.0 * double(r) / double(runs - 1)));
  }
}

template <class T>
batchode::SolveOptions options(batchode::Method m, double t_end, batchode::Backend b) {
  batchode::SolveOptions o;
  o.method = m;
  o.t_end = t_end;
  o.rtol = sizeof(T) == 4 ? 1e-4 : 1e-6;
  o.atol = sizeof(T) == 4 ? 1e-8 : 1e-10;
  o.backend = b;
  o.max_steps = 100000;
  return o;
}

struct GpuMeasured {
  double kernel_ms, e2e_ms, mean_steps;
  std::size_t failed;
};

template <class T>
GpuMeasured gpu_ms(batchode::Method m, std::size_t n, double t_end, int reps) {
  std::ostringstream quiet;
  batchode::TimeLogger log(&quiet, batchode::Verbosity::normal);
  batchode::register_solver_events(log);
  batchode::SolveOptions o = options<T>(m, t_end, batchode::Backend::gpu);
  o.outputs.counters = true;
  std::vector<T> y0, p;
  sweep(n, y0, p);
  batchode::Solver<Robertson, T> solver(Robertson{}, o, log);
  std::vector<double> kernel, e2e;
  GpuMeasured out{};
  for (int rep = -1; rep < reps; ++rep) {
    log.reset();
    const auto t0 = std::chrono::steady_clock::now();
    const auto result = solver.solve(y0, p);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rep < 0) {
      double steps = 0;
      for (const auto& c : result.counters()) steps += c.accepted_steps + c.rejected_steps;
      out.mean_steps = steps / double(n);
      out.failed = n - result.count(batchode::Status::success);
      continue;
    }
    kernel.push_back(log.stats(batchode::events::kernel_launch).total_gpu_ms);
    e2e.push_back(ms);
  }
  out.kernel_ms = median(kernel);
  out.e2e_ms = median(e2e);
  return out;
}

// Our CPU path, one thread, on every (n / m)-th run of the sweep.
template <class T>
std::pair<double, double> cpu_runs_per_s(batchode::Method m, std::size_t n, std::size_t subset, double t_end) {
  std::vector<T> y0, p, ys, ps;
  sweep(n, y0, p);
  for (std::size_t i = 0; i < subset; ++i) {
    const std::size_t r = i * (n / subset);
    ys.insert(ys.end(), y0.begin() + 3 * r, y0.begin() + 3 * r + 3);
    ps.insert(ps.end(), p.begin() + 3 * r, p.begin() + 3 * r + 3);
  }
  batchode::SolveOptions o = options<T>(m, t_end, batchode::Backend::cpu);
  o.cpu_threads = 1;
  o.verbosity = batchode::Verbosity::none;
  const auto t0 = std::chrono::steady_clock::now();
  const auto result = batchode::solve_ivp(Robertson{}, ys, ps, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double steps = 0;
  for (const auto& c : result.counters()) steps += c.accepted_steps + c.rejected_steps;
  return {double(subset) / s, steps / double(subset)};
}

// The baseline: Boost.Odeint's rosenbrock4, as its documentation shows it, in a loop over runs.
std::pair<double, double> odeint_runs_per_s(std::size_t n, std::size_t subset, double t_end) {
  namespace odeint = boost::numeric::odeint;
  using vec = boost::numeric::ublas::vector<double>;
  using mat = boost::numeric::ublas::matrix<double>;
  std::vector<double> y0, p;
  sweep(n, y0, p);
  std::size_t total_steps = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < subset; ++i) {
    const std::size_t r = i * (n / subset);
    const double k1 = p[3 * r], k2 = p[3 * r + 1], k3 = p[3 * r + 2];
    auto rhs = [=](const vec& y, vec& f, double) {
      const double r1 = k1 * y[0], r2 = k2 * y[1] * y[1], r3 = k3 * y[1] * y[2];
      f[0] = -r1 + r3;
      f[1] = r1 - r2 - r3;
      f[2] = r2;
    };
    auto jac = [=](const vec& y, mat& J, double, vec& dfdt) {
      J(0, 0) = -k1, J(0, 1) = k3 * y[2], J(0, 2) = k3 * y[1];
      J(1, 0) = k1, J(1, 1) = -2 * k2 * y[1] - k3 * y[2], J(1, 2) = -k3 * y[1];
      J(2, 0) = 0, J(2, 1) = 2 * k2 * y[1], J(2, 2) = 0;
      dfdt[0] = dfdt[1] = dfdt[2] = 0;
    };
    vec y(3);
    y[0] = 1, y[1] = 0, y[2] = 0;
    total_steps += odeint::integrate_adaptive(odeint::make_controlled<odeint::rosenbrock4<double>>(1e-10, 1e-6),
                                              std::make_pair(rhs, jac), y, 0.0, t_end, 1e-6);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {double(subset) / s, double(total_steps) / double(subset)};
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3, log2_runs = 20;
  std::size_t cpu_runs = 4096;
  double t_end = 40;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--log2-runs")) log2_runs = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--cpu-runs")) cpu_runs = std::strtoul(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--t-end")) t_end = std::atof(argv[i + 1]);
  }
  const std::size_t n = std::size_t(1) << log2_runs;
  const auto dev = batchode::gpu::discover();
  std::printf("# Robertson, k3 in [1e2, 1e6] log-spaced, t in [0, %g], 2^%d runs; device: %s\n", t_end, log2_runs,
              dev.available && !dev.devices.empty() ? dev.devices[0].name.c_str() : "none");
  const std::pair<double, double> odeint = odeint_runs_per_s(n, cpu_runs, t_end);
  const double odeint_rps = odeint.first, odeint_steps = odeint.second;  // plain names: lambdas capture them
  std::printf("\nBoost.Odeint rosenbrock4 plain loop, 1 core, %zu runs: %.4g runs/s, %.1f steps/run\n\n", cpu_runs,
              odeint_rps, odeint_steps);
  std::printf("| method | precision | GPU kernel ms | GPU runs/s (kernel) | GPU runs/s (end to end) | GPU steps/run | "
              "failed | CPU runs/s per core | CPU steps/run | GPU (e2e) / odeint core | CPU core / odeint core |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  auto row = [&](auto precision_tag, batchode::Method m) {
    using T = decltype(precision_tag);
    const GpuMeasured g = gpu_ms<T>(m, n, t_end, reps);
    const auto [cpu_rps, cpu_steps] = cpu_runs_per_s<T>(m, n, cpu_runs, t_end);
    const double gpu_rps = double(n) / (g.e2e_ms * 1e-3);
    std::printf("| %s | %s | %.2f | %.4g | %.4g | %.1f | %zu | %.4g | %.1f | %.1fx | %.2fx |\n",
                batchode::to_string(m).c_str(), sizeof(T) == 4 ? "float32 (rtol 1e-4)" : "float64", g.kernel_ms,
                double(n) / (g.kernel_ms * 1e-3), gpu_rps, g.mean_steps, g.failed, cpu_rps, cpu_steps,
                gpu_rps / odeint_rps, cpu_rps / odeint_rps);
    std::fflush(stdout);
  };
  row(double{}, batchode::Method::rodas4);
  row(double{}, batchode::Method::ros3p);
  row(float{}, batchode::Method::rodas4);
  row(float{}, batchode::Method::ros3p);
  return 0;
}
