// solver/setup/: why a part of a batch runs where it runs: the scheduler decides it, ExecutionRecord keeps
// it, telemetry prints its name. Its own header so that result.hpp need not include the scheduler.
#pragma once

#include <ostream>

namespace batchode::sched {

/// Why a part of a batch runs where it runs.
enum class Reason {
  gpu_available,      ///< a GPU is usable and no cost model was consulted (or the strategy prefers it)
  gpu_unavailable,    ///< no GPU usable: none found, GPU path not compiled, device index out of range
  cpu_fallback,       ///< the GPU failed at run time and the part was run again on the CPU
  cost_model,         ///< chosen because its predicted wall time was lowest (both estimates in detail)
  memory_constraint,  ///< the GPUs' memory budgets cannot hold one run, so the CPU runs it
  user_preference,    ///< the user forced this backend (Backend::cpu / Backend::gpu, backend_only)
};

/// The reason's name, as telemetry, JSON and timing metadata print it ("cost_model").
inline const char* to_string(Reason r) noexcept {
  switch (r) {
    case Reason::gpu_available: return "gpu_available";
    case Reason::gpu_unavailable: return "gpu_unavailable";
    case Reason::cpu_fallback: return "cpu_fallback";
    case Reason::cost_model: return "cost_model";
    case Reason::memory_constraint: return "memory_constraint";
    case Reason::user_preference: return "user_preference";
  }
  return "unknown";
}

/// Writes to_string(r) (for test failure messages and logs).
inline std::ostream& operator<<(std::ostream& out, Reason r) { return out << to_string(r); }

}  // namespace batchode::sched
