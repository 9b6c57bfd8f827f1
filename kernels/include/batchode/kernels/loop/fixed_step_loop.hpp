// kernels/loop/: the fixed-step loops (methods without an error estimate: rk4, euler, ...), apart
// from the adaptive one because their cost is all in the inner loop: no controller, steps of exactly
// dt at times t0 + j dt, so that what is left per step is the stepper's own work and a solve's saves
// change none of its numbers. Three loops: by segments between stops (integrate_fixed), saves every
// m-th step without segments (integrate_fixed_saving_every), interpolated saves
// (integrate_fixed_dense).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/loop/events.hpp"
#include "batchode/kernels/loop/loop_parts.hpp"
#include "batchode/kernels/loop/step_outputs.hpp"

namespace batchode::detail {

/// The fixed steps of size h that cover `span`, the last one landing (within landing_slack of h), in T.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T steps_over(T span, T h) {
  return span <= h ? T(1) : port::ceil(span / h - landing_slack<T>);
}

/// The number m of fixed steps between evenly spaced saves whose spacing is a whole number of steps
/// (no list of times, landed saves, |save_every - m dt| within 8 ulps of save_every) over a span of
/// fewer than 2^31 steps, or 0.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE port::uint32_t steps_between_saves(const RunSettings<T>& plan) {
  if (plan.save_times != nullptr || plan.interpolate_saves != 0 || plan.n_saves < 2) return 0;
  const T ratio = plan.save_every / plan.dt;
  if (!(ratio >= T(1) && ratio < T(2147483648.0) && steps_over(plan.t_end - plan.t0, plan.dt) < T(2147483648.0))) {
    return 0;
  }
  const T m = port::floor(ratio + T(0.5));
  const T off = m * plan.dt - plan.save_every;
  return off <= T(8) * port::numeric_limits<T>::epsilon() * plan.save_every &&
                 -off <= T(8) * port::numeric_limits<T>::epsilon() * plan.save_every
             ? static_cast<port::uint32_t>(m)
             : 0;
}

/// The step after the `full` steps of exactly h, landing on t_end (within landing_slack of h), kept.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void land_on_t_end(Stepper& stepper, const System& sys,
                                                             typename Stepper::state_type& y, const T* p,
                                                             const RunSettings<T>& plan, T h,
                                                             port::uint32_t full,
                                                             typename Stepper::state_type& y_new,
                                                             typename Stepper::state_type& err) {
  const T t_last = plan.t0 + T(full) * h;
  stepper.step(sys, t_last, y, p, plan.t_end - t_last, y_new, err);
  keep_step(stepper, sys, plan.t_end, y, y_new, p);
}

