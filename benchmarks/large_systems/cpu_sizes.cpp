// The CPU path as N grows (issue 13): batchode's CPU backend on one thread against the plainest loop
// of Boost.Odeint over the same runs, Lorenz-96 (large_systems/systems.hpp) on N = 4 .. 128 states in
// double, state in a std::array<double, N> on both sides (what batchode's CPU path keeps: no
// allocation per step, the size known to the compiler). Per N: RK4 with dt = 1e-3 over t in [0, 1]
// (odeint: do_step in a loop) and dopri5 at rtol = atol = 1e-6 (odeint: integrate_adaptive of a
// controlled stepper, whose controller differs from batchode's, so its steps are counted separately);
// the runs sweep F over [6, 10]. Printed: state-steps per second on one core for both, and their
// ratio; the best of 3 repetitions. Runs per N shrink as N grows so each row takes about as long.
//   ninja -C build benchmarks/cpu_sizes && build/benchmarks/cpu_sizes [--scale S]
// (S multiplies the runs; default 1. Not in the default build: a measurement, not a check.)
#include <array>
#include <batchode/batchode.hpp>
#include <boost/numeric/odeint.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "large_systems/systems.hpp"

namespace {

namespace odeint = boost::numeric::odeint;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Lorenz-96 in double only: no dual numbers reach it, so no Rosenbrock stepper (a dense 128 x 128
/// Jacobian) is built for the CPU backend's dispatch (the build's time).
template <std::size_t N>
struct Lorenz96Double {
  static constexpr std::size_t n_states = N;
  static constexpr std::size_t n_params = 1;
  void operator()(double t, const double* y, const double* p, double* dydt) const {
    batchode_bench::Lorenz96<N>{}(t, y, p, dydt);
  }
};

template <std::size_t N>
struct Problem {
  using System = Lorenz96Double<N>;
  using State = std::array<double, N>;
  std::size_t runs;
  batchode::Batch<double> batch;

  explicit Problem(std::size_t n_runs) : runs(n_runs) {
    batch.n_runs = runs;
    batch.y0.resize(runs * N);
    batch.params.resize(runs);
    for (std::size_t r = 0; r < runs; ++r) {
      batch.params[r] = 6 + 4 * double(r) / double(runs > 1 ? runs - 1 : 1);
      for (std::size_t i = 0; i < N; ++i)
        batch.y0[r * N + i] = 8 + 0.5 * std::sin(0.7 * double(i) + 0.01 * double(r));
    }
  }

  /// The plain loop's right-hand side: run r's F bound.
  struct Rhs {
    double f;
    void operator()(const State& x, State& dxdt, double t) const { System{}(t, x.data(), &f, dxdt.data()); }
  };

  State start(std::size_t r) const {
    State x;
    for (std::size_t i = 0; i < N; ++i) x[i] = batch.y0[r * N + i];
    return x;
  }

  /// State-steps per second of the plain odeint loop, and a checksum.
  double odeint_rate(bool adaptive, double& checksum) const {
    const auto t0 = std::chrono::steady_clock::now();
    double steps = 0;
    checksum = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      State x = start(r);
      const Rhs rhs{batch.params[r]};
      if (adaptive) {
        steps += double(odeint::integrate_adaptive(
            odeint::make_controlled(1e-6, 1e-6, odeint::runge_kutta_dopri5<State>{}), rhs, x, 0.0, 1.0,
            1e-3));
      } else {
        odeint::runge_kutta4<State> stepper;
        for (int k = 0; k < 1000; ++k) stepper.do_step(rhs, x, k * 1e-3, 1e-3);
        steps += 1000;
      }
      checksum += x[0];
    }
    return steps * double(N) / seconds_since(t0);
  }

  /// State-steps per second of batchode's CPU path on one thread (accepted steps from its counters).
  double batchode_rate(bool adaptive, double& checksum) const {
    batchode::SolveOptions o;
    o.method = adaptive ? batchode::Method::dopri5 : batchode::Method::rk4;
    if (!adaptive) o.dt = 1e-3;
    o.rtol = o.atol = 1e-6;
    o.t_end = 1;
    o.backend = batchode::Backend::cpu;
    o.cpu_threads = 1;
    o.outputs.counters = true;
    o.verbosity = batchode::Verbosity::none;
    batchode::Solver<System, double> solver(System{}, o);
    const auto t0 = std::chrono::steady_clock::now();
    const batchode::SolveResult<double> result = solver.solve(batch);
    const double secs = seconds_since(t0);
    double steps = 0;
    checksum = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      steps += result.counters(r).accepted_steps;
      checksum += result.final_state(r, 0);
    }
    return steps * double(N) / secs;
  }
};

template <std::size_t N>
void row(double scale) {
  const Problem<N> problem(static_cast<std::size_t>(scale * 16384.0 / double(N)) + 1);
  for (bool adaptive : {false, true}) {
    double plain = 0, ours = 0, plain_sum = 0, our_sum = 0;
    for (int rep = 0; rep < 3; ++rep) {
      plain = std::max(plain, problem.odeint_rate(adaptive, plain_sum));
      ours = std::max(ours, problem.batchode_rate(adaptive, our_sum));
    }
    std::printf("| %s | %zu | %zu | %.3g | %.3g | %.2f | %.6g | %.6g |\n", adaptive ? "dopri5" : "rk4", N,
                problem.runs, ours, plain, ours / plain, our_sum, plain_sum);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double scale = 1;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--scale") == 0) scale = std::atof(argv[i + 1]);
  }
  std::printf(
      "| method | N | runs | batchode state-steps/s (1 thread) | odeint loop state-steps/s | batchode / "
      "odeint | "
      "batchode checksum | odeint checksum |\n|---|---|---|---|---|---|---|---|\n");
  row<4>(scale);
  row<8>(scale);
  row<16>(scale);
  row<32>(scale);
  row<64>(scale);
  row<128>(scale);
  return 0;
}
