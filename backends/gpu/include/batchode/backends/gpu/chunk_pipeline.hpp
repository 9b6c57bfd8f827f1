// backends/gpu/: the GPU path of a solve, all of it but the kernel launch. Plans chunks to fit the
// device-memory budget, then for each chunk: stage inputs (copied into pinned memory, checked finite
// on the way), upload, order its runs on the device when the request asks (kernels/
// run_order_kernels.hpp, planned by arrays/run_order.hpp), launch the batch kernel (through the
// caller's launcher), download the active outputs, and scatter them into the result (chunk_pass.hpp:
// one run's pass over its chunks). Chunks alternate between two streams with their own buffer slots,
// so chunk k+1's upload and chunk k-1's download overlap chunk k's kernel; chunk k+1's inputs are
// staged as soon as chunk k is enqueued.
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
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/input_array_manager.hpp"
#include "batchode/arrays/output_array_manager.hpp"
#include "batchode/arrays/outputs.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/gpu/chunk_pass.hpp"
#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/gpu/buffers.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/gpu_error.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/timing/metadata_keys.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "batchode/timing/timed_events.hpp"

namespace batchode {

/// The batch kernel every chunk of a run into `result` launches: summaries when the result keeps them
/// (the summary kernel also saves any series beside them), else series when it has saves, else
/// final_state.
template <class T>
kernels::ChunkKernel chunk_kernel_for(const ResultView<T>& result) noexcept {
  return result.summary_windows > 0 ? kernels::ChunkKernel::summaries
         : result.n_saves > 0       ? kernels::ChunkKernel::series
                                    : kernels::ChunkKernel::final_state;
}

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
  /// from the chunks. The kernel is the same for the whole run (chunk_kernel_for). With
  /// request.shared, [first_run, first_run + runs) is this GPU's own share: the chunks are planned for
  /// it and the run order sampled from it, but the runs come from the shared ranges.
  /// When the result reduces its series on the device (ResultView::series_moments), each chunk's
  /// series and observables are reduced through `launch_moments` after its kernel and only their
  /// moments are downloaded (OutputArrayManager::reduce_series); the chunks need no staging for them.
  /// Throws GpuError (naming the call and the chunk) on a runtime failure, InvalidInput when the
  /// memory budget cannot hold one run or an input is not finite, std::logic_error when the result
  /// has no room for the summaries run_plan keeps (or room for summaries it does not keep), or reduces
  /// its series with no `launch_moments`.
  template <class Load, class Launch, class LaunchOrder>
  void run(std::size_t n_states, std::size_t n_params, const GpuRunRequest& request,
           const RunSettings<T>& run_plan, const T* y0, const T* params, std::size_t runs,
           const ResultView<T>& result, TimeLogger& log, std::size_t first_run, Load&& load,
           Launch&& launch, LaunchOrder&& launch_order, const LaunchMoments<T>& launch_moments = {}) {
    check_summary_room(run_plan, result);
    check_series_columns(n_states, run_plan, result);
    const bool reduce = result.series_moments != nullptr && result.n_saves > 0;
    if (reduce && !launch_moments) {
      throw std::logic_error("ChunkPipeline::run: the result reduces its series on the device, and no launcher "
                             "of the reduction was given");
    }
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
      if (reduce) {  // the series and observables stay on the device: no staging, no rows in the result
        const std::size_t kept = saves * (series_states + observables) * sizeof(T);
        footprint.host_staging_bytes_per_run -= std::min(kept, footprint.host_staging_bytes_per_run);
        footprint.result_bytes_per_run -= std::min(kept, footprint.result_bytes_per_run);
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
                           observables, summary_windows, summary_slots, series_states, reduce);
      last_run_grew_ = inputs_grew || outputs_grew;
      while (streams_.size() < plan_.slots) streams_.emplace_back();
      timer.add_metadata("grew", std::int64_t{last_run_grew_ ? 1 : 0});
    }

    ScopedTimer timer(log, events::kernel_run_execution);
    timer.add_metadata(keys::backend, fmt::format("gpu:{}", request.device));
    timer.add_metadata(keys::total_runs, static_cast<std::int64_t>(runs));
    timer.add_metadata(keys::num_chunks, static_cast<std::int64_t>(plan_.n_chunks));
    const kernels::ChunkKernel kernel = chunk_kernel_for(result);
    load(kernel, log);
    RunSettings<T> plan = run_plan;
    if (per_run_times) {
      plan.save_times = nullptr;  // the kernel reads each run's from the chunk's inputs
    } else if (plan.save_times != nullptr) {
      plan.save_times = upload_save_times(run_plan, log);
    }
    if (plan.n_drivers > 0) plan.drivers = upload_drivers(run_plan, log);
    const ChunkBuffers<T> buffers{plan_, inputs_, outputs_, streams_, inputs_uploaded_, workers_};
    // Each run's own save times (host) are staged with their chunk's inputs.
    const T* own_save_times = per_run_times ? run_plan.save_times : nullptr;
    const ChunkRun<T> chunk_run{kernel, n_states,       n_params, request, plan,     y0,
                                params, own_save_times, result,   log,     first_run, launch_moments};
    const double phase_sum_ms =
        ChunkPass<T, Launch, LaunchOrder>(buffers, chunk_run, launch, launch_order).run();
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
