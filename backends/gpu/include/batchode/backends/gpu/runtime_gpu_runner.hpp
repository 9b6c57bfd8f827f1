// backends/gpu/: the GPU path of a system known only at run time (a model compiled by NVRTC or
// hipRTC): the same chunk pipeline as compiled-in systems (chunk_pipeline.hpp: chunking, array
// managers, two streams, every phase timed under the same names), with sizes given at run time and
// a launcher that enqueues the loaded kernel through gpu::Module::launch. Host code: built by plain
// C++ compilers, no vendor header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/gpu/chunk_pipeline.hpp"
#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/backends/gpu/lane_group_launch.hpp"
#include "batchode/backends/gpu/runtime_kernels.hpp"
#include "batchode/gpu/module.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/kernels/outputs/series_moments.hpp"
#include "batchode/kernels/outputs/summaries.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "batchode/timing/timed_events.hpp"

namespace batchode {

/// Runs batches of a runtime-compiled system in precision T on one GPU. Keeps its buffers and
/// streams between runs, like GpuRunner, whose interface it shares but for the system: the sizes
/// and the loaded kernels are arguments.
template <class T>
class RuntimeGpuRunner {
 public:
  /// The chunk plan of the last run (for tests and telemetry).
  const arrays::ChunkPlan& last_plan() const noexcept { return pipeline_.last_plan(); }
  /// Whether the last run had to grow its buffers (see GpuRunner::last_run_grew).
  bool last_run_grew() const noexcept { return pipeline_.last_run_grew(); }

  /// Integrates runs [first_run, first_run + runs) of the batch (y0: n_states, params: n_params
  /// values per run, the whole batch, run-major) into the same rows of `result`, on device
  /// request.device, with `kernels` (request.method's, in precision T, usable on that device). The
  /// first run of each kernel times its load as kernel_compile unless the caller claimed it
  /// (RuntimeKernels::claim_first_load). Throws std::invalid_argument when `kernels` do not fit the
  /// request (or the summaries run_plan keeps), GpuError (naming the call and the chunk) on a runtime
  /// failure, InvalidInput when the memory budget cannot hold one run or an input is not finite.
  void run(const RuntimeKernels& kernels, std::size_t n_states, std::size_t n_params,
           const GpuRunRequest& request, const RunSettings<T>& run_plan, const T* y0, const T* params,
           std::size_t runs, const ResultView<T>& result, TimeLogger& log, std::size_t first_run = 0) {
    check(kernels, request, run_plan, chunk_kernel_for(result));
    auto load = [&](kernels::ChunkKernel kernel, TimeLogger& l) {
      if (!kernels.claim_first_load(kernel)) return;
      ScopedTimer t(l, events::kernel_compile);
      const gpu::KernelAttributes attributes = gpu::kernel_attributes(kernels.kernel(kernel));
      t.add_metadata("registers", static_cast<std::int64_t>(attributes.registers));
      t.add_metadata("local_bytes", static_cast<std::int64_t>(attributes.local_bytes));
      if (kernel == kernels::ChunkKernel::final_state) {
        t.add_metadata("lanes_per_run", static_cast<std::int64_t>(kernels.lanes_per_run));
      }
    };
    const gpu::Module& module = *kernels.module;
    auto launch = [&](kernels::ChunkKernel kernel, unsigned grid, unsigned block, gpu::stream_t stream,
                      const RunSettings<T>& settings, const kernels::DeviceInputs<T>& in,
                      const kernels::DeviceOutputs<T>& out) {
      // The kernel's first parameter is the system by value: an empty struct, one byte.
      char system = 0;
      void* args[] = {&system, const_cast<RunSettings<T>*>(&settings),
                      const_cast<kernels::DeviceInputs<T>*>(&in),
                      const_cast<kernels::DeviceOutputs<T>*>(&out)};
      if (kernel == kernels::ChunkKernel::final_state && kernels.lanes_per_run > 1) {
        const LaneGroupLaunch g = lane_group_launch(grid, block, n_states, kernels.lanes_per_run, sizeof(T));
        module.launch(kernels.kernel(kernel), g.grid, g.block, stream, args, g.shared_bytes);
      } else {
        module.launch(kernels.kernel(kernel), grid, block, stream, args);
      }
    };
    auto launch_order = [&](gpu::stream_t stream, const kernels::RunOrderJob<T>& job) {
      void* args[] = {const_cast<kernels::RunOrderJob<T>*>(&job)};
      kernels.order_module->launch(kernels.order, kernels::run_order_blocks(job.in.stride),
                                   kernels::run_order_block, stream, args);
    };
    LaunchMoments<T> launch_moments;
    if (kernels.moments_module != nullptr) {
      launch_moments = [&](gpu::stream_t stream, const kernels::SeriesMomentsJob<T>& job) {
        void* args[] = {const_cast<kernels::SeriesMomentsJob<T>*>(&job)};
        kernels.moments_module->launch(kernels.moments, job.rows * job.parts, kernels::series_moments_block, stream,
                                       args);
      };
    }
    pipeline_.run(n_states, n_params, request, run_plan, y0, params, runs, result, log, first_run, load,
                  launch, launch_order, launch_moments);
  }

 private:
  static void check(const RuntimeKernels& kernels, const GpuRunRequest& request, const RunSettings<T>& plan,
                    kernels::ChunkKernel launched) {
    if (kernels.module == nullptr) throw std::invalid_argument("RuntimeGpuRunner: no kernels loaded");
    if (launched != kernels::ChunkKernel::summaries && !kernels.kernel(launched)) {
      throw std::invalid_argument(std::string("RuntimeGpuRunner: the solve launches the ") +
                                  (launched == kernels::ChunkKernel::series ? "series" : "final-state") +
                                  " kernel, which the module was not built with");
    }
    if (request.order_runs && (!kernels.order || kernels.order_module == nullptr)) {
      throw std::invalid_argument(
          "RuntimeGpuRunner: the solve orders its runs on the device and no run-order kernel was loaded");
    }
    // A kernel built for a few kinds writes exactly those: one built for more than the solve keeps
    // would write kinds the result has no slots for (summary_kernel_serves).
    if (plan.summary_windows != 0 &&
        (!kernels.summaries || !summary_kernel_serves(kernels.summary_kinds, plan.summary_metrics))) {
      throw std::invalid_argument(
          "RuntimeGpuRunner: the solve keeps summaries (kinds " + std::to_string(plan.summary_metrics) +
          ") the kernels were not built for (" + std::to_string(kernels.summary_kinds) + ")");
    }
    if (kernels.method != request.method) {
      throw std::invalid_argument("RuntimeGpuRunner: kernels of " + name_of(kernels.method) +
                                  " for a solve with " + name_of(request.method));
    }
    if (kernels.value_bytes != sizeof(T)) {
      throw std::invalid_argument("RuntimeGpuRunner: kernels of " + std::to_string(kernels.value_bytes) +
                                  "-byte values for a solve in " + std::to_string(sizeof(T)) +
                                  "-byte values");
    }
    if (!kernels.module->usable_on(request.device)) {
      throw std::invalid_argument("RuntimeGpuRunner: module " + kernels.module->label() +
                                  " was loaded on device " + std::to_string(kernels.module->device()) +
                                  ", not on device " + std::to_string(request.device));
    }
  }

  static std::string name_of(Method m) {
    return is_known_method(m) ? method_registry[static_cast<int>(m)].name
                              : "method " + std::to_string(static_cast<int>(m));
  }

  ChunkPipeline<T> pipeline_;
};

}  // namespace batchode
