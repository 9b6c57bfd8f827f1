// kernels/loop/: events. A system may define event functions g_e(t, y, p) (its n_events and an events()
// member; kernels/core/system.hpp, n_events_v); after every accepted step the loops (step_outputs.hpp)
// evaluate them at the new point, and where one changed sign in its direction it locates the root on
// the step's dense output (the method's own or the Hermite cubic: StepInterpolant) by the Illinois method, to
// RunSettings::event_tolerance in t. A crossing is recorded (time and state, the first `max` of
// each event per run) or, for a terminal event, ends the run there with the interpolated state. An
// event with assignments (the system's event_assignments and event_assign) ends the step there too:
// the loops apply them to the interpolated state and restart the run from it (step_outputs.hpp).
// Events at given times (the system's time_events and event_time: doses, switches, measurements) are
// no crossings: the loops end a step on each (next_time), where it is recorded and acts as a crossing
// would, at the step's end. Systems without events compile none of this.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/loop/dense_output.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/system.hpp"

namespace batchode {

/// The most event functions a system may have (their directions and actions are bit masks, their
/// maxima an array of RunSettings).
inline constexpr port::size_t max_events = 8;
static_assert(sizeof(RunSettings<float>::event_max) / sizeof(port::uint32_t) == max_events);

namespace detail {

/// Whether g went from old to new across zero in a direction event e watches: rising from < 0 to
/// >= 0, falling from > 0 to <= 0. A function that starts a step at exactly 0 (it ended the last
/// step on its root) does not fire again.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool crossed(T old_g, T new_g, bool rising, bool falling) {
  return (rising && old_g < T(0) && new_g >= T(0)) || (falling && old_g > T(0) && new_g <= T(0));
}

/// One run's event state: the functions' values at the current point and each event's count of
/// crossings (which goes on past its max: a count above max says crossings were not stored).
template <class System, class T>
struct EventTracker {
  static constexpr port::size_t E = n_events_v<System>;
  static constexpr port::size_t N = System::n_states;
  static_assert(E <= max_events, "a system may have at most 8 event functions (kernels/loop/events.hpp)");
  /// The events that change the state when they fire (kernels/core/system.hpp's event_assign).
  static constexpr port::uint32_t acting = event_assignments_v<System>;
  /// The events at given times (kernels/core/system.hpp's event_time); their g slots are not read.
  static constexpr port::uint32_t timed = time_events_v<System>;
  static_assert((timed >> (E > 0 ? E : 1)) == 0, "time_events names an event past n_events");
  T g[E > 0 ? E : 1];
  port::uint32_t count[E > 0 ? E : 1];
  // Events at given times: the index of each one's next time, and that time (+inf past the last).
  port::uint32_t time_index[timed != 0 ? E : 1];
  T time_next[timed != 0 ? E : 1];
  port::uint32_t at_stop = 0;  ///< after check() returned a stop <= 1: the events that fired there
  // Systems with assignments: the time of the last ones (none yet: -inf) and how many came in a row
  // each within a Zeno span of the one before (repeated_action).
  T last_action = -port::numeric_limits<T>::infinity();
  port::uint32_t quick_actions = 0;

  BATCHODE_HD_TEMPLATE
  template <class State>
  BATCHODE_HOST_DEVICE void start(const System& sys, T t, const State& y, const T* p) {
    evaluate(sys, t, &y[0], p, g);
    BATCHODE_UNROLL
    for (port::size_t e = 0; e < E; ++e) count[e] = 0;
    if constexpr (timed != 0) {
      BATCHODE_UNROLL
      for (port::size_t e = 0; e < E; ++e) {
        if (((timed >> e) & 1u) != 0) find_time_from(sys, e, t, p);
      }
    }
  }

  /// The earliest time of an event at given times still to come (+inf: none, or no such events): the
  /// loops end a step there.
  BATCHODE_HOST_DEVICE T next_time() const {
    T next = port::numeric_limits<T>::infinity();
    if constexpr (timed != 0) {
      BATCHODE_UNROLL
      for (port::size_t e = 0; e < E; ++e) {
        if (((timed >> e) & 1u) != 0 && time_next[e] < next) next = time_next[e];
      }
    }
    return next;
  }

  /// The events at given times due at t (their next time <= t; the run's start: step_outputs.hpp's
  /// time_events_at_start): recorded with the state y, counted and moved on to their next times.
  /// Returns them (bit e: event e), also in at_stop.
  BATCHODE_HD_TEMPLATE
  template <class Sink>
  BATCHODE_HOST_DEVICE port::uint32_t fire_due(const System& sys, T t, const T* y, const T* p,
                                               const RunSettings<T>& plan, Sink& sink) {
    port::uint32_t due = 0;
    if constexpr (timed != 0) {
      BATCHODE_UNROLL
      for (port::size_t e = 0; e < E; ++e) {
        if (((timed >> e) & 1u) == 0 || !(time_next[e] <= t)) continue;
        due |= 1u << e;
        if (count[e] < plan.event_max[e]) sink.record_event(static_cast<port::uint32_t>(e), count[e], t, y);
        ++count[e];
        move_on(sys, e, t, p);
      }
    } else {
      (void)sys, (void)t, (void)y, (void)p, (void)plan, (void)sink;
    }
    at_stop = due;
    return due;
  }

