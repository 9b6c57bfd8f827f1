// arrays/: what a backend sees of the result it fills: the run-major host arrays of a whole batch
// and their shape. The backends write rows of it; solver/results/result.hpp owns the memory
// (SolveResult::view).
#pragma once

#include <cstddef>
#include <cstdint>

#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"

namespace batchode {

class ResultMemoryPool;
namespace arrays {
class SeriesMomentsSink;
}

/// Writable view of a batch's result arrays (layouts: solver/results/result.hpp). Inactive outputs are
/// nullptr.
template <class T>
struct ResultView {
  T* final_state = nullptr;          ///< n_runs x n_states
  T* series = nullptr;               ///< n_runs x n_saves x series_states; nullptr when none is saved
  Status* status = nullptr;          ///< n_runs; nullptr when statuses were not selected
  RunCounters* counters = nullptr;   ///< n_runs; nullptr when counters were not selected
  std::size_t n_runs = 0, n_states = 0, n_saves = 0;
  /// The pool the arrays came from (null when none): the GPU path asks it which rows are pinned.
  const ResultMemoryPool* memory = nullptr;
  /// Events (solver/results/result.hpp): n_runs x n_events x event_slots x (1 + n_states) values (time,
  /// state) and n_runs x n_events counts; nullptr / 0 when the system has no events.
  T* events = nullptr;
  std::uint32_t* event_counts = nullptr;
  std::size_t n_events = 0, event_slots = 0;
  /// Observables (kernels/outputs/observables.hpp): n_runs x n_saves x n_observables values; nullptr / 0 when
  /// the system has none or nothing is saved.
  T* observables = nullptr;
  std::size_t n_observables = 0;
  /// Summaries (kernels/outputs/summaries.hpp): n_runs x summary_windows x summary_slots values; nullptr / 0
  /// when none were asked for.
  T* summaries = nullptr;
  std::size_t summary_windows = 0, summary_slots = 0;
  /// The series' columns: the states saved at each save (n_states, or those SolveOptions::save_variables
  /// chose). n_observables is likewise the observables saved.
  std::size_t series_states = 0;
  /// n_runs: the time of each run's final state (t_end, a terminal event's, or where it failed); kept
  /// with the statuses (nullptr when they are not selected).
  T* stop_time = nullptr;
  /// Set when the solve keeps statistics across runs and no series (arrays/series_moments_sink.hpp):
  /// the GPU reduces each chunk's series and observables into it, and `series` and `observables` are
  /// nullptr while n_saves, series_states and n_observables keep their shape. No other backend writes
  /// such a result's series (the CPU backends refuse it).
  arrays::SeriesMomentsSink* series_moments = nullptr;
};

/// Whether `r` is shaped for the series `plan` saves of a system of `n_states` states and
/// `n_observables` observables: as many columns of states and of observables at each save as the plan
/// writes (every one, or those it chose: kernels/outputs/saved_variables.hpp), with room for them (a result
/// without saves needs none). What every backend checks before writing a series.
template <class T>
bool holds_series(const ResultView<T>& r, const RunSettings<T>& plan, std::size_t n_states, std::size_t n_observables) {
  if (r.n_saves == 0) return true;
  const std::size_t states = plan.series_chosen != 0 ? plan.series_states : n_states;
  const std::size_t observables = plan.series_chosen != 0 ? plan.series_observables : n_observables;
  // Reduced on the GPU (series_moments): the shape without the arrays.
  const bool rows = r.series_moments == nullptr;
  return r.series_states == states && (states == 0 || !rows || r.series != nullptr) &&
         (observables == 0 || (r.n_observables == observables && (!rows || r.observables != nullptr)));
}

/// Whether `r` is shaped for exactly `windows` x `slots` summary values per run (none: 0 x 0 and no
/// array needed), so that nothing is written past it and nothing it holds is left unwritten.
template <class T>
bool holds_summaries(const ResultView<T>& r, std::size_t windows, std::size_t slots) {
  return r.summary_windows == windows && r.summary_slots == slots && (windows == 0 || r.summaries != nullptr);
}

}  // namespace batchode
