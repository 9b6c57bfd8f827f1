// solver/systems/: the GPU runner of a model defined at run time: asks the model for its kernels (compiled by
// NVRTC / hipRTC on first use, then loaded) and runs them in the chunk pipeline (RuntimeGpuRunner).
// Host code, so any translation unit of a GPU build carries it, not only those nvcc/hipcc compile: a
// runtime model needs no GPU compiler at build time. gpu_path.hpp picks it for RuntimeModel<T>.
#pragma once

#include <cstddef>
#include <cstdint>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/arrays/run_order.hpp"
#include "batchode/backends/gpu/chunk_pass.hpp"
#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/backends/gpu/runtime_gpu_runner.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode::detail {

/// GpuRunner's interface for RuntimeModel<T>. Keeps its buffers and streams between runs.
template <class T>
class RuntimeModelGpuRunner {
 public:
  const arrays::ChunkPlan& last_plan() const noexcept { return runner_.last_plan(); }
  bool last_run_grew() const noexcept { return runner_.last_run_grew(); }

  /// As GpuRunner::run; the first run of a method on a device that launches a given batch kernel
  /// compiles or loads that kernel alone (timed in `log`: RuntimeModel::gpu_kernels), a summary kernel
  /// for exactly the kinds a solve keeps, and the run order's kernel when the runs are to be ordered:
  /// their order is planned here, before the kernels are chosen, so a sweep in its own order (or one
  /// whose inputs do not vary) compiles no ordering kernel (a third of a small model's first solve).
  void run(const RuntimeModel<T>& model, const GpuRunRequest& request, const RunSettings<T>& run_plan,
           const T* y0, const T* params, std::size_t runs, const ResultView<T>& result, TimeLogger& log,
           std::size_t first_run = 0) {
    GpuRunRequest planned = request;
    arrays::RunOrderPlan order_plan;
    if (request.order_runs) {
      order_plan = timed_run_order_plan(log, y0, params, first_run, runs, model.n_states(), model.n_params());
      planned.order_runs = order_plan.order;
      planned.order_plan = &order_plan;
    }
    const std::uint32_t summary_kinds = run_plan.summary_windows != 0 ? run_plan.summary_metrics : 0;
    const kernels::ChunkKernel launched = chunk_kernel_for(result);
    RuntimeKernelChoice choice = RuntimeKernelChoice::only(launched, summary_kinds, planned.order_runs);
    choice.moments = result.series_moments != nullptr && result.n_saves > 0;
    if (launched == kernels::ChunkKernel::final_state && request.split_runs) {
      choice.lanes_per_run = model.gpu_lanes_per_run(request.method);
    }
    const RuntimeKernels kernels = model.gpu_kernels(request.method, request.device, log, choice);
    runner_.run(kernels, model.n_states(), model.n_params(), planned, run_plan, y0, params, runs, result, log,
                first_run);
  }

 private:
  RuntimeGpuRunner<T> runner_;
};

}  // namespace batchode::detail
