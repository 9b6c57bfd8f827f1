// kernels/outputs/: where a run's saved values go, one description for the device and the host. Every
// output array of a batch is a table of values by runs: value i of run r is at [i * stride + run]. The
// device's chunk arrays keep the runs fastest (stride: the chunk's runs, run: the thread's run, so a
// warp's stores of one save coalesce: kernels/launch/batch_kernel.hpp); the result's rows on the host
// keep each run's values together (the pointer at the run's row, stride 1, run 0:
// backends/cpu/run_range.hpp). The sinks below place series points, observables, summary values and
// events so, and integrate_run (kernels/loop/) calls them through the sink interface
// (kernels/loop/loop_parts.hpp: NoSeries), whichever side runs it.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/outputs/saved_variables.hpp"

namespace batchode {

/// Writes saved point k of one run into the series ([(k * W + c) * stride + run], W columns: every
/// state, or those the plan chose: saved_variables.hpp).
template <class T, port::size_t N>
struct StridedSeriesSink {
  static constexpr bool active = true;
  T* series;
  port::size_t stride;
  port::size_t run;
  /// The kernel's parameter (its choice of variables is read where a save is stored: a pointer to the
  /// parameter costs no register, where a pointer and width chosen up front held two for the run).
  const RunSettings<T>* selection;
  BATCHODE_HOST_DEVICE void save(port::uint32_t k, T, const T* y) {
    if (selection->series_chosen == 0) {
      BATCHODE_UNROLL
      for (port::size_t s = 0; s < N; ++s) series[(k * N + s) * stride + run] = y[s];
    } else {
      const port::size_t width = selection->series_states;
      port::size_t c = 0;
      BATCHODE_UNROLL
      for (port::size_t s = 0; s < N; ++s) {
        if (variable_chosen(selection->series_variables, s)) series[(k * width + c++) * stride + run] = y[s];
      }
    }
  }
  BATCHODE_HOST_DEVICE void mark_unsaved(port::uint32_t k) {
    const T nan = T(0) / T(0);
    const port::size_t width = selection->series_chosen == 0 ? N : selection->series_states;
    for (port::size_t c = 0; c < width; ++c) series[(k * width + c) * stride + run] = nan;
  }
};

/// Where column c of W observables of save k of one run goes ([(k * W + c) * stride + run]).
template <class T>
struct StridedObservableOut {
  T* values;
  port::size_t stride;
  port::size_t run;
  BATCHODE_HOST_DEVICE T& at(port::uint32_t k, port::size_t c, port::size_t width) const {
    return values[(k * width + c) * stride + run];
  }
};

/// Where value v of summary window w of one run goes ([(w * values per window + v) * stride + run]).
template <class T>
struct StridedSummaryOut {
  T* values;
  port::size_t stride;
  port::size_t run;
  port::uint32_t per_window;
  BATCHODE_HOST_DEVICE T& at(port::uint32_t w, port::uint32_t v) const {
    return values[(static_cast<port::size_t>(w) * per_window + v) * stride + run];
  }
};

/// A sink (StridedSeriesSink or NoSeries) that also keeps one run's events: E events x `slots`
/// crossings x (time, state) values, E counts, NaN in the slots left empty.
template <class Base, class T, port::size_t N, port::size_t E>
struct StridedEventSink : Base {
  T* events;
  port::uint32_t* counts;
  port::size_t event_stride;
  port::size_t event_run;
  port::uint32_t slots;
  BATCHODE_HOST_DEVICE void record_event(port::uint32_t e, port::uint32_t j, T t, const T* y) {
    const port::size_t at = static_cast<port::size_t>(e * slots + j) * (N + 1);
    events[at * event_stride + event_run] = t;
    BATCHODE_UNROLL
    for (port::size_t s = 0; s < N; ++s) events[(at + 1 + s) * event_stride + event_run] = y[s];
  }
  BATCHODE_HOST_DEVICE void close_events(const port::uint32_t* count, const RunSettings<T>& plan) {
    const T nan = T(0) / T(0);
    BATCHODE_UNROLL
    for (port::size_t e = 0; e < E; ++e) {
      counts[e * event_stride + event_run] = count[e];
      const port::uint32_t stored = count[e] < plan.event_max[e] ? count[e] : plan.event_max[e];
      for (port::uint32_t j = stored; j < slots; ++j) {
        const port::size_t at = static_cast<port::size_t>(e * slots + j) * (N + 1);
        for (port::size_t v = 0; v <= N; ++v) events[(at + v) * event_stride + event_run] = nan;
      }
    }
  }
};

}  // namespace batchode
