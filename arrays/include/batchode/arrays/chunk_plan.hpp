// arrays/: how a batch is cut into chunks that fit the device-memory budget, and the up-front host
// memory check. Pure arithmetic (no runtime calls), so every rule here is unit-tested on the CPU.
#pragma once

#include <cstddef>
#include <optional>

#include "batchode/arrays/outputs.hpp"

namespace batchode::arrays {

/// Bytes one run occupies. The device and staging figures cover one buffer slot (inputs + active
/// outputs); the result figure is what the run takes in the SolveResult.
struct RunFootprint {
  std::size_t device_bytes_per_run = 0;        ///< initial values, parameters, active outputs
  std::size_t host_staging_bytes_per_run = 0;  ///< pinned staging (mirrors the device buffers)
  std::size_t result_bytes_per_run = 0;        ///< every output of the run in the result
};

/// The footprint of one run with `n_states` states, `n_params` parameters and `n_saves` saved points
/// of `value_bytes`-byte values (sizeof(T)). Status and counters take device and staging memory only
/// when selected in `outputs`; the result always holds them. Per-thread integrator state lives in
/// registers/local memory and is not counted. Throws InvalidInput when n_states or value_bytes is 0
/// or a size overflows. `own_save_times`: each run has its own n_saves save times (an input on the
/// device and in staging, and in the result). `n_observables`: saved beside the state at every save.
/// `summary_values`: summary metrics kept per run (windows x values per window,
/// kernels/outputs/summaries.hpp), on the device, in staging and in the result like the observables.
/// `series_states`: the states saved at each save (SolveOptions::save_variables; default: every one).
RunFootprint run_footprint(std::size_t n_states, std::size_t n_params, std::size_t n_saves,
                           std::size_t value_bytes, const OutputSelection& outputs, const EventShape& events = {},
                           bool own_save_times = false, std::size_t n_observables = 0,
                           std::size_t summary_values = 0, std::optional<std::size_t> series_states = std::nullopt);

/// How a batch of n_runs is cut into chunks. Chunk i covers runs [first(i), first(i) + count(i)).
struct ChunkPlan {
  std::size_t n_runs = 0;
  std::size_t chunk_runs = 0;  ///< capacity: the most runs any chunk holds (buffers are sized for it)
  std::size_t n_chunks = 0;
  std::size_t slots = 2;               ///< buffer sets in flight (one computing while another transfers)
  std::size_t device_bytes = 0;        ///< slots * chunk_runs * device_bytes_per_run: what the buffers take
  std::size_t host_staging_bytes = 0;  ///< slots * chunk_runs * host_staging_bytes_per_run (pinned)
  std::size_t budget_bytes = 0;        ///< the device-memory budget the plan was made for
  /// Forced chunk count (GpuOptions::chunks): the runs are spread evenly (the first n_runs % n_chunks
  /// chunks hold one more). Otherwise every chunk holds chunk_runs runs except possibly the last.
  bool balanced = false;

  /// First run of chunk i. Throws std::out_of_range when i >= n_chunks.
  std::size_t first(std::size_t i) const;
  /// Runs in chunk i (never 0). Throws std::out_of_range when i >= n_chunks.
  std::size_t count(std::size_t i) const;
};

/// Plans the chunks of a batch of `n_runs` runs.
///
/// Budget: gpu.memory_bytes when set, else gpu.memory_fraction * free_device_bytes; a budget above
/// free_device_bytes is refused. Without forced chunks the capacity is the largest multiple of
/// `run_alignment` (so blocks and warps stay full) with slots * capacity * device_bytes_per_run within
/// the budget, or all runs when they fit together. With gpu.chunks > 0 there are exactly that many
/// chunks of ceil(n_runs / chunks) or fewer runs (no alignment).
///
/// Throws InvalidInput: n_runs == 0, memory_fraction outside (0, 1], run_alignment or slots 0, budget
/// above the free memory, chunks > n_runs, or a budget that cannot hold even the smallest chunk
/// (the message gives the bytes per run, the slots, the budget and where it came from).
ChunkPlan plan_chunks(std::size_t n_runs, const RunFootprint& footprint, std::size_t free_device_bytes,
                      const MemoryBudget& gpu, std::size_t run_alignment = 256, std::size_t slots = 2);

/// Throws InvalidInput ("outputs need X GiB of host memory, only Y GiB available") when
/// `needed_bytes` (typically n_runs * result_bytes_per_run + the plan's host_staging_bytes) exceeds
/// `available_bytes`. Called before any work so a too-large batch fails at once, not after hours.
void check_host_memory(std::size_t needed_bytes, std::size_t available_bytes);

/// Host memory a solve may still take, in bytes: MemAvailable from /proc/meminfo, capped by the
/// cgroup (v2) memory limit when one applies; sysconf's available pages where /proc is missing.
/// Never throws (returns the largest size_t when nothing can be determined).
std::size_t available_host_memory() noexcept;

}  // namespace batchode::arrays