/// Fixed steps with a save after every m-th (steps_between_saves): the steps of a solve without
/// saves (t0 + j dt, the last one landing on t_end; so a solve's saves change none of its numbers)
/// and no segment per save. Segments (integrate_fixed) cost a division, a ceil, 64-bit counts and a
/// landing step's code at every save: with summaries sampled every 10 RK4 steps, a sixth of the
/// kernel (Lorenz, sm_90). Save k holds the state at t0 + k m dt, which is its time t0 + k save_every
/// to within 8 k ulps of save_every. Systems without events (integrate_fixed keeps the event checks
/// in its loop).
/// Its three step-and-keep loops (advance's, m_steps', the loop over the saves) are written out each:
/// through one helper (a function or a lambda) the loop over the saves gave other sm_90 PTX where
/// summaries are kept in memory (a local address recomputed, two more registers), and m_steps' loop
/// other PTX where they are kept in registers.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class Sink>
BATCHODE_HOST_DEVICE Status integrate_fixed_saving_every(Stepper& stepper, const System& sys,
                                                         typename Stepper::state_type& y, const T* p,
                                                         const RunSettings<T>& plan, Sink& sink, RunCounters& counters,
                                                         port::uint32_t& next_save, port::uint32_t m, T& t_reached) {
  using State = typename Stepper::state_type;
  constexpr port::size_t N = System::n_states;
  const T h = plan.dt;
  const T steps_wanted = steps_over(plan.t_end - plan.t0, h);  // below 2^31 (steps_between_saves)
  const bool within = steps_wanted <= T(plan.max_steps);
  const port::uint32_t steps =
      within ? static_cast<port::uint32_t>(steps_wanted) : static_cast<port::uint32_t>(plan.max_steps);
  const port::uint32_t full = within ? steps - 1 : steps;  // of exactly h
  State y_new{}, err{};
  port::uint32_t j = 0;
  // A run that ends before t_end (a non-finite state, max_steps, a stop request): its j steps counted
  // and the time they reached (j > full: the last one landed on t_end).
  const auto ended_early = [&](Status status) {
    counters.accepted_steps += j;
    t_reached = j > full ? plan.t_end : plan.t0 + T(j) * h;
    return status;
  };
  if constexpr (detail::takes_windows<Sink>::value) {
    // A sink that takes its samples window by window (a summary sink in registers): each whole
    // window as a loop of its own, its first sample and its close out of the loop over the others, so
    // that no sample tests where in its window it falls. In the loop below every sample did, and
    // updated or restarted every accumulator by selects: 188 instructions a sample beyond the steps'
    // (~45 a step), against ~115 here (ncu, Lorenz RK4, mean, max, peaks[3] of 3 states every 10
    // steps, sm_90; the kernel 1.42x -> 1.23x the plain one in float). The window closed by the
    // sample at t_end (the default window is the whole span) is one of them: its last step lands on
    // t_end. The samples past the last whole window, if any, are the loop's below.
    if (const port::uint32_t n = sink.samples_per_window(); n != 0 && next_save == 1) {
      const port::uint32_t taken = within ? steps : full;  // the last lands on t_end when within
      const port::uint32_t in_steps = taken / m < plan.n_saves - 1 ? taken / m : plan.n_saves - 1;
      const port::uint32_t windows = min_of(in_steps / n, sink.windows_left());
      // The steps up to step `until` (the last landing on t_end), and the time of the save after
      // them; false when they leave a non-finite state.
      T t = plan.t0;
      const auto advance = [&](port::uint32_t until) {
        const port::uint32_t regular = until < full ? until : full;
        BATCHODE_UNROLL_4
        for (; j < regular; ++j) {
          const T tj = plan.t0 + T(j) * h;
          stepper.step(sys, tj, y, p, h, y_new, err);
          keep_step(stepper, sys, tj + h, y, y_new, p);
        }
        t = port::fma(static_cast<T>(next_save), plan.save_every, plan.t0);
        if (until > full) {  // as below the loop over the saves
          land_on_t_end(stepper, sys, y, p, plan, h, full, y_new, err);
          ++j;
          t = plan.t_end;
        }
        return states_finite<N>(sys, y);
      };
      // The windows within the full steps: m steps before each sample, a count the same at every
      // sample (so its unrolled loop's set-up is out of the loop over the samples).
      const auto m_steps = [&]() {
        BATCHODE_UNROLL_4
        for (port::uint32_t i = 0; i < m; ++i) {
          const T tj = plan.t0 + T(j + i) * h;
          stepper.step(sys, tj, y, p, h, y_new, err);
          keep_step(stepper, sys, tj + h, y, y_new, p);
        }
        j += m;
        return states_finite<N>(sys, y);
      };
      const port::uint32_t in_full = min_of(min_of(full / m, plan.n_saves - 1) / n, windows);
      for (port::uint32_t w = 0; w < in_full; ++w) {
        if (!m_steps()) return ended_early(Status::non_finite_state);
        sink.open_window(next_save, port::fma(static_cast<T>(next_save), plan.save_every, plan.t0), &y[0]);
        ++next_save;
        for (port::uint32_t s = 1; s < n; ++s) {
          if (stop_set(plan)) return ended_early(Status::not_solved);
          if (!m_steps()) return ended_early(Status::non_finite_state);
          sink.take_sample(next_save, port::fma(static_cast<T>(next_save), plan.save_every, plan.t0), &y[0]);
          ++next_save;
        }
        sink.close_window();
      }
      for (port::uint32_t w = in_full; w < windows; ++w) {  // (the window closed at t_end)
        if (!advance(next_save * m)) return ended_early(Status::non_finite_state);
        sink.open_window(next_save++, t, &y[0]);
        for (port::uint32_t s = 1; s < n; ++s) {
          if (!advance(next_save * m)) return ended_early(Status::non_finite_state);
          sink.take_sample(next_save++, t, &y[0]);
        }
        sink.close_window();
      }
    }
  }
  while (j < full) {
    // To the step after which the next save falls (save k after step k m), or to the last full step.
    const port::uint64_t save_step = port::uint64_t{next_save} * m;
    const bool saving = next_save < plan.n_saves && save_step <= full;
    const port::uint32_t until = saving ? static_cast<port::uint32_t>(save_step) : full;
    BATCHODE_UNROLL_4
    for (; j < until; ++j) {
      if (stop_asked(plan, j)) return ended_early(Status::not_solved);
      const T tj = plan.t0 + T(j) * h;
      stepper.step(sys, tj, y, p, h, y_new, err);
      keep_step(stepper, sys, tj + h, y, y_new, p);
    }
    if (saving) {
      if (!states_finite<N>(sys, y)) return ended_early(Status::non_finite_state);
      // Never save 0 (integrate_fixed): a summary sink's first-sample path stays out of the loop.
      // (No list of times here, steps_between_saves: save_time's test of one left out.)
      save_past_first(sink, next_save, port::fma(static_cast<T>(next_save), plan.save_every, plan.t0), &y[0]);
      ++next_save;
    }
  }
  if (!within) return ended_early(Status::max_steps_reached);
  counters.accepted_steps += j;  // (full, or full + 1 where the loop over windows landed on t_end)
  t_reached = plan.t_end;
  if (j == full) {
    land_on_t_end(stepper, sys, y, p, plan, h, full, y_new, err);
    ++counters.accepted_steps;
    if (!states_finite<N>(sys, y)) return Status::non_finite_state;
  }
  // A save left lands on t_end, as integrate_fixed's last stop does.
  if (next_save < plan.n_saves) sink.save(next_save++, plan.t_end, &y[0]);
  return Status::success;
}

