// A batch of the oscillator (test_systems.hpp) over its frequency, and the CPU options of a quiet
// solve with counters, for the dense-output and events tests, which check against its closed form.
#pragma once

#include <batchode/kernels/methods/method.hpp>
#include <batchode/solver/setup/grid.hpp>
#include <batchode/solver/setup/options.hpp>
#include <cstddef>

namespace batchode::testing {

/// A batch of oscillators from (1, 0), w over [w_lo, w_hi]: x = cos(w t), v = -w sin(w t).
inline Batch<double> oscillator_batch(std::size_t runs, double w_lo, double w_hi) {
  Batch<double> b;
  b.n_runs = runs;
  for (std::size_t i = 0; i < runs; ++i) {
    b.y0.push_back(1.0);
    b.y0.push_back(0.0);
    b.params.push_back(runs > 1 ? w_lo + (w_hi - w_lo) * double(i) / double(runs - 1) : w_lo);
  }
  return b;
}

/// `b` in precision T (each value rounded once).
template <class T>
Batch<T> in_precision(const Batch<double>& b) {
  Batch<T> out;
  out.n_runs = b.n_runs;
  for (double v : b.y0) out.y0.push_back(static_cast<T>(v));
  for (double v : b.params) out.params.push_back(static_cast<T>(v));
  return out;
}

/// `m` over [0, t_end] on the CPU, quiet, with counters (tolerances: the defaults).
inline SolveOptions quiet_cpu_options(Method m, double t_end) {
  SolveOptions o;
  o.method = m;
  o.t_end = t_end;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.outputs.counters = true;
  return o;
}

}  // namespace batchode::testing
