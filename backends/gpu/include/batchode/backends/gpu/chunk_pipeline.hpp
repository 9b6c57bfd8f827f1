// backends/gpu/: the GPU path of a solve, all of it but the kernel launch. Plans chunks to fit the
// device-memory budget, then for each chunk: stage inputs (copied into pinned memory, checked finite
// on the way), upload, order its runs on the device when the request asks (kernels/
// run_order_kernels.hpp, planned by arrays/run_order.hpp), launch the batch kernel (through the
// caller's launcher), download the active outputs, and scatter them into the result. Chunks
// alternate between two streams with their own buffer slots, so chunk k+1's upload and chunk k-1's
// download overlap chunk k's kernel; chunk k+1's inputs are staged as soon as chunk k is enqueued.
// When several GPUs of a solve share their runs
// (request.shared, arrays/shared_runs.hpp), each chunk is the next slice this GPU takes from them,
// at most the plan's chunk size: the GPUs finish together however uneven the runs' costs.
// Every phase is a TimeLogger event with its GPU time from a KernelTimer event pair.
//
// Sizes are run-time values, so one pipeline serves a compiled-in system (GpuRunner, whose launcher
// is a <<<>>> compiled by nvcc/hipcc) and a kernel compiled at run time (RuntimeGpuRunner, whose
// launcher is gpu::Module::launch). Host code: no vendor header, no <<<>>>; plain C++ compilers
// build it.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/input_array_manager.hpp"
#include "batchode/arrays/output_array_manager.hpp"
#include "batchode/arrays/outputs.hpp"
#include "batchode/arrays/result_memory.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/arrays/run_order.hpp"
#include "batchode/arrays/shared_runs.hpp"
#include "batchode/arrays/stop_request.hpp"
#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/gpu/buffers.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/gpu_error.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/launch/run_order_kernels.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/timing/timed_events.hpp"
#include "batchode/timing/gpu_time.hpp"
#include "batchode/timing/kernel_timer.hpp"
#include "batchode/timing/metadata_keys.hpp"
#include "batchode/timing/progress.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode {

/// The chunked GPU pipeline in precision T. Keeps its buffers and streams between runs (a runner
/// owns one), so repeated solves of similar size allocate nothing.
template <class T>
class ChunkPipeline {
 public:
  /// The chunk plan of the last run (for tests and telemetry).
  const arrays::ChunkPlan& last_plan() const noexcept { return plan_; }
  /// Whether the last run had to grow its buffers (its time then includes allocations that later
  /// runs of that size do not pay: the cost model does not learn from it).
  bool last_run_grew() const noexcept { return last_run_grew_; }

