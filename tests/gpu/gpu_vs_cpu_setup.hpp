// tests/gpu: what the GPU-against-CPU tests share (gpu_vs_cpu_test.cpp, gpu_vs_cpu_outputs_test.cpp,
// gpu_vs_cpu_solver_test.cpp, three files so that a build compiles their kernels side by side: nvcc
// took 230 s on the one file): the Lorenz sweep and the options the runs are compared under.
#pragma once

#include <batchode/batchode.hpp>
#include <string>

#include "test_systems.hpp"

namespace batchode::testing::gpu_vs_cpu {

template <class T>
inline Batch<T> lorenz_sweep(std::size_t runs) {
  GridBuilder<T> grid({T(1), T(0), T(0)}, {T(10), T(28), T(8.0 / 3)});
  grid.param(1, linspace<T>(0.0, 21.0, runs));
  return grid.build(GridKind::verbatim);
}

inline SolveOptions base_options(Method m, bool single) {
  SolveOptions o;
  o.outputs.counters = true;  // expect_runs_agree compares fixed-step counters (off by default)
  o.method = m;
  o.t_end = 1.0;
  o.verbosity = Verbosity::none;
  if (!method_info(m).adaptive) o.dt = 1e-3;
  o.rtol = single ? 1e-5 : 1e-8;
  o.atol = o.rtol;
  return o;
}

/// base_options saving every 0.01, landed or interpolated, in 3 chunks; and how a message names it.
inline SolveOptions saving_options(Method m, bool single, SaveMode mode) {
  SolveOptions o = base_options(m, single);
  o.gpu.chunks = 3;
  o.save_every = 0.01;
  o.save_mode = mode;
  return o;
}
inline std::string saving_name(Method m, SaveMode mode) {
  return to_string(m) + (mode == SaveMode::land ? " landed" : " interpolated");
}

}  // namespace batchode::testing::gpu_vs_cpu
