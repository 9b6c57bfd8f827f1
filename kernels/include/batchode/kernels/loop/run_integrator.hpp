// kernels/loop/: integration of ONE run from t0 to t_end: step-size control, landing on save times,
// status, stop time and counters. The GPU kernel runs this per thread with the register stepper of
// kernels/methods/rk_stepper.hpp; the CPU path runs it per run with Boost.Odeint's steppers
// (backends/cpu/odeint_steppers.hpp; the register steppers for tsit5 and the Rosenbrock tables:
// backends/cpu/run_range.hpp). One loop for both is what makes the two paths agree run by run.
// This file is the entry every includer uses (integrate_run, and the stepper interface it drives);
// the phases are in their own files: loop_parts.hpp (what every loop shares), step_outputs.hpp
// (an accepted step's saves and events), step_control.hpp (error norm, first step, PI controller),
// fixed_step_loop.hpp and adaptive_loop.hpp (the loops).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/loop/adaptive_loop.hpp"
#include "batchode/kernels/loop/dense_output.hpp"
#include "batchode/kernels/loop/events.hpp"
#include "batchode/kernels/loop/fixed_step_loop.hpp"
#include "batchode/kernels/loop/loop_parts.hpp"
#include "batchode/kernels/loop/step_control.hpp"
#include "batchode/kernels/loop/step_outputs.hpp"

