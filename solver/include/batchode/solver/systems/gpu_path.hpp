// solver/systems/: the one place that knows whether this translation unit carries the GPU path. The GPU
// runner (backends/gpu/gpu_runner.hpp) is compiled only by hipcc/nvcc in a GPU build; everywhere
// else detail::GpuRunnerOf is a stand-in with the same calls that refuses to be made. The rest of
// the solver names only GpuRunnerOf and holds no #if: without the GPU path the scheduler is never
// offered a GPU (see planner.hpp), so the stand-in is never built in a solve that was not forced
// onto a GPU. A model defined at run time is the exception: its runner (runtime_model_gpu_runner.hpp)
// launches kernels compiled at run time, host code that every unit of a GPU build carries.
#pragma once

#include <cstddef>
#include <stdexcept>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/solver/setup/backend_settings.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "batchode/solver/systems/runtime_model_gpu_runner.hpp"
#include "batchode/timing/time_logger.hpp"

#if BATCHODE_GPU_COMPILER && BATCHODE_HAS_GPU_RUNTIME
#include "batchode/backends/gpu/gpu_runner.hpp"
#define BATCHODE_GPU_PATH 1
#else
#define BATCHODE_GPU_PATH 0
#endif

namespace batchode {

/// True when this translation unit carries the GPU path (compiled by hipcc/nvcc in a GPU build).
inline constexpr bool gpu_path_compiled = BATCHODE_GPU_PATH;

/// No GPU path can run a solve that asked for Backend::gpu.
class GpuUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// Stands in for GpuRunner where the GPU path is not compiled: making one throws GpuUnavailable.
template <class System, class T>
class MissingGpuRunner {
 public:
  MissingGpuRunner() {
    throw GpuUnavailable("a part on a GPU, but this translation unit has no GPU path (not compiled by the GPU "
                         "compiler; use batchode_target_gpu() on the target)");
  }
  bool last_run_grew() const noexcept { return false; }
  arrays::ChunkPlan last_plan() const noexcept { return {}; }
  void run(const System&, const GpuRunRequest&, const RunSettings<T>&, const T*, const T*, std::size_t,
           const ResultView<T>&, TimeLogger&, std::size_t = 0) {}
};

#if BATCHODE_GPU_PATH
template <class System, class T>
struct GpuRunnerSelect {
  using type = GpuRunner<System, T>;
};
#else
template <class System, class T>
struct GpuRunnerSelect {
  using type = MissingGpuRunner<System, T>;
};
#endif
// A model defined at run time has no compiled-in kernel: its runner launches kernels compiled at run
// time, host code that every translation unit of a GPU build carries.
#if BATCHODE_HAS_GPU_RUNTIME
template <class T>
struct GpuRunnerSelect<RuntimeModel<T>, T> {
  using type = RuntimeModelGpuRunner<T>;
};
#else
template <class T>
struct GpuRunnerSelect<RuntimeModel<T>, T> {
  using type = MissingGpuRunner<RuntimeModel<T>, T>;
};
#endif

template <class System, class T>
using GpuRunnerOf = typename GpuRunnerSelect<System, T>::type;

}  // namespace detail
}  // namespace batchode
