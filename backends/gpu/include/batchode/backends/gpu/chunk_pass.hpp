// backends/gpu/: one run's pass over its chunks, for the chunk pipeline (chunk_pipeline.hpp), which
// planned the chunks, grew the buffers and put the run's constants on the device. For each chunk, on
// its slot's stream: stage its inputs (host, ahead of time), upload them, order its runs when asked,
// launch the kernel, download the outputs; the slot's previous chunk is finished (waited for and
// scattered into the result) before its buffers are reused. Every phase is a TimeLogger event with
// its GPU time from a KernelTimer event pair. Host code: no vendor header, no <<<>>>.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/input_array_manager.hpp"
#include "batchode/arrays/output_array_manager.hpp"
#include "batchode/arrays/result_memory.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/arrays/run_order.hpp"
#include "batchode/arrays/shared_runs.hpp"
#include "batchode/arrays/stop_request.hpp"
#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/gpu/gpu_error.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/launch/run_order_kernels.hpp"
#include "batchode/kernels/outputs/series_moments.hpp"
#include "batchode/timing/gpu_time.hpp"
#include "batchode/timing/kernel_timer.hpp"
#include "batchode/timing/metadata_keys.hpp"
#include "batchode/timing/progress.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "batchode/timing/timed_events.hpp"

namespace batchode {

/// What a pipeline keeps between runs and a pass uses: the plan, the buffers and the streams.
template <class T>
struct ChunkBuffers {
  const arrays::ChunkPlan& plan;
  arrays::InputArrayManager<T>& inputs;
  arrays::OutputArrayManager<T>& outputs;
  std::vector<gpu::Stream>& streams;         ///< one per slot
  std::vector<gpu::Event>& inputs_uploaded;  ///< per slot: recorded after its chunk's inputs were uploaded
  arrays::HostWorkers& workers;              ///< staging's and the scatter's threads
};

/// Enqueues kernels::series_moments<T> (kernels/outputs/series_moments.hpp) for a job on a stream: a
/// runner's launcher, called when the result reduces its series on the device (ResultView::
/// series_moments). Throws GpuError when the launch fails.
template <class T>
using LaunchMoments = std::function<void(gpu::stream_t, const kernels::SeriesMomentsJob<T>&)>;

/// What one run gives its pass (ChunkPipeline::run's arguments, the run's constants on the device).
template <class T>
struct ChunkRun {
  kernels::ChunkKernel kernel;  ///< the same for every chunk
  std::size_t n_states, n_params;
  const GpuRunRequest& request;
  const RunSettings<T>& settings;  ///< save times and drivers pointing at the device's copies
  const T* y0;
  const T* params;
  const T* save_times;  ///< each run's own (host), staged with its chunk; null: shared or none
  const ResultView<T>& result;
  TimeLogger& log;
  std::size_t first_run;
  const LaunchMoments<T>& launch_moments;  ///< empty unless the result reduces its series on the device
};

/// The order of the `runs` runs from `first` of a run's inputs (arrays/run_order.hpp: from a sample of
/// them, whether to order them and by which key), timed as run_ordering. Once per run: reading the
/// sample costs cache and TLB misses that per chunk would add up.
template <class T>
arrays::RunOrderPlan timed_run_order_plan(TimeLogger& log, const T* y0, const T* params, std::size_t first,
                                          std::size_t runs, std::size_t n_states, std::size_t n_params) {
  ScopedTimer t(log, events::run_ordering);
  const arrays::RunOrderPlan plan = arrays::plan_run_order(
      y0 + first * n_states, n_params > 0 ? params + first * n_params : nullptr, runs, n_states, n_params);
  t.add_metadata("ordered", std::int64_t{plan.order ? 1 : 0});
  t.add_metadata("already_in_order", std::int64_t{plan.already_in_order ? 1 : 0});
  t.add_metadata("varying_inputs", static_cast<std::int64_t>(plan.varying_columns));
  t.add_metadata("log_scaled_inputs", static_cast<std::int64_t>(plan.log_columns));
  return plan;
}

/// One run's pass over its chunks. `launch` and `launch_order` are the runner's launchers
/// (ChunkPipeline::run says what they must do). Made and run once per run.
template <class T, class Launch, class LaunchOrder>
class ChunkPass {
 public:
  ChunkPass(const ChunkBuffers<T>& buffers, const ChunkRun<T>& chunk_run, Launch& launcher,
            LaunchOrder& order_launcher)
      : b_(buffers),
        run_(chunk_run),
        launch_(launcher),
        launch_order_(order_launcher),
        order_plan_(!chunk_run.request.order_runs             ? arrays::RunOrderPlan{}
                    : chunk_run.request.order_plan != nullptr ? *chunk_run.request.order_plan
                                                              : plan_order()),
        progress_(b_.plan.n_chunks, b_.plan.n_runs, chunk_run.log.verbosity()),
        in_slot_(b_.plan.slots) {}

