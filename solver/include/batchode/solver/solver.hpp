// solver/: Solver (built once, solve() many times) and solve_ivp (one call), the facade over a
// solve's stages. A solve checks the batch's sizes (input_checks.hpp), plans where its parts run
// (planner.hpp: the scheduler decides, on costs the calibrator measures), checks the values of the
// parts the CPU runs, allocates the result, runs the parts (executor.hpp) and times every phase in
// the TimeLogger.
//
// Backend choice: Backend::cpu runs on the CPU and Backend::gpu on device options.gpu.device or
// throws GpuUnavailable (reason user_preference). Backend::automatic runs on the CPU when no GPU is
// usable (reason gpu_unavailable, with a one-line notice); otherwise the measured cost model picks
// the CPU, one GPU, or a split over every visible GPU (plus the CPU when that shortens the predicted
// time by 10%), parts running concurrently into disjoint rows of the one result (reason
// cost_model). A GPU part failing at run time is run again on the CPU under automatic when
// options.gpu.allow_cpu_fallback (reason cpu_fallback). Every part is an ExecutionRecord, an
// ExecutionTelemetry event and an execution_part event; at Verbosity::debug the telemetry summary
// is printed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/result_memory.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/solver/setup/backend_id.hpp"
#include "batchode/solver/scheduling/calibrator.hpp"
#include "batchode/solver/scheduling/cost_model.hpp"
#include "batchode/solver/scheduling/executor.hpp"
#include "batchode/solver/systems/gpu_path.hpp"
#include "batchode/solver/systems/gpu_runners.hpp"
#include "batchode/solver/setup/grid.hpp"
#include "batchode/solver/setup/input_checks.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/setup/run_rows.hpp"
#include "batchode/solver/setup/statistics_plan.hpp"
#include "batchode/solver/scheduling/planner.hpp"
#include "batchode/solver/results/ensemble_statistics.hpp"
#include "batchode/solver/results/result.hpp"
#include "batchode/solver/scheduling/scheduler.hpp"
#include "batchode/solver/scheduling/solve_context.hpp"
#include "batchode/solver/systems/system_traits.hpp"
#include "batchode/solver/scheduling/telemetry.hpp"
#include "batchode/timing/timed_events.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "batchode/timing/metadata_keys.hpp"

namespace batchode {

namespace detail {

/// The level of one solve: BATCHODE_VERBOSITY when it names one (it overrides both the solve's and
/// the logger's), else the solve's own; std::nullopt: the logger's.
inline std::optional<Verbosity> solve_verbosity(std::optional<Verbosity> wanted) {
  if (const std::optional<Verbosity> from_environment = environment_verbosity()) return from_environment;
  return wanted;
}

/// A solve's timing on the calling thread for its duration: its level (solve_verbosity()) on this
/// thread alone, never set on the logger that other threads share, and timing problems dropped
/// rather than failing the solve (TimeLogger::CallScope).
class VerbosityScope {
 public:
  VerbosityScope(TimeLogger& logger, std::optional<Verbosity> wanted)
      : scope_(logger, solve_verbosity(wanted)) {}

 private:
  TimeLogger::CallScope scope_;
};

/// Registers the solver's events on `logger` (idempotent). Never throws: a label its owner
/// registered in another category stays theirs and is still timed; a logger without memory left
/// for a registration loses that event's timing (dropped by the solve's CallScope), not the solve.
inline void register_events_for_solve(TimeLogger& logger) noexcept {
  try {
    register_solver_events(logger);
  } catch (...) {
    // see above: nothing here may fail a solve
  }
}

}  // namespace detail

/// A reusable batch solver for one system and one set of options. Device buffers and plans are kept
/// between solve() calls. Not thread-safe: use one Solver per thread.
template <class System, class T = double>
class Solver {
  static_assert(std::is_floating_point_v<T>, "batchode solves in float or double");
  static_assert(is_ode_system_v<System, T> || detail::is_runtime_model_v<System>,
                "System needs static n_states (> 0), n_params and a const call operator "
                "(T t, const T* y, const T* p, T* dydt): see batchode/kernels/core/system.hpp");

 public:
  static_assert(!detail::is_runtime_model_v<System> || std::is_same_v<System, RuntimeModel<T>>,
                "a RuntimeModel<U> is solved in its own precision U: Solver<RuntimeModel<U>, U>");

