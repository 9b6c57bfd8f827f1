// A batch of the oscillator (test_systems.hpp) over its frequency, for the dense-output and events
// tests, which check against its closed form.
#pragma once

#include <batchode/solver/grid.hpp>
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

}  // namespace batchode::testing
