// backends/cpu/: where the CPU path's runs save their series: one run's row of the result
// (series_sink, with its observables where the system has some, and summary_sink around it where the
// solve keeps summaries), and a block's W rows at once (LanesSink: a save of W runs in SIMD lanes is
// each lane's save into its own run's row, with the numbers a run alone would save). One description
// of a run's sink for run_range.hpp and run_blocks.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "batchode/arrays/result_view.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/outputs/observables.hpp"
#include "batchode/kernels/outputs/strided_outputs.hpp"
#include "batchode/kernels/outputs/summaries.hpp"

namespace batchode::cpu {

/// The sink of run r's series in `result` (its row, stride 1): every state, or the plan's choice of
/// them (saved_variables.hpp), and the system's observables computed from each saved state with the
/// run's parameters p. `plan` must outlive the sink.
template <class System, class T>
auto series_sink(const System& sys, const T* p, const RunSettings<T>& plan, const ResultView<T>& result,
                 std::size_t r) {
  constexpr std::size_t N = System::n_states;
  const std::size_t saves = result.n_saves;
  const bool chosen = plan.series_chosen != 0;
  const std::size_t states = chosen ? plan.series_states : N;
  const StridedSeriesSink<T, N> series{result.series + r * saves * states, 1, 0, &plan};
  constexpr std::size_t O = n_observables_v<System>;
  if constexpr (O > 0) {
    const std::size_t observables = chosen ? plan.series_observables : O;
    using Sink = ObservableSink<StridedSeriesSink<T, N>, System, T, StridedObservableOut<T>>;
    return Sink{series, &sys, p, {result.observables + r * saves * observables, 1, 0}, &plan};
  } else {
    return series;
  }
}

/// Run r's summaries (plan.summary_windows windows) around its series sink: a SummarySink whose samples are
/// every save point and whose series keeps every plan.series_every-th, into run r's row of
/// result.summaries. `plan` (the run's own: its save times) must outlive the sink.
template <class Series, class System, class T>
SummarySink<Series, System, T, StridedSummaryOut<T>> summary_sink(const Series& series, const System& sys,
                                                                  const T* p, const RunSettings<T>& plan,
                                                                  const ResultView<T>& result,
                                                                  std::size_t r) {
  const std::size_t width = std::size_t{plan.summary_windows} * plan.summary_slots;
  return {series, &sys, p, {result.summaries + r * width, 1, 0, plan.summary_slots}, &plan};
}

/// The sink of a run in a block (run_blocks.hpp): its series, under its summaries where the solve keeps
/// them (summary_sink), one type either way, so that a block's loop is compiled once for both.
template <class Series, class System, class T>
struct LaneSink : SummarySink<Series, System, T, StridedSummaryOut<T>> {
  using Summaries = SummarySink<Series, System, T, StridedSummaryOut<T>>;
  bool summarising = false;

  void save(std::uint32_t k, T t, const T* y) {
    if (summarising) {
      Summaries::save(k, t, y);
    } else {
      Series::save(k, t, y);
    }
  }
  void mark_unsaved(std::uint32_t k) {
    if (summarising) {
      Summaries::mark_unsaved(k);
    } else {
      Series::mark_unsaved(k);
    }
  }
};

/// The series sink of a block of W runs in SIMD lanes: lane l's values go to lanes[l], the sink of the
/// block's run l. save() takes a state of packs (kernels::RunPack: the fixed-step loops, whose lanes
/// save together); save_lane() one lane's (the adaptive block loop, whose lanes save apart). Y: a
/// state of packs, or a pointer to its first, y[i][l] state i of lane l.
template <class RunSink, class T, std::size_t N, std::size_t W>
struct LanesSink {
  static constexpr bool active = true;
  RunSink lanes[W];

  template <class Pack>
  void save(std::uint32_t k, T t, const Pack* y) {
    for (std::size_t l = 0; l < W; ++l) save_lane(l, k, t, y);
  }
  template <class Y>
  void save_lane(std::size_t l, std::uint32_t k, T t, const Y& y) {
    T values[N];
    for (std::size_t i = 0; i < N; ++i) values[i] = y[i][l];
    lanes[l].save(k, t, values);
  }
  void mark_unsaved(std::uint32_t k) {
    for (std::size_t l = 0; l < W; ++l) lanes[l].mark_unsaved(k);
  }
};

}  // namespace batchode::cpu
