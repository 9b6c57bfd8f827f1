// kernels/outputs/: what a summary kernel is built for, apart from the sink that accumulates the metrics
// (summaries.hpp): the metrics a window may hold (SummaryKind) and their bits, the kinds a system
// declares and which kernel serves a solve, and one variable's accumulators over a window with where
// they live (registers or local memory). Portable like the sink: no standard headers (port::), so
// nvcc, hipcc and the runtime compilers (NVRTC / hipRTC) build it too.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/system.hpp"

namespace batchode {

/// The summaries a window may hold. Host names (solver/setup/summary_layout.hpp) map onto these; combined
/// names (extrema, mean_std, ...) are several of them side by side.
enum class SummaryKind : port::uint32_t {
  mean,
  std,
  rms,
  max,
  min,
  max_magnitude,
  max_time,
  min_time,
  peaks,
  negative_peaks,
  dxdt_max,
  dxdt_min,
  d2xdt2_max,
  d2xdt2_min,
};
static_assert(static_cast<port::uint32_t>(SummaryKind::d2xdt2_min) + 1 == summary_kind_count);
/// Summaries are kept of at most this many variables (states, then observables, by index): one bit
/// each in RunSettings::summary_variables, and accumulators for each (SummarySink).
inline constexpr port::uint32_t summary_variable_limit = 64;

BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE constexpr port::uint32_t summary_bit(SummaryKind kind) {
  return 1u << static_cast<port::uint32_t>(kind);
}
/// Every SummaryKind's bit: what a kernel built for any choice of metrics keeps.
inline constexpr port::uint32_t all_summary_kinds = (1u << summary_kind_count) - 1u;

/// The summary kinds a compiled-in system declares (S::summary_kinds = summary_bit(SummaryKind::mean) |
/// ...): solves keeping exactly those run a lean summary kernel (kernels/launch/batch_kernel.hpp), its
/// accumulators in registers; others, and systems that declare none, the kernel built for every kind.
/// All kinds when it declares none (kernels/core/system.hpp detects the member: every bit then).
template <class S>
inline constexpr port::uint32_t summary_kinds_v =
    detail::declared_summary_kinds<S>::value & all_summary_kinds;

/// Whether a summary kernel built for `kinds` serves a solve keeping `metrics`: one built for every
/// kind serves any; one built for a few keeps exactly those (their choice is known when compiling,
/// so no branch tests it and no accumulator of another kind exists).
BATCHODE_HOST_DEVICE constexpr bool summary_kernel_serves(port::uint32_t kinds, port::uint32_t metrics) {
  return kinds == all_summary_kinds || kinds == metrics;
}

/// Whether a solve keeping `metrics` runs S's kernel built for the kinds S declares (summary_kinds_v)
/// rather than the one built for every kind: S declares a few, and the solve keeps exactly those.
template <class S>
BATCHODE_HOST_DEVICE constexpr bool runs_declared_summary_kernel(port::uint32_t metrics) {
  return summary_kinds_v<S> != all_summary_kinds && metrics == summary_kinds_v<S>;
}

namespace detail {

/// The accumulators of one variable over the current window.
template <class T>
struct SummaryAccumulator {
  T shift, sum, sum_squares;  // moments of x - shift (shift: the sample before the window)
  T max, min, t_max, t_min;
  T previous, before_previous;         // x_{j-1}, x_{j-2}
  T dx_max, dx_min, d2x_max, d2x_min;  // of the undivided differences
  port::uint32_t peaks, troughs;       // found in the window of sample j - 1
};

/// Starts a new window at sample x (the last of the one closed) where `restart`; selects, so that in
/// registers no branch merges two copies of the accumulators.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void restart_window_if(bool restart, SummaryAccumulator<T>& a, T x) {
  const T inf = port::numeric_limits<T>::infinity();
  const T nan = T(0) / T(0);
  a.shift = restart ? x : a.shift;
  a.sum = restart ? T(0) : a.sum;
  a.sum_squares = restart ? T(0) : a.sum_squares;
  a.max = restart ? -inf : a.max;
  a.min = restart ? inf : a.min;
  a.t_max = restart ? nan : a.t_max;
  a.t_min = restart ? nan : a.t_min;
  a.dx_max = restart ? -inf : a.dx_max;
  a.dx_min = restart ? inf : a.dx_min;
  a.d2x_max = restart ? -inf : a.d2x_max;
  a.d2x_min = restart ? inf : a.d2x_min;
}

}  // namespace detail

/// Whether a SummarySink built for `kinds` keeps its accumulators in registers (the loops over the
/// variables unrolled) or in local memory: registers when built for a few kinds. (Every kind's in
/// registers, even for 3 variables in float, was slower than memory: 3.2x the plain kernel against
/// 2.4x, H200, its 143 registers and the copies at the run-time branches' merges.)
BATCHODE_HOST_DEVICE constexpr bool summaries_in_registers(port::uint32_t kinds) {
  return kinds != all_summary_kinds;
}

}  // namespace batchode
