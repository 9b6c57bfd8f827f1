// CPU throughput on a Lorenz sweep: batchode's CPU path (one core, all cores) against the plainest
// correct use of Boost.Odeint: a loop over runs on one core, each run integrate_adaptive with a
// controlled dopri5. Same problem, method and tolerances on both sides.
//
// Problem: N runs (default 100000), rho = linspace(0, 21, N), sigma = 10, beta = 8/3,
// y0 = (1, 0, 0), t in [0, 1], dopri5, rtol = atol = 1e-6, final state only.
// N: --runs=N on the command line (removed before Google Benchmark sees the arguments) or the
// environment variable BATCHODE_BENCH_RUNS.
//
// Reported per benchmark: runs/s, and run-steps/s/core (accepted steps summed over runs, per second
// of wall time, per core used): odeint's integrate_adaptive returns its accepted steps, batchode its
// counters. The two controllers differ (odeint: max norm, I controller; batchode: RMS norm, PI
// controller), so they take different step counts for the same tolerance: compare runs/s for the
// cost of the whole job, steps/s/core for the cost of a step. A summary with the speed-ups follows.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <batchode/batchode.hpp>
#include <boost/numeric/odeint.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "lorenz3.hpp"

namespace {

constexpr double kRtol = 1e-6, kAtol = 1e-6;
constexpr double kSigma = 10.0, kBeta = 8.0 / 3.0;

std::size_t g_runs = 100000;

using Lorenz = bench::Lorenz3;

std::vector<double> rhos() { return batchode::linspace<double>(0.0, 21.0, g_runs); }

// Wall seconds per iteration and run-steps per iteration of each benchmark, for the summary.
struct Measured {
  double seconds = 0;
  double steps = 0;
  unsigned cores = 1;
};
std::map<std::string, Measured> g_measured;

void report(benchmark::State& state, const std::string& name, double steps_per_iteration, unsigned cores,
            double seconds) {
  state.counters["runs/s"] = benchmark::Counter(double(g_runs), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["run-steps/s/core"] =
      benchmark::Counter(steps_per_iteration / cores, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["steps/run"] = steps_per_iteration / double(g_runs);
  state.counters["cores"] = cores;
  g_measured[name] = {seconds / double(state.iterations()), steps_per_iteration, cores};
}

using OdeState = std::array<double, 3>;

/// The plain loop: one integrate_adaptive(make_controlled<runge_kutta_dopri5>) per run, on one core,
/// with the odeint system make_system(r) of run r.
template <class MakeSystem>
void time_odeint_loop(benchmark::State& state, const char* name, MakeSystem make_system) {
  namespace odeint = boost::numeric::odeint;
  double steps = 0, seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    std::size_t total = 0;
    for (std::size_t r = 0; r < g_runs; ++r) {
      OdeState x = {1.0, 0.0, 0.0};
      total += odeint::integrate_adaptive(odeint::make_controlled<odeint::runge_kutta_dopri5<OdeState>>(kAtol, kRtol),
                                          make_system(r), x, 0.0, 1.0, 0.01);
      benchmark::DoNotOptimize(x);
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    steps = double(total);
  }
  report(state, name, steps, 1, seconds);
}

void BM_odeint_loop(benchmark::State& state) {
  const std::vector<double> rho = rhos();
  time_odeint_loop(state, "odeint_loop", [&](std::size_t r) {
    const double rh = rho[r];
    return [rh](const OdeState& x, OdeState& dxdt, double) {
      dxdt[0] = kSigma * (x[1] - x[0]);
      dxdt[1] = x[0] * (rh - x[2]) - x[1];
      dxdt[2] = x[0] * x[1] - kBeta * x[2];
    };
  });
}

// The same loop with the system batchode solves: sigma, rho and beta read from each run's
// parameters at run time (the loop above has sigma and beta as compile-time constants).
void BM_odeint_loop_params(benchmark::State& state) {
  const std::vector<double> rho = rhos();
  std::vector<double> params;
  params.reserve(3 * g_runs);
  for (std::size_t r = 0; r < g_runs; ++r) params.insert(params.end(), {kSigma, rho[r], kBeta});
  benchmark::DoNotOptimize(params.data());
  time_odeint_loop(state, "odeint_loop_params", [&](std::size_t r) {
    const double* p = params.data() + 3 * r;
    return [p](const OdeState& x, OdeState& dxdt, double) { Lorenz{}(0.0, x.data(), p, dxdt.data()); };
  });
}

/// batchode's CPU path on `threads` threads (0: all), repeated solves of one Solver.
template <class System>
void time_batchode(benchmark::State& state, const char* name, const System& system, const std::vector<double>& y0,
                   const std::vector<double>& params, unsigned threads) {
  const unsigned cores = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  batchode::SolveOptions opt;
  opt.outputs.counters = true;  // read below (counters are off by default)
  opt.method = batchode::Method::dopri5;
  opt.t_end = 1.0;
  opt.rtol = kRtol;
  opt.atol = kAtol;
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  opt.cpu_threads = threads;
  batchode::Solver<System> solver(system, opt);
  double steps = 0, seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const auto res = solver.solve(y0, params);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!res.all_succeeded()) state.SkipWithError("a run failed");
    double total = 0;
    for (const auto& c : res.counters()) total += c.accepted_steps;
    steps = total;
  }
  report(state, name, steps, cores, seconds);
}

void BM_batchode_cpu(benchmark::State& state) {
  const unsigned threads = static_cast<unsigned>(state.range(0));
  const std::vector<double> rho = rhos();
  std::vector<double> y0, params;
  y0.reserve(3 * g_runs);
  params.reserve(3 * g_runs);
  for (std::size_t r = 0; r < g_runs; ++r) {
    y0.insert(y0.end(), {1.0, 0.0, 0.0});
    params.insert(params.end(), {kSigma, rho[r], kBeta});
  }
  time_batchode(state, threads == 1 ? "batchode_1_thread" : "batchode_all_threads", Lorenz{}, y0, params, threads);
}

// batchode on the loop's own system: rho the only parameter, sigma and beta compile-time constants.
struct LorenzRho {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = T(kSigma) * (y[1] - y[0]);
    dydt[1] = y[0] * (p[0] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - T(kBeta) * y[2];
  }
};

void BM_batchode_cpu_rho(benchmark::State& state) {
  std::vector<double> y0;
  y0.reserve(3 * g_runs);
  for (std::size_t r = 0; r < g_runs; ++r) y0.insert(y0.end(), {1.0, 0.0, 0.0});
  time_batchode(state, "batchode_1_thread_rho", LorenzRho{}, y0, rhos(), 1);
}

BENCHMARK(BM_odeint_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_batchode_cpu_rho)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_odeint_loop_params)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_batchode_cpu)->Arg(1)->Arg(0)->ArgName("cpu_threads")->Unit(benchmark::kMillisecond)->UseRealTime();

