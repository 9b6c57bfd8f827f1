// solver/scheduling/: runs the parts of a solve's plan. One part runs on the calling thread; several run
// concurrently, one host thread each, into disjoint rows of the one result, each thread carrying the
// solve's timing context. GPUs the cost model split a batch over share their runs
// (arrays/shared_runs.hpp): each starts on its predicted share, and one that finishes early takes
// chunks from the other end of another's, so they finish together even where runs' costs differ
// along the batch. A GPU part failing at run time is run again on the CPU when the solve allows it
// (reason cpu_fallback; with shared runs, the chunks it took, its rest going to the other GPUs).
// Every contiguous piece of runs a part ran becomes an ExecutionRecord, every part an
// ExecutionTelemetry entry and an execution_part event, and its measured time refines the cost model; at
// Verbosity::debug the telemetry summary is printed. It builds the solve's one RunSettings (every part
// is given it) and asks run_order_probe.hpp whether the GPU parts order their runs.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/shared_runs.hpp"
#include "batchode/backends/cpu/cpu_backend.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/solver/results/result.hpp"
#include "batchode/solver/scheduling/calibrator.hpp"
#include "batchode/solver/scheduling/run_order_probe.hpp"
#include "batchode/solver/scheduling/scheduler.hpp"
#include "batchode/solver/scheduling/solve_context.hpp"
#include "batchode/solver/scheduling/telemetry.hpp"
#include "batchode/solver/setup/backend_id.hpp"
#include "batchode/solver/setup/backend_settings.hpp"
#include "batchode/solver/setup/input_checks.hpp"
#include "batchode/solver/systems/system_traits.hpp"
#include "batchode/timing/metadata_keys.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/timed_events.hpp"

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
    shared_.reset();
    consumer_of_.assign(selection.parts.size(), no_consumer);
    share_gpu_runs(selection);
    // The solve's one RunSettings (kernels/core/run_settings.hpp), built here because it points at
    // the result's save times; every part, CPU or GPU (and a fallback's CPU runs), is given it.
    settings_.emplace(make_run_settings<T>(ctx_.options, result.times().data(), result.summary_layout(),
                                           ctx_.drivers.get(), result.series_layout()));
    // Before any part starts: a recalled probe is what decides whether the parts order their runs
    // (order_cannot_pay). The probe run beside the parts changes the calibrator only in finish().
    RunOrderProbe<System, T> probe(
        ctx_, calibrator_, recall_order_probe(ctx_, calibrator_, selection, y0, params, result.n_runs()));
    if (selection.parts.size() == 1) {
      run_part(selection.parts[0], consumer_of_[0], y0, params, result, outcomes[0]);
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
          run_part(selection.parts[i], consumer_of_[i], y0, params, result, outcomes[i]);
        });
      }
      for (std::thread& t : threads) t.join();
    }
    probe.finish();
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
    /// The runs it ran, contiguous pieces in run order: the part's range, or, when it shared its runs
    /// with other GPUs, what it took (none when the others ran them all).
    std::vector<arrays::RunSlice> pieces;
    std::string run_order;  // why a GPU part's runs were not ordered, when RunOrder::automatic
    std::string instruction_set;  // a CPU part's (ExecutionRecord::instruction_set)
  };

  static constexpr std::size_t no_consumer = static_cast<std::size_t>(-1);
  // A slice taken from another GPU is at least this many runs, about what fills an H100 (1024 blocks
  // of 128). A slice takes as long as its slowest run however few runs it holds, so smaller ones
  // leave the GPU mostly idle: measured on two H100s (Lorenz to t = 10 in sweep order, 2^20 runs),
  // slices down to 8192 runs made the split 0.72-0.95x of one GPU, down to 2^17 0.59-0.63x. On two
  // H200s 2^16 was no better (2026-11-28, benchmarks/RESULTS.md).
  static constexpr std::size_t min_shared_slice = std::size_t(1) << 17;

  /// GPUs the cost model split the batch over share their runs: each part's range is one consumer's.
  /// A GPU starts at the end of its range whose probed runs took more steps, so that the runs left
  /// at the end are its cheapest. Forced parts run as given.
  void share_gpu_runs(const sched::Selection& selection) {
    if (selection.reason != sched::Reason::cost_model) return;
    std::vector<arrays::RunSlice> ranges;
    std::vector<bool> costly_back;
    for (std::size_t i = 0; i < selection.parts.size(); ++i) {
      const sched::Part& part = selection.parts[i];
      if (!part.backend.is_gpu()) continue;
      consumer_of_[i] = ranges.size();
      ranges.push_back({part.first_run, part.runs});
      costly_back.push_back(costlier_at_back(part.first_run, part.runs));
    }
    if (ranges.size() < 2) {
      consumer_of_.assign(selection.parts.size(), no_consumer);
      return;
    }
    shared_.emplace(std::move(ranges), min_shared_slice, costly_back);
  }

  /// Whether the probed runs in the back half of runs [first, first + runs) took more steps on
  /// average than those in its front half (false without probed runs in both halves).
  bool costlier_at_back(std::size_t first, std::size_t runs) const {
    double front = 0, back = 0;
    std::size_t n_front = 0, n_back = 0;
    for (const auto& probed : calibrator_.probed_runs()) {
      if (probed.run < first || probed.run >= first + runs) continue;
      if (probed.run < first + runs / 2) {
        front += probed.steps;
        ++n_front;
      } else {
        back += probed.steps;
        ++n_back;
      }
    }
    return n_front > 0 && n_back > 0 && back / static_cast<double>(n_back) > front / static_cast<double>(n_front);
  }

  /// Runs `pieces` on the CPU (a failed GPU's runs, checked first); returns the wall time in ms.
  double run_cpu_pieces(const T* y0, const T* params, const std::vector<arrays::RunSlice>& pieces,
                        SolveResult<T>& result, std::string& set) {
    double ms = 0;
    for (const arrays::RunSlice& p : pieces) {
      ms += run_cpu_range(y0, params, p.first, p.count, result, true, set);
    }
    return ms;
  }

  static double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  /// Runs runs [first, first + count) on the CPU; returns the wall time in ms. `check_values`: scan
  /// them first (a fallback's runs, which the GPU may not have staged and checked before failing).
  double run_cpu_range(const T* y0, const T* params, std::size_t first, std::size_t count, SolveResult<T>& result,
                       bool check_values, std::string& instruction_set) {
    const auto start = std::chrono::steady_clock::now();
    if (check_values) check_finite_runs(y0, params, first, count, n_states_of(ctx_.system), n_params_of(ctx_.system), ctx_.workers);
    // The same keys as the GPU runner's kernel_run_execution (timing/metadata_keys.hpp).
    ScopedTimer timer(ctx_.logger, events::kernel_run_execution);
    timer.add_metadata(keys::backend, "cpu");
    timer.add_metadata(keys::total_runs, static_cast<std::int64_t>(count));
    timer.add_metadata(keys::num_chunks, std::int64_t{1});
    integrate_on_cpu(ctx_.system, y0, params, first, count, ctx_.options.method, *settings_,
                     ctx_.options.cpu_threads, result.view(), ctx_.logger, ctx_.workers, ctx_.options.stop);
    timer.stop();
    // The set the blocks were dispatched to (a BATCHODE_CPU_SIMD that names none has thrown by now where
    // a run could take blocks; where none could, it is left unsaid).
    try {
      instruction_set = cpu::simd_set_name(cpu::simd_set());
    } catch (const std::invalid_argument&) {
      instruction_set.clear();
    }
    return ms_since(start);
  }

  /// Runs one part in the calling thread. A GPU failure falls back to the CPU for this part (when
  /// allowed) with reason cpu_fallback; any other failure is kept in `out.error`.
  /// The part is one execution_part event, opened here on the thread that runs it so that what the
  /// part does (kernel_run_execution, ...) nests under it.
  /// `consumer`: the part's index among the GPUs sharing their runs, or no_consumer.
  void run_part(const sched::Part& part, std::size_t consumer, const T* y0, const T* params, SolveResult<T>& result,
                PartOutcome& out) {
    TimeLogger& logger = ctx_.logger;
    std::optional<ScopedTimer> part_event;
    if (logger.enabled() && logger.is_registered(events::execution_part)) part_event.emplace(logger, events::execution_part);
    run_part_body(part, consumer, y0, params, result, out);
    if (!part_event) return;
    part_event->add_metadata(keys::backend, to_string(out.backend));
    part_event->add_metadata("reason", std::string(sched::to_string(out.reason)));
    part_event->add_metadata("first_run", static_cast<std::int64_t>(part.first_run));
    part_event->add_metadata("runs", static_cast<std::int64_t>(part.runs));
    part_event->add_metadata(keys::num_chunks, static_cast<std::int64_t>(out.chunks));
    if (consumer != no_consumer) {
      std::int64_t ran = 0;
      for (const arrays::RunSlice& p : out.pieces) ran += static_cast<std::int64_t>(p.count);
      part_event->add_metadata("runs_ran", ran);
      part_event->add_metadata("pieces", static_cast<std::int64_t>(out.pieces.size()));
    }
    if (!out.run_order.empty()) part_event->add_metadata("run_order", out.run_order);
    if (out.reason != sched::Reason::cpu_fallback && part.predicted_ms) {
      part_event->add_metadata("predicted_ms", *part.predicted_ms);
    }
  }

  void run_part_body(const sched::Part& part, std::size_t consumer, const T* y0, const T* params,
                     SolveResult<T>& result, PartOutcome& out) {
    out.backend = part.backend;
    out.reason = part.reason;
    out.start_ms = telemetry_.now_ms();
    out.pieces = {{part.first_run, part.runs}};
    try {
      if (!part.backend.is_gpu()) {
        out.wall_ms =
            run_cpu_range(y0, params, part.first_run, part.runs, result, false, out.instruction_set);
        return;
      }
      const int device = part.backend.device;
      const auto start = std::chrono::steady_clock::now();
      try {
        // No copy of the options: per-run save times may be large.
        GpuRunRequest request = make_gpu_run_request(ctx_.options);
        request.device = device;
        if (request.order_runs) {
          out.run_order = order_cannot_pay(calibrator_);
          request.order_runs = out.run_order.empty();
        }
        if (consumer != no_consumer) {
          request.shared = &*shared_;
          request.consumer = consumer;
        }
        auto& gpu = ctx_.gpus.get(device, ctx_.result_memory);
        gpu.run(ctx_.system, request, *settings_, y0, params, part.runs, result.view(), ctx_.logger,
                part.first_run);
        out.wall_ms = ms_since(start);
        out.grew_buffers = gpu.last_run_grew();
        out.chunks = gpu.last_plan().n_chunks;
        if (consumer != no_consumer) {
          out.pieces = shared_->pieces(consumer);
          out.chunks = shared_->slices_taken(consumer);
        }
      } catch (const GpuError& e) {
        // A GPU that shared its runs leaves: the others take what is left of its share.
        if (consumer != no_consumer) out.pieces = arrays::merge_slices(shared_->leave(consumer));
        if (!may_fall_back_) {
          if (consumer != no_consumer) shared_->cancel();  // the solve throws: the others stop
          throw;
        }
        ctx_.gpus.reset(device);  // buffers may be in an unknown state
        ctx_.notice(std::string("GPU run failed (") + e.what() + "); falling back to the CPU");
        out.backend = BackendId::cpu();
        out.reason = sched::Reason::cpu_fallback;
        out.detail = e.what();
        out.start_ms = telemetry_.now_ms();
        out.chunks = out.pieces.size();
        out.wall_ms = run_cpu_pieces(y0, params, out.pieces, result, out.instruction_set);
      }
    } catch (...) {
      // The solve throws (bad input met while staging, a stop request): GPUs sharing runs stop too.
      if (shared_) shared_->cancel();
      out.error = std::current_exception();
    }
  }

  /// Mean steps per run of the runs in `pieces` (`runs` in all), from a sample of their counters
  /// spread over every piece (the probe's estimate without counters).
  double observed_steps(const SolveResult<T>& result, const std::vector<arrays::RunSlice>& pieces,
                        std::size_t runs) const {
    if (result.counters().empty() || runs == 0) return calibrator_.steps_estimate();
    const std::size_t stride = std::max<std::size_t>(1, runs / 4096);
    double steps = 0;
    std::size_t n = 0;
    for (const arrays::RunSlice& piece : pieces) {
      for (std::size_t r = piece.first; r < piece.first + piece.count; r += stride, ++n) {
        steps += result.counters()[r].accepted_steps + result.counters()[r].rejected_steps;
      }
    }
    return n > 0 ? steps / static_cast<double>(n) : calibrator_.steps_estimate();
  }

  /// The backend whose part of `selection` holds run `run`.
  static BackendId owner_of(const sched::Selection& selection, std::size_t run) {
    for (const sched::Part& p : selection.parts) {
      if (run >= p.first_run && run < p.first_run + p.runs) return p.backend;
    }
    return {};
  }

  /// The part's ExecutionRecords (one per contiguous piece of runs it ran, each carrying the part's
  /// prediction and wall time, the first its chunk count) and its telemetry entry (one per part, so
  /// that its time counts once); its time into the model.
  void record(const sched::Selection& selection, const sched::Part& part, const PartOutcome& o,
              SolveResult<T>& result) {
    const bool fell_back = o.reason == sched::Reason::cpu_fallback;
    const std::vector<arrays::RunSlice>& pieces = o.pieces;
    const std::optional<double> predicted = fell_back ? std::nullopt : part.predicted_ms;
    std::size_t ran = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const arrays::RunSlice& piece = pieces[i];
      std::string detail = o.detail.empty() ? selection.detail : o.detail;
      // The piece's runs outside the part's own range, before it and after it.
      const std::size_t begin = piece.first, end = piece.first + piece.count;
      const std::size_t own_begin = part.first_run, own_end = part.first_run + part.runs;
      for (const auto& [a, b] : {std::pair{begin, std::min(end, own_begin)}, std::pair{std::max(begin, own_end), end}}) {
        if (a >= b) continue;
        detail += fmt::format("{}runs [{}, {}) taken from {}'s share", detail.empty() ? "" : "; ", a, b,
                              to_string(owner_of(selection, a)));
      }
      result.add_execution({o.backend, o.reason, piece.first, piece.count, o.wall_ms, std::move(detail),
                            predicted, i == 0 ? o.chunks : 0, o.instruction_set});
      ran += piece.count;
    }
    if (pieces.empty()) return;  // the GPUs it shared with ran all its runs
    // Telemetry keeps names: the boundary where the typed backend and reason become text. One entry
    // per part: its first run and how many it ran (in several pieces when it shared them).
    telemetry_.record({0, o.start_ms, to_string(o.backend), sched::to_string(o.reason), pieces[0].first, ran,
                       predicted, o.wall_ms});
    if (predicted) {
      const std::size_t bytes =
          ctx_.run_footprint(result.n_saves()).result_bytes_per_run;
      calibrator_.learn(o.backend, ran, observed_steps(result, pieces, ran),
                        static_cast<double>(bytes), o.wall_ms, o.grew_buffers);
    }
  }

  const SolveContext<System, T>& ctx_;
  ExecutionTelemetry& telemetry_;
  Calibrator<System, T>& calibrator_;
  bool may_fall_back_;
  std::optional<RunSettings<T>> settings_;    // this solve's (run()), pointing at its result's save times
  std::optional<arrays::SharedRuns> shared_;  // this solve's, when GPUs share their runs
  std::vector<std::size_t> consumer_of_;      // part index -> consumer of shared_, or no_consumer
};

}  // namespace batchode::detail
