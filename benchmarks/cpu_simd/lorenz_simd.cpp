// cpu_simd: how fast one CPU core steps many runs of one system, by the SIMD layer and the instruction
// set (issue 48, measured before the CPU path is rebuilt over blocks of runs). The Lorenz rho sweep
// (sigma 10, beta 8/3, y0 = (1, 0, 0), rho = linspace(0, 21, N)), RK4 with dt = 1e-3 over t in
// [0, 1] (1000 steps), final state, on one thread:
// - the variants of lorenz_variants.hpp (one run at a time; blocks of runs in plain loops the compiler
//   vectorises, in GCC vectors, in std::experimental::simd), each built for baseline x86-64 (SSE2),
//   AVX2 and AVX-512 and run where the CPU has them;
// - batchode's CPU path on the same problem (Backend::cpu, cpu_threads = 1: Boost.Odeint's runge_kutta4,
//   one run at a time), and the same system declaring simd_runs: Boost.Odeint's runge_kutta4 on packs
//   of runs, blocks of runs in SIMD lanes (backends/cpu/run_blocks.hpp), with each instruction set;
//   the same two with dopri5 at rtol = atol = 1e-6 (the block loop's step controller in lanes), and
//   both keeping a series of 101 points: RK4 saving every 10 steps (save_every 0.01), dopri5
//   interpolating save_at = linspace(0, 1, 101) with its own dense output.
// Prints run-steps/s (runs x accepted steps / wall time; the median of --reps) and the ratio to
// batchode a run at a time, and checks that every variant gives the scalar loop's final states bit for
// bit (same operations) and batchode's within 1e-12 relative (odeint orders RK4's sums differently),
// and that batchode's blocks give each run its final state, status, stop time, counters and saved
// points a run at a time, bit for bit.
//   cpu_simd_lorenz [--runs N] [--reps K]
#include <algorithm>
#include <batchode/backends/cpu/simd_set.hpp>
#include <batchode/batchode.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lorenz_variants.hpp"