  std::size_t n_states() const { return detail::n_states_of(system_); }
  std::size_t n_params() const { return detail::n_params_of(system_); }

  /// Throws InvalidInput for bad options. Registers the solver's events on `logger` (any logger
  /// will do; registering again changes nothing).
  explicit Solver(System system, SolveOptions options, TimeLogger& logger = default_timelogger())
      : system_(std::move(system)), options_(std::move(options)), logger_(&logger) {
    // A system with events and no specs: a runtime model's own, else each recorded once, both ways.
    if (options_.events.empty()) options_.events = detail::default_event_specs(system_);
    validate_for<T>(options_);
    // A tolerance the precision cannot meet is raised, and said so whatever the verbosity (which is
    // the timing's): the numbers are not what was asked.
    if (const std::string floor = apply_rtol_floor<T>(options_); !floor.empty()) {
      std::cerr << ("batchode: warning: " + floor + '\n');
    }
    detail::check_method_compiled(system_, options_.method);
    detail::check_method_solves_system(system_, options_.method);
    detail::check_run_fits_stack<System, T>(system_, options_.method);
    check_events_for_system(options_, detail::n_events_of(system_));
    detail::check_event_times(system_, options_);
    if (!options_.summaries.empty()) {
      summaries_ = std::make_shared<const SummaryLayout>(
          plan_summaries(options_, detail::state_names_of(system_), detail::observable_names_of(system_)));
    }
    series_ = std::make_shared<const SeriesLayout>(
        plan_series(options_, detail::state_names_of(system_), detail::observable_names_of(system_)));
    const std::size_t n_drivers = detail::n_drivers_of(system_);
    options_.drivers = detail::drivers_for_solve(system_, std::move(options_.drivers));
    if (n_drivers > 0 || !options_.drivers.empty()) {
      drivers_ = std::make_shared<const DriverTable<T>>(fit_drivers(
          options_.drivers, detail::driver_names_of(system_), n_drivers, options_.t0, options_.t_end));
    }
    detail::register_events_for_solve(*logger_);
  }

  const SolveOptions& options() const noexcept { return options_; }
  /// The system solved, and the logger the solves are timed in: what a Solver for some of a batch's
  /// runs is built from (a distributed solve's share with per-run rows: run_rows.hpp).
  const System& system() const noexcept { return system_; }
  TimeLogger& logger() const noexcept { return *logger_; }
  /// The system's observables (kernels/outputs/observables.hpp), saved beside the state at every save (all of
  /// them, or those SolveOptions::save_variables chose: series_layout()).
  std::vector<std::string> observable_names() const { return detail::observable_names_of(system_); }
  /// The series' columns (SolveOptions::save_variables), resolved against the system.
  const SeriesLayout& series_layout() const noexcept { return *series_; }
  /// The solve's summaries, laid out (SolveOptions::summaries): null when none are asked for.
  const SummaryLayout* summary_layout() const noexcept { return summaries_.get(); }
  /// The drivers the system reads, fitted over [t0, t_end] (SolveOptions::drivers): null when none.
  const DriverTable<T>* drivers() const noexcept { return drivers_.get(); }

  /// Where this Solver's solves ran: one event per part, per-backend statistics, summary.
  const ExecutionTelemetry& telemetry() const noexcept { return telemetry_; }
  /// The measured cost model behind Backend::automatic (its cache file: cost_model().path()).
  CostModel& cost_model() noexcept { return calibrator_.model(); }
  /// For tests and experiments: later solves run exactly these parts (covering the batch in run
  /// order, recorded with reason user_preference) instead of the scheduler's plan. An empty list
  /// restores the scheduler. solve() throws InvalidInput when the parts do not cover it.
  void force_parts(std::vector<sched::Part> parts) { forced_parts_ = std::move(parts); }

  /// The predicted wall time (ms) of solve(y0, params, runs) on this machine, from the measured cost
  /// model (a first call may calibrate, as a first automatic solve does): what a distributed solve
  /// sizes each process's share by. Throws InvalidInput for a bad batch, GpuUnavailable when
  /// Backend::gpu cannot run.
  double predict_ms(const T* y0, const T* params, std::size_t runs) {
    detail::check_batch_pointers(y0, params, runs, n_states(), n_params());
    check_options_for_batch(options_, runs);
    if (drivers_) check_driver_sets(drivers_->fitted(), runs);
    detail::VerbosityScope verbosity(*logger_, options_.verbosity);
    const detail::SolveContext<System, T> ctx{system_,         options_, *logger_, *cpu_workers_,
                                              *result_memory_, gpus_,    summaries_, drivers_, series_};
    calibrator_.begin_solve();
    return detail::predict_solve_ms(ctx, calibrator_, y0, params, runs, count_saves(options_));
  }