  /// Integrates runs [first_run, first_run + runs) of the batch (y0: n_states, params: n_params
  /// values per run, the whole batch, run-major) into the same rows of `result`, on device
  /// request.device (set for the calling thread). Each chunk's kernel is enqueued by
  ///   launch(kernels::ChunkKernel kernel, unsigned grid, unsigned block, gpu::stream_t stream,
  ///          const RunSettings<T>&, const kernels::DeviceInputs<T>&, const kernels::DeviceOutputs<T>&)
  /// which must enqueue that integrate_chunk instantiation of the method on `stream` and throw GpuError when
  /// the launch fails. When request.order_runs, a chunk whose runs are to be ordered goes first to
  ///   launch_order(gpu::stream_t stream, const kernels::RunOrderJob<T>&)
  /// which must enqueue kernels::run_order_segments (kernels/launch/run_order_kernels.hpp, with the block
  /// size and grid that header names) on `stream`, and throw GpuError when the launch fails.
  /// `load(kernels::ChunkKernel kernel, TimeLogger&)` is called once per run, inside the
  /// kernel_run_execution event and before the first chunk, so a first-use module load is timed apart
  /// from the chunks. The kernel is the same for the whole run: summaries when the result keeps them,
  /// else series when it has saves, else final_state. With request.shared, [first_run,
  /// first_run + runs) is this GPU's own share: the chunks are planned for it and the run order
  /// sampled from it, but the runs come from the shared ranges.
  /// Throws GpuError (naming the call and the chunk) on a runtime failure, InvalidInput when the
  /// memory budget cannot hold one run or an input is not finite, std::logic_error when the result
  /// has no room for the summaries run_plan keeps (or room for summaries it does not keep).
  template <class Load, class Launch, class LaunchOrder>
  void run(std::size_t n_states, std::size_t n_params, const GpuRunRequest& request,
           const RunSettings<T>& run_plan, const T* y0, const T* params, std::size_t runs,
           const ResultView<T>& result, TimeLogger& log, std::size_t first_run, Load&& load,
           Launch&& launch, LaunchOrder&& launch_order) {
    check_summary_room(run_plan, result);
    check_series_columns(n_states, run_plan, result);
    gpu::set_device(request.device);
    const std::size_t saves = result.n_saves;
    // Each run's own save times (save_at_per_run) go with the chunk's inputs; shared ones once.
    const bool per_run_times = run_plan.save_times_per_run != 0 && saves > 0;
    // Observables (systems with them) are saved beside the state: the result is shaped for them.
    const std::size_t observables = saves > 0 ? result.n_observables : 0;
    // The series' columns: every state, or those SolveOptions::save_variables chose (the result's).
    const std::size_t series_states = result.series_states;
    // Summaries (kernels/outputs/summaries.hpp): windows x values per window per run, with or without a
    // series.
    const std::size_t summary_windows = result.summary_windows, summary_slots = result.summary_slots;
    {
      ScopedTimer timer(log, events::chunk_planning);
      std::size_t free_bytes = 0, total_bytes = 0;
      gpu::memory_info(request.device, free_bytes, total_bytes);
      // Buffers this pipeline already holds are reused, so they count as free for the new plan.
      free_bytes += inputs_.device_bytes() + outputs_.device_bytes() + save_times_.bytes() + driver_values_.bytes() +
                    driver_pieces_.bytes();
      // The shared save times' copy (save_at) comes out of the same memory, before any chunk.
      const std::size_t times_bytes =
          run_plan.save_times != nullptr && !per_run_times ? std::size_t{run_plan.n_saves} * sizeof(T) : 0;
      free_bytes -= std::min(free_bytes, times_bytes);
      // So do the drivers' pieces (every run's sets, for per-run drivers), once per run.
      const std::size_t driver_bytes = driver_device_bytes(run_plan);
      if (driver_bytes > free_bytes) {
        throw InvalidInput(fmt::format("the drivers' pieces need {:.1f} MB on GPU {}, more than the {:.1f} MB free "
                                       "(per-run drivers of {} runs: use fewer samples or runs per solve)",
                                       driver_bytes / 1e6, request.device, free_bytes / 1e6, run_plan.driver_sets));
      }
      free_bytes -= driver_bytes;
      // Each chunk's runs' own save times (per_run_times) are staged and uploaded with its inputs.
      arrays::RunFootprint footprint =
          arrays::run_footprint(n_states, n_params, saves, sizeof(T), request.outputs, request.events, per_run_times,
                                observables, summary_windows * summary_slots, series_states);
      if (request.order_runs) {  // each chunk's run order, on the device
        footprint.device_bytes_per_run += sizeof(std::uint32_t);
      }
      arrays::MemoryBudget gpu = request.budget;
      plan_ = arrays::plan_chunks(runs, footprint, free_bytes, gpu);
      // A batch that fits in one chunk still goes in several when it is large, so the transfers and
      // host copies of one chunk overlap the kernels of the others.
      const std::size_t overlap_chunks = std::min<std::size_t>(8, runs / min_overlap_chunk_runs);
      if (gpu.chunks == 0 && plan_.n_chunks < overlap_chunks) {
        gpu.chunks = overlap_chunks;
        plan_ = arrays::plan_chunks(runs, footprint, free_bytes, gpu);
      }
      timer.add_metadata(keys::num_chunks, static_cast<std::int64_t>(plan_.n_chunks));
      timer.add_metadata("chunk_runs", static_cast<std::int64_t>(plan_.chunk_runs));
      timer.add_metadata("device_bytes", static_cast<std::int64_t>(plan_.device_bytes));
    }
    {
      ScopedTimer timer(log, events::gpu_buffer_allocation);
      const bool inputs_grew =
          inputs_.prepare(plan_, n_states, n_params, request.order_runs, per_run_times ? saves : 0);
      const bool outputs_grew =
          outputs_.prepare(plan_, n_states, saves, request.outputs.status, request.outputs.counters, request.events,
                           observables, summary_windows, summary_slots, series_states);
      last_run_grew_ = inputs_grew || outputs_grew;
      while (streams_.size() < plan_.slots) streams_.emplace_back();
      timer.add_metadata("grew", std::int64_t{last_run_grew_ ? 1 : 0});
    }

    ScopedTimer timer(log, events::kernel_run_execution);
    timer.add_metadata(keys::backend, fmt::format("gpu:{}", request.device));
    timer.add_metadata(keys::total_runs, static_cast<std::int64_t>(runs));
    timer.add_metadata(keys::num_chunks, static_cast<std::int64_t>(plan_.n_chunks));
    // The summary kernel also saves any series beside them.
    const kernels::ChunkKernel kernel = summary_windows > 0 ? kernels::ChunkKernel::summaries
                                        : saves > 0         ? kernels::ChunkKernel::series
                                                            : kernels::ChunkKernel::final_state;
    load(kernel, log);
    RunSettings<T> plan = run_plan;
    if (per_run_times) {
      plan.save_times = nullptr;  // the kernel reads each run's from the chunk's inputs
    } else if (plan.save_times != nullptr) {
      plan.save_times = upload_save_times(run_plan, log);
    }
    if (plan.n_drivers > 0) plan.drivers = upload_drivers(run_plan, log);
    const double phase_sum_ms = run_chunks(kernel, n_states, n_params, request, plan, y0, params,
                                           per_run_times ? run_plan.save_times : nullptr, result,
                                           log, first_run, launch, launch_order);
    // Transfers and kernels overlap when this sum exceeds the run's wall time.
    if (log.enabled()) timer.add_metadata("gpu_phase_sum_ms", phase_sum_ms);
  }

