// backends/gpu/: what the GPU path needs of a solve besides its RunSettings. Plain data, no runtime:
// solver/ builds it in every translation unit, GPU-compiled or not.
#pragma once

#include <atomic>
#include <cstddef>

#include "batchode/arrays/outputs.hpp"
#include "batchode/arrays/run_order.hpp"
#include "batchode/arrays/shared_runs.hpp"
#include "batchode/kernels/methods/method.hpp"

namespace batchode {

/// What the GPU path needs of a solve's options besides its RunSettings.
struct GpuRunRequest {
  Method method = Method::dopri5;
  int device = 0;
  int block_size = 128;
  /// GpuOptions::split_runs: the final-state kernel may split runs over lanes
  /// (kernels/launch/lane_group.hpp).
  bool split_runs = true;
  arrays::MemoryBudget budget;
  OutputSelection outputs;
  EventShape events;  ///< the event records kept per run (none for systems without events)
  /// Each chunk's runs are ordered by their inputs so that a warp's runs cost about the same
  /// (arrays/run_order.hpp); results are the same either way.
  bool order_runs = false;
  /// With order_runs: the order planned already (timed_run_order_plan, chunk_pass.hpp; a runtime model's
  /// runner plans it before it chooses the kernels to compile), or null: the chunk pass plans it.
  const arrays::RunOrderPlan* order_plan = nullptr;
  /// SolveOptions.stop: checked before each chunk (arrays/stop_request.hpp); null: never set.
  const std::atomic<bool>* stop = nullptr;
  /// Set when several GPUs of the solve share their runs: this GPU is consumer `consumer` of
  /// `shared` and takes its chunks from it (arrays/shared_runs.hpp). Null: it runs its own range.
  arrays::SharedRuns* shared = nullptr;
  std::size_t consumer = 0;
};

}  // namespace batchode