  /// The runs the ensemble statistics of later solves are over, when each solve takes some of them (a
  /// distributed solve's share and takeovers): their quantile sketches are sized alike, so that the
  /// parts' statistics merge within the rank error asked. 0 (the default): each solve's own runs.
  void set_statistics_runs(std::uint64_t runs) noexcept { statistics_runs_ = runs; }
  std::uint64_t statistics_runs() const noexcept { return statistics_runs_; }

  /// Solves a batch given run-major initial values (n_runs x n_states) and parameters
  /// (n_runs x n_params). Throws InvalidInput for wrong sizes, an empty batch or non-finite values;
  /// GpuUnavailable when Backend::gpu cannot run; GpuError for a GPU failure without fallback.
  SolveResult<T> solve(const std::vector<T>& y0, const std::vector<T>& params) {
    const std::size_t runs = detail::runs_of_batch(y0.size(), params.size(), n_states(), n_params());
    return solve(y0.data(), params.empty() ? nullptr : params.data(), runs);
  }

  /// Solves a batch built by GridBuilder.
  SolveResult<T> solve(const Batch<T>& batch) { return solve(batch.y0, batch.params); }

  /// Pointer form: y0 holds n_runs x n_states values, params n_runs x n_params (may be null if 0).
  /// With ensemble statistics (SolveOptions::statistics) the result holds them too. When it keeps no
  /// series (OutputSelection::series off), statistics of moments alone (count, mean, var, std, min,
  /// max) on a plan of GPU parts only are reduced on the GPUs, chunk by chunk (solve_runs_into);
  /// otherwise the runs are solved in slices (runs_per_slice) whose series are reduced on the host and
  /// dropped, so that the series of one slice at most are ever held.
  SolveResult<T> solve(const T* y0, const T* params, std::size_t runs) {
    if (options_.statistics.empty()) return solve_runs(y0, params, runs);
    detail::check_batch_pointers(y0, params, runs, n_states(), n_params());
    // (A solve that cannot run on a GPU is not planned twice.)
    if (!options_.outputs.series && options_.backend != Backend::cpu &&
        detail::gpu_unavailable_reason<System, T>(system_, options_).empty() &&
        EnsembleStatistics::reducible_on_device(plan_statistics(options_.statistics))) {
      if (std::optional<SolveResult<T>> reduced = solve_runs_into(y0, params, runs, true)) return std::move(*reduced);
    }
    const std::size_t slice = statistics_slice(runs);
    if (slice >= runs) {
      SolveResult<T> result = solve_runs(y0, params, runs);
      auto statistics = std::make_shared<EnsembleStatistics>(new_statistics(result, runs));
      reduce_series(result, *statistics);
      result.set_statistics(std::move(statistics));
      if (!options_.outputs.series) result.drop_series();
      return result;
    }
    // The per-run rows of every slice in one result without series.
    SolveOptions rows_only = options_;
    rows_only.save_every.reset();
    rows_only.save_at.clear();
    std::optional<SolveResult<T>> whole;
    {
      detail::VerbosityScope verbosity(*logger_, options_.verbosity);
      ScopedTimer allocation(*logger_, events::result_allocation);
      whole.emplace(runs, n_states(), 0, rows_only, result_memory_, std::vector<std::string>{}, summaries_, series_);
    }
    std::shared_ptr<EnsembleStatistics> statistics;
    for (std::size_t first = 0; first < runs; first += slice) {
      const std::size_t m = std::min(slice, runs - first);
      const SolveResult<T> part =
          solve_runs(y0 + first * n_states(), params == nullptr ? nullptr : params + first * n_params(), m);
      if (!statistics) statistics = std::make_shared<EnsembleStatistics>(new_statistics(part, runs));
      reduce_series(part, *statistics);
      whole->place_runs(part, first);
    }
    whole->set_statistics(std::move(statistics));
    return std::move(*whole);
  }