  /// Assignments applied at t: whether they keep coming at one time, a Zeno run (a bouncing ball's
  /// bounces accumulate at a finite time, and a run would step on with ever smaller flights until it
  /// tunnelled through the floor or ran out of steps): the fourth in a row each within 64 event
  /// tolerances of the one before. A run's first assignments are never such (t - -inf is +inf).
  BATCHODE_HOST_DEVICE bool repeated_action(T t, const RunSettings<T>& plan) {
    quick_actions = t - last_action <= T(64) * plan.event_tolerance ? quick_actions + 1 : 0;
    last_action = t;
    return quick_actions >= 3;
  }

  /// After an event's assignments changed the state to y at t: the functions' values there, from
  /// which the next crossings are counted (the counts go on). Where assignments change parameters,
  /// the times of events at given times may read them (every = "tau"): each one's next time is found
  /// again, the first after t.
  BATCHODE_HD_TEMPLATE
  template <class State>
  BATCHODE_HOST_DEVICE void restart(const System& sys, T t, const State& y, const T* p) {
    evaluate(sys, t, &y[0], p, g);
    if constexpr (timed != 0 && parameter_assignments_v<System> != 0) {
      BATCHODE_UNROLL
      for (port::size_t e = 0; e < E; ++e) {
        if (((timed >> e) & 1u) == 0) continue;
        find_time_from(sys, e, t, p);
        if (time_next[e] <= t) move_on(sys, e, t, p);  // (fired at t)
      }
    }
  }

  /// After an accepted attempt, before accept(): `dense` is its dense output (StepInterpolant, from
  /// (t, y) to (t_new, y_new); t_new exactly). Records the step's crossings, and its events at given
  /// times (at its end: the loops end steps on them, next_time), and returns the step fraction of the
  /// earliest terminal one or one with assignments, whose time and state are then in t_stop and y_stop
  /// and the events there in at_stop (2 when none: the run goes on); events after it are not recorded
  /// (a time one then still to come).
  BATCHODE_HD_TEMPLATE
  template <class Dense, class Sink, class State>
  BATCHODE_HOST_DEVICE T check(Dense& dense, T t_new, const State& y_new, const RunSettings<T>& plan, Sink& sink,
                               T& t_stop, State& y_stop) {
    T g_new[E];
    evaluate(dense.sys, t_new, &y_new[0], dense.p, g_new);
    port::uint32_t fired = 0;
    BATCHODE_UNROLL
    for (port::size_t e = 0; e < E; ++e) {
      if (((timed >> e) & 1u) == 0 &&
          crossed(g[e], g_new[e], (plan.event_rising >> e) & 1u, (plan.event_falling >> e) & 1u)) {
        fired |= 1u << e;
      }
      if constexpr (timed != 0) {
        if (((timed >> e) & 1u) != 0 && time_next[e] <= t_new) fired |= 1u << e;
      }
    }
    T stop = T(2);
    const port::uint32_t ends = plan.event_terminal | acting;  // crossings the step ends at
    if (fired != 0) {
      const T t = dense.t, h = dense.h;
      T theta[E];
      BATCHODE_UNROLL
      for (port::size_t e = 0; e < E; ++e) {
        theta[e] = T(2);
        if ((fired >> e) & 1u) {
          if (((timed >> e) & 1u) != 0) {
            theta[e] = time_next[e] >= t_new ? T(1) : (time_next[e] - t) / h;  // (the loops land on it: 1)
          } else {
            theta[e] = root(dense, e, g[e], g_new[e], plan.event_tolerance / h);
          }
          if (((ends >> e) & 1u) && theta[e] < stop) stop = theta[e];
        }
      }
      T at[N];
      BATCHODE_UNROLL
      for (port::size_t e = 0; e < E; ++e) {
        if (!((fired >> e) & 1u) || theta[e] > stop) continue;
        if (count[e] < plan.event_max[e]) {
          dense.state(theta[e], at);
          sink.record_event(static_cast<port::uint32_t>(e), count[e], theta[e] >= T(1) ? t_new : t + theta[e] * h,
                            at);
        }
        ++count[e];
        if constexpr (timed != 0) {
          if (((timed >> e) & 1u) != 0)
            move_on(dense.sys, e, theta[e] >= T(1) ? t_new : t + theta[e] * h, dense.p);
        }
      }
      if (stop <= T(1)) {
        t_stop = stop >= T(1) ? t_new : t + stop * h;
        dense.state(stop, &y_stop[0]);
        if constexpr (acting != 0) {
          at_stop = 0;
          BATCHODE_UNROLL
          for (port::size_t e = 0; e < E; ++e) {
            if ((((fired & ends) >> e) & 1u) != 0 && theta[e] == stop) at_stop |= 1u << e;
          }
        }
      }
    }
    BATCHODE_UNROLL
    for (port::size_t e = 0; e < E; ++e) g[e] = g_new[e];
    return stop;
  }

