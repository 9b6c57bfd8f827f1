// solver/setup/: what the backends are given of a solve's options: the per-run constants
// (kernels/core/run_settings.hpp) and the GPU path's request (backends/gpu/gpu_run_request.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/setup/series_layout.hpp"
#include "batchode/solver/setup/summary_layout.hpp"

namespace batchode {

/// Builds the plan of a validated SolveOptions for precision T. `save_times`: o.save_at, or the whole
/// batch's o.save_at_per_run, in T (the result's times(), SolveResult), which the plan points to;
/// needed when either is set. `summaries`: the solve's summary layout (SolveResult::summary_layout()),
/// whose samples become the integrator's points; null or empty: none. `drivers`: the solve's fitted
/// drivers (Solver's), which the plan points to; null: none. `series`: the series' columns
/// (SolveResult::series_layout(); solver/setup/series_layout.hpp); null: every state and observable.
template <class T>
RunSettings<T> make_run_settings(const SolveOptions& o, const T* save_times = nullptr,
                                 const SummaryLayout* summaries = nullptr, const DriverTable<T>* drivers = nullptr,
                                 const SeriesLayout* series = nullptr) {
  const bool listed = !o.save_at.empty() || saves_per_run(o);
  if (listed && save_times == nullptr) {
    throw std::logic_error("make_run_settings: SolveOptions.save_at(_per_run) is set but its times in T were not given");
  }
  RunSettings<T> plan;
  plan.t0 = static_cast<T>(o.t0);
  plan.t_end = static_cast<T>(o.t_end);
  plan.dt = o.dt ? static_cast<T>(*o.dt) : T(0);
  plan.save_every = o.save_every ? static_cast<T>(*o.save_every) : T(0);
  plan.n_saves = static_cast<std::uint32_t>(count_saves(o));
  plan.n_series = plan.n_saves;
  plan.save_times = listed ? save_times : nullptr;
  plan.save_times_per_run = saves_per_run(o) ? 1u : 0u;
  plan.interpolate_saves = interpolates_saves(o) ? 1u : 0u;
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
  plan.stop = o.stop;  // read by the CPU path inside each run; the GPU path stops between chunks
  for (std::size_t e = 0; e < o.events.size(); ++e) {
    const EventSpec& spec = o.events[e];
    const std::uint32_t bit = 1u << e;
    if (spec.direction != EventDirection::falling) plan.event_rising |= bit;
    if (spec.direction != EventDirection::rising) plan.event_falling |= bit;
    if (spec.action == EventAction::terminal) plan.event_terminal |= bit;
    plan.event_max[e] = spec.max;
    plan.event_slots = std::max(plan.event_slots, spec.max);
  }
  const double t_scale = std::max({1.0, std::fabs(o.t0), std::fabs(o.t_end)});
  plan.event_tolerance = static_cast<T>(
      o.event_tolerance ? *o.event_tolerance : 100.0 * std::numeric_limits<T>::epsilon() * t_scale);
  if (summaries != nullptr) apply_summaries(*summaries, count_saves(o), plan);
  if (series != nullptr) apply_series(*series, plan);
  if (drivers != nullptr && drivers->size() > 0) {
    plan.drivers = drivers->pieces();
    plan.n_drivers = static_cast<std::uint32_t>(drivers->size());
    plan.driver_sets = drivers->sets();
  }
  return plan;
}

/// Whether a GPU solve under `o` orders each chunk's runs: RunOrder::automatic orders the runs of
/// adaptive methods; fixed steps cost the same in every run, so there is nothing to gain.
inline bool orders_runs(const SolveOptions& o) {
  return o.run_order == RunOrder::automatic && is_known_method(o.method) &&
         method_registry[static_cast<int>(o.method)].adaptive;
}

/// The GPU path's share of `o`: method, device, block size, memory budget, outputs, and whether
/// chunks are ordered (orders_runs).
inline GpuRunRequest make_gpu_run_request(const SolveOptions& o) {
  GpuRunRequest request;
  request.method = o.method;
  request.device = o.gpu.device;
  request.block_size = o.gpu.block_size;
  request.split_runs = o.gpu.split_runs;
  request.budget = o.gpu;
  request.outputs = o.outputs;
  request.events = event_shape(o);
  request.order_runs = orders_runs(o);
  request.stop = o.stop;
  return request;
}

}  // namespace batchode