 private:
  /// The kernel writes run_plan's summary windows x slots per run; the buffers and the scatter are
  /// sized by the result's: they must agree before anything is enqueued.
  static void check_summary_room(const RunSettings<T>& run_plan, const ResultView<T>& result) {
    const std::size_t windows = run_plan.summary_windows, slots = run_plan.summary_slots;
    if (!holds_summaries(result, windows, slots)) {
      throw std::logic_error(fmt::format(
          "ChunkPipeline::run: the solve keeps {} summary windows x {} values per run, but the result has "
          "room for {} x {}{}",
          windows, slots, result.summary_windows, result.summary_slots,
          result.summaries == nullptr ? " (no summaries array)" : ""));
    }
  }

  /// The series buffers are sized from the result's columns and the kernel writes the plan's: both
  /// runners (compiled-in and runtime-compiled) meet here, so the states' columns are checked here
  /// (the observables' where the system's count is known: GpuRunner, holds_series).
  static void check_series_columns(std::size_t n_states, const RunSettings<T>& run_plan, const ResultView<T>& result) {
    const std::size_t states = run_plan.series_chosen != 0 ? run_plan.series_states : n_states;
    const bool observables_match = run_plan.series_chosen == 0 || result.n_observables == run_plan.series_observables;
    if (result.n_saves > 0 && (result.series_states != states || !observables_match)) {
      throw std::logic_error(fmt::format(
          "ChunkPipeline::run: the plan saves {} states{} a save, but the result has columns for {} states and {} "
          "observables",
          states, run_plan.series_chosen != 0 ? fmt::format(" and {} observables", run_plan.series_observables) : "",
          result.series_states, result.n_observables));
    }
  }

  /// Copies the plan's save times (host) to the device once per run; returns the device's copy.
  const T* upload_save_times(const RunSettings<T>& run_plan, TimeLogger& log) {
    ScopedTimer t(log, events::h2d_transfer_save_times);
    const std::size_t bytes = std::size_t{run_plan.n_saves} * sizeof(T);  // n_saves <= 1e8 (options.cpp)
    save_times_.ensure(run_plan.n_saves);
    gpu::copy_to_device_async(save_times_.data(), run_plan.save_times, bytes, streams_[0].get());
    streams_[0].synchronize();
    t.add_metadata(keys::nbytes, static_cast<std::int64_t>(bytes));
    return save_times_.data();
  }