 private:
  /// Runs solved at a time with ensemble statistics: the whole batch when the result keeps its series
  /// or the options hold per-run rows (drivers: run_rows.hpp), else runs_per_slice, or as many runs
  /// as 1 GiB of series holds (at least 1024).
  std::size_t statistics_slice(std::size_t runs) const {
    if (options_.outputs.series || has_run_rows(options_)) return runs;
    if (options_.statistics.runs_per_slice > 0) return options_.statistics.runs_per_slice;
    const std::size_t per_run =
        std::max<std::size_t>(1, count_saves(options_) * (series_->states.size() + series_->observables.size()) *
                                     sizeof(T));
    return std::max<std::size_t>(1024, (std::size_t(1) << 30) / per_run);
  }

  /// Empty statistics of the variables and save times of `result` (a solve of some of the batch's
  /// `runs`), sized for statistics_runs_ when set.
  EnsembleStatistics new_statistics(const SolveResult<T>& result, std::size_t runs) const {
    // (a Solver's results are named)
    return statistics_of_shape(result, options_.statistics, statistics_runs_ > 0 ? statistics_runs_ : runs);
  }

  /// Adds the series of `part` to `statistics`, timed as ensemble_statistics.
  void reduce_series(const SolveResult<T>& part, EnsembleStatistics& statistics) {
    detail::VerbosityScope verbosity(*logger_, options_.verbosity);
    ScopedTimer timer(*logger_, events::ensemble_statistics);
    timer.add_metadata(keys::total_runs, static_cast<std::int64_t>(part.n_runs()));
    // Each save time's columns on one thread: the same numbers whatever the threads.
    const T* observables = part.observables().empty() ? nullptr : part.observables().data();
    cpu_workers_->parallel_for(
        statistics.n_saves(),
        [&](std::size_t begin, std::size_t end) {
          statistics.add_runs(part.series().data(), part.n_series_states(), observables, part.n_runs(), begin, end);
        },
        1);
  }

  /// The solve of a batch (or of a slice of one) into one result.
  SolveResult<T> solve_runs(const T* y0, const T* params, std::size_t runs) {
    return std::move(*solve_runs_into(y0, params, runs, false));
  }

  /// solve_runs; with `statistics_on_gpu` (a solve keeping statistics of moments alone and no series)
  /// the GPU parts reduce each chunk's series on the device into the result's statistics
  /// (EnsembleMomentsSink) and the result holds no series, only its save times. That needs every part
  /// on a GPU and no fallback to the CPU (a GPU failure throws): when the plan puts runs on the CPU,
  /// nothing is solved and nullopt returned.
  std::optional<SolveResult<T>> solve_runs_into(const T* y0, const T* params, std::size_t runs,
                                                bool statistics_on_gpu) {
    detail::check_batch_pointers(y0, params, runs, n_states(), n_params());
    check_options_for_batch(options_, runs);
    if (drivers_) check_driver_sets(drivers_->fitted(), runs);
    detail::VerbosityScope verbosity(*logger_, options_.verbosity);
    ScopedTimer timer(*logger_, events::solver_solve_execution);
    timer.add_metadata(keys::total_runs, static_cast<std::int64_t>(runs));
    timer.add_metadata("method", to_string(options_.method));
    const std::size_t saves = count_saves(options_);
    // The observables the series keeps (every one, or those save_variables chose).
    const std::vector<std::string>& observables = series_->observable_names;
    const detail::SolveContext<System, T> ctx{system_,         options_, *logger_, *cpu_workers_,
                                              *result_memory_, gpus_,    summaries_, drivers_, series_};
    // Before any work (planning may calibrate): a batch whose outputs cannot fit is refused (without
    // the series when the GPUs reduce it).
    detail::check_result_fits(runs, ctx.run_footprint(statistics_on_gpu ? 0 : saves).result_bytes_per_run);
    telemetry_.begin_solve();
    calibrator_.begin_solve();
    const sched::Selection selection = [&] {
      ScopedTimer planning(*logger_, events::execution_planning);
      return detail::plan_parts(ctx, calibrator_, forced_parts_, y0, params, runs, saves);
    }();
    if (statistics_on_gpu && !std::all_of(selection.parts.begin(), selection.parts.end(),
                                          [](const sched::Part& p) { return p.backend.is_gpu(); })) {
      return std::nullopt;
    }
    check_cpu_parts_finite(selection, y0, params);
    // The statistics the GPUs reduce into, shaped once the result's save times are known.
    std::shared_ptr<EnsembleStatistics> statistics;
    std::optional<EnsembleMomentsSink> sink;
    if (statistics_on_gpu) {
      statistics = std::make_shared<EnsembleStatistics>();
      sink.emplace(*statistics);
    }
    std::optional<SolveResult<T>> allocated;
    {
      ScopedTimer allocation(*logger_, events::result_allocation);
      allocated.emplace(runs, n_states(), saves, options_, result_memory_, observables, summaries_, series_,
                        sink ? &*sink : nullptr);
    }
    SolveResult<T>& result = *allocated;
    if (statistics) *statistics = new_statistics(result, runs);
    const bool may_fall_back = options_.backend == Backend::automatic && options_.gpu.allow_cpu_fallback &&
                               forced_parts_.empty() && !statistics_on_gpu;
    detail::Executor<System, T>(ctx, telemetry_, calibrator_, may_fall_back).run(selection, y0, params, result);
    if (statistics) {  // (the sink dies here: the result forgets it with its series)
      result.set_statistics(std::move(statistics));
      result.drop_series();
    }
    timer.add_metadata(keys::num_chunks, static_cast<std::int64_t>(detail::chunks_of(result)));
    logger_->resolve_gpu_times();
    return allocated;
  }