  /// At the run's end (whatever its status): the counts, and NaN in the slots no crossing filled.
  BATCHODE_HD_TEMPLATE
  template <class Sink>
  BATCHODE_HOST_DEVICE void finish(Sink& sink, const RunSettings<T>& plan) const {
    sink.close_events(count, plan);
  }

 private:
  /// The event functions at (t, y); the slots of events at given times 0 (events() need not write them).
  BATCHODE_HOST_DEVICE static void evaluate(const System& sys, T t, const T* y, const T* p, T* values) {
    if constexpr (timed != 0) {
      BATCHODE_UNROLL
      for (port::size_t e = 0; e < E; ++e) values[e] = T(0);
    }
    sys.events(t, y, p, values);
  }

  /// Event e's i-th time; NaN (a parameter that makes no time) as +inf: never.
  BATCHODE_HOST_DEVICE static T time_of(const System& sys, port::size_t e, port::uint32_t i, const T* p) {
    const T time = sys.event_time(e, i, p);
    return time == time ? time : port::numeric_limits<T>::infinity();
  }

  /// The index of event e's first time >= t: doubling, then bisection (the times increase with the
  /// index), so a long list or a start far before t costs a few dozen calls, not one per time.
  BATCHODE_HOST_DEVICE static port::uint32_t first_time_from(const System& sys, port::size_t e, T t,
                                                             const T* p) {
    if (time_of(sys, e, 0, p) >= t) return 0;
    port::uint32_t below = 0, from = 1;  // time(below) < t; from: a candidate
    while (time_of(sys, e, from, p) < t) {
      below = from;
      if (from >= (1u << 30)) return ~0u;  // none below 2^31 times: never
      from *= 2;
    }
    while (from - below > 1) {
      const port::uint32_t mid = below + (from - below) / 2;
      if (time_of(sys, e, mid, p) < t) {
        below = mid;
      } else {
        from = mid;
      }
    }
    return from;
  }

  /// Event e's next time: its first at or after t.
  BATCHODE_HOST_DEVICE void find_time_from(const System& sys, port::size_t e, T t, const T* p) {
    time_index[e] = first_time_from(sys, e, t, p);
    time_next[e] =
        time_index[e] == ~0u ? port::numeric_limits<T>::infinity() : time_of(sys, e, time_index[e], p);
  }

  /// Event e at given times fired at t: on to its first later time (times listed twice pass once).
  BATCHODE_HOST_DEVICE void move_on(const System& sys, port::size_t e, T t, const T* p) {
    for (int passed = 0; passed < 64; ++passed) {
      if (time_index[e] == ~0u) break;
      time_next[e] = time_of(sys, e, ++time_index[e], p);
      if (time_next[e] > t) return;
    }
    time_next[e] = port::numeric_limits<T>::infinity();
  }

  /// The Illinois method on theta in [0, 1] (g_a = g at 0, g_b at 1, of opposite signs or g_b = 0):
  /// secant steps, halving the retained end's value when the same end is kept twice (superlinear,
  /// never slower than bisection by much), until the bracket is below `width` (the tolerance over h)
  /// or 60 evaluations. Returns the bracket's right end, where g has crossed: the stopped state of a
  /// terminal event lies on the event's far side (or on it).
  template <class Dense>
  BATCHODE_HOST_DEVICE T root(Dense& dense, port::size_t e, T ga, T gb, T width) const {
    if (gb == T(0)) return T(1);
    T a = 0, b = 1;
    int kept = 0;  // -1: b was replaced last, +1: a was
    T at[N], gs[E];
    for (int it = 0; it < 60 && b - a > width; ++it) {
      T c = (a * gb - b * ga) / (gb - ga);
      if (!(c > a && c < b)) c = T(0.5) * (a + b);
      dense.state(c, at);
      dense.sys.events(dense.t + c * dense.h, at, dense.p, gs);
      const T gc = gs[e];
      if (gc == T(0)) return c;
      if ((gc > T(0)) == (gb > T(0))) {
        b = c;
        gb = gc;
        if (kept == -1) ga *= T(0.5);
        kept = -1;
      } else {
        a = c;
        ga = gc;
        if (kept == 1) gb *= T(0.5);
        kept = 1;
      }
    }
    return b;
  }
};

}  // namespace detail

}  // namespace batchode