/// Fixed steps. Between two stops (save times, t_end) the run takes n - 1 steps of exactly dt and one
/// last step that lands on the stop (within 1% of dt: n = ceil(span/dt - 0.01)). Inside a segment dt
/// is constant and the time is t_segment + j dt (not accumulated, so float and double take the same
/// steps), which keeps the hot loop as lean as a hand-written one: the products of dt with the
/// tableau's coefficients are loop-invariant. The state is checked for NaN/inf at each stop.
/// On the GPU the inner loop is unrolled 4 times (BATCHODE_UNROLL_4): not unrolled, its counter,
/// compare and branch per step, and the schedule broken at every step, cost 10-15% in float
/// (RK4 Lorenz, H100); nothing per step is carried through it but the state and the stepper's stages
/// (and, for a system with event functions, their last values).
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class Sink>
BATCHODE_HOST_DEVICE Status integrate_fixed(Stepper& stepper, const System& sys, typename Stepper::state_type& y,
                                            const T* p, const RunSettings<T>& plan, Sink& sink, RunCounters& counters,
                                            port::uint32_t& next_save, EventTracker<System, T>& events, T& t) {
  if constexpr (Sink::active && n_events_v<System> == 0) {
    // (Save 0, at t0, taken before the steps: the loop's saves are never save 0.)
    if (const port::uint32_t m = steps_between_saves(plan); m != 0 && next_save != 0) {
      return integrate_fixed_saving_every(stepper, sys, y, p, plan, sink, counters, next_save, m, t);
    }
  }
  using State = typename Stepper::state_type;
  constexpr port::size_t N = System::n_states;
  const T h = plan.dt;
  t = plan.t0;
  port::uint64_t attempts = 0;
  State y_new{}, err{};
  while (t < plan.t_end) {
    bool stop_is_save;
    const T t_stop = stop_at_time_event(events, next_stop<Sink>(plan, next_save, stop_is_save), stop_is_save);
    [[maybe_unused]] bool restarted = false;  // events' assignments ended the segment (ended only with some)
    const T span = t_stop - t;
    const port::uint64_t allowed = plan.max_steps - attempts;
    // The step count in T first: span / h can exceed what 64 bits hold (dt = 1 to t_end = 1e300),
    // and converting such a value is undefined. More steps than allowed: take the allowed ones, stop.
    const T steps_wanted = steps_over(span, h);
    const bool within = steps_wanted <= T(allowed) && steps_wanted < T(18446744073709551616.0);  // 2^64
    const port::uint64_t steps = within ? static_cast<port::uint64_t>(steps_wanted) : allowed + 1;
    const port::uint64_t full = (steps <= allowed ? steps : allowed + 1) - 1;  // steps of exactly h
    const T t_segment = t;
    // 32-bit inner counter (cheaper on GPUs than 64-bit), in rounds for segments of 2^31+ steps.
    for (port::uint64_t base = 0; base < full;) {
      const port::uint32_t round = static_cast<port::uint32_t>(min_of<port::uint64_t>(full - base, 1u << 31));
      const T t_round = t_segment + T(base) * h;
      BATCHODE_UNROLL_4
      for (port::uint32_t j = 0; j < round; ++j) {
        const T tj = t_round + T(j) * h;
        if (stop_asked(plan, j)) {
          counters.accepted_steps += static_cast<port::uint32_t>(base + j);  // this segment's earlier steps
          t = tj;
          return Status::not_solved;
        }
        stepper.step(sys, tj, y, p, h, y_new, err);
        if constexpr (n_events_v<System> > 0) {  // (systems with events only: the loop stays as it is)
          const EventStop event_stop = stopped_by_event(events, stepper, sys, tj, tj + h, y, y_new, p, plan,
                                                        sink, counters, next_save, false, t);
          if (event_stop == EventStop::ended) {
            counters.accepted_steps += static_cast<port::uint32_t>(base + j);  // this segment's earlier steps
            return Status::stopped_by_event;
          }
          if constexpr (EventTracker<System, T>::acting != 0) {
            if (event_stop == EventStop::restart) {
              counters.accepted_steps += static_cast<port::uint32_t>(base + j);
              attempts += base + j + 1;
              restarted = true;  // at t, with the assigned state: a new segment from there
              break;
            }
          }
        }
        keep_step(stepper, sys, tj + h, y, y_new, p);
      }
      if (restarted) break;
      base += round;
    }
    if constexpr (EventTracker<System, T>::acting != 0) {
      if (restarted) {
        const Status status = restart_after_assignments(stepper, sys, t, y, p, plan, events, counters);
        if (status != Status::success) return status;
        continue;
      }
    }
    attempts += full;
    counters.accepted_steps += static_cast<port::uint32_t>(full);
    const T t_last = t_segment + T(full) * h;
    if (steps > allowed) {
      t = t_last;
      return Status::max_steps_reached;
    }
    stepper.step(sys, t_last, y, p, t_stop - t_last, y_new, err);
    const EventStop event_stop = stopped_by_event(events, stepper, sys, t_last, t_stop, y, y_new, p, plan,
                                                  sink, counters, next_save, stop_is_save, t);
    if (event_stop == EventStop::ended) return Status::stopped_by_event;
    if constexpr (EventTracker<System, T>::acting != 0) {
      if (event_stop == EventStop::restart) {
        ++attempts;
        const Status status = restart_after_assignments(stepper, sys, t, y, p, plan, events, counters);
        if (status != Status::success) return status;
        continue;
      }
    }
    t = t_stop;
    keep_step(stepper, sys, t, y, y_new, p);
    ++attempts;
    ++counters.accepted_steps;
    if (!states_finite<N>(sys, y)) return Status::non_finite_state;
    if constexpr (Sink::active) {
      if (stop_is_save) sink.save(next_save++, t, &y[0]);
    }
  }
  return Status::success;
}

