// kernels/core/: the per-run outcome codes. Every run of a batch has one; a failed run is never dropped.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

#if !BATCHODE_RTC
#include <string>
#endif

namespace batchode {

/// Outcome of one run. Stored as int32 on the device and in results.
enum class Status : port::int32_t {
  success = 0,              ///< reached t_end
  max_steps_reached = 1,    ///< options.max_steps accepted+rejected steps taken before t_end
  step_size_underflow = 2,  ///< the controller asked for a step below dt_min (or rounding level)
  /// The state (or the error estimate) became NaN or infinite. Adaptive runs check every step;
  /// fixed-step runs check at save times and t_end (a non-finite state stays non-finite).
  non_finite_state = 3,
  /// A Rosenbrock step met an exactly singular iteration matrix W = I / (gamma h) - J (a zero pivot
  /// in the LU); the run ends there, at the last accepted state.
  singular_matrix = 4,
  /// The run was never integrated: the process (an MPI rank) or device holding it failed, and no
  /// other could solve it in its place. Its final state and series are NaN. Never set by a kernel.
  not_solved = 5,
  /// A terminal event (kernels/loop/events.hpp) fired, at t_end at the latest: the run ended there, its
  /// final state is the state at the event (interpolated) and the event's record says which. Not a
  /// failure.
  stopped_by_event = 6,
  /// A system with algebraic states (kernels/core/system.hpp's n_algebraic): the Newton iteration for
  /// them at t0 did not converge, or dg/dz was singular there. The run ends at t0 with its initial state
  /// (the algebraic variables as far as the iteration got).
  inconsistent_initial_values = 7,
  /// Events that change the state (kernels/core/system.hpp's event_assign) kept firing at one time
  /// (a Zeno run, as a bouncing ball's bounces accumulate): the run ended at the last of them, with
  /// the state after its assignments.
  zeno_events = 8,
  /// An implicit method's (the ESDIRKs', radau5's) Newton iteration for its stages did not converge,
  /// with a fresh Jacobian, at any step size down to the smallest the run may take: the run ended at
  /// the last accepted state.
  newton_failure = 9,
};

/// The last Status value (lists of every status loop to it).
inline constexpr Status last_status = Status::newton_failure;

/// Whether a run ended as it should: at t_end, or at a terminal event.
BATCHODE_HOST_DEVICE inline constexpr bool finished(Status s) {
  return s == Status::success || s == Status::stopped_by_event;
}

#if !BATCHODE_RTC  // host code (solver/src/setup/options.cpp); runtime compilers have no std::string
/// "success", "max_steps_reached", ...
std::string to_string(Status s);
#endif

/// Steps and right-hand-side evaluations of one run.
struct RunCounters {
  port::uint32_t accepted_steps = 0;
  port::uint32_t rejected_steps = 0;
  port::uint32_t rhs_evaluations = 0;
};

}  // namespace batchode
