// The batch the distributed tests solve (tests/distributed/ on threads, tests/mpi/ under mpiexec):
// Lorenz runs whose rho and z0 vary, dopri5 at 1e-8 with a saved series and counters, on one CPU
// thread per process, so that every run is integrated alone and the results of a distributed solve
// must equal one Solver's bit for bit.
#pragma once

#include <cstddef>

#include "batchode/solver/grid.hpp"
#include "batchode/solver/options.hpp"

namespace batchode::testing {

inline SolveOptions distributed_lorenz_options() {
  SolveOptions o;
  o.t_end = 2;
  o.method = Method::dopri5;
  o.rtol = 1e-8;
  o.atol = 1e-8;
  o.save_every = 0.25;
  o.outputs.counters = true;
  o.backend = Backend::cpu;
  o.cpu_threads = 1;
  o.verbosity = Verbosity::none;
  return o;
}

template <class T>
Batch<T> distributed_lorenz_batch(std::size_t runs) {
  Batch<T> b;
  for (std::size_t i = 0; i < runs; ++i) {
    b.y0.insert(b.y0.end(), {T(1), T(1), T(1) + T(0.01) * T(i)});
    b.params.insert(b.params.end(), {T(10), T(20) + T(0.5) * T(i), T(8) / T(3)});
  }
  return b;
}

}  // namespace batchode::testing
