// A user's program with a 64-state compiled-in system (issue 13's "build of a user program"): the
// Brusselator on 32 points without its band (so the Rosenbrock methods take the dense Jacobian by AD
// and the dense LU), solved with rodas4 in double on the GPU and on the CPU, which must agree run by
// run. Built twice by program_build.sh: as most programs are written (the system lists no methods, so
// the build holds every method's kernels and CPU steppers) and with
//   static constexpr batchode::Method compiled_methods[] = {batchode::Method::rodas4};
// (ONE_METHOD), the build time of each is the measurement; running it is the check.
#include <batchode/batchode.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#ifndef BAND_
#define BAND_ 0  // -DBAND_=1: the band declared (the band path's kernels)
#endif
#include "large_systems/systems.hpp"

#ifndef N_
#define N_ 64
#endif

struct Bruss : batchode_bench::Brusselator<N_> {
#ifdef ONE_METHOD
  static constexpr batchode::Method compiled_methods[] = {batchode::Method::rodas4};
#endif
};

int main() {
  constexpr std::size_t N = N_, M = N / 2, runs = 4096;
  std::vector<double> y0(runs * N), a(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    for (std::size_t i = 0; i < M; ++i) {
      y0[r * N + 2 * i] = 1 + std::sin(2 * 3.14159265358979 * double(i + 1) / double(M + 1));
      y0[r * N + 2 * i + 1] = 3;
    }
    a[r] = 0.9 + 0.2 * double(r) / double(runs - 1);
  }
  batchode::SolveOptions o;
  o.method = batchode::Method::rodas4;
  o.t_end = 1;
  o.rtol = o.atol = 1e-6;
  o.verbosity = batchode::Verbosity::none;
  o.backend = batchode::Backend::gpu;
  const auto gpu = batchode::solve_ivp(Bruss{}, y0, a, o);
  o.backend = batchode::Backend::cpu;
  const auto cpu = batchode::solve_ivp(Bruss{}, y0, a, o);
  double worst = 0;
  std::size_t failed = 0;
  for (std::size_t r = 0; r < runs; ++r) {
    failed += gpu.status(r) != batchode::Status::success || cpu.status(r) != batchode::Status::success;
    for (std::size_t s = 0; s < N; ++s) {
      const double c = cpu.final_state(r, s);
      worst = std::fmax(worst, std::fabs(gpu.final_state(r, s) - c) / (1e-6 + 1e-6 * std::fabs(c)));
    }
  }
  std::printf(
      "program_build N=%zu runs=%zu %s: failed=%zu, GPU against CPU: worst |difference| / (atol + rtol "
      "|cpu|) = %.3g\n",
      N, runs,
#ifdef ONE_METHOD
      "compiled_methods={rodas4}",
#else
      "every method",
#endif
      failed, worst);
  return failed == 0 && worst < 1e-3 ? 0 : 1;
}