  /// Device bytes of the plan's drivers: each one's coefficients (every set) and knots, and the pieces.
  static std::size_t driver_device_bytes(const RunSettings<T>& run_plan) {
    std::size_t values = 0;
    for (std::uint32_t d = 0; d < run_plan.n_drivers; ++d) values += driver_values(run_plan.drivers[d]);
    return values * sizeof(T) + std::size_t{run_plan.n_drivers} * sizeof(DriverPieces<T>);
  }
  static std::size_t driver_values(const DriverPieces<T>& d) {
    return d.n_sets * d.n_pieces * (d.order + 1) + (d.knots != nullptr ? d.n_pieces + 1 : 0);
  }

  /// Copies the plan's drivers (host pieces over host coefficients and knots) to the device once per
  /// run, timed as h2d_transfer_driver_coefficients; returns the device's pieces, which point into the
  /// device's copies of the values.
  const DriverPieces<T>* upload_drivers(const RunSettings<T>& run_plan, TimeLogger& log) {
    ScopedTimer t(log, events::h2d_transfer_driver_coefficients);
    const std::size_t n = run_plan.n_drivers;
    std::size_t values = 0;
    for (std::size_t d = 0; d < n; ++d) values += driver_values(run_plan.drivers[d]);
    driver_values_.ensure(values);
    driver_pieces_.ensure(n);
    std::vector<DriverPieces<T>> pieces(run_plan.drivers, run_plan.drivers + n);
    const gpu::stream_t stream = streams_[0].get();
    T* at = driver_values_.data();
    for (DriverPieces<T>& d : pieces) {
      const std::size_t coefficients = d.n_sets * d.n_pieces * (d.order + 1);
      gpu::copy_to_device_async(at, d.coefficients, coefficients * sizeof(T), stream);
      d.coefficients = at;
      at += coefficients;
      if (d.knots != nullptr) {
        gpu::copy_to_device_async(at, d.knots, (d.n_pieces + 1) * sizeof(T), stream);
        d.knots = at;
        at += d.n_pieces + 1;
      }
    }
    gpu::copy_to_device_async(driver_pieces_.data(), pieces.data(), n * sizeof(DriverPieces<T>), stream);
    streams_[0].synchronize();  // `pieces` is this frame's
    t.add_metadata(keys::nbytes, static_cast<std::int64_t>(values * sizeof(T) + n * sizeof(DriverPieces<T>)));
    return driver_pieces_.data();
  }

