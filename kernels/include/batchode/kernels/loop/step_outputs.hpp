// kernels/loop/: what an accepted step owes the run's outputs before its end state is kept, the
// same in every loop: the save times it passes, interpolated while the method's stages are still
// current (DenseStep), and the events it crosses, one of which may end the run inside the step
// (stopped_by_event). Kept out of the loops so that the fixed-step and adaptive loops save and stop
// at the same points.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/loop/dense_output.hpp"
#include "batchode/kernels/loop/events.hpp"
#include "batchode/kernels/loop/loop_parts.hpp"

namespace batchode::detail {

/// Dense output of one accepted step from (t, y) to (t_new, y_new): the save times in (t, t_new]
/// are interpolated, with the method's own dense output where it has one (before accept(), while
/// its stages are current), else with the Hermite cubic (its start and slope kept before accept(),
/// the points saved after it, with the new slope). A save at t_new itself takes y_new as it is.
/// Only solves that interpolate their saves build one; a step that passes no save time costs one
/// comparison. A block of runs in SIMD lanes (backends/cpu/run_blocks.hpp) uses it with states and
/// parameters of packs (Value, Param) and its lanes' one time T.
template <class Stepper, port::size_t N>
struct DenseStep {
  using State = typename Stepper::state_type;
  using Value = state_value_t<State>;
  State y0{}, f0{};
  bool due = false;  ///< Hermite points are left to after_accept

  BATCHODE_HD_TEMPLATE
  template <class System, class T, class Sink, class Param>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void before_accept(Stepper& stepper, const System& sys, T t,
                                                               const State& y, T t_new, const State& y_new,
                                                               const Param* p, const RunSettings<T>& plan,
                                                               Sink& sink, port::uint32_t& next_save,
                                                               RunCounters& counters) {
    due = next_save < plan.n_saves && save_time(plan, next_save) <= t_new;
    if (!due) return;
    if constexpr (own_dense_output<Stepper>::value) {
      due = false;
      // A step to a non-finite state ends the run right after: its points stay unsaved (NaN).
      if (!states_finite<N>(sys, y_new)) return;
      prepare_dense(stepper, sys, t, t_new - t, y, p, counters);
      Value out[N];
      for (T ts = save_time(plan, next_save); ts <= t_new;) {  // due: next_save < n_saves
        const port::uint32_t k = next_save++;
        const T ts_next = next_save_time(plan, next_save);
        if (ts == t_new) {
          sink.save(k, ts, &y_new[0]);
        } else {
          stepper.interpolate(t, t_new - t, ts, y, y_new, out);
          sink.save(k, ts, out);
        }
        ts = ts_next;
      }
    } else {
      BATCHODE_UNROLL
      for (port::size_t i = 0; i < N; ++i) y0[i] = y[i];
      if constexpr (keeps_derivative<Stepper>::value) {
        const State& f = stepper.derivative();
        BATCHODE_UNROLL
        for (port::size_t i = 0; i < N; ++i) f0[i] = f[i];
      } else {
        sys(t, &y[0], p, &f0[0]);
        ++counters.rhs_evaluations;
      }
    }
  }

