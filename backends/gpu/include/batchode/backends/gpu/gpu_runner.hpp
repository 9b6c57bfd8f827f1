// backends/gpu/: the GPU path of a compiled-in system: the chunk pipeline (chunk_pipeline.hpp: plan,
// stage, upload, download, scatter on two streams, every phase timed) with a launcher that enqueues
// kernels::integrate_chunk's instantiations for Tab, System and T with <<<>>>. The method is dispatched,
// and the kernel chosen (chunk_kernel), once per run. Compiled only by the GPU compiler (included from
// solver.hpp when BATCHODE_GPU_COMPILER).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

// First: under hipcc it includes the HIP runtime header, whose builtins (threadIdx) batch_kernel.hpp
// uses, also where batchode_target_gpu did not pre-include it.
#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/gpu/chunk_pipeline.hpp"
#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/backends/gpu/lane_group_launch.hpp"
#include "batchode/backends/gpu/launch.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/launch/batch_kernel.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/launch/lane_group_kernel.hpp"
#include "batchode/kernels/launch/run_order_kernels.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/kernels/outputs/observables.hpp"
#include "batchode/kernels/outputs/series_moments.hpp"
#include "batchode/kernels/outputs/summaries.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "batchode/timing/timed_events.hpp"

namespace batchode {

/// Runs batches of System in precision T on one GPU. Keeps its buffers and streams between runs
/// (a Solver owns one), so repeated solves of similar size allocate nothing.
template <class System, class T>
class GpuRunner {
 public:
  static constexpr std::size_t N = System::n_states;
  static constexpr std::size_t P = System::n_params;

  /// The chunk plan of the last run (for tests and telemetry).
  const arrays::ChunkPlan& last_plan() const noexcept { return pipeline_.last_plan(); }
  /// Whether the last run had to grow its buffers (its time then includes allocations that later
  /// runs of that size do not pay: the cost model does not learn from it).
  bool last_run_grew() const noexcept { return pipeline_.last_run_grew(); }

  /// Integrates runs [first_run, first_run + runs) of the batch (y0, params: the whole batch,
  /// run-major) into the same rows of `result`, on device request.device (set for the calling
  /// thread). Throws GpuError (naming the call and the chunk) on a runtime failure, InvalidInput
  /// when the memory budget cannot hold one run.
  void run(const System& sys, const GpuRunRequest& request, const RunSettings<T>& run_plan, const T* y0,
           const T* params, std::size_t runs, const ResultView<T>& result, TimeLogger& log,
           std::size_t first_run = 0) {
    // A system with events writes its records: the request and the result must have room for them.
    if (n_events_v<System> > 0 &&
        (request.events.n_events != n_events_v<System> || result.events == nullptr)) {
      throw std::logic_error(
          "GpuRunner::run: the system has event functions but the request or the result "
          "holds no event records");
    }
    if (run_plan.n_drivers != n_drivers_v<System> ||
        (n_drivers_v<System> > 0 && run_plan.drivers == nullptr)) {
      throw std::logic_error(
          "GpuRunner::run: the plan does not carry the system's drivers (make_run_settings' "
          "DriverTable)");
    }
    if (!holds_series(result, run_plan, System::n_states, n_observables_v<System>)) {
      throw std::logic_error(
          "GpuRunner::run: the result is not shaped for the series the plan saves (its states and observables)");
    }
    auto launch_order = [](gpu::stream_t stream, const kernels::RunOrderJob<T>& job) {
      kernels::run_order_segments<T><<<kernels::run_order_blocks(job.in.stride), kernels::run_order_block, 0,
                                       gpu::native_stream(stream)>>>(job);
      gpu::check_last_launch("kernels::run_order_segments", __FILE__, __LINE__);
    };
    const LaunchMoments<T> launch_moments = [](gpu::stream_t stream, const kernels::SeriesMomentsJob<T>& job) {
      kernels::series_moments<T>
          <<<job.rows * job.parts, kernels::series_moments_block, 0, gpu::native_stream(stream)>>>(job);
      gpu::check_last_launch("kernels::series_moments", __FILE__, __LINE__);
    };
    tableau::dispatch_compiled<System>(
        request.method,
        [&](auto tag) {
          using Tab = typename decltype(tag)::type;
          // Summaries: a solve keeping exactly the kinds the system declares (summary_kinds_v) runs the
          // kernel built for them, any other the one built for every kind.
          const bool lean = runs_declared_summary_kernel<System>(run_plan.summary_metrics);
          // The pipeline loads once per run, before any chunk, the kernel every chunk of the run
          // launches: the kernel is chosen there, once, and each launch uses that choice.
          const ChunkKernelHandle* chosen = nullptr;
          auto load = [&](kernels::ChunkKernel kind, TimeLogger& l) {
            chosen = &chunk_kernel<Tab>(kind, request.split_runs, lean);
            load_once(*chosen, l);
          };
          auto launch = [&](kernels::ChunkKernel, unsigned grid, unsigned block, gpu::stream_t stream,
                            const RunSettings<T>& settings, const kernels::DeviceInputs<T>& in,
                            const kernels::DeviceOutputs<T>& out) {
            chosen->launch(sys, grid, block, stream, settings, in, out);
            gpu::check_last_launch("kernels::integrate_chunk", __FILE__, __LINE__);
          };
          pipeline_.run(N, P, request, run_plan, y0, params, runs, result, log, first_run, load, launch,
                        launch_order, launch_moments);
        },
        [&] {
          throw InvalidInput("GpuRunner: method " + to_string(request.method) +
                             " is not among the system's compiled_methods");
        });
  }