  template <class Launch, class LaunchOrder>
  double run_chunks(kernels::ChunkKernel kernel, std::size_t n_states, std::size_t n_params,
                    const GpuRunRequest& request, const RunSettings<T>& run_plan, const T* y0,
                    const T* params, const T* save_times, const ResultView<T>& result, TimeLogger& log,
                    std::size_t first_run, Launch& launch, LaunchOrder& launch_order) {
    const bool timed = log.enabled();
    std::vector<GpuTime> phases;  // every phase's GPU time, summed once the streams are idle
    const arrays::RunOrderPlan order_plan =
        request.order_runs ? plan_order(n_states, n_params, y0, params, plan_.n_runs, first_run, log)
                           : arrays::RunOrderPlan{};
    ProgressReporter progress(plan_.n_chunks, plan_.n_runs, log.verbosity());
    std::vector<std::optional<Chunk>> in_slot(plan_.slots);
    std::size_t chunks_done = 0, runs_done = 0;
    const DrainOnThrow drain{streams_};
    // Final states and statuses go straight into the result when its memory is page-locked (a
    // recycled block of the Solver's pool): no staging, no host copy.
    const ResultMemoryPool* memory = result.memory;
    auto pinned = [&](const void* p, std::size_t bytes) { return memory != nullptr && memory->is_pinned(p, bytes); };

    auto finish = [&](std::size_t slot) {
      if (!in_slot[slot]) return;
      const Chunk chunk = *in_slot[slot];
      try {
        streams_[slot].synchronize();
        // With a series the host transposes it; otherwise every output is a plain copy.
        ScopedTimer t(log, kernel != kernels::ChunkKernel::final_state ? events::host_transpose
                                                                       : events::host_staging);
        t.add_metadata("direction", "staging_to_result");
        t.add_metadata(keys::chunk_index, static_cast<std::int64_t>(chunk.index));
        outputs_.scatter(slot, chunk.first, chunk.count, result, &workers_);
      } catch (const GpuError& e) {
        throw GpuError(fmt::format("chunk {} (runs {}:{})", chunk.index, chunk.first, chunk.first + chunk.count), e);
      }
      in_slot[slot].reset();
      ++chunks_done;
      runs_done += chunk.count;
      progress.update(chunks_done, runs_done);
    };
    // Chunk c's runs: the plan's, or the next slice this GPU takes from the runs it shares.
    auto next_chunk = [&](std::size_t c) -> std::optional<Chunk> {
      if (request.shared != nullptr) {
        const std::optional<arrays::RunSlice> s = request.shared->next(request.consumer, plan_.chunk_runs);
        if (!s) return std::nullopt;
        return Chunk{c, s->first, s->count};
      }
      if (c >= plan_.n_chunks) return std::nullopt;
      return Chunk{c, first_run + plan_.first(c), plan_.count(c)};
    };

    const std::int64_t chunked = plan_.n_chunks > 1 || request.shared != nullptr ? 1 : 0;
    // Chunk c's inputs are staged (claimed, copied into its slot's pinned buffer and checked) right
    // after chunk c - 1 is enqueued, while the GPU works on it and on chunk c - 2: so once chunk
    // c - 2 leaves the slot, chunk c's upload and kernel follow at once. Staged after that wait, a
    // light sweep's host work and the GPU's took turns (H200, Lorenz to t = 1, 2^22 runs: 7.2-8.3 ms
    // a solve, 5.5 staged ahead), and a GPU sharing an uneven sweep's runs, whose cheap chunks'
    // kernels are as short as a chunk's staging, had no kernel running for 0.5-0.9 ms of a solve.
    // GPUs sharing runs take a slice ahead only while plenty are left (SharedRuns::plenty_left): near
    // the end a staged slice could wait while another GPU runs out of work. The slot's pinned inputs
    // last held chunk c - slots's (when c >= slots: chunk c is staged only after chunk c - 1 was
    // issued), whose upload is waited for first (an event recorded after it; long done, since that
    // chunk's kernel followed it on the stream).
    while (inputs_uploaded_.size() < plan_.slots) inputs_uploaded_.emplace_back();
    auto stage = [&](std::size_t c) -> std::optional<Chunk> {
      const std::optional<Chunk> next = next_chunk(c);
      if (!next) return std::nullopt;
      const std::size_t slot = c % plan_.slots;
      if (c >= plan_.slots) inputs_uploaded_[slot].synchronize();
      ScopedTimer t(log, events::host_staging);
      t.add_metadata("direction", "inputs_to_staging");
      t.add_metadata(keys::chunk_index, static_cast<std::int64_t>(c));
      const std::optional<arrays::NonFiniteInput> bad =
          inputs_.stage(slot, y0, params, next->first, next->count, &workers_);
      if (bad) {
        throw non_finite_input(bad->in_params ? "parameter" : "initial value", bad->run, bad->index,
                               bad->value);
      }
      if (save_times != nullptr)
        inputs_.stage_save_times(slot, save_times, next->first, next->count, &workers_);
      return next;
    };
    std::optional<Chunk> staged;
    std::size_t c = 0;
    for (;; ++c) {
      // Streams drain on the way out (DrainOnThrow): no copy still lands in a result being dropped.
      if (arrays::stop_requested(request.stop)) {
        throw SolveInterrupted(fmt::format("solve stopped on request on GPU {} before chunk {} of {}", request.device,
                                           c, plan_.n_chunks));
      }
      const std::size_t slot = c % plan_.slots;
      finish(slot);  // the slot's previous chunk must be out of its buffers before they are reused
      if (!staged) staged = stage(c);  // not staged ahead: the first chunk, or shared runs near their end
      if (!staged) break;
      const Chunk next = *staged;
      staged.reset();
      const gpu::stream_t stream = streams_[slot].get();
      const std::size_t first = next.first, count = next.count;
      const std::string slice = fmt::format("{}:{}", first, first + count);
      try {
        auto transfer = [&](const char* label, auto&& enqueue) {
          if (!timed) {
            enqueue();
            return;
          }
          KernelTimer kt(label);
          log.start_event(label);
          kt.start(stream);
          const std::size_t bytes = enqueue();
          kt.stop(stream);
          phases.push_back(kt.deferred());
          log.stop_event(label,
                         {{keys::nbytes, static_cast<std::int64_t>(bytes)},
                          {keys::chunk_index, static_cast<std::int64_t>(c)},
                          {keys::chunk_slice, slice},
                          {keys::is_chunked, chunked}},
                         kt.deferred());
        };
        transfer(events::h2d_transfer_initial_values,
                 [&] { return inputs_.upload_initial_values(slot, count, stream); });
        if (n_params > 0) {
          transfer(events::h2d_transfer_parameters,
                   [&] { return inputs_.upload_parameters(slot, count, stream); });
        }
        if (save_times != nullptr) {
          transfer(events::h2d_transfer_save_times, [&] { return inputs_.upload_save_times(slot, count, stream); });
        }
        inputs_uploaded_[slot].record(stream);
        // A chunk of one or two warps has nothing to reorder.
        if (order_plan.order && count > 2 * warp_runs) {
          order(slot, c, stream, order_plan.key, log, phases, launch_order);
        }

        const unsigned block = static_cast<unsigned>(request.block_size);
        const unsigned grid = static_cast<unsigned>((count + block - 1) / block);
        KernelTimer kt(events::kernel_launch);
        if (timed) {
          log.start_event(events::kernel_launch);
          kt.start(stream);
        }
        RunSettings<T> chunk_plan = run_plan;
        chunk_plan.driver_run_offset = first;  // the kernel's run r is the batch's first + r
        launch(kernel, grid, block, stream, chunk_plan, inputs_.device_view(slot),
               outputs_.device_view(slot, count));
        if (timed) {
          kt.stop(stream);
          phases.push_back(kt.deferred());
          log.stop_event(events::kernel_launch,
                         {{keys::chunk_index, static_cast<std::int64_t>(c)},
                          {keys::numruns, static_cast<std::int64_t>(count)},
                          {keys::chunk_slice, slice}},
                         kt.deferred());
        }

        T* state_dst = pinned(result.final_state + first * n_states, count * n_states * sizeof(T))
                           ? result.final_state + first * n_states
                           : nullptr;
        transfer(events::d2h_transfer_state,
                 [&] { return outputs_.download_state(slot, count, stream, state_dst); });
        if (outputs_.n_saves() > 0) {
          transfer(events::d2h_transfer_state, [&] { return outputs_.download_series(slot, count, stream); });
        }
        if (outputs_.n_observables() > 0) {
          transfer(events::d2h_transfer_observables,
                   [&] { return outputs_.download_observables(slot, count, stream); });
        }
        if (outputs_.summary_windows() > 0) {
          transfer(events::d2h_transfer_summaries,
                   [&] { return outputs_.download_summaries(slot, count, stream); });
        }
        if (request.outputs.status) {
          Status* status_dst = pinned(result.status + first, count * sizeof(Status)) ? result.status + first : nullptr;
          transfer(events::d2h_transfer_status_codes,
                   [&] { return outputs_.download_status(slot, count, stream, status_dst); });
        }
        if (request.outputs.counters) {
          transfer(events::d2h_transfer_iteration_counters,
                   [&] { return outputs_.download_counters(slot, count, stream); });
        }
        if (request.events.n_events > 0) {
          transfer(events::d2h_transfer_events, [&] { return outputs_.download_events(slot, count, stream); });
        }
        in_slot[slot] = next;
      } catch (const GpuError& e) {
        throw GpuError(fmt::format("chunk {} of {} (runs {})", c, plan_.n_chunks, slice), e);
      }
      if (request.shared == nullptr || request.shared->plenty_left(plan_.chunk_runs)) staged = stage(c + 1);
    }
    // c chunks were issued; the slot of chunk c was emptied above, the others may hold the last ones
    // issued: finished oldest first.
    for (std::size_t k = c > plan_.slots ? c - plan_.slots : 0; k < c; ++k) finish(k % plan_.slots);
    progress.finish();
    double sum = 0;
    for (GpuTime& g : phases) sum += g.wait().value_or(0.0);
    return sum;
  }