  BATCHODE_HD_TEMPLATE
  template <class System, class T, class Sink, class Param>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void after_accept(const Stepper& stepper, const System& sys, T t,
                                                              T t_new, const State& y1, const Param* p,
                                                              const RunSettings<T>& plan, Sink& sink,
                                                              port::uint32_t& next_save,
                                                              RunCounters& counters) {
    if (!due) return;
    State f1{};
    if constexpr (keeps_derivative<Stepper>::value) {
      f1 = stepper.derivative();
    } else {
      sys(t_new, &y1[0], p, &f1[0]);
      ++counters.rhs_evaluations;
    }
    const T h = t_new - t;
    Value out[N];
    for (T ts = save_time(plan, next_save); ts <= t_new;) {  // due: next_save < n_saves
      const port::uint32_t k = next_save++;
      const T ts_next = next_save_time(plan, next_save);
      if (ts == t_new) {  // the step's own end (t_end, a point on a step): its value, not y0 + (y1 - y0)
        sink.save(k, ts, &y1[0]);
      } else {
        hermite<N>((ts - t) / h, h, y0, f0, y1, f1, out);
        sink.save(k, ts, out);
      }
      ts = ts_next;
    }
  }
};

/// What an accepted attempt's events did to the run.
enum class EventStop {
  none,     ///< nothing: the step stands
  ended,    ///< a terminal event ended the run inside the step
  restart,  ///< events with assignments fired inside the step: the run restarts there from their state
};

/// The assignments of the events that fired at t (events.at_stop), in the events' order, to y (and,
/// for a system whose assignments change parameters, to p: the run's own copy, which every caller of
/// integrate_run makes for such a system: batch_kernel.hpp's registers, run_range.hpp's).
BATCHODE_HD_TEMPLATE
template <class System, class T, class State>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void apply_assignments(const EventTracker<System, T>& events,
                                                                 const System& sys, T t, State& y,
                                                                 const T* p) {
  if constexpr (EventTracker<System, T>::acting != 0) {
    BATCHODE_UNROLL
    for (port::size_t e = 0; e < n_events_v<System>; ++e) {
      if (((events.at_stop & EventTracker<System, T>::acting) >> e) & 1u) {
        if constexpr (parameter_assignments_v<System> != 0) {
          sys.event_assign(e, t, &y[0], const_cast<T*>(p));
        } else {
          sys.event_assign(e, t, &y[0], p);
        }
      }
    }
  } else {
    (void)events, (void)sys, (void)t, (void)y, (void)p;
  }
}

/// The stop a step from t heads for, `t_stop` (a save, t_end, a break), or the next event at a given
/// time before it (EventTracker::next_time), which is then no save. Systems without such events:
/// t_stop.
template <class System, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T stop_at_time_event(const EventTracker<System, T>& events,
                                                               T t_stop, bool& is_save) {
  if constexpr (EventTracker<System, T>::timed != 0) {
    const T t_event = events.next_time();
    if (t_event < t_stop) {
      is_save = false;
      return t_event;
    }
  } else {
    (void)events, (void)is_save;
  }
  return t_stop;
}

/// The events of one accepted attempt from (t, y) to (t_new, y_new), before accept(): records its
/// crossings (EventTracker::check). When a terminal event or one with assignments fired, the step ends
/// at the earliest: y holds the state there (after the assignments of every event with some that
/// fired there, in the events' order) and t_reached its time, the step counts as accepted, and the
/// saves the run passed before it are made with the state before the assignments: interpolated ones
/// up to it (a save at the event's time keeps the value before), or a landed one at t_new when the
/// event is there. Returns ended when a terminal event was among them (after its assignments: the
/// run's final state), restart for assignments alone. Systems without events: nothing, none.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class Sink, class State>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE EventStop
stopped_by_event(EventTracker<System, T>& events, Stepper& stepper, const System& sys, T t, T t_new,
                 State& y, const State& y_new, const T* p, const RunSettings<T>& plan, Sink& sink,
                 RunCounters& counters, port::uint32_t& next_save, bool landed_save, T& t_reached) {
  if constexpr (n_events_v<System> == 0) {
    (void)events, (void)stepper, (void)sys, (void)t, (void)t_new, (void)y, (void)y_new, (void)p, (void)plan;
    (void)sink, (void)counters, (void)next_save, (void)landed_save, (void)t_reached;
    return EventStop::none;
  } else {
    constexpr port::size_t N = System::n_states;
    StepInterpolant<Stepper, System, T> dense{stepper, sys, p, t, t_new - t, y, y_new, counters};
    T t_event{};
    State y_event{};
    if (!(events.check(dense, t_new, y_new, plan, sink, t_event, y_event) <= T(1))) return EventStop::none;
    if constexpr (Sink::active) {
      if (plan.interpolate_saves != 0) {
        T out[N];
        while (next_save < plan.n_saves) {
          const T ts = save_time(plan, next_save);
          if (!(ts <= t_event)) break;
          dense.state((ts - t) / dense.h, out);
          sink.save(next_save++, ts, out);
        }
      } else if (landed_save && t_event >= t_new) {
        sink.save(next_save++, t_new, &y_event[0]);
      }
    }
    apply_assignments(events, sys, t_event, y_event, p);
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) y[i] = y_event[i];
    t_reached = t_event;
    ++counters.accepted_steps;
    if constexpr (EventTracker<System, T>::acting != 0) {
      if ((events.at_stop & plan.event_terminal) == 0) return EventStop::restart;
    }
    return EventStop::ended;
  }
}

