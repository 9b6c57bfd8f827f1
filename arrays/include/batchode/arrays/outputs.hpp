// arrays/: which per-run arrays a solve produces, and the device-memory budget that sizes its chunks.
// Plain data: SolveOptions holds them (solver/setup/options.hpp); the array managers and the chunk planner
// read them without knowing the rest of the options.
#pragma once

#include <cstddef>

namespace batchode {

/// Which outputs a solve produces beyond the final state (always produced).
struct OutputSelection {
  bool status = true;    ///< per-run Status (always computed; kept in the result only when true)
  /// Per-run RunCounters (accepted and rejected steps, evaluations): opt-in, as CuBIE's iteration
  /// counters. Off, a solve downloads only final states and statuses (the end-to-end cost of counters
  /// at 2^22 float32 Lorenz runs on the H100 was 2x: benchmarks/RESULTS.md).
  bool counters = false;
  /// The series at the save times kept in the result. False (output_types without "state" or
  /// "observables" but with ensemble statistics): the save times feed the statistics alone, and the
  /// runs are solved in slices whose series are dropped once reduced.
  bool series = true;
};

/// The events a solve keeps per run (kernels/loop/events.hpp): n_events functions, `slots` crossings
/// stored for each (time and state: 1 + n_states values), and a count per function.
struct EventShape {
  std::size_t n_events = 0, slots = 0;
  std::size_t values_per_run(std::size_t n_states) const { return n_events * slots * (1 + n_states); }
};

}  // namespace batchode

namespace batchode::arrays {

/// The device-memory budget of a GPU solve (GpuOptions' budget fields).
struct MemoryBudget {
  double memory_fraction = 0.8;  ///< of the device's free memory, when memory_bytes is 0
  std::size_t memory_bytes = 0;  ///< explicit budget in bytes (overrides memory_fraction)
  std::size_t chunks = 0;        ///< force this many chunks (0: as many as the budget needs)
};

}  // namespace batchode::arrays