  /// Plans the order of runs [first_run, first_run + runs) of the batch (arrays/run_order.hpp: from a
  /// sample of them, whether to order them and by which key), timed as run_ordering. Once per run:
  /// reading the sample costs cache and TLB misses that per chunk would add up.
  arrays::RunOrderPlan plan_order(std::size_t n_states, std::size_t n_params, const T* y0, const T* params,
                                  std::size_t runs, std::size_t first_run, TimeLogger& log) {
    ScopedTimer t(log, events::run_ordering);
    const arrays::RunOrderPlan plan = arrays::plan_run_order(
        y0 + first_run * n_states, n_params > 0 ? params + first_run * n_params : nullptr, runs, n_states, n_params);
    t.add_metadata("ordered", std::int64_t{plan.order ? 1 : 0});
    t.add_metadata("already_in_order", std::int64_t{plan.already_in_order ? 1 : 0});
    t.add_metadata("varying_inputs", static_cast<std::int64_t>(plan.varying_columns));
    t.add_metadata("log_scaled_inputs", static_cast<std::int64_t>(plan.log_columns));
    return plan;
  }

  /// Enqueues the order kernel of the runs staged in `slot` (chunk `chunk`) on `stream`, after their
  /// upload, through launch_order(stream, job): one run_ordering event per chunk, whose GPU time is
  /// the order kernel's.
  template <class LaunchOrder>
  void order(std::size_t slot, std::size_t chunk, gpu::stream_t stream, const kernels::RunOrderKey& key,
             TimeLogger& log, std::vector<GpuTime>& phases, LaunchOrder& launch_order) {
    if (!log.enabled()) {
      launch_order(stream, inputs_.order_job(slot, key));
      return;
    }
    KernelTimer kt(events::run_ordering);
    log.start_event(events::run_ordering);
    kt.start(stream);
    launch_order(stream, inputs_.order_job(slot, key));
    kt.stop(stream);
    phases.push_back(kt.deferred());
    log.stop_event(events::run_ordering, {{keys::chunk_index, static_cast<std::int64_t>(chunk)}}, kt.deferred());
  }