  /// The solve's one input_validation: the values of the runs the CPU will integrate. GPU parts
  /// check theirs while staging them (fused with the copy, so no pass over them is spent on
  /// checking alone).
  void check_cpu_parts_finite(const sched::Selection& selection, const T* y0, const T* params) {
    ScopedTimer validation(*logger_, events::input_validation);
    for (const sched::Part& part : selection.parts) {
      if (part.backend.is_gpu()) continue;
      detail::check_finite_runs(y0, params, part.first_run, part.runs, n_states(), n_params(), *cpu_workers_);
    }
  }

  System system_;
  SolveOptions options_;
  std::shared_ptr<const SummaryLayout> summaries_;  // null: none asked for
  std::shared_ptr<const SeriesLayout> series_;      // the series' columns (every one unless save_variables)
  std::shared_ptr<const DriverTable<T>> drivers_;   // null: the system reads none
  TimeLogger* logger_;
  ExecutionTelemetry telemetry_;
  detail::Calibrator<System, T> calibrator_;
  std::vector<sched::Part> forced_parts_;
  std::uint64_t statistics_runs_ = 0;  // set_statistics_runs
  // The CPU path's threads (they also scan inputs), started on first use and kept: one per hardware
  // thread with the caller. (Held by pointer so a Solver stays movable.)
  std::unique_ptr<arrays::HostWorkers> cpu_workers_ =
      std::make_unique<arrays::HostWorkers>(std::max(1u, std::thread::hardware_concurrency()) - 1);
  // Large result arrays come back here when their results die and serve later solves already mapped.
  std::shared_ptr<ResultMemoryPool> result_memory_ = std::make_shared<ResultMemoryPool>();
  detail::GpuRunners<System, T> gpus_;  // one per device, made when first used; empty without the GPU path
};

/// One-call batch solve: Solver(system, options).solve(y0, params), timed as solve_ivp_execution.
/// y0: n_runs x n_states, params: n_runs x n_params, both run-major. See Solver::solve for errors.
template <class System, class T>
SolveResult<T> solve_ivp(const System& system, const std::vector<T>& y0, const std::vector<T>& params,
                         const SolveOptions& options, TimeLogger& logger = default_timelogger()) {
  // Built first: its constructor registers the events (once) before the first one starts.
  Solver<System, T> solver(system, options, logger);
  detail::VerbosityScope verbosity(logger, options.verbosity);
  ScopedTimer timer(logger, events::solve_ivp_execution);
  SolveResult<T> result = solver.solve(y0, params);
  timer.add_metadata(keys::total_runs, static_cast<std::int64_t>(result.n_runs()));
  timer.add_metadata(keys::num_chunks, static_cast<std::int64_t>(detail::chunks_of(result)));
  return result;
}

/// solve_ivp over a batch built by GridBuilder.
template <class System, class T>
SolveResult<T> solve_ivp(const System& system, const Batch<T>& batch, const SolveOptions& options,
                         TimeLogger& logger = default_timelogger()) {
  return solve_ivp(system, batch.y0, batch.params, options, logger);
}

}  // namespace batchode