namespace {

using namespace batchode_bench_simd;

constexpr int kSteps = 1000;

/// The variants' system for batchode: rho per run, sigma and beta the constants they use.
struct LorenzRho {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    const T sigma = static_cast<T>(10.0), beta = static_cast<T>(8.0 / 3.0);
    dydt[0] = sigma * (y[1] - y[0]);
    dydt[1] = y[0] * (p[0] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - beta * y[2];
  }
};

/// LorenzRho taking packs of runs: batchode integrates it in blocks of runs in SIMD lanes.
struct LorenzRhoInLanes : LorenzRho {
  static constexpr bool simd_runs = true;
};

template <class F>
double median_s(int reps, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
double max_rel_diff(const std::vector<T>& a, const std::vector<T>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    worst = std::max(worst, d / std::max(1.0, std::fabs(static_cast<double>(b[i]))));
  }
  return worst;
}

/// batchode's CPU path on one thread with options `o` (method and steps), a run at a time and in
/// blocks of runs in SIMD lanes (backends/cpu/run_blocks.hpp: the same system declaring simd_runs) with
/// each instruction set the CPU has (BATCHODE_CPU_SIMD); prints the rates (runs x mean accepted steps /
/// wall), puts a run at a time's final states in `reference` and returns how many block variants did not
/// give each run those numbers (final state, status, stop time, counters and series) bit for bit.
template <class T>
int compare_blocks(const char* precision, const char* method, batchode::SolveOptions o,
                   const std::vector<T>& y0, const std::vector<T>& rho, int reps, std::vector<T>& reference,
                   double& alone_s) {
  const std::size_t runs = rho.size();
  o.backend = batchode::Backend::cpu;
  o.cpu_threads = 1;
  o.verbosity = batchode::Verbosity::none;
  o.outputs.counters = true;
  batchode::TimeLogger quiet(nullptr, batchode::Verbosity::none);
  const auto keep = [&](const batchode::SolveResult<T>& r, std::vector<T>& out) {
    out.assign(3 * runs, T(0));
    for (std::size_t i = 0; i < runs; ++i)
      for (std::size_t s = 0; s < 3; ++s) out[3 * i + s] = r.final_state(i, s);
  };
  unsetenv("BATCHODE_CPU_SIMD");
  const batchode::cpu::SimdSet widest = batchode::cpu::simd_set();
  setenv("BATCHODE_CPU_SIMD", "off", 1);
  batchode::Solver<LorenzRho, T> solver(LorenzRho{}, o, quiet);
  batchode::SolveResult<T> alone = solver.solve(y0, rho);
  double run_steps = 0;
  for (std::size_t i = 0; i < runs; ++i) run_steps += alone.counters()[i].accepted_steps;
  alone_s = median_s(reps, [&] { alone = solver.solve(y0, rho); });
  keep(alone, reference);
  std::printf(
      "%-8s %-15s %-26s %10.3e run-steps/s  %6.2fx  (batchode's CPU path, 1 thread, a run at a time)\n",
      precision, method, "batchode cpu x1", run_steps / alone_s, 1.0);

  int failures = 0;
  batchode::Solver<LorenzRhoInLanes, T> blocks(LorenzRhoInLanes{}, o, quiet);
  for (batchode::cpu::SimdSet simd :
       {batchode::cpu::SimdSet::baseline, batchode::cpu::SimdSet::avx2, batchode::cpu::SimdSet::avx512}) {
    if (simd > widest) continue;
    const char* set = batchode::cpu::simd_set_name(simd);
    setenv("BATCHODE_CPU_SIMD", set, 1);
    batchode::SolveResult<T> r = blocks.solve(y0, rho);
    const double blocks_s = median_s(reps, [&] { r = blocks.solve(y0, rho); });
    std::vector<T> in_blocks;
    keep(r, in_blocks);
    bool same = std::memcmp(in_blocks.data(), reference.data(), reference.size() * sizeof(T)) == 0 &&
                r.series().size() == alone.series().size() &&
                std::memcmp(r.series().data(), alone.series().data(), r.series().size() * sizeof(T)) == 0;
    for (std::size_t i = 0; i < runs; ++i) {
      const batchode::RunCounters &a = r.counters()[i], &b = alone.counters()[i];
      same = same && r.statuses()[i] == alone.statuses()[i] &&
             std::memcmp(&r.stop_times()[i], &alone.stop_times()[i], sizeof(T)) == 0 &&
             a.accepted_steps == b.accepted_steps && a.rejected_steps == b.rejected_steps &&
             a.rhs_evaluations == b.rhs_evaluations;
    }
    if (!same) ++failures;
    std::printf("%-8s %-15s %-26s %10.3e run-steps/s  %6.2fx  bits %s\n", precision, method,
                (std::string("batchode cpu x1 blocks ") + set).c_str(), run_steps / blocks_s,
                alone_s / blocks_s,
                same ? "= batchode a run at a time" : "DIFFER from batchode a run at a time");
  }
  unsetenv("BATCHODE_CPU_SIMD");
  return failures;
}

template <class T>
int measure(const char* precision, const std::vector<Variant<T>>& variants, std::size_t runs, int reps) {
  std::vector<T> rho(runs);
  for (std::size_t r = 0; r < runs; ++r)
    rho[r] = static_cast<T>(21.0 * static_cast<double>(r) / static_cast<double>(runs));
  const T dt = static_cast<T>(1e-3);
  const double run_steps = static_cast<double>(runs) * kSteps;
  std::vector<T> y0(3 * runs, T(0));
  for (std::size_t r = 0; r < runs; ++r) y0[3 * r] = 1;

  // batchode's CPU path, a run at a time and in blocks; dopri5 at 1e-6 too.
  batchode::SolveOptions o;
  o.t0 = 0;
  o.t_end = 1;
  o.method = batchode::Method::dopri5;
  o.rtol = o.atol = 1e-6;
  std::vector<T> reference;
  double batchode_s = 0;  // a run at a time; the variants' ratios are to its rk4 time
  int failures = compare_blocks(precision, "dopri5", o, y0, rho, reps, reference, batchode_s);
  o.method = batchode::Method::rk4;
  o.dt = 1e-3;
  // The series of 101 points: RK4 every 10 steps, dopri5 interpolated (`reference` stays rk4's final
  // states: the series' own steps are the same).
  std::vector<T> series_reference;
  double series_s = 0;
  batchode::SolveOptions saving = o;
  saving.save_every = 0.01;
  failures += compare_blocks(precision, "rk4 save_every", saving, y0, rho, reps, series_reference, series_s);
  saving = o;
  saving.method = batchode::Method::dopri5;
  saving.dt.reset();
  for (int k = 0; k <= 100; ++k) saving.save_at.push_back(k / 100.0);
  failures += compare_blocks(precision, "dopri5 save_at", saving, y0, rho, reps, series_reference, series_s);
  failures += compare_blocks(precision, "rk4", o, y0, rho, reps, reference, batchode_s);

  std::vector<T> scalar_out(3 * runs), out(3 * runs);
  for (const Variant<T>& v : variants) {
    std::fill(out.begin(), out.end(), T(0));
    const double s = median_s(reps, [&] { v.run(rho.data(), runs, dt, kSteps, out.data()); });
    if (v.name.rfind("scalar baseline", 0) == 0) scalar_out = out;
    const bool same_bits = std::memcmp(out.data(), scalar_out.data(), out.size() * sizeof(T)) == 0;
    const double vs_batchode = max_rel_diff(out, reference);
    const double bound = sizeof(T) == 8 ? 1e-12 : 1e-4;
    if (!same_bits || !(vs_batchode <= bound)) ++failures;
    std::printf("%-8s %-15s %-26s %10.3e run-steps/s  %6.2fx  bits %s, vs batchode %.1e%s\n", precision,
                "rk4", v.name.c_str(), run_steps / s, batchode_s / s, same_bits ? "= scalar" : "DIFFER",
                vs_batchode, vs_batchode <= bound ? "" : " (over the bound)");
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t runs = 16384;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::strtoul(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
  }
  std::vector<Variant<float>> single;
  std::vector<Variant<double>> dual;
  auto add = [&](const Variants& v) {
    single.insert(single.end(), v.single.begin(), v.single.end());
    dual.insert(dual.end(), v.dual.begin(), v.dual.end());
  };
  add(variants_baseline());
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) add(variants_avx2());
  if (__builtin_cpu_supports("avx512f")) add(variants_avx512());
  std::printf("Lorenz rho sweep, %zu runs, RK4 dt 1e-3 x %d steps, one thread, median of %d\n", runs, kSteps,
              reps);
  int failures = measure("float64", dual, runs, reps);
  failures += measure("float32", single, runs, reps);
  if (failures != 0) std::printf("%d variants differ from the scalar loop or from batchode\n", failures);
  return failures == 0 ? 0 : 1;
}
