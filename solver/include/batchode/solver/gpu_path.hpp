// solver/: the one place that knows whether this translation unit carries the GPU path. The GPU
// runner (backends/gpu/gpu_runner.hpp) is compiled only by hipcc/nvcc in a GPU build; everywhere
// else detail::GpuRunnerOf is a stand-in with the same calls that refuses to be made. The rest of
// the solver names only GpuRunnerOf and holds no #if: without the GPU path the scheduler is never
// offered a GPU (see planner.hpp), so the stand-in is never built in a solve that was not forced
// onto a GPU.
#pragma once

#include <cstddef>
#include <stdexcept>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/gpu/gpu_run_request.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/solver/run_settings.hpp"
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
using GpuRunnerOf = GpuRunner<System, T>;
#else
template <class System, class T>
using GpuRunnerOf = MissingGpuRunner<System, T>;
#endif

}  // namespace detail
}  // namespace batchode
