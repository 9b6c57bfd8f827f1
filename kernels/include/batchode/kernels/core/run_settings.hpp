// kernels/core/: the per-solve constants every run of a batch integrates with, in the run's precision,
// and the one definition of save times that both the integrator and the result use.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/drivers.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode {

/// SummaryKind's count (kernels/outputs/summaries.hpp).
inline constexpr port::uint32_t summary_kind_count = 14;

/// The states and observables a series can choose from by name (SolveOptions::save_variables): the
/// first 512 of a system's (a bit each in RunSettings::series_variables). Saving every one has no limit.
inline constexpr port::uint32_t series_variable_limit = 512;

/// The per-solve constants of every run, in the run's precision (passed by value to kernels).
template <class T>
struct RunSettings {
  T t0{}, t_end{};
  T dt{};          ///< fixed step, or first adaptive step (<= 0: Hairer's estimate)
  T save_every{};  ///< spacing of saved points (used when n_saves > 0 and save_times is null)
  port::uint32_t n_saves = 0;
  /// The saved points' times, strictly increasing in [t0, t_end] (SolveOptions::save_at), or null:
  /// t0 + k save_every. A backend reads them where it integrates: the CPU path from the host, a GPU
  /// from its own copy (backends/gpu/chunk_pipeline.hpp uploads them once per run).
  const T* save_times = nullptr;
  /// 1: every run has its own save times (SolveOptions::save_at_per_run), and save_times holds the
  /// whole batch's, run-major (run r's at [r * n_saves + k]). The integrator of run r reads its own
  /// through a plan pointed at them (for_run): the CPU path at its row of save_times, a GPU at its
  /// column of the chunk's copy (device_views.hpp).
  port::uint32_t save_times_per_run = 0;
  /// Distance between consecutive save times of the run being integrated: 1, or the chunk's stride
  /// where a device holds per-run times runs fastest.
  port::size_t save_times_step = 1;
  /// 0: steps land on every save time (saved values are the method's own). 1: steps ignore save
  /// times, and the points a step passes are interpolated (dense output: run_integrator.hpp).
  port::uint32_t interpolate_saves = 0;
  // Events (systems with event functions: kernels/loop/events.hpp). Bit e of a mask is event e.
  port::uint32_t event_rising = 0;    ///< fires when g_e goes from < 0 to >= 0
  port::uint32_t event_falling = 0;   ///< fires when g_e goes from > 0 to <= 0
  port::uint32_t event_terminal = 0;  ///< a crossing ends the run there
  port::uint32_t event_slots = 0;     ///< crossings stored per event and run (the largest max)
  port::uint32_t event_max[8] = {};   ///< crossings stored of event e (events.hpp's max_events)
  T event_tolerance{};                ///< a root is located to this width in t
  // Summaries (kernels/outputs/summaries.hpp). With them the integrator's points (n_saves, save_every) are
  // the summary samples, and the series is every series_every-th of them.
  port::uint32_t series_every = 1;      ///< points per series save; 0: no series
  port::uint32_t n_series = 0;          ///< series saves (n_saves when series_every is 1)
  port::uint32_t summary_windows = 0;   ///< 0: no summaries
  port::uint32_t summary_samples = 0;   ///< samples per window
  port::uint32_t summary_metrics = 0;   ///< bit K: SummaryKind K is kept
  port::uint32_t summary_slots = 0;     ///< values per window
  port::uint32_t summary_peaks = 0, summary_negative_peaks = 0;  ///< peaks[N], negative_peaks[N]
  port::uint64_t summary_variables = 0; ///< bit v: state v (v < n_states), else observable v - n_states
  port::uint32_t summary_offset[summary_kind_count] = {};  ///< of SummaryKind K's first value in a window
  port::uint32_t summary_stride[summary_kind_count] = {};  ///< between the values of consecutive chosen variables
  // The series' columns (SolveOptions::save_variables; kernels/outputs/saved_variables.hpp). A zero plan
  // saves every state and observable.
  port::uint32_t series_chosen = 0;       ///< 0: every state and observable; 1: those of series_variables
  port::uint32_t series_states = 0;       ///< states saved when chosen (the series' columns)
  port::uint32_t series_observables = 0;  ///< observables saved when chosen
  /// Bit v: variable v is saved (state v, else observable v - n_states), when series_chosen.
  port::uint32_t series_variables[series_variable_limit / 32] = {};
  // Drivers (systems that read them: kernels/outputs/driven_system.hpp), fitted once per solve.
  const DriverPieces<T>* drivers = nullptr;  ///< n_drivers pieces, in the memory the runs are integrated in
  port::uint32_t n_drivers = 0;              ///< the system's
  port::size_t driver_sets = 1;              ///< per-run sets (the batch's runs), or 1: shared
  /// The batch index of the runs' index 0 where the integrator counts runs from elsewhere: a GPU
  /// chunk's first run (the kernel's runs are the chunk's), 0 on the CPU path (whole-batch indices).
  port::size_t driver_run_offset = 0;
  T rtol{}, atol{};
  T safety{}, min_factor{}, max_factor{}, ki{}, kp{}, dt_min{}, dt_max{};
  port::uint64_t max_steps = 0;
  /// The solve's stop request (SolveOptions::stop: a const std::atomic<bool>*, typed void here for the
  /// runtime compilers, which have no <atomic>), or null. Read on the host only, inside each run
  /// (kernels/loop/loop_parts.hpp's stop_asked), so a long run on the CPU ends soon after it is set.
  const void* stop = nullptr;
};

/// Save time k of a solve: save_times[k], or t0 + k * save_every, in the run's precision. The
/// integrator lands its steps on (or interpolates at) these values and SolveResult::times() reports
/// them, so the two never differ by an ulp.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T save_time(const RunSettings<T>& plan, port::uint32_t k) {
  if (plan.save_times != nullptr) return plan.save_times[k * plan.save_times_step];
  // One fused multiply-add on every compiler: nvcc would contract t0 + k * save_every into an fma on
  // the device and the host compiler would not, and the two would then differ in the last bit.
  return port::fma(static_cast<T>(k), plan.save_every, plan.t0);
}

/// `plan` for one run with save times of its own (RunSettings::save_times_per_run): its first at
/// `times`, the next ones `step` apart.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE RunSettings<T> for_run(RunSettings<T> plan, const T* times,
                                                                 port::size_t step) {
  plan.save_times = times;
  plan.save_times_step = step;
  return plan;
}

}  // namespace batchode
