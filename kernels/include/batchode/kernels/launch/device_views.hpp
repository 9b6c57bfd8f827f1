// kernels/launch/: what a kernel sees of one chunk's device arrays. Plain structs, passed to kernels by
// value; this header includes no runtime so the kernels (and CPU code) can include it anywhere.
//
// Device layout of a chunk of `stride` runs:
//   initial value / final state  s of run r   at [r * n_states + s]    (run-major, as on the host)
//   parameter p of run r                      at [r * n_params + p]    (run-major, as on the host)
//   saved state s of run r at save k          at [(k * n_states + s) * stride + r]   (runs fastest)
//   observable o of run r at save k           at [(k * n_observables + o) * stride + r]   (runs fastest)
//   summary value v of run r in window w      at [(w * values per window + v) * stride + r]   (runs fastest)
//   save time k of run r (per-run save times) at [k * stride + r]          (runs fastest: read at every
//                                             save, like the series is written)
//   status, stop time, counters of run r      at [r]
//   event e's crossing j of run r: time, then the state, (1 + n_states) values at
//                                             [(((e * slots + j) * (1 + n_states)) + v) * stride + r]
//   crossings of event e seen by run r        at [e * stride + r]          (runs fastest)
//   thread i of the chunk integrates run order[i] when `order` is given (arrays/run_order.hpp), run i
//   otherwise: only which thread takes a run changes, never where its values are.
// Why two layouts: a run's initial values, parameters and final state are touched once; a warp's
// accesses to them cover one contiguous block of 32 runs, so every byte of every memory transaction
// is used and the host copies are plain memcpys, with no transpose at all. The series is written at
// every save: there consecutive threads (runs) write consecutive addresses, so each store coalesces,
// and the host transposes it into the result's run-major layout (timed as host_transpose).
// A chunk is packed tight: stride is that chunk's run count (not the buffers' capacity), so each
// array of a partial chunk is one contiguous block and moves with a single copy.
#pragma once

#include "batchode/kernels/core/portable.hpp"

namespace batchode::kernels {

/// A chunk's inputs on the device. `params` is nullptr when the system has no parameters.
template <class T>
struct DeviceInputs {
  const T* y0;          ///< stride x n_states, [r * n_states + s]
  const T* params;      ///< stride x n_params, [r * n_params + p]; nullptr when n_params == 0
  port::size_t stride;  ///< runs in this chunk
  /// The run each thread integrates (a permutation of 0 .. stride-1), or nullptr: thread i takes run i.
  const port::uint32_t* order = nullptr;
  /// Each run's save times, n_saves x stride, [k * stride + r] (RunSettings::save_times_per_run), or
  /// nullptr: the runs share the plan's.
  const T* save_times = nullptr;
};

/// A chunk's outputs on the device. Inactive outputs are nullptr: the kernel must not write them.
template <class T>
struct DeviceOutputs {
  T* final_state;                   ///< stride x n_states, [r * n_states + s]; always present
  T* series;                        ///< n_saves x n_states x stride; nullptr when n_saves == 0
  port::int32_t* status;            ///< [r], a batchode::Status value; nullptr when not selected
  port::uint32_t* accepted;         ///< [r]; nullptr when counters are not selected
  port::uint32_t* rejected;         ///< [r]; nullptr when counters are not selected
  port::uint32_t* rhs_evaluations;  ///< [r]; nullptr when counters are not selected
  port::size_t stride;              ///< runs in this chunk
  port::uint32_t n_saves;           ///< saved points per run (0: no series)
  /// Events (systems with event functions only): crossings' times and states, and their counts.
  T* events = nullptr;
  port::uint32_t* event_counts = nullptr;
  /// Observables (systems with observables, solves with saves): n_saves x n_observables x stride.
  T* observables = nullptr;
  /// Summaries (kernels/outputs/summaries.hpp): windows x values per window x stride; nullptr when none.
  T* summaries = nullptr;
  /// [r], the time of run r's final state (t_end, a terminal event's, or where it failed); kept with
  /// the statuses (nullptr when they are not selected).
  T* stop_time = nullptr;
  /// Non-zero: the series and observables of thread i's run go in column i, not in its run's (a
  /// series reduced across the chunk's runs on the device, kernels/outputs/series_moments.hpp, whose
  /// order does not matter): an ordered chunk's warp then stores a save's values side by side, where
  /// its runs' own columns lie apart (H200, Lorenz, 2^22 runs x 101 saves: the series kernel 38.7 ms
  /// in the runs' columns, 11.5 ms unordered, the final-state kernel 5.2 ms).
  port::uint32_t series_by_thread = 0;
};

/// Which of a method's batch kernels a chunk runs (kernels/launch/batch_kernel.hpp's three instantiations):
/// final state only; with a series (and observables); with summaries (and any series beside them).
enum class ChunkKernel : port::uint32_t { final_state, series, summaries };

// Kernel arguments are copied bytewise to the device: the views must stay plain data.
static_assert(port::is_trivially_copyable_v<DeviceInputs<double>> &&
              port::is_standard_layout_v<DeviceInputs<double>>);
static_assert(port::is_trivially_copyable_v<DeviceOutputs<double>> &&
              port::is_standard_layout_v<DeviceOutputs<double>>);

}  // namespace batchode::kernels
