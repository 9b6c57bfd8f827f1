// kernels/launch/: the batch kernel: one thread integrates one run of a chunk with integrate_run (the loop
// the CPU path runs too) and the register stepper. Parameterised at compile time by method
// (tableau), system, precision, whether a series is saved and which summary kinds are kept, so a
// final-state-only solve carries no series code and a series-only solve no summary code: three
// instantiations, final state (SaveSeries false), series (true, Summaries 0) and summaries (true,
// Summaries: the kinds the kernel is built for, kernels/outputs/summaries.hpp; any series beside them).
// Device layouts: kernels/launch/device_views.hpp (run-major inputs and final state, touched once per
// run; runs-fastest series, so each save's stores coalesce across a warp), written through the strided
// sinks the CPU path uses too (kernels/outputs/strided_outputs.hpp).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/linalg/jacobian.hpp"
#include "batchode/kernels/loop/run_integrator.hpp"
#include "batchode/kernels/methods/rk_stepper.hpp"
#include "batchode/kernels/methods/stiff_stepper.hpp"
#include "batchode/kernels/outputs/driven_system.hpp"
#include "batchode/kernels/outputs/observables.hpp"
#include "batchode/kernels/outputs/saved_variables.hpp"
#include "batchode/kernels/outputs/strided_outputs.hpp"
#include "batchode/kernels/outputs/summaries.hpp"

namespace batchode::kernels {

/// The device stepper of method Tab: the register RK stepper for explicit tables, the Rosenbrock or
/// ESDIRK stepper for stiff ones (StiffStepper). `available` is false where no kernel can exist (a
/// CPU-only method, or a stiff method for a system that cannot be linearised); Solver never launches
/// those.
template <class Tab, class System, class T, bool Stiff = has_stiff_stepper_v<Tab>>
struct StepperFor {
  using type = RkStepper<Tab, T, System::n_states>;
  static constexpr bool available = tableau::runs_on_gpu_v<Tab>;
};
template <class Tab, class System, class T>
struct StepperFor<Tab, System, T, true> {
  using type = StiffStepper<Tab, System, T>;
  static constexpr bool available = can_linearize_v<System, T>;
};

/// integrate_run into `series` (a series sink or NoSeries), with thread r's event outputs around it
/// for a system with events.
BATCHODE_HD_TEMPLATE
template <class Series, class Stepper, class System, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE Status integrate_into(
    Series series, Stepper& stepper, const System& sys, typename Stepper::state_type& y, const T* p,
    const RunSettings<T>& plan, const kernels::DeviceOutputs<T>& out, port::size_t r, RunCounters& counters,
    T& t_reached) {
  constexpr port::size_t E = n_events_v<System>;
  if constexpr (E > 0) {
    StridedEventSink<Series, T, System::n_states, E> sink{series, out.events, out.event_counts,
                                                          out.stride, r, plan.event_slots};
    return integrate_run(stepper, sys, y, p, plan, sink, counters, t_reached);
  } else {
    (void)out, (void)r;
    return integrate_run(stepper, sys, y, p, plan, series, counters, t_reached);
  }
}

/// Stores run r's status, stop time and counters where the chunk keeps them (a solve may keep none).
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void store_run_outcome(const kernels::DeviceOutputs<T>& out,
                                                                 port::size_t r, Status status,
                                                                 const RunCounters& counters, T t_reached) {
  if (out.status != nullptr) out.status[r] = static_cast<port::int32_t>(status);
  if (out.stop_time != nullptr) out.stop_time[r] = t_reached;
  if (out.accepted != nullptr) {
    out.accepted[r] = counters.accepted_steps;
    out.rejected[r] = counters.rejected_steps;
    out.rhs_evaluations[r] = counters.rhs_evaluations;
  }
}

/// Integrates run `r` of a chunk; shared by the kernel and by host-side tests of the kernel body.
/// Summaries: the kinds a summary kernel keeps (0: none; the plan must then ask for none).
/// `series_column`: where the run's series and observables go (DeviceOutputs::series_by_thread: the
/// thread's index; else r).
template <class Tab, bool SaveSeries, class System, class T, port::uint32_t Summaries = 0>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void integrate_chunk_run(const System& sys,
                                                                   const RunSettings<T>& plan,
                                                                   const kernels::DeviceInputs<T>& in,
                                                                   const kernels::DeviceOutputs<T>& out,
                                                                   port::size_t r, port::size_t series_column) {
  if constexpr (n_drivers_v<System> > 0) {
    // Run r's system reads its drivers (this chunk's runs start at plan.driver_run_offset).
    integrate_chunk_run<Tab, SaveSeries, Driven<System, T>, T, Summaries>(drive(sys, plan, r), plan, in, out,
                                                                          r, series_column);
  } else if constexpr (!StepperFor<Tab, System, T>::available || (Summaries != 0 && !SaveSeries)) {
    (void)sys, (void)plan, (void)in, (void)out, (void)r, (void)series_column;  // never launched (see StepperFor)
  } else {
    constexpr port::size_t N = System::n_states;
    constexpr port::size_t P = System::n_params;
    const port::size_t stride = in.stride;
    Vec<T, N> y;
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) y[i] = in.y0[r * N + i];
    // Parameters are read once per run into registers.
    T p[P > 0 ? P : 1];
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < P; ++i) p[i] = in.params[r * P + i];

