// kernels/loop/: events. A system may define event functions g_e(t, y, p) (its n_events and an events()
// member; kernels/core/system.hpp, n_events_v); after every accepted step the loops (step_outputs.hpp)
// evaluate them at the new point, and where one changed sign in its direction it locates the root on
// the step's dense output (the method's own or the Hermite cubic: StepInterpolant) by the Illinois method, to
// RunSettings::event_tolerance in t. A crossing is recorded (time and state, the first `max` of
// each event per run) or, for a terminal event, ends the run there with the interpolated state.
// Systems without events compile none of this.
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
  T g[E > 0 ? E : 1];
  port::uint32_t count[E > 0 ? E : 1];

  BATCHODE_HD_TEMPLATE
  template <class State>
  BATCHODE_HOST_DEVICE void start(const System& sys, T t, const State& y, const T* p) {
    sys.events(t, &y[0], p, g);
    BATCHODE_UNROLL
    for (port::size_t e = 0; e < E; ++e) count[e] = 0;
  }

  /// After an accepted attempt, before accept(): `dense` is its dense output (StepInterpolant, from
  /// (t, y) to (t_new, y_new); t_new exactly). Records the step's crossings and returns the step
  /// fraction of the earliest terminal one, whose time and state are then in t_stop and y_stop (2
  /// when none: the run goes on); crossings after it are not recorded.
  BATCHODE_HD_TEMPLATE
  template <class Dense, class Sink, class State>
  BATCHODE_HOST_DEVICE T check(Dense& dense, T t_new, const State& y_new, const RunSettings<T>& plan, Sink& sink,
                               T& t_stop, State& y_stop) {
    T g_new[E];
    dense.sys.events(t_new, &y_new[0], dense.p, g_new);
    port::uint32_t fired = 0;
    BATCHODE_UNROLL
    for (port::size_t e = 0; e < E; ++e) {
      if (crossed(g[e], g_new[e], (plan.event_rising >> e) & 1u, (plan.event_falling >> e) & 1u)) {
        fired |= 1u << e;
      }
    }
    T stop = T(2);
    if (fired != 0) {
      const T t = dense.t, h = dense.h;
      T theta[E];
      BATCHODE_UNROLL
      for (port::size_t e = 0; e < E; ++e) {
        theta[e] = T(2);
        if ((fired >> e) & 1u) {
          theta[e] = root(dense, e, g[e], g_new[e], plan.event_tolerance / h);
          if (((plan.event_terminal >> e) & 1u) && theta[e] < stop) stop = theta[e];
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
      }
      if (stop <= T(1)) {
        t_stop = stop >= T(1) ? t_new : t + stop * h;
        dense.state(stop, &y_stop[0]);
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