  /// An exception (a non-finite input met while staging, a failed call) leaves earlier chunks'
  /// copies and kernels in flight on buffers the next solve reuses: they are waited for before the
  /// exception leaves run(). Errors while waiting are dropped; the exception in flight is the report.
  struct DrainOnThrow {
    std::vector<gpu::Stream>& streams;
    int exceptions = std::uncaught_exceptions();
    ~DrainOnThrow() {
      if (std::uncaught_exceptions() <= exceptions) return;
      for (gpu::Stream& stream : streams) {
        try {
          stream.synchronize();
        } catch (const GpuError&) {
        }
      }
    }
  };

  /// A chunk in flight: its index in this run and its runs of the batch.
  struct Chunk {
    std::size_t index = 0, first = 0, count = 0;
  };

  static constexpr std::size_t warp_runs = 32;  // NVIDIA's warp; AMD's wavefront of 64 is two
  // Below this many runs a chunk's launch and transfer latencies outweigh what overlap saves.
  static constexpr std::size_t min_overlap_chunk_runs = std::size_t(1) << 17;
  arrays::HostWorkers workers_;
  arrays::ChunkPlan plan_{};
  bool last_run_grew_ = false;
  arrays::InputArrayManager<T> inputs_;
  arrays::OutputArrayManager<T> outputs_;
  std::vector<gpu::Stream> streams_;
  std::vector<gpu::Event> inputs_uploaded_;  ///< per slot: recorded after its chunk's inputs were uploaded
  gpu::DeviceBuffer<T> save_times_;  ///< the device's copy of RunSettings::save_times
  gpu::DeviceBuffer<T> driver_values_;  ///< the device's copies of the drivers' coefficients and knots
  gpu::DeviceBuffer<DriverPieces<T>> driver_pieces_;  ///< RunSettings::drivers on the device
};

}  // namespace batchode