    typename StepperFor<Tab, System, T>::type stepper;
    RunCounters counters{};
    T t_reached = plan.t0;
    Status status;
    if constexpr (SaveSeries) {
      // Per-run save times: this run's column of the chunk's copy. Only a kernel that saves reads them.
      const RunSettings<T> run_plan =
          in.save_times != nullptr ? for_run(plan, in.save_times + r, stride) : plan;
      // The series' columns: every state and observable, or those the kernel's plan chose.
      const StridedSeriesSink<T, N> series{out.series, stride, series_column, &plan};
      const T* run_p = P > 0 ? p : nullptr;
      constexpr port::size_t O = n_observables_v<System>;
      // The saved series: with observables, they are saved beside each state.
      auto saving = [&](auto sink) {
        if constexpr (Summaries != 0) {  // the summaries around it (the series may be none of the points)
          // Their settings from the kernel's parameter, not the run's copy (summaries have no per-run
          // save times, solver/src/setup/summary_layout.cpp): a pointer to the copy kept it whole in 22 more
          // registers.
          using Sink = SummarySink<decltype(sink), System, T, StridedSummaryOut<T>, Summaries>;
          return integrate_into(
              Sink{sink, &sys, run_p, {out.summaries, stride, r, plan.summary_slots}, &plan}, stepper, sys, y,
              run_p, run_plan, out, r, counters, t_reached);
        } else {
          return integrate_into(sink, stepper, sys, y, run_p, run_plan, out, r, counters, t_reached);
        }
      };
      if constexpr (O > 0) {
        using Sink = ObservableSink<StridedSeriesSink<T, N>, System, T, StridedObservableOut<T>>;
        status = saving(Sink{series, &sys, run_p, {out.observables, stride, series_column}, &plan});
      } else {
        status = saving(series);
      }
    } else {
      (void)series_column;
      status = integrate_into(NoSeries{}, stepper, sys, y, P > 0 ? p : nullptr, plan, out, r, counters,
                              t_reached);
    }
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) out.final_state[r * N + i] = y[i];
    store_run_outcome(out, r, status, counters, t_reached);
  }
}

/// integrate_chunk_run with the run's series in its own column.
template <class Tab, bool SaveSeries, class System, class T, port::uint32_t Summaries = 0>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void integrate_chunk_run(const System& sys,
                                                                   const RunSettings<T>& plan,
                                                                   const kernels::DeviceInputs<T>& in,
                                                                   const kernels::DeviceOutputs<T>& out,
                                                                   port::size_t r) {
  integrate_chunk_run<Tab, SaveSeries, System, T, Summaries>(sys, plan, in, out, r, r);
}

#if BATCHODE_GPU_COMPILER
/// One thread per run; threads past the chunk's end return at once. Runs of one warp that finish
/// early idle until the warp's slowest run is done: slower, never wrong (no shared state). Thread i
/// takes run in.order[i] when the chunk was ordered (arrays/run_order.hpp), so that a warp's runs
/// cost about the same; each run still reads and writes only its own rows.
template <class Tab, bool SaveSeries, class System, class T, port::uint32_t Summaries = 0>
__global__ void integrate_chunk(System sys, RunSettings<T> plan, kernels::DeviceInputs<T> in,
                                kernels::DeviceOutputs<T> out) {
  const port::size_t i = static_cast<port::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= in.stride) return;
  const port::size_t r = in.order != nullptr ? static_cast<port::size_t>(in.order[i]) : i;
  integrate_chunk_run<Tab, SaveSeries, System, T, Summaries>(sys, plan, in, out, r, out.series_by_thread ? i : r);
}
#endif

}  // namespace batchode::kernels