void print_summary() {
  const auto get = [](const char* name) -> const Measured* {
    const auto it = g_measured.find(name);
    return it == g_measured.end() ? nullptr : &it->second;
  };
  const Measured* odeint = get("odeint_loop");
  const Measured* one = get("batchode_1_thread");
  const Measured* all = get("batchode_all_threads");
  std::printf("\nLorenz sweep, %zu runs, dopri5, rtol = atol = %g, t in [0, 1]\n", g_runs, kRtol);
  std::printf("%-22s %10s %12s %14s %20s\n", "", "wall ms", "runs/s", "steps/run", "run-steps/s/core");
  for (const auto& [name, m] : g_measured) {
    std::printf("%-22s %10.1f %12.4g %14.1f %20.4g\n", name.c_str(), m.seconds * 1e3, double(g_runs) / m.seconds,
                m.steps / double(g_runs), m.steps / m.seconds / m.cores);
  }
  if (odeint && one) {
    std::printf("per core, batchode / odeint loop: %.2fx in runs/s, %.2fx in run-steps/s\n",
                odeint->seconds / one->seconds, (one->steps / one->seconds) / (odeint->steps / odeint->seconds));
  }
  if (const Measured* rho_only = get("batchode_1_thread_rho"); odeint && rho_only) {
    std::printf("per core, both with sigma and beta as constants (batchode's system rho-only): %.2fx in runs/s, "
                "%.2fx in run-steps/s\n",
                odeint->seconds / rho_only->seconds,
                (rho_only->steps / rho_only->seconds) / (odeint->steps / odeint->seconds));
  }
  if (const Measured* same = get("odeint_loop_params"); same && one) {
    std::printf("per core, batchode / odeint loop on the same system (parameters per run): %.2fx in runs/s, "
                "%.2fx in run-steps/s\n",
                same->seconds / one->seconds, (one->steps / one->seconds) / (same->steps / same->seconds));
  }
  if (one && all) {
    std::printf("batchode all %u threads / 1 thread: %.2fx (wall), parallel efficiency %.0f%%\n", all->cores,
                one->seconds / all->seconds, 100.0 * one->seconds / all->seconds / all->cores);
  }
  if (odeint && all) std::printf("batchode all threads / odeint loop: %.2fx in runs/s\n", odeint->seconds / all->seconds);
}

// Takes --runs=N out of argv (Google Benchmark rejects flags it does not know).
void parse_runs(int& argc, char** argv) {
  if (const char* env = std::getenv("BATCHODE_BENCH_RUNS")) g_runs = std::strtoull(env, nullptr, 10);
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--runs=", 7) == 0) {
      g_runs = std::strtoull(argv[i] + 7, nullptr, 10);
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  if (g_runs < 2) g_runs = 2;
}

}  // namespace

int main(int argc, char** argv) {
  parse_runs(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  return 0;
}