namespace batchode {

/// A stepper as integrate_run drives it (see kernels/methods/rk_stepper.hpp and
/// backends/cpu/odeint_steppers.hpp): state_type, adaptive, order, error_order, and
///  reset(sys, t, y, p): the run starts at (t, y); computes f(t, y), available as derivative().
///  step(sys, t, y, p, h, y_new, err): one attempt; err is the embedded estimate (adaptive only).
///  accept(sys, t_new, y_new, p): the attempt was accepted (FSAL methods reuse their last stage).
///  failure() (optional, adaptive only): a Status other than success ends the run after the attempt
///   (Rosenbrock steppers: singular_matrix). Steppers without it cost nothing.
///  use_tolerances(rtol, atol) (optional): the run's tolerances, before reset() (an implicit
///   stepper's Newton iteration stops by them); newton_failed() (optional): the last attempt was
///   rejected because that iteration failed (adaptive_loop.hpp's underflow_status).
///  rhs_evaluations(): right-hand-side evaluations since reset(); or, where they follow from the
///   step counts alone, static rhs_evaluations(accepted, rejected) (kernels/methods/rk_stepper.hpp), which
///   keeps the count out of the hot loop (the loop counts what else it asks for: the Hermite cubic's
///   slopes, an interpolant's own stages, dense_output.hpp's prepare_dense).

namespace detail {

template <class Stepper, class T, class = void>
struct takes_tolerances : port::false_type {};
template <class Stepper, class T>
struct takes_tolerances<Stepper, T,
                        port::void_t<decltype(port::declval<Stepper&>().use_tolerances(T(), T()))>>
    : port::true_type {};

/// A run whose algebraic states could not be made consistent at t0 ends there: no save is kept, its
/// events record nothing, and the Newton iteration's evaluations are counted.
template <class System, class T, class State, class Sink>
BATCHODE_HOST_DEVICE Status end_inconsistent(const System& sys, const State& y, const T* p,
                                             const RunSettings<T>& plan, Sink& sink, T& t_reached) {
  if constexpr (n_events_v < System >> 0) {
    EventTracker<System, T> events;
    events.start(sys, plan.t0, y, p);
    events.finish(sink, plan);
  } else {
    (void)sys, (void)y, (void)p;
  }
  if constexpr (Sink::active) {
    for (port::uint32_t s = 0; s < plan.n_saves; ++s) sink.mark_unsaved(s);
  }
  t_reached = plan.t0;
  return Status::inconsistent_initial_values;
}

}  // namespace detail

/// Integrates one run in place: y holds y0 on entry and the final state on exit.
/// Steps land exactly on t_end, and on save times unless plan.interpolate_saves (a step is
/// shortened, or stretched by at most 1%, to hit them), so saved values are the integrator's own;
/// interpolated saves leave the steps as they are without a series (dense output, DenseStep).
/// Points a failed run never reached are marked unsaved (NaN). `t_reached` is the time of the final
/// state on exit: t_end, a terminal event's time, or where a run that failed (or was stopped on
/// request, Status::not_solved) ended.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class Sink>
BATCHODE_HOST_DEVICE Status integrate_run(Stepper& stepper, const System& sys,
                                          typename Stepper::state_type& y, const T* p,
                                          const RunSettings<T>& plan, Sink& sink, RunCounters& counters,
                                          T& t_reached) {
  port::uint32_t next_save = 0;
  [[maybe_unused]] const RunCounters at_start = counters;
  if constexpr (n_algebraic_v < System >> 0 && detail::stepper_solves_dae<Stepper>::value) {
    // Before the first save: a DAE's algebraic states at t0 are the consistent ones, not the guesses.
    // (Other steppers never get such a system: the solver refuses them, solves_dae in method_registry.hpp.)
    port::uint32_t newton_evaluations = 0;
    const bool consistent =
        stepper.make_consistent(sys, plan.t0, y, p, plan.rtol, plan.atol, newton_evaluations);
    counters.rhs_evaluations += newton_evaluations;
    if (!consistent) return detail::end_inconsistent(sys, y, p, plan, sink, t_reached);
  }
  if constexpr (Sink::active) {
    if (plan.n_saves > 0 && save_time(plan, 0) <= plan.t0) sink.save(next_save++, plan.t0, &y[0]);
  }
  if constexpr (detail::takes_tolerances<Stepper, T>::value) stepper.use_tolerances(plan.rtol, plan.atol);
  stepper.reset(sys, plan.t0, y, p);
  detail::EventTracker<System, T> events;
  if constexpr (n_events_v < System >> 0) events.start(sys, plan.t0, y, p);
  // Events at given times due at t0 act after the save there (none: success, and no code).
  Status status = detail::time_events_at_start(stepper, sys, y, p, plan, sink, events, counters);
  if (status != Status::success) {
    t_reached = plan.t0;
  } else if constexpr (Stepper::adaptive) {
    status =
        detail::integrate_adaptive(stepper, sys, y, p, plan, sink, counters, next_save, events, t_reached);
  } else if constexpr (Sink::active) {
    status =
        plan.interpolate_saves != 0
            ? detail::integrate_fixed_dense(stepper, sys, y, p, plan, sink, counters, next_save, events,
                                            t_reached)
            : detail::integrate_fixed(stepper, sys, y, p, plan, sink, counters, next_save, events, t_reached);
  } else {
    status = detail::integrate_fixed(stepper, sys, y, p, plan, sink, counters, next_save, events, t_reached);
  }
  if constexpr (n_events_v < System >> 0) events.finish(sink, plan);
  if constexpr (Sink::active) {
    for (port::uint32_t s = next_save; s < plan.n_saves; ++s) sink.mark_unsaved(s);
  }
  if constexpr (detail::evaluations_from_steps<Stepper>::value) {
    // A run a terminal event stopped never accept()ed its last step (no evaluation there for methods
    // that are not FSAL): counted as an attempt that was not accepted.
    port::uint32_t unaccepted = status == Status::stopped_by_event ? 1u : 0u;
    if constexpr (detail::EventTracker<System, T>::timed != 0) {
      // (A terminal event at a given time at t0 ended the run before any attempt.)
      if (counters.accepted_steps == at_start.accepted_steps) unaccepted = 0;
    }
    counters.rhs_evaluations +=
        Stepper::rhs_evaluations(counters.accepted_steps - at_start.accepted_steps - unaccepted,
                                 counters.rejected_steps - at_start.rejected_steps + unaccepted);
  } else {
    counters.rhs_evaluations += stepper.rhs_evaluations();
  }
  return status;
}

}  // namespace batchode