/// Fixed steps with interpolated saves: the steps of integrate_fixed without save stops (t0 + j dt,
/// the last one landing on t_end), each save time interpolated from the step that passes it. A
/// step that would pass an event at a given time ends on it, and the steps go on dt apart from there.
/// A plain loop (no unrolling): only solves that interpolate a series build it.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class Sink>
BATCHODE_HOST_DEVICE Status integrate_fixed_dense(Stepper& stepper, const System& sys,
                                                  typename Stepper::state_type& y, const T* p,
                                                  const RunSettings<T>& plan, Sink& sink, RunCounters& counters,
                                                  port::uint32_t& next_save, EventTracker<System, T>& events,
                                                  T& t_reached) {
  using State = typename Stepper::state_type;
  constexpr port::size_t N = System::n_states;
  const T h = plan.dt;
  // Steps from t_start (t0; with events' assignments, the last time they restarted the run: the steps
  // go on from there, dt apart, the last one landing on t_end), `done` of max_steps taken before it.
  T t_start = plan.t0;
  port::uint64_t done = 0;
  bool within = false;  // the steps to t_end fit in what is left of max_steps
  const auto steps_from_start = [&] {
    const T steps_wanted = steps_over(plan.t_end - t_start, h);
    within = steps_wanted <= T(plan.max_steps - done);
    return within ? static_cast<port::uint64_t>(steps_wanted) : plan.max_steps - done;
  };
  port::uint64_t steps = steps_from_start();
  // After step j ended at t_at (events' assignments, an event at a given time): the steps start again
  // from there (j: -1, ++j: 0).
  [[maybe_unused]] const auto start_again_at = [&](T t_at, port::uint64_t& j) {
    done += j + 1;
    t_start = t_at;
    steps = steps_from_start();
    j = static_cast<port::uint64_t>(-1);
  };
  State y_new{}, err{};
  DenseStep<Stepper, N> dense;
  for (port::uint64_t j = 0; j < steps; ++j) {
    // The times and steps of integrate_fixed's one segment: the same numbers as a solve without saves.
    const T t = t_start + T(j) * h;
    t_reached = t;
    if (stop_asked(plan, j)) return Status::not_solved;
    const bool last = within && j + 1 == steps;
    T t_new = last ? plan.t_end : t + h;
    T h_step = last ? plan.t_end - t : h;
    [[maybe_unused]] bool on_time_event = false;
    if constexpr (EventTracker<System, T>::timed != 0) {
      if (const T t_event = events.next_time(); t_event < t_new) {
        on_time_event = true;
        t_new = t_event;
        h_step = t_event - t;
      }
    }
    stepper.step(sys, t, y, p, h_step, y_new, err);
    const EventStop event_stop = stopped_by_event(events, stepper, sys, t, t_new, y, y_new, p, plan, sink,
                                                  counters, next_save, false, t_reached);
    if (event_stop == EventStop::ended) return Status::stopped_by_event;
    if constexpr (EventTracker<System, T>::acting != 0) {
      if (event_stop == EventStop::restart) {  // at t_reached: the steps start again from there
        const Status status =
            restart_after_assignments(stepper, sys, t_reached, y, p, plan, events, counters);
        if (status != Status::success) return status;
        if (t_reached >= plan.t_end) return Status::success;
        start_again_at(t_reached, j);
        continue;
      }
    }
    dense.before_accept(stepper, sys, t, y, t_new, y_new, p, plan, sink, next_save, counters);
    keep_step(stepper, sys, t_new, y, y_new, p);
    t_reached = t_new;
    ++counters.accepted_steps;
    if (dense.due || last) {
      if (!states_finite<N>(sys, y)) return Status::non_finite_state;
    }
    dense.after_accept(stepper, sys, t, t_new, y, p, plan, sink, next_save, counters);
    if constexpr (EventTracker<System, T>::timed != 0) {
      if (on_time_event) start_again_at(t_new, j);  // recorded there
    }
  }
  if (!within) return Status::max_steps_reached;
  return states_finite<N>(sys, y) ? Status::success : Status::non_finite_state;
}

}  // namespace batchode::detail
