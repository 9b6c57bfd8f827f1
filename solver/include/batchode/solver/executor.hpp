// solver/: runs the parts of a solve's plan. One part runs on the calling thread; several run
// concurrently, one host thread each, into disjoint rows of the one result, each thread carrying the
// solve's timing context. A GPU part failing at run time is run again on the CPU when the solve
// allows it (reason cpu_fallback). Every part becomes an ExecutionRecord, an ExecutionTelemetry
// event and an execution_part event, and its measured time refines the cost model; at
// Verbosity::debug the telemetry summary is printed.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/backends/cpu/cpu_backend.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/solver/backend_id.hpp"
#include "batchode/solver/calibrator.hpp"
#include "batchode/solver/input_checks.hpp"
#include "batchode/solver/result.hpp"
#include "batchode/solver/run_settings.hpp"
#include "batchode/solver/scheduler.hpp"
#include "batchode/solver/solve_context.hpp"
#include "batchode/solver/system_traits.hpp"
#include "batchode/solver/telemetry.hpp"
#include "batchode/timing/events.hpp"
#include "batchode/timing/metadata_keys.hpp"
#include "batchode/timing/scoped_timer.hpp"

namespace batchode::detail {

template <class System, class T>
class Executor {
 public:
  /// `may_fall_back`: a failed GPU part may be run again on the CPU (Backend::automatic with
  /// options.gpu.allow_cpu_fallback and no forced parts).
  Executor(const SolveContext<System, T>& ctx, ExecutionTelemetry& telemetry, Calibrator<System, T>& calibrator,
           bool may_fall_back)
      : ctx_(ctx), telemetry_(telemetry), calibrator_(calibrator), may_fall_back_(may_fall_back) {}

  /// Runs every part of `selection` into `result` and records them; rethrows the first part's
  /// failure after the others finished and were recorded. The values of CPU parts were checked
  /// before (the solve's input_validation); GPU parts check theirs while staging.
  void run(const sched::Selection& selection, const T* y0, const T* params, SolveResult<T>& result) {
    std::vector<PartOutcome> outcomes(selection.parts.size());
    if (selection.parts.size() == 1) {
      run_part(selection.parts[0], y0, params, result, outcomes[0]);
    } else {
      // The runners are made here, before the threads: GpuRunners::get is not thread-safe.
      for (const sched::Part& part : selection.parts) {
        if (part.backend.is_gpu()) (void)ctx_.gpus.get(part.backend.device, ctx_.result_memory);
      }
      // Each part thread carries this solve's timing context: its level, and its events nest
      // under this solve's, so the solve stays one tree with one summary.
      const TimeLogger::CallContext timing = ctx_.logger.context();
      std::vector<std::thread> threads;
      for (std::size_t i = 0; i < selection.parts.size(); ++i) {
        threads.emplace_back([&, i] {
          const TimeLogger::CallScope part_timing(ctx_.logger, timing);
          run_part(selection.parts[i], y0, params, result, outcomes[i]);
        });
      }
      for (std::thread& t : threads) t.join();
    }
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      if (!outcomes[i].error) record(selection, selection.parts[i], outcomes[i], result);
    }
    if (ctx_.logger.verbosity() == Verbosity::debug) telemetry_.print_debug_summary(std::cerr);
    for (const PartOutcome& o : outcomes) {
      if (o.error) std::rethrow_exception(o.error);
    }
  }

 private:
  /// What one part did.
  struct PartOutcome {
    BackendId backend;
    sched::Reason reason = sched::Reason::gpu_available;
    double start_ms = 0, wall_ms = 0;
    std::string detail;
    std::exception_ptr error;
    bool grew_buffers = false;  // a GPU part that allocated: its time is not a steady-state sample
    std::size_t chunks = 1;
  };

  static double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  /// Runs runs [first, first + count) on the CPU; returns the wall time in ms. `check_values`: scan
  /// them first (a fallback's runs, which the GPU may not have staged and checked before failing).
  double run_cpu_range(const T* y0, const T* params, std::size_t first, std::size_t count, SolveResult<T>& result,
                       bool check_values) {
    const auto start = std::chrono::steady_clock::now();
    if (check_values) check_finite_runs(y0, params, first, count, n_states_of(ctx_.system), n_params_of(ctx_.system), ctx_.workers);
    // The same keys as the GPU runner's kernel_run_execution (timing/metadata_keys.hpp).
    ScopedTimer timer(ctx_.logger, events::kernel_run_execution);
    timer.add_metadata(keys::backend, "cpu");
    timer.add_metadata(keys::total_runs, static_cast<std::int64_t>(count));
    timer.add_metadata(keys::num_chunks, std::int64_t{1});
    integrate_on_cpu(ctx_.system, y0, params, first, count, ctx_.options.method, make_run_settings<T>(ctx_.options),
                     ctx_.options.cpu_threads, result.view(), ctx_.logger, ctx_.workers, ctx_.options.stop);
    timer.stop();
    return ms_since(start);
  }