/// After events' assignments changed the state to (t, y) (stopped_by_event's restart): the run goes on
/// from there as from a new start. The stepper starts from the new state (its f; a Rosenbrock step's
/// linearisation; a DAE's algebraic states made consistent again with the assigned ones), the event
/// functions are taken there, and the evaluations so far are counted. Returns success, or the status
/// that ends the run there: zeno_events (EventTracker::repeated_action), non_finite_state (an
/// assignment made the state NaN or infinite), inconsistent_initial_values (a DAE).
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class State>
BATCHODE_HOST_DEVICE Status restart_after_assignments(Stepper& stepper, const System& sys, T t, State& y,
                                                      const T* p, const RunSettings<T>& plan,
                                                      EventTracker<System, T>& events,
                                                      RunCounters& counters) {
  if (!states_finite<System::n_states>(sys, y)) return Status::non_finite_state;
  if (events.repeated_action(t, plan)) return Status::zeno_events;
  if constexpr (evaluations_from_steps<Stepper>::value) {
    counters.rhs_evaluations += 1;  // reset's f: the count from the steps has one for the run's start only
  } else {
    counters.rhs_evaluations += stepper.rhs_evaluations();  // reset() starts the stepper's own count again
  }
  if constexpr (n_algebraic_v < System >> 0 && stepper_solves_dae<Stepper>::value) {
    port::uint32_t newton_evaluations = 0;
    const bool consistent = stepper.make_consistent(sys, t, y, p, plan.rtol, plan.atol, newton_evaluations);
    counters.rhs_evaluations += newton_evaluations;
    if (!consistent) return Status::inconsistent_initial_values;
  }
  stepper.reset(sys, t, y, p);
  events.restart(sys, t, y, p);
  return Status::success;
}

/// Events at given times due at the run's start t0 (a dose then), after the save there (which keeps
/// the state before, as at every event): recorded, their assignments applied, and the run started
/// again from the new state (restart_after_assignments). Returns success (the run goes on from t0),
/// stopped_by_event (a terminal one among them: the state after the assignments is the run's final
/// one), or the status a failed restart ends the run with. Systems without such events: success.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class Sink, class State>
BATCHODE_HOST_DEVICE Status time_events_at_start(Stepper& stepper, const System& sys, State& y, const T* p,
                                                 const RunSettings<T>& plan, Sink& sink,
                                                 EventTracker<System, T>& events, RunCounters& counters) {
  if constexpr (EventTracker<System, T>::timed != 0) {
    const port::uint32_t due = events.fire_due(sys, plan.t0, &y[0], p, plan, sink);
    if (due == 0) return Status::success;
    apply_assignments(events, sys, plan.t0, y, p);
    if ((due & plan.event_terminal) != 0) return Status::stopped_by_event;
    if ((due & EventTracker<System, T>::acting) != 0) {
      return restart_after_assignments(stepper, sys, plan.t0, y, p, plan, events, counters);
    }
  } else {
    (void)stepper, (void)sys, (void)y, (void)p, (void)plan, (void)sink, (void)events, (void)counters;
  }
  return Status::success;
}

}  // namespace batchode::detail
