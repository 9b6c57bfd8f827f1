// backends/cpu/: the CPU path's loop over a range of runs: initial values in, integrate_run
// with the method's CPU stepper, final state, status, counters and series out (through the strided
// sinks the batch kernel uses, a run's row at stride 1: kernels/outputs/strided_outputs.hpp). The one
// copy of that loop: cpu_backend.hpp runs it on the worker threads for compiled-in systems, and a
// model compiled at run time runs it inside its shared object (runtime_entry_source.inl), so both give
// the same numbers.
// Needs only the core (kernels/), Boost.Odeint and the result view: no runtime, no timing, no threads,
// which keeps the runtime compilation of a model short.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/cpu/cpu_stepper.hpp"
#include "batchode/backends/cpu/run_blocks.hpp"
#include "batchode/backends/cpu/run_sinks.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/loop/run_integrator.hpp"
#include "batchode/kernels/outputs/driven_system.hpp"
#include "batchode/kernels/outputs/observables.hpp"
#include "batchode/kernels/outputs/saved_variables.hpp"
#include "batchode/kernels/outputs/strided_outputs.hpp"
#include "batchode/kernels/outputs/summaries.hpp"

namespace batchode::cpu {

/// Integrates run r of a validated batch (y0, params: the whole batch, run-major) with `sys` (the
/// integrated system: the user's, or run r's Driven) into row r of `result`.
template <class Tab, class System, class T, class Stepper>
void integrate_one_run(const System& sys, const T* y0, const T* params, std::size_t r,
                       const RunSettings<T>& plan, const ResultView<T>& result, Stepper& stepper) {
  constexpr std::size_t N = System::n_states;
  constexpr std::size_t P = System::n_params;
  typename Stepper::state_type y{};
  for (std::size_t s = 0; s < N; ++s) y[s] = y0[r * N + s];
  // A system whose events assign parameters changes them in a copy of the run's own (apply_assignments).
  [[maybe_unused]] T own_params[P > 0 ? P : 1];
  const T* p = P > 0 ? params + r * P : nullptr;
  if constexpr (parameter_assignments_v<System> != 0 && P > 0) {
    for (std::size_t i = 0; i < P; ++i) own_params[i] = params[r * P + i];
    p = own_params;
  }
  RunCounters counters{};
  T t_reached = plan.t0;
  // Per-run save times: this run's row of the batch's.
  const RunSettings<T> run_plan =
      plan.save_times_per_run != 0 ? for_run(plan, plan.save_times + r * std::size_t{plan.n_saves}, 1) : plan;
  // With events, the series sink (or none) wrapped in this run's event rows.
  auto run = [&](auto series) {
    constexpr std::size_t E = n_events_v<System>;
    if constexpr (E > 0) {
      const std::size_t width = E * std::size_t{plan.event_slots} * (N + 1);
      StridedEventSink<decltype(series), T, N, E> sink{
          series, result.events + r * width, result.event_counts + r * E, 1, 0, plan.event_slots};
      return integrate_run(stepper, sys, y, p, run_plan, sink, counters, t_reached);
    } else {
      return integrate_run(stepper, sys, y, p, run_plan, series, counters, t_reached);
    }
  };
  // With summaries, they are kept around the series sink (whose saves may be none of the points).
  auto summarising = [&](auto series) {
    if (plan.summary_windows != 0) return run(summary_sink(series, sys, p, run_plan, result, r));
    return run(series);
  };
  // The series' columns: every state and observable, or those the plan chose (run_sinks.hpp).
  const Status status =
      plan.n_saves > 0 ? summarising(series_sink(sys, p, plan, result, r)) : run(NoSeries{});
  for (std::size_t s = 0; s < N; ++s) result.final_state[r * N + s] = y[s];
  if (Status* out = result.status) out[r] = status;
  if (T* out = result.stop_time) out[r] = t_reached;
  if (RunCounters* out = result.counters) out[r] = counters;
}

/// Integrates runs [begin, end) of a validated batch (y0, params: the whole batch, run-major) into the
/// same rows of `result` with `stepper` (a worker's own, reused across its ranges). `plan` is taken by
/// value on purpose: through a reference the compiler must assume every store to a state may change
/// the settings and reloads them after it. A system that reads drivers runs as each run's Driven
/// (kernels/outputs/driven_system.hpp: run r reads set r of per-run drivers).
template <class Tab, class System, class T>
void integrate_run_range(const System& sys, const T* y0, const T* params, std::size_t begin, std::size_t end,
                         const RunSettings<T> plan, const ResultView<T>& result,
                         typename CpuStepperFor<Tab, System, T>::type& stepper) {
  // Whole blocks of runs in SIMD lanes where the system, method and plan allow (run_blocks.hpp); the
  // runs left over, a block whose state turned non-finite, and every run where blocks are not allowed,
  // one at a time.
  for (std::size_t next = begin; next < end;) {
    const RunsAlone alone = integrate_run_blocks<Tab>(sys, y0, params, next, end, plan, result);
    for (std::size_t r = alone.first; r < alone.last; ++r) {
      if constexpr (n_drivers_v < System >> 0) {
        integrate_one_run<Tab>(drive(sys, plan, r), y0, params, r, plan, result, stepper);
      } else {
        integrate_one_run<Tab>(sys, y0, params, r, plan, result, stepper);
      }
    }
    next = alone.last;
  }
}

}  // namespace batchode::cpu