  /// Issues every chunk, finishes them all, and returns the sum of the phases' GPU times (transfers
  /// and kernels overlap when it exceeds the run's wall time). Throws what ChunkPipeline::run does.
  /// Chunk c's inputs are staged (claimed, copied into its slot's pinned buffer and checked) right
  /// after chunk c - 1 is enqueued, while the GPU works on it and on chunk c - 2: so once chunk
  /// c - 2 leaves the slot, chunk c's upload and kernel follow at once. Staged after that wait, a
  /// light sweep's host work and the GPU's took turns (H200, Lorenz to t = 1, 2^22 runs: 7.2-8.3 ms
  /// a solve, 5.5 staged ahead), and a GPU sharing an uneven sweep's runs, whose cheap chunks'
  /// kernels are as short as a chunk's staging, had no kernel running for 0.5-0.9 ms of a solve.
  /// GPUs sharing runs take a slice ahead only while plenty are left (SharedRuns::plenty_left): near
  /// the end a staged slice could wait while another GPU runs out of work.
  double run() {
    const DrainOnThrow drain{b_.streams};
    while (b_.inputs_uploaded.size() < b_.plan.slots) b_.inputs_uploaded.emplace_back();
    const GpuRunRequest& request = run_.request;
    std::optional<Chunk> staged;
    std::size_t c = 0;
    for (;; ++c) {
      // Streams drain on the way out (DrainOnThrow): no copy still lands in a result being dropped.
      if (arrays::stop_requested(request.stop)) {
        throw SolveInterrupted(fmt::format("solve stopped on request on GPU {} before chunk {} of {}",
                                           request.device, c, b_.plan.n_chunks));
      }
      // The slot's previous chunk must be out of its buffers before they are reused.
      finish(c % b_.plan.slots);
      if (!staged) staged = stage(c);  // not staged ahead: the first chunk, or shared runs near their end
      if (!staged) break;
      const Chunk next = *staged;
      staged.reset();
      issue(next);
      if (request.shared == nullptr || request.shared->plenty_left(b_.plan.chunk_runs)) staged = stage(c + 1);
    }
    // c chunks were issued; the slot of chunk c was emptied above, the others may hold the last ones
    // issued: finished oldest first.
    for (std::size_t k = c > b_.plan.slots ? c - b_.plan.slots : 0; k < c; ++k) finish(k % b_.plan.slots);
    progress_.finish();
    double sum = 0;
    for (GpuTime& g : phases_) sum += g.wait().value_or(0.0);
    return sum;
  }

 private:
  /// A chunk in flight: its index in this run and its runs of the batch.
  struct Chunk {
    std::size_t index = 0, first = 0, count = 0;
    std::size_t slot(std::size_t slots) const { return index % slots; }
    std::string slice() const { return fmt::format("{}:{}", first, first + count); }
  };

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

