// solver/results/: where a batch ran, apart from the result that carries it (result.hpp): one record per
// part of the batch (the CPU, each GPU, fallbacks) with the reason it ran there, and what the records
// of a solve add up to (its backends, its chunks).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batchode/solver/setup/backend_id.hpp"
#include "batchode/solver/setup/reason.hpp"

namespace batchode {

/// Where (part of) a batch ran, and the real reason it ran there: runs [first_run, first_run + runs).
/// A part is one record, or several when GPUs shared their runs (one per contiguous piece a GPU ran;
/// the records of all parts cover the batch once).
struct ExecutionRecord {
  BackendId backend;  ///< the CPU or a GPU by index (to_string: `"cpu"`, `"gpu:<index>"`)
  sched::Reason reason = sched::Reason::gpu_available;  ///< to_string gives its name ("cost_model")
  std::size_t first_run = 0;
  std::size_t runs = 0;
  double wall_ms = 0;  ///< the part's wall time (each of its records carries it)
  std::string detail;  ///< e.g. the GPU error that caused a fallback, or the cost model's estimates
  std::optional<double> predicted_ms;  ///< the cost model's prediction of the part, when one was made
  /// Chunks the part went in (GPU: its chunks; CPU: 1), on the part's first record; 0 on the others
  /// (GPUs that share their runs run several contiguous pieces, a record each).
  std::size_t chunks = 1;
  /// A CPU part's instruction set for blocks of runs in SIMD lanes, chosen when it ran
  /// (backends/cpu/simd_set.hpp: the widest the CPU has, narrowed by BATCHODE_CPU_SIMD): "avx512",
  /// "avx2", "baseline" or "off". Which runs take blocks depends on the system, method and outputs
  /// (docs/guide/cpp_systems.md); the others run one at a time. Empty for a GPU part.
  std::string instruction_set;
};

/// The backends `parts` ran on, each once in the order first met, joined by '+': "gpu:0+cpu" ("" for
/// no part).
inline std::string backends_of(const std::vector<ExecutionRecord>& parts) {
  std::vector<std::string> seen;
  for (const ExecutionRecord& part : parts) {
    std::string name = to_string(part.backend);
    if (std::find(seen.begin(), seen.end(), name) == seen.end()) seen.push_back(std::move(name));
  }
  std::string joined;
  for (const std::string& name : seen) joined += (joined.empty() ? "" : "+") + name;
  return joined;
}

template <class T>
class SolveResult;  // result.hpp

namespace detail {
/// Chunks a solve went in, over all its parts (the num_chunks of its outer events).
template <class T>
std::size_t chunks_of(const SolveResult<T>& result) {
  std::size_t chunks = 0;
  for (const ExecutionRecord& record : result.execution()) chunks += record.chunks;
  return chunks;
}
}  // namespace detail

}  // namespace batchode
