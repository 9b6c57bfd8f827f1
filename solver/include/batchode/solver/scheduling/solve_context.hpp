// solver/scheduling/: what the stages of one solve (planner, calibrator, executor) share: the Solver's
// system, options, timing, worker pool, result memory and GPU runners. References, built for one solve, so
// the Solver that owns them stays movable.
#pragma once

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/result_memory.hpp"
#include "batchode/solver/setup/driver_inputs.hpp"
#include "batchode/solver/systems/gpu_runners.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/setup/series_layout.hpp"
#include "batchode/solver/setup/summary_layout.hpp"
#include "batchode/solver/systems/system_traits.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode::detail {

template <class System, class T>
struct SolveContext {
  const System& system;
  const SolveOptions& options;
  TimeLogger& logger;
  arrays::HostWorkers& workers;  ///< the CPU path's threads, also scanning inputs
  ResultMemoryPool& result_memory;
  GpuRunners<System, T>& gpus;
  /// The solve's summaries, laid out (null: none): what each run keeps besides its series.
  std::shared_ptr<const SummaryLayout> summaries = nullptr;
  /// The solve's drivers, fitted (null: the system reads none).
  std::shared_ptr<const DriverTable<T>> drivers = nullptr;
  /// The series' columns (SolveOptions::save_variables; null: every state and observable).
  std::shared_ptr<const SeriesLayout> series = nullptr;

  /// Summary values a run keeps (windows x values per window).
  std::size_t summary_values_per_run() const noexcept { return summaries ? summaries->values_per_run() : 0; }
  /// The states a save keeps (nullopt: every one), and the observables, by name (the system's, or
  /// those SolveOptions::save_variables chose).
  std::optional<std::size_t> series_states() const {
    return series && !series->all ? std::optional<std::size_t>(series->states.size()) : std::nullopt;
  }
  std::vector<std::string> saved_observable_names() const {
    return series && !series->all ? series->observable_names : observable_names_of(system);
  }
  /// One run's footprint (arrays/chunk_plan.hpp) saving `saves` points with the solve's outputs.
  arrays::RunFootprint run_footprint(std::size_t saves) const {
    return arrays::run_footprint(n_states_of(system), n_params_of(system), saves, sizeof(T), options.outputs,
                                 event_shape(options), saves_per_run(options), saved_observable_names().size(),
                                 summary_values_per_run(), series_states());
  }

  /// One line on stderr unless this solve is at Verbosity::none (its level on this thread: a part
  /// thread carries its solve's). One write, so lines of concurrent solves do not mix.
  void notice(const std::string& line) const {
    if (logger.verbosity() != Verbosity::none) std::cerr << ("batchode: " + line + '\n');
  }
};

}  // namespace batchode::detail
