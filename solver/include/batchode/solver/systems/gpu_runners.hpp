// solver/systems/: a Solver's GPU runners, one per device, made when a part first runs there and kept, so
// later solves on that device reuse its buffers and streams. Without the GPU path it stays empty
// (no part is ever planned on a GPU; see gpu_path.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "batchode/arrays/result_memory.hpp"
#include "batchode/solver/systems/gpu_path.hpp"

namespace batchode::detail {

template <class System, class T>
class GpuRunners {
 public:
  using Runner = GpuRunnerOf<System, T>;

  /// Whether device `device` has its runner already (a first solve there pays its setup).
  bool has(int device) const noexcept {
    return static_cast<std::size_t>(device) < runners_.size() && runners_[static_cast<std::size_t>(device)] != nullptr;
  }

  /// The runner of `device`, made now if it has none. Not thread-safe: the executor makes a
  /// solve's runners before its part threads start (growing the list from two part threads at once
  /// crashed a two-GPU split on an H200 pair). A new runner turns on pinning in `memory`, so later
  /// results take downloads without staging.
  Runner& get(int device, ResultMemoryPool& memory) {
    const auto index = static_cast<std::size_t>(device);
    if (index >= runners_.size()) runners_.resize(index + 1);
    std::unique_ptr<Runner>& runner = runners_[index];
    if (!runner) {
      runner = std::make_unique<Runner>();
      memory.enable_pinning();
    }
    return *runner;
  }

  /// Drops `device`'s runner after a failure: its buffers may be in an unknown state.
  void reset(int device) noexcept {
    if (has(device)) runners_[static_cast<std::size_t>(device)].reset();
  }

 private:
  std::vector<std::unique_ptr<Runner>> runners_;
};

}  // namespace batchode::detail
