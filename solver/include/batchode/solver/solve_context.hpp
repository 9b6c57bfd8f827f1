// solver/: what the stages of one solve (planner, calibrator, executor) share: the Solver's system,
// options, timing, worker pool, result memory and GPU runners. References, built for one solve, so
// the Solver that owns them stays movable.
#pragma once

#include <iostream>
#include <memory>
#include <string>

#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/result_memory.hpp"
#include "batchode/solver/drivers.hpp"
#include "batchode/solver/gpu_runners.hpp"
#include "batchode/solver/options.hpp"
#include "batchode/solver/summaries.hpp"
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

  /// Summary values a run keeps (windows x values per window).
  std::size_t summary_values_per_run() const noexcept { return summaries ? summaries->values_per_run() : 0; }

  /// One line on stderr unless this solve is at Verbosity::none (its level on this thread: a part
  /// thread carries its solve's). One write, so lines of concurrent solves do not mix.
  void notice(const std::string& line) const {
    if (logger.verbosity() != Verbosity::none) std::cerr << ("batchode: " + line + '\n');
  }
};

}  // namespace batchode::detail