 private:
  /// Threads per run of method Tab's final-state kernel (kernels/launch/lane_group.hpp).
  template <class Tab>
  static constexpr std::size_t lanes() {
    return kernels::lanes_per_run<Tab, System, T>();
  }

  /// One integrate_chunk instantiation (kernels/launch/): its address (its attributes, for loading),
  /// its threads per run, whether its first load was timed, and its <<<>>> launch.
  struct ChunkKernelHandle {
    const void* address;
    std::size_t lanes_per_run;
    std::atomic<bool>* loaded;  // per instantiation; part threads of several GPUs share it
    void (*launch)(const System&, unsigned grid, unsigned block, gpu::stream_t, const RunSettings<T>&,
                   const kernels::DeviceInputs<T>&, const kernels::DeviceOutputs<T>&);
  };

  /// Method Tab's batch kernel with one thread per run (kernels/launch/batch_kernel.hpp), saving a
  /// series or not, with the summary kinds `Kinds` built in (0: no summaries).
  template <class Tab, bool Series, std::uint32_t Kinds = 0>
  struct PerRunKernel {
    static const void* address() {
      return reinterpret_cast<const void*>(&kernels::integrate_chunk<Tab, Series, System, T, Kinds>);
    }
    static constexpr std::size_t lanes_per_run = 1;
    static void launch(const System& sys, unsigned grid, unsigned block, gpu::stream_t stream,
                       const RunSettings<T>& settings, const kernels::DeviceInputs<T>& in,
                       const kernels::DeviceOutputs<T>& out) {
      kernels::integrate_chunk<Tab, Series, System, T, Kinds>
          <<<grid, block, 0, gpu::native_stream(stream)>>>(sys, settings, in, out);
    }
  };

  /// Method Tab's final-state kernel with each run split over lanes<Tab>() threads
  /// (kernels/launch/lane_group_kernel.hpp), in the launch lane_group_launch makes of the grid.
  template <class Tab>
  struct LaneGroupKernel {
    static constexpr std::size_t lanes_per_run = lanes<Tab>();
    static const void* address() {
      return reinterpret_cast<const void*>(
          &kernels::integrate_chunk_in_lane_groups<Tab, System, T, lanes_per_run>);
    }
    static void launch(const System& sys, unsigned grid, unsigned block, gpu::stream_t stream,
                       const RunSettings<T>& settings, const kernels::DeviceInputs<T>& in,
                       const kernels::DeviceOutputs<T>& out) {
      const LaneGroupLaunch g = lane_group_launch(grid, block, N, lanes_per_run, sizeof(T));
      kernels::integrate_chunk_in_lane_groups<Tab, System, T, lanes_per_run>
          <<<g.grid, g.block, g.shared_bytes, gpu::native_stream(stream)>>>(sys, settings, in, out);
    }
  };

  /// The handle of kernel K, made once per process (so its `loaded` flag is K's own).
  template <class K>
  static const ChunkKernelHandle& handle_of() {
    static std::atomic<bool> loaded{false};
    static const ChunkKernelHandle handle{K::address(), K::lanes_per_run, &loaded, &K::launch};
    return handle;
  }

  /// The one choice of kernel for method Tab's chunks of kind `kind` (kernels/launch/device_views.hpp):
  /// the final state split over lanes when the method has them and `split_runs` (GpuRunRequest),
  /// else one thread per run; a series; summaries, built for the kinds the system declares when
  /// `lean`, else for every kind.
  template <class Tab>
  static const ChunkKernelHandle& chunk_kernel(kernels::ChunkKernel kind, bool split_runs, bool lean) {
    switch (kind) {
      case kernels::ChunkKernel::final_state:
        if constexpr (lanes<Tab>() > 1) {
          if (split_runs) return handle_of<LaneGroupKernel<Tab>>();
        }
        return handle_of<PerRunKernel<Tab, false>>();
      case kernels::ChunkKernel::series:
        return handle_of<PerRunKernel<Tab, true>>();
      case kernels::ChunkKernel::summaries:
        if (lean) return handle_of<PerRunKernel<Tab, true, summary_kinds_v<System>>>();
        return handle_of<PerRunKernel<Tab, true, all_summary_kinds>>();
    }
    throw std::logic_error("GpuRunner: unknown chunk kernel");
  }

  /// The first launch of a kernel instantiation loads its module (lazy loading on CUDA): done here
  /// once, on purpose, and timed as `kernel_compile`, so chunk timings exclude it.
  static void load_once(const ChunkKernelHandle& kernel, TimeLogger& log) {
    if (kernel.loaded->load(std::memory_order_acquire)) return;
    ScopedTimer t(log, events::kernel_compile);
    const gpu::KernelAttributes attributes = gpu::kernel_attributes(kernel.address);
    t.add_metadata("registers", static_cast<std::int64_t>(attributes.registers));
    t.add_metadata("local_bytes", static_cast<std::int64_t>(attributes.local_bytes));
    t.add_metadata("lanes_per_run", static_cast<std::int64_t>(kernel.lanes_per_run));
    kernel.loaded->store(true, std::memory_order_release);
  }

  ChunkPipeline<T> pipeline_;
};

}  // namespace batchode