  /// Runs one part in the calling thread. A GPU failure falls back to the CPU for this part (when
  /// allowed) with reason cpu_fallback; any other failure is kept in `out.error`.
  /// The part is one execution_part event, opened here on the thread that runs it so that what the
  /// part does (kernel_run_execution, ...) nests under it.
  void run_part(const sched::Part& part, const T* y0, const T* params, SolveResult<T>& result, PartOutcome& out) {
    TimeLogger& logger = ctx_.logger;
    std::optional<ScopedTimer> part_event;
    if (logger.enabled() && logger.is_registered(events::execution_part)) part_event.emplace(logger, events::execution_part);
    run_part_body(part, y0, params, result, out);
    if (!part_event) return;
    part_event->add_metadata(keys::backend, to_string(out.backend));
    part_event->add_metadata("reason", std::string(sched::to_string(out.reason)));
    part_event->add_metadata("first_run", static_cast<std::int64_t>(part.first_run));
    part_event->add_metadata("runs", static_cast<std::int64_t>(part.runs));
    part_event->add_metadata(keys::num_chunks, static_cast<std::int64_t>(out.chunks));
    if (out.reason != sched::Reason::cpu_fallback && part.predicted_ms) {
      part_event->add_metadata("predicted_ms", *part.predicted_ms);
    }
  }

  void run_part_body(const sched::Part& part, const T* y0, const T* params, SolveResult<T>& result,
                     PartOutcome& out) {
    out.backend = part.backend;
    out.reason = part.reason;
    out.start_ms = telemetry_.now_ms();
    try {
      if (!part.backend.is_gpu()) {
        out.wall_ms = run_cpu_range(y0, params, part.first_run, part.runs, result, false);
        return;
      }
      const int device = part.backend.device;
      const auto start = std::chrono::steady_clock::now();
      try {
        SolveOptions o = ctx_.options;
        o.gpu.device = device;
        auto& gpu = ctx_.gpus.get(device, ctx_.result_memory);
        gpu.run(ctx_.system, make_gpu_run_request(o), make_run_settings<T>(o), y0, params, part.runs, result.view(),
                ctx_.logger, part.first_run);
        out.wall_ms = ms_since(start);
        out.grew_buffers = gpu.last_run_grew();
        out.chunks = gpu.last_plan().n_chunks;
      } catch (const GpuError& e) {
        if (!may_fall_back_) throw;
        ctx_.gpus.reset(device);  // buffers may be in an unknown state
        ctx_.notice(std::string("GPU run failed (") + e.what() + "); falling back to the CPU");
        out.backend = BackendId::cpu();
        out.reason = sched::Reason::cpu_fallback;
        out.detail = e.what();
        out.start_ms = telemetry_.now_ms();
        out.chunks = 1;
        out.wall_ms = run_cpu_range(y0, params, part.first_run, part.runs, result, true);
      }
    } catch (...) {
      out.error = std::current_exception();
    }
  }

  /// Mean steps per run of the part, from a sample of its counters (the probe's estimate without
  /// counters).
  double observed_steps(const SolveResult<T>& result, const sched::Part& part) const {
    if (result.counters().empty() || part.runs == 0) return calibrator_.steps_estimate();
    const std::size_t stride = std::max<std::size_t>(1, part.runs / 4096);
    double steps = 0;
    std::size_t n = 0;
    for (std::size_t r = part.first_run; r < part.first_run + part.runs; r += stride, ++n) {
      steps += result.counters()[r].accepted_steps + result.counters()[r].rejected_steps;
    }
    return steps / static_cast<double>(n);
  }

  /// The part's ExecutionRecord and telemetry event; its time into the model.
  void record(const sched::Selection& selection, const sched::Part& part, const PartOutcome& o,
              SolveResult<T>& result) {
    const bool fell_back = o.reason == sched::Reason::cpu_fallback;
    const std::optional<double> predicted = fell_back ? std::nullopt : part.predicted_ms;
    const std::string detail = o.detail.empty() ? selection.detail : o.detail;
    result.add_execution({o.backend, o.reason, part.first_run, part.runs, o.wall_ms, detail, predicted, o.chunks});
    // Telemetry keeps names: the boundary where the typed backend and reason become text.
    const std::string backend = to_string(o.backend);
    telemetry_.record({0, o.start_ms, backend, sched::to_string(o.reason), part.first_run, part.runs, predicted,
                       o.wall_ms});
    if (predicted) {
      const std::size_t bytes =
          arrays::run_footprint(n_states_of(ctx_.system), n_params_of(ctx_.system), result.n_saves(), sizeof(T), ctx_.options.outputs)
              .result_bytes_per_run;
      calibrator_.learn(o.backend, part.runs, observed_steps(result, part), static_cast<double>(bytes), o.wall_ms,
                        o.grew_buffers);
    }
  }

  const SolveContext<System, T>& ctx_;
  ExecutionTelemetry& telemetry_;
  Calibrator<System, T>& calibrator_;
  bool may_fall_back_;
};

}  // namespace batchode::detail