  /// The order of the run's runs (timed_run_order_plan), where the request brings none.
  arrays::RunOrderPlan plan_order() const {
    return timed_run_order_plan(run_.log, run_.y0, run_.params, run_.first_run, b_.plan.n_runs, run_.n_states,
                                run_.n_params);
  }

  /// Chunk c's runs: the plan's, or the next slice this GPU takes from the runs it shares; none when
  /// there are no more.
  std::optional<Chunk> next_chunk(std::size_t c) {
    const GpuRunRequest& request = run_.request;
    if (request.shared != nullptr) {
      const std::optional<arrays::RunSlice> s = request.shared->next(request.consumer, b_.plan.chunk_runs);
      if (!s) return std::nullopt;
      return Chunk{c, s->first, s->count};
    }
    if (c >= b_.plan.n_chunks) return std::nullopt;
    return Chunk{c, run_.first_run + b_.plan.first(c), b_.plan.count(c)};
  }

  /// Claims chunk c and stages its inputs on the host: copied into its slot's pinned buffer and
  /// checked finite (InvalidInput naming the value), with its runs' own save times. The slot's pinned
  /// inputs last held chunk c - slots's (when c >= slots: chunk c is staged only after chunk c - 1 was
  /// issued), whose upload is waited for first (an event recorded after it; long done, since that
  /// chunk's kernel followed it on the stream).
  std::optional<Chunk> stage(std::size_t c) {
    const std::optional<Chunk> next = next_chunk(c);
    if (!next) return std::nullopt;
    const std::size_t slot = next->slot(b_.plan.slots);
    if (c >= b_.plan.slots) b_.inputs_uploaded[slot].synchronize();
    ScopedTimer t(run_.log, events::host_staging);
    t.add_metadata("direction", "inputs_to_staging");
    t.add_metadata(keys::chunk_index, static_cast<std::int64_t>(c));
    const std::optional<arrays::NonFiniteInput> bad =
        b_.inputs.stage(slot, run_.y0, run_.params, next->first, next->count, &b_.workers);
    if (bad) {
      throw non_finite_input(bad->in_params ? "parameter" : "initial value", bad->run, bad->index,
                             bad->value);
    }
    if (run_.save_times != nullptr) {
      b_.inputs.stage_save_times(slot, run_.save_times, next->first, next->count, &b_.workers);
    }
    return next;
  }

  /// Enqueues a staged chunk's work on its slot's stream, in this order: upload, order, kernel,
  /// download. A runtime failure is reported with the chunk's index and runs.
  void issue(const Chunk& chunk) {
    const std::size_t slot = chunk.slot(b_.plan.slots);
    const gpu::stream_t stream = b_.streams[slot].get();
    try {
      upload(chunk, stream);
      // A chunk of one or two warps has nothing to reorder.
      if (order_plan_.order && chunk.count > 2 * warp_runs) order(chunk, stream);
      launch(chunk, stream);
      download(chunk, stream);
      in_slot_[slot] = chunk;
    } catch (const GpuError& e) {
      throw GpuError(fmt::format("chunk {} of {} (runs {})", chunk.index, b_.plan.n_chunks, chunk.slice()),
                     e);
    }
  }

  /// Runs `enqueue` (which enqueues a copy on `stream` and returns its bytes) as event `label` of
  /// chunk `chunk`, its GPU time measured by a KernelTimer pair around it; untimed, just runs it.
  template <class Enqueue>
  void transfer(const char* label, const Chunk& chunk, gpu::stream_t stream, Enqueue&& enqueue) {
    if (!run_.log.enabled()) {
      enqueue();
      return;
    }
    KernelTimer kt(label);
    run_.log.start_event(label);
    kt.start(stream);
    const std::size_t bytes = enqueue();
    kt.stop(stream);
    phases_.push_back(kt.deferred());
    const std::int64_t chunked = b_.plan.n_chunks > 1 || run_.request.shared != nullptr ? 1 : 0;
    run_.log.stop_event(label,
                        {{keys::nbytes, static_cast<std::int64_t>(bytes)},
                         {keys::chunk_index, static_cast<std::int64_t>(chunk.index)},
                         {keys::chunk_slice, chunk.slice()},
                         {keys::is_chunked, chunked}},
                        kt.deferred());
  }

