// solver/: what the backends are given of a solve's options: the per-run constants
// (kernels/run_settings.hpp) and the GPU path's request (backends/gpu/gpu_run_request.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/kernels/method_registry.hpp"
#include "batchode/kernels/run_settings.hpp"
#include "batchode/solver/options.hpp"

namespace batchode {

/// Builds the plan of a validated SolveOptions for precision T.
template <class T>
RunSettings<T> make_run_settings(const SolveOptions& o) {
  RunSettings<T> plan;
  plan.t0 = static_cast<T>(o.t0);
  plan.t_end = static_cast<T>(o.t_end);
  plan.dt = o.dt ? static_cast<T>(*o.dt) : T(0);
  plan.save_every = o.save_every ? static_cast<T>(*o.save_every) : T(0);
  plan.n_saves = static_cast<std::uint32_t>(count_saves(o));
  plan.rtol = static_cast<T>(o.rtol);
  plan.atol = static_cast<T>(o.atol);
  const StepControl& c = o.step_control;
  plan.safety = static_cast<T>(c.safety);
  plan.min_factor = static_cast<T>(c.min_factor);
  plan.max_factor = static_cast<T>(c.max_factor);
  plan.ki = static_cast<T>(c.ki);
  plan.kp = static_cast<T>(c.kp);
  plan.dt_min = static_cast<T>(c.dt_min);
  plan.dt_max = std::isfinite(c.dt_max) ? static_cast<T>(c.dt_max) : std::numeric_limits<T>::max();
  plan.max_steps = o.max_steps;
  return plan;
}

/// The GPU path's share of `o`: method, device, block size, memory budget, outputs, and whether
/// chunks are ordered (RunOrder::automatic orders the runs of adaptive methods; fixed steps cost the
/// same in every run, so there is nothing to gain).
inline GpuRunRequest make_gpu_run_request(const SolveOptions& o) {
  const bool order = o.run_order == RunOrder::automatic && is_known_method(o.method) &&
                     method_registry[static_cast<int>(o.method)].adaptive;
  GpuRunRequest request;
  request.method = o.method;
  request.device = o.gpu.device;
  request.block_size = o.gpu.block_size;
  request.budget = o.gpu;
  request.outputs = o.outputs;
  request.order_runs = order;
  request.stop = o.stop;
  return request;
}

}  // namespace batchode
