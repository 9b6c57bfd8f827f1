// arrays/: chunk planning and the host-memory check (see chunk_plan.hpp).
#include "batchode/arrays/chunk_plan.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

#include "batchode/checks/checked_size.hpp"
#include "batchode/kernels/core/status.hpp"

namespace batchode::arrays {

namespace {

// "(fraction 0.8 of 85899345920 free)" or "(gpu.memory_bytes, 85899345920 free)": where the budget came from.
std::string budget_origin(const MemoryBudget& gpu, std::size_t free_device_bytes) {
  if (gpu.memory_bytes > 0) return fmt::format("(gpu.memory_bytes, {} free)", free_device_bytes);
  return fmt::format("(fraction {:g} of {} free)", gpu.memory_fraction, free_device_bytes);
}

}  // namespace

RunFootprint run_footprint(std::size_t n_states, std::size_t n_params, std::size_t n_saves,
                           std::size_t value_bytes, const OutputSelection& outputs, const EventShape& events,
                           bool own_save_times, std::size_t n_observables, std::size_t summary_values,
                           std::optional<std::size_t> series_states) {
  if (n_states == 0) throw InvalidInput("run_footprint: a system needs at least one state (n_states = 0)");
  if (value_bytes == 0) throw InvalidInput("run_footprint: value_bytes must be sizeof(T), got 0");
  const std::size_t series_values =
      checks::checked_mul(n_saves, series_states.value_or(n_states), "series size (n_saves x saved states)");
  // Values per run: outputs (final state, series, events, observables, summaries) and inputs
  // (initial values + parameters).
  const std::size_t event_values = checks::checked_product({events.n_events, events.slots, 1 + n_states},
                                                          "event records (n_events x slots x (1 + n_states))");
  const std::size_t observable_values =
      checks::checked_mul(n_saves, n_observables, "observables size (n_saves x n_observables)");
  std::size_t output_values = checks::checked_add(n_states, series_values, "outputs per run");
  output_values = checks::checked_add(output_values, event_values, "outputs per run");
  output_values = checks::checked_add(output_values, observable_values, "outputs per run");
  output_values = checks::checked_add(output_values, summary_values, "outputs per run");
  // Each run's own save times are an input (the chunk's copy) and an output (the result's times).
  const std::size_t time_values = own_save_times ? n_saves : 0;
  const std::size_t input_values =
      checks::checked_add(checks::checked_add(n_states, n_params, "inputs per run"), time_values, "inputs per run");
  const std::size_t value_count = checks::checked_add(output_values, input_values, "values per run");

  std::size_t device = checks::checked_mul(value_count, value_bytes, "device bytes per run");
  // A status and a stop time.
  if (outputs.status) device = checks::checked_add(device, sizeof(std::int32_t) + value_bytes, "device bytes per run");
  if (outputs.counters) device = checks::checked_add(device, 3 * sizeof(std::uint32_t), "device bytes per run");
  device = checks::checked_add(device, events.n_events * sizeof(std::uint32_t), "device bytes per run");

  std::size_t result = checks::checked_mul(checks::checked_add(output_values, time_values, "result values per run"),
                                          value_bytes, "result bytes per run");
  result = checks::checked_add(result, sizeof(Status) + value_bytes + sizeof(RunCounters), "result bytes per run");
  result = checks::checked_add(result, events.n_events * sizeof(std::uint32_t), "result bytes per run");

  RunFootprint footprint;
  footprint.device_bytes_per_run = device;
  footprint.host_staging_bytes_per_run = device;  // every device array has its pinned mirror
  footprint.result_bytes_per_run = result;
  return footprint;
}

std::size_t ChunkPlan::first(std::size_t i) const {
  if (i >= n_chunks) {
    throw std::out_of_range(fmt::format("chunk {} outside a plan of {} chunks", i, n_chunks));
  }
  if (balanced) {
    const std::size_t base = n_runs / n_chunks, extra = n_runs % n_chunks;
    return i * base + std::min(i, extra);
  }
  return i * chunk_runs;
}

std::size_t ChunkPlan::count(std::size_t i) const {
  const std::size_t begin = first(i);
  if (balanced) return n_runs / n_chunks + (i < n_runs % n_chunks ? 1 : 0);
  return std::min(chunk_runs, n_runs - begin);
}

ChunkPlan plan_chunks(std::size_t n_runs, const RunFootprint& footprint, std::size_t free_device_bytes,
                      const MemoryBudget& gpu, std::size_t run_alignment, std::size_t slots) {
  if (n_runs == 0) throw InvalidInput("plan_chunks: the batch has no runs (n_runs = 0)");
  // Written as a negation so that NaN is refused too.
  if (!(gpu.memory_fraction > 0.0 && gpu.memory_fraction <= 1.0)) {
    throw InvalidInput(fmt::format("gpu.memory_fraction must be in (0, 1], got {:g}", gpu.memory_fraction));
  }
  if (run_alignment == 0) throw InvalidInput("plan_chunks: run_alignment must be at least 1");
  if (slots == 0) throw InvalidInput("plan_chunks: slots must be at least 1");
  if (gpu.memory_bytes > free_device_bytes) {
    throw InvalidInput(fmt::format("gpu.memory_bytes = {} bytes exceeds the device's free memory ({} bytes)",
                                   gpu.memory_bytes, free_device_bytes));
  }
  if (gpu.chunks > n_runs) {
    throw InvalidInput(fmt::format("gpu.chunks = {} exceeds the number of runs ({}): a chunk would be empty",
                                   gpu.chunks, n_runs));
  }

  const std::size_t budget =
      gpu.memory_bytes > 0 ? gpu.memory_bytes
                           : static_cast<std::size_t>(
                                 std::floor(gpu.memory_fraction * static_cast<double>(free_device_bytes)));
  const std::size_t per_run = footprint.device_bytes_per_run;
  // Every slot holds a whole chunk, so one run costs per_run in each of them.
  const std::size_t per_run_all_slots = checks::checked_mul(per_run, slots, "device bytes per run x slots");

  const auto impossible = [&](const std::string& chunk_clause) {
    return InvalidInput(
        fmt::format("impossible memory budget: one run needs {} bytes on the device (x{} buffers), {}, "
                    "budget is {} bytes {}",
                    per_run, slots, chunk_clause, budget, budget_origin(gpu, free_device_bytes)));
  };

  ChunkPlan plan;
  plan.n_runs = n_runs;
  plan.slots = slots;
  plan.budget_bytes = budget;

  if (gpu.chunks > 0) {
    const std::size_t capacity = n_runs / gpu.chunks + (n_runs % gpu.chunks != 0 ? 1 : 0);
    const std::size_t needed = checks::saturating_mul(capacity, per_run_all_slots);
    if (needed > budget) {
      throw impossible(fmt::format("gpu.chunks = {} makes chunks of {} runs that need {} bytes", gpu.chunks,
                                   capacity, needed));
    }
    plan.chunk_runs = capacity;
    plan.n_chunks = gpu.chunks;
    plan.balanced = true;
  } else {
    const std::size_t max_runs = per_run_all_slots == 0 ? checks::max_size_t : budget / per_run_all_slots;
    std::size_t capacity = 0;
    if (max_runs >= n_runs) {
      capacity = n_runs;  // the whole batch in one chunk: no reason to align
    } else {
      capacity = max_runs / run_alignment * run_alignment;
      if (capacity == 0) {
        // The smallest chunk is one aligned group, or the whole batch when it is smaller.
        if (n_runs < run_alignment) {
          throw impossible(fmt::format("the batch's {} runs need {} bytes", n_runs,
                                       checks::saturating_mul(n_runs, per_run_all_slots)));
        }
        throw impossible(fmt::format("a chunk holds at least {} runs (the run alignment) and needs {} bytes",
                                     run_alignment, checks::saturating_mul(run_alignment, per_run_all_slots)));
      }
    }
    plan.chunk_runs = capacity;
    plan.n_chunks = n_runs / capacity + (n_runs % capacity != 0 ? 1 : 0);
  }
  // Both within the budget (device) or bounded by it (staging mirrors the device buffers).
  plan.device_bytes = checks::checked_mul(plan.chunk_runs, per_run_all_slots, "device bytes of a chunk");
  plan.host_staging_bytes = checks::checked_mul(checks::checked_mul(plan.chunk_runs, slots, "staging runs"),
                                        footprint.host_staging_bytes_per_run, "host staging bytes");
  return plan;
}

void check_host_memory(std::size_t needed_bytes, std::size_t available_bytes) {
  if (needed_bytes <= available_bytes) return;
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  throw InvalidInput(
      fmt::format("outputs need {:.2f} GiB of host memory, only {:.2f} GiB available ({} > {} bytes)",
                  static_cast<double>(needed_bytes) / gib, static_cast<double>(available_bytes) / gib,
                  needed_bytes, available_bytes));
}

namespace {

// The value of `key` (e.g. "MemAvailable:") in a "key value [kB]" file, in bytes when the file says
// kB; 0 when the file or the key is missing.
std::size_t read_keyed_value(const char* path, const std::string& key, bool in_kib) {
  std::ifstream in(path);
  std::string name;
  unsigned long long value = 0;
  while (in >> name) {
    if (name == key && in >> value) return checks::saturating_mul(static_cast<std::size_t>(value), in_kib ? 1024 : 1);
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

// A single number in a file (cgroup interface files); 0 when the file is missing or says "max".
std::size_t read_number(const char* path) {
  std::ifstream in(path);
  unsigned long long value = 0;
  if (in >> value) return static_cast<std::size_t>(value);
  return 0;
}

// Memory the cgroup still allows, or checks::max_size_t when no limit applies. In a container MemAvailable
// describes the whole host, while the cgroup limit is what gets the process killed. The reclaimable
// page cache (inactive files) is counted as free, as the kernel reclaims it before the OOM killer.
std::size_t cgroup_headroom() {
  struct Interface {
    const char* limit;
    const char* usage;
    const char* stat;
    const char* inactive_key;
  };
  const Interface interfaces[] = {
      {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory.stat",
       "inactive_file"},
      {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes",
       "/sys/fs/cgroup/memory/memory.stat", "total_inactive_file"},
  };
  for (const Interface& cg : interfaces) {
    const std::size_t limit = read_number(cg.limit);  // 0 for "max" or a missing file
    // cgroup v1 reports "no limit" as a huge page-aligned number.
    if (limit == 0 || limit >= (checks::max_size_t >> 2)) continue;
    const std::size_t usage = read_number(cg.usage);
    const std::size_t inactive = read_keyed_value(cg.stat, cg.inactive_key, false);
    const std::size_t working_set = usage > inactive ? usage - inactive : 0;
    return limit > working_set ? limit - working_set : 0;
  }
  return checks::max_size_t;
}

}  // namespace

std::size_t available_host_memory() noexcept {
  try {
    std::size_t available = read_keyed_value("/proc/meminfo", "MemAvailable:", true);
    if (available == 0) {
      const long pages = sysconf(_SC_AVPHYS_PAGES);
      const long page_size = sysconf(_SC_PAGESIZE);
      available = (pages > 0 && page_size > 0)
                      ? checks::saturating_mul(static_cast<std::size_t>(pages), static_cast<std::size_t>(page_size))
                      : checks::max_size_t;
    }
    return std::min(available, cgroup_headroom());
  } catch (...) {
    return checks::max_size_t;  // a failed probe must not block a solve; the allocations will still report
  }
}

}  // namespace batchode::arrays