  /// The chunk's staged inputs to the device; then the event that staging the slot's next chunk
  /// waits for (stage).
  void upload(const Chunk& chunk, gpu::stream_t stream) {
    const std::size_t slot = chunk.slot(b_.plan.slots), count = chunk.count;
    transfer(events::h2d_transfer_initial_values, chunk, stream,
             [&] { return b_.inputs.upload_initial_values(slot, count, stream); });
    if (run_.n_params > 0) {
      transfer(events::h2d_transfer_parameters, chunk, stream,
               [&] { return b_.inputs.upload_parameters(slot, count, stream); });
    }
    if (run_.save_times != nullptr) {
      transfer(events::h2d_transfer_save_times, chunk, stream,
               [&] { return b_.inputs.upload_save_times(slot, count, stream); });
    }
    b_.inputs_uploaded[slot].record(stream);
  }

  /// Enqueues the order kernel of the chunk's runs after their upload, through launch_order: one
  /// run_ordering event per chunk, whose GPU time is the order kernel's.
  void order(const Chunk& chunk, gpu::stream_t stream) {
    const std::size_t slot = chunk.slot(b_.plan.slots);
    TimeLogger& log = run_.log;
    if (!log.enabled()) {
      launch_order_(stream, b_.inputs.order_job(slot, order_plan_.key));
      return;
    }
    KernelTimer kt(events::run_ordering);
    log.start_event(events::run_ordering);
    kt.start(stream);
    launch_order_(stream, b_.inputs.order_job(slot, order_plan_.key));
    kt.stop(stream);
    phases_.push_back(kt.deferred());
    log.stop_event(events::run_ordering, {{keys::chunk_index, static_cast<std::int64_t>(chunk.index)}},
                   kt.deferred());
  }

  /// Enqueues the chunk's kernel through the runner's launcher, timed as kernel_launch; the settings
  /// are the run's, told where the chunk starts in the batch (its drivers' sets are per run).
  void launch(const Chunk& chunk, gpu::stream_t stream) {
    const std::size_t slot = chunk.slot(b_.plan.slots);
    const unsigned block = static_cast<unsigned>(run_.request.block_size);
    const unsigned grid = static_cast<unsigned>((chunk.count + block - 1) / block);
    TimeLogger& log = run_.log;
    const bool timed = log.enabled();
    KernelTimer kt(events::kernel_launch);
    if (timed) {
      log.start_event(events::kernel_launch);
      kt.start(stream);
    }
    RunSettings<T> chunk_plan = run_.settings;
    chunk_plan.driver_run_offset = chunk.first;  // the kernel's run r is the batch's first + r
    launch_(run_.kernel, grid, block, stream, chunk_plan, b_.inputs.device_view(slot),
            b_.outputs.device_view(slot, chunk.count));
    if (timed) {
      kt.stop(stream);
      phases_.push_back(kt.deferred());
      log.stop_event(events::kernel_launch,
                     {{keys::chunk_index, static_cast<std::int64_t>(chunk.index)},
                      {keys::numruns, static_cast<std::int64_t>(chunk.count)},
                      {keys::chunk_slice, chunk.slice()}},
                     kt.deferred());
    }
  }

  /// Whether [p, p + bytes) of the result is page-locked (a recycled block of the Solver's pool):
  /// final states and statuses then go straight into it, no staging, no host copy.
  bool pinned(const void* p, std::size_t bytes) const {
    const ResultMemoryPool* memory = run_.result.memory;
    return memory != nullptr && memory->is_pinned(p, bytes);
  }

  /// Enqueues the copies of the chunk's active outputs to the host, after its kernel.
  void download(const Chunk& chunk, gpu::stream_t stream) {
    const std::size_t slot = chunk.slot(b_.plan.slots), first = chunk.first, count = chunk.count;
    const ResultView<T>& result = run_.result;
    const std::size_t n_states = run_.n_states;
    arrays::OutputArrayManager<T>& outputs = b_.outputs;
    T* state_dst = pinned(result.final_state + first * n_states, count * n_states * sizeof(T))
                       ? result.final_state + first * n_states
                       : nullptr;
    transfer(events::d2h_transfer_state, chunk, stream,
             [&] { return outputs.download_state(slot, count, stream, state_dst); });
    if (outputs.reduces_series()) {
      // The kernels that reduce the series and the download of their moments, as one event.
      transfer(events::ensemble_statistics, chunk, stream,
               [&] { return outputs.reduce_series(slot, count, stream, run_.launch_moments); });
    } else if (outputs.n_saves() > 0) {
      transfer(events::d2h_transfer_state, chunk, stream,
               [&] { return outputs.download_series(slot, count, stream); });
    }
    if (outputs.n_observables() > 0 && !outputs.reduces_series()) {
      transfer(events::d2h_transfer_observables, chunk, stream,
               [&] { return outputs.download_observables(slot, count, stream); });
    }
    if (outputs.summary_windows() > 0) {
      transfer(events::d2h_transfer_summaries, chunk, stream,
               [&] { return outputs.download_summaries(slot, count, stream); });
    }
    const GpuRunRequest& request = run_.request;
    if (request.outputs.status) {
      Status* status_dst =
          pinned(result.status + first, count * sizeof(Status)) ? result.status + first : nullptr;
      transfer(events::d2h_transfer_status_codes, chunk, stream,
               [&] { return outputs.download_status(slot, count, stream, status_dst); });
    }
    if (request.outputs.counters) {
      transfer(events::d2h_transfer_iteration_counters, chunk, stream,
               [&] { return outputs.download_counters(slot, count, stream); });
    }
    if (request.events.n_events > 0) {
      transfer(events::d2h_transfer_events, chunk, stream,
               [&] { return outputs.download_events(slot, count, stream); });
    }
  }

  /// Waits for the chunk in `slot` (if any) and scatters its outputs into the result: its buffers are
  /// then free for the slot's next chunk. With a series the host transposes it; otherwise every
  /// output is a plain copy.
  void finish(std::size_t slot) {
    if (!in_slot_[slot]) return;
    const Chunk chunk = *in_slot_[slot];
    try {
      b_.streams[slot].synchronize();
      ScopedTimer t(run_.log, run_.kernel != kernels::ChunkKernel::final_state ? events::host_transpose
                                                                               : events::host_staging);
      t.add_metadata("direction", "staging_to_result");
      t.add_metadata(keys::chunk_index, static_cast<std::int64_t>(chunk.index));
      b_.outputs.scatter(slot, chunk.first, chunk.count, run_.result, &b_.workers);
    } catch (const GpuError& e) {
      throw GpuError(
          fmt::format("chunk {} (runs {}:{})", chunk.index, chunk.first, chunk.first + chunk.count), e);
    }
    in_slot_[slot].reset();
    ++chunks_done_;
    runs_done_ += chunk.count;
    progress_.update(chunks_done_, runs_done_);
  }

  static constexpr std::size_t warp_runs = 32;  // NVIDIA's warp; AMD's wavefront of 64 is two

  const ChunkBuffers<T> b_;
  const ChunkRun<T> run_;
  Launch& launch_;
  LaunchOrder& launch_order_;
  std::vector<GpuTime> phases_;  // every phase's GPU time, summed once the streams are idle
  const arrays::RunOrderPlan order_plan_;
  ProgressReporter progress_;
  std::vector<std::optional<Chunk>> in_slot_;  // per slot: the chunk whose outputs are in its buffers
  std::size_t chunks_done_ = 0, runs_done_ = 0;
};

}  // namespace batchode
