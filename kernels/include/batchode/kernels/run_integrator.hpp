// kernels/: integration of ONE run from t0 to t_end: step-size control, landing on save times,
// status, stop time and counters. The GPU kernel runs this per thread with the register stepper of
// kernels/rk_stepper.hpp; the CPU path runs it per run with Boost.Odeint's steppers
// (solver/odeint_steppers.hpp; the register steppers for tsit5 and the Rosenbrock tables:
// backends/cpu/run_range.hpp). One loop for both is what makes the two paths agree run by run.
#pragma once

#include "batchode/kernels/annotations.hpp"
#include "batchode/kernels/dense_output.hpp"
#include "batchode/kernels/events.hpp"
#include "batchode/kernels/portable.hpp"
#include "batchode/kernels/run_settings.hpp"
#include "batchode/kernels/status.hpp"

#if !BATCHODE_RTC
#include <atomic>  // RunSettings::stop, read on the host only (stop_asked)
#endif

namespace batchode {

namespace detail {

template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool is_finite(T x) {
  return port::fabs(x) <= port::numeric_limits<T>::max();  // false for NaN and +-inf
}
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T min_of(T a, T b) { return a < b ? a : b; }

/// Host only: whether the solve's stop request (RunSettings::stop) is set (stop_set), or set and
/// `count` (a count of steps) a multiple of 1024 (stop_asked): a run of any length ends within about
/// a thousand steps of Ctrl-C (a Lorenz dopri5 step costs ~0.2 us on one core) at the cost of one test
/// per step. Device code: false, compiled away: the GPU path stops between chunks, and the kernels
/// stay as they were.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool stop_set(const RunSettings<T>& plan) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || BATCHODE_RTC
  (void)plan;
  return false;
#else
  return plan.stop != nullptr && static_cast<const std::atomic<bool>*>(plan.stop)->load(std::memory_order_relaxed);
#endif
}
template <class T, class Count>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool stop_asked(const RunSettings<T>& plan, Count count) {
  return (count & Count{1023}) == 0 && stop_set(plan);
}
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T max_of(T a, T b) { return a > b ? a : b; }

/// Square of the weighted RMS norm of an error estimate (Hairer's): mean((err_i / sc_i)^2),
/// sc_i = atol + rtol * max(|y_i|, |y_new_i|). A step is accepted when it is <= 1. Kept squared so no
/// square root sits on the step-size chain.
BATCHODE_HD_TEMPLATE
template <port::size_t N, class State, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T error_norm_squared(const State& y, const State& y_new,
                                                               const State& err, T rtol, T atol) {
  // The sum starts at 0: each term then adds one product to the sum, which a compiler that fuses
  // multiplies into adds can only fuse one way (fma(r, r, sum)). Started at the first term, r0 r0 +
  // r1 r1 could be fused around either product, and a lane group's sum (kernels/lane_group.hpp) and
  // one thread's were fused differently (dopri5 on Lorenz-96, sm_90): same sums, other bits.
  T sum = 0;
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < N; ++i) {
    const T scale = atol + rtol * max_of(port::fabs(y[i]), port::fabs(y_new[i]));
    const T r = err[i] / scale;
    sum += r * r;
  }
  return sum * (T(1) / T(N));
}

/// A system whose n_states are one lane's share of a run's state (kernels/lane_group.hpp: several
/// threads integrate one run, each its share of the states): sums and tests over a run's states go
/// through it (sum_of_squares, all_of), so that every lane of the run sees the whole run's. The
/// loops below are then over the lane's share; n_states_total is the run's.
template <class S, class = void>
struct is_state_share : port::false_type {};
template <class S>
struct is_state_share<S, port::enable_if_t<S::is_state_share>> : port::true_type {};

/// The states of one run of S: S::n_states, or a share's n_states_total.
template <class S>
BATCHODE_HOST_DEVICE constexpr port::size_t run_states() {
  if constexpr (is_state_share<S>::value) {
    return S::n_states_total;
  } else {
    return S::n_states;
  }
}

/// sum_i q_i^2 over the run's states, in state order (a share's sum is the run's, the same bits).
BATCHODE_HD_TEMPLATE
template <port::size_t N, class System, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T sum_of_squares(const System& sys, const T* q) {
  if constexpr (is_state_share<System>::value) {
    return sys.sum_of_squares(q);
  } else {
    (void)sys;
    T sum = 0;
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) sum += q[i] * q[i];
    return sum;
  }
}

/// error_norm_squared of a run of System (N: its n_states; a share's: the run's norm).
BATCHODE_HD_TEMPLATE
template <port::size_t N, class System, class State, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T error_norm_squared(const System& sys, const State& y,
                                                               const State& y_new, const State& err, T rtol,
                                                               T atol) {
  if constexpr (is_state_share<System>::value) {
    T r[N];
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i)
      r[i] = err[i] / (atol + rtol * max_of(port::fabs(y[i]), port::fabs(y_new[i])));
    return sys.sum_of_squares(r) * (T(1) / T(System::n_states_total));
  } else {
    (void)sys;
    return error_norm_squared<N>(y, y_new, err, rtol, atol);
  }
}

/// Hairer, Norsett & Wanner's first-step estimate (Solving ODEs I, II.4). f0 = f(t0, y0).
/// Costs one right-hand-side evaluation.
BATCHODE_HD_TEMPLATE
template <port::size_t N, int Order, class System, class State, class T>
BATCHODE_HOST_DEVICE T initial_step(const System& sys, T t0, const State& y0, const State& f0, const T* p,
                                    const RunSettings<T>& plan) {
  // (The scaled values first, then their sums of squares: a lane's share of a run sums over the run.)
  constexpr port::size_t states = run_states<System>();
  T q0[N], q1[N];
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < N; ++i) {
    const T sc = plan.atol + plan.rtol * port::fabs(y0[i]);
    q0[i] = y0[i] / sc;
    q1[i] = f0[i] / sc;
  }
  const T d0 = port::sqrt(sum_of_squares<N>(sys, q0) / T(states));
  const T d1 = port::sqrt(sum_of_squares<N>(sys, q1) / T(states));
  const T span = plan.t_end - t0;
  T h0 = (d0 < T(1e-5) || d1 < T(1e-5)) ? T(1e-6) : T(0.01) * d0 / d1;
  h0 = min_of(h0, span);
  State y1{}, f1{};
BATCHODE_UNROLL
  for (port::size_t i = 0; i < N; ++i) y1[i] = y0[i] + h0 * f0[i];
  sys(t0 + h0, &y1[0], p, &f1[0]);
  T q2[N];
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < N; ++i) q2[i] = (f1[i] - f0[i]) / (plan.atol + plan.rtol * port::fabs(y0[i]));
  const T d2 = port::sqrt(sum_of_squares<N>(sys, q2) / T(states)) / h0;
  const T dmax = max_of(d1, d2);
  const T h1 = dmax <= T(1e-15) ? max_of(T(1e-6), h0 * T(1e-3))
                                : port::pow(T(0.01) / dmax, T(1) / T(Order + 1));
  T h = min_of(T(100) * h0, h1);
  h = min_of(h, plan.dt_max);
  if (!is_finite(h) || !(h > 0)) h = T(1e-6) * span;  // a NaN derivative: let the controller fail the run
  return min_of(h, span);
}

}  // namespace detail

/// A sink that keeps no series: saving compiles to nothing.
struct NoSeries {
  static constexpr bool active = false;
  template <class T>
  BATCHODE_HOST_DEVICE void save(port::uint32_t, T, const T*) {}
  BATCHODE_HOST_DEVICE void mark_unsaved(port::uint32_t) {}
};

/// The step's end state y_new becomes the run's state at t_new, and the stepper is told (FSAL
/// derivatives, a Rosenbrock stepper's Jacobian): what every integrator below does with a step it keeps.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void keep_step(Stepper& stepper, const System& sys, T t_new,
                                                         typename Stepper::state_type& y,
                                                         const typename Stepper::state_type& y_new, const T* p) {
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < System::n_states; ++i) y[i] = y_new[i];
  stepper.accept(sys, t_new, y, p);
}

namespace detail {
template <class Sink, class = void>
struct has_save_past_first : port::false_type {};
template <class Sink>
struct has_save_past_first<Sink, port::void_t<decltype(&Sink::save_past_first)>> : port::true_type {};
}  // namespace detail

/// sink.save(k, t, y) for a save k >= 1, through the sink's save_past_first where it has one (the
/// summary sink: its save tests k == 0, and on a GPU that branch's merge with the sample path copied
/// every accumulator at every sample, ~35 moves, sm_90).
BATCHODE_HD_TEMPLATE
template <class Sink, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void save_past_first(Sink& sink, port::uint32_t k, T t, const T* y) {
  if constexpr (detail::has_save_past_first<Sink>::value) {
    sink.save_past_first(k, t, y);
  } else {
    sink.save(k, t, y);
  }
}

namespace detail {
template <class Sink, class = void>
struct takes_windows : port::false_type {};
template <class Sink>
struct takes_windows<Sink, port::enable_if_t<Sink::takes_windows>> : port::true_type {};
}  // namespace detail

/// A stepper as integrate_run drives it (see kernels/rk_stepper.hpp and solver/odeint_steppers.hpp):
/// state_type, adaptive, order, error_order, and
///  reset(sys, t, y, p): the run starts at (t, y); computes f(t, y), available as derivative().
///  step(sys, t, y, p, h, y_new, err): one attempt; err is the embedded estimate (adaptive only).
///  accept(sys, t_new, y_new, p): the attempt was accepted (FSAL methods reuse their last stage).
///  failure() (optional, adaptive only): a Status other than success ends the run after the attempt
///   (Rosenbrock steppers: singular_matrix). Steppers without it cost nothing.
///  rhs_evaluations(): right-hand-side evaluations since reset(); or, where they follow from the
///   step counts alone, static rhs_evaluations(accepted, rejected) (kernels/rk_stepper.hpp), which
///   keeps the count out of the hot loop.

namespace detail {

template <class Stepper, class = void>
struct reports_failure : port::false_type {};
template <class Stepper>
struct reports_failure<Stepper, port::void_t<decltype(port::declval<const Stepper&>().failure())>>
    : port::true_type {};

template <class Stepper, class = void>
struct evaluations_from_steps : port::false_type {};
template <class Stepper>
struct evaluations_from_steps<
    Stepper, port::void_t<decltype(Stepper::rhs_evaluations(port::uint32_t{}, port::uint32_t{}))>>
    : port::true_type {};

/// Save time k, or +infinity past the last: what the interpolating loops read for the point after the
/// one they store, before storing it. A store may alias the times as far as the compiler can tell, so
/// a load after it would wait for it, and with each run's own times (in memory, not in cache) every
/// point would pay a whole load's latency. Each run's own times still cost more than a shared list
/// (benchmarks/RESULTS.md: 1.6x its kernel time at 1001 points per run, float32, H100).
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T next_save_time(const RunSettings<T>& plan, port::uint32_t k) {
  return k < plan.n_saves ? save_time(plan, k) : port::numeric_limits<T>::infinity();
}

/// The stop after time t: the next save time (when a series is kept and steps land on it) or t_end.
template <class Sink, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T next_stop(const RunSettings<T>& plan, port::uint32_t next_save,
                                                      bool& is_save) {
  is_save = false;
  if constexpr (Sink::active) {
    if (next_save < plan.n_saves && plan.interpolate_saves == 0) {
      is_save = true;
      return min_of(save_time(plan, next_save), plan.t_end);
    }
  }
  return plan.t_end;
}

template <class S, class T, class = void>
struct has_breaks : port::false_type {};
template <class S, class T>
struct has_breaks<S, T, port::void_t<decltype(port::declval<const S&>().next_break(port::declval<T>()))>>
    : port::true_type {};

/// The stop of an adaptive step from t: `t_stop` (next_stop's), or the system's next break before it
/// (a driver's knot, kernels/driven_system.hpp: a linear driver's slope jumps there, a cubic spline's
/// third derivative, and an embedded error estimate misjudges a step across the jump: dopri5 was 2e-8
/// off for 1e-11 asked (linear), 5.5e-8 for 1e-10 (cubic)). Breaks within 16 ulps of t or of t_stop
/// are passed over rather than met by a step of a few ulps. Systems without breaks: t_stop as it is.
template <class System, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T stop_at_break(const System& sys, T t, T t_stop, bool& is_save) {
  if constexpr (has_breaks<System, T>::value) {
    const T scale = max_of(T(1), max_of(port::fabs(t), port::fabs(t_stop)));
    const T margin = T(16) * port::numeric_limits<T>::epsilon() * scale;
    const T next = sys.next_break(t + margin);
    if (next > t && next < t_stop - margin) {
      is_save = false;
      return next;
    }
  } else {
    (void)sys, (void)t, (void)is_save;
  }
  return t_stop;
}

template <port::size_t N, class State>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool all_finite(const State& y) {
  bool finite = true;
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < N; ++i) finite = is_finite(y[i]) ? finite : false;  // (no branch per state)
  return finite;
}

/// all_finite over a run of System: a share's lanes agree (all_of), so that they stop together.
template <port::size_t N, class System, class State>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool states_finite(const System& sys, const State& y) {
  if constexpr (is_state_share<System>::value) {
    return sys.all_of(all_finite<N>(y));
  } else {
    (void)sys;
    return all_finite<N>(y);
  }
}

/// Dense output of one accepted step from (t, y) to (t_new, y_new): the save times in (t, t_new]
/// are interpolated, with the method's own dense output where it has one (before accept(), while
/// its stages are current), else with the Hermite cubic (its start and slope kept before accept(),
/// the points saved after it, with the new slope). A save at t_new itself takes y_new as it is.
/// Only solves that interpolate their saves build one; a step that passes no save time costs one
/// comparison.
template <class Stepper, port::size_t N>
struct DenseStep {
  using State = typename Stepper::state_type;
  State y0{}, f0{};
  bool due = false;  ///< Hermite points are left to after_accept

  BATCHODE_HD_TEMPLATE
  template <class System, class T, class Sink>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void before_accept(const Stepper& stepper, const System& sys, T t,
                                                               const State& y, T t_new, const State& y_new,
                                                               const T* p, const RunSettings<T>& plan, Sink& sink,
                                                               port::uint32_t& next_save, RunCounters& counters) {
    due = next_save < plan.n_saves && save_time(plan, next_save) <= t_new;
    if (!due) return;
    if constexpr (own_dense_output<Stepper>::value) {
      due = false;
      // A step to a non-finite state ends the run right after: its points stay unsaved (NaN).
      if (!states_finite<N>(sys, y_new)) return;
      T out[N];
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
  template <class System, class T, class Sink>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void after_accept(const Stepper& stepper, const System& sys, T t, T t_new,
                                                              const State& y1, const T* p, const RunSettings<T>& plan,
                                                              Sink& sink, port::uint32_t& next_save,
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
    T out[N];
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

/// The events of one accepted attempt from (t, y) to (t_new, y_new), before accept(): records its
/// crossings (EventTracker::check) and returns true when a terminal one ended the run. Then y holds
/// the state at the event and t_reached its time, the step counts as accepted, and the saves the run
/// passed before the event are made: interpolated ones up to it, or a landed one at t_new when the
/// event is there. Systems without events: nothing, false.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class Sink, class State>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool stopped_by_event(
    EventTracker<System, T>& events, const Stepper& stepper, const System& sys, T t, T t_new, State& y,
    const State& y_new, const T* p, const RunSettings<T>& plan, Sink& sink, RunCounters& counters,
    port::uint32_t& next_save, bool landed_save, T& t_reached) {
  if constexpr (n_events_v<System> == 0) {
    (void)events, (void)stepper, (void)sys, (void)t, (void)t_new, (void)y, (void)y_new, (void)p, (void)plan;
    (void)sink, (void)counters, (void)next_save, (void)landed_save, (void)t_reached;
    return false;
  } else {
    constexpr port::size_t N = System::n_states;
    StepInterpolant<Stepper, System, T> dense{stepper, sys, p, t, t_new - t, y, y_new, counters};
    T t_event{};
    State y_event{};
    if (!(events.check(dense, t_new, y_new, plan, sink, t_event, y_event) <= T(1))) return false;
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
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) y[i] = y_event[i];
    t_reached = t_event;
    ++counters.accepted_steps;
    return true;
  }
}

// A step within 1% of the distance to the next stop goes all the way, instead of leaving a sliver.
template <class T>
inline constexpr T landing_slack = T(0.01);

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

/// Fixed steps with a save after every m-th (steps_between_saves): the steps of a solve without
/// saves (t0 + j dt, the last one landing on t_end; so a solve's saves change none of its numbers)
/// and no segment per save. Segments (integrate_fixed) cost a division, a ceil, 64-bit counts and a
/// landing step's code at every save: with summaries sampled every 10 RK4 steps, a sixth of the
/// kernel (Lorenz, sm_90). Save k holds the state at t0 + k m dt, which is its time t0 + k save_every
/// to within 8 k ulps of save_every. Systems without events (integrate_fixed keeps the event checks
/// in its loop).
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
          const T t_last = plan.t0 + T(full) * h;
          stepper.step(sys, t_last, y, p, plan.t_end - t_last, y_new, err);
          keep_step(stepper, sys, plan.t_end, y, y_new, p);
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
    const T t_last = plan.t0 + T(full) * h;
    stepper.step(sys, t_last, y, p, plan.t_end - t_last, y_new, err);
    keep_step(stepper, sys, plan.t_end, y, y_new, p);
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
    const T t_stop = next_stop<Sink>(plan, next_save, stop_is_save);
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
          if (stopped_by_event(events, stepper, sys, tj, tj + h, y, y_new, p, plan, sink, counters, next_save, false,
                               t)) {
            counters.accepted_steps += static_cast<port::uint32_t>(base + j);  // this segment's earlier steps
            return Status::stopped_by_event;
          }
        }
        keep_step(stepper, sys, tj + h, y, y_new, p);
      }
      base += round;
    }
    attempts += full;
    counters.accepted_steps += static_cast<port::uint32_t>(full);
    const T t_last = t_segment + T(full) * h;
    if (steps > allowed) {
      t = t_last;
      return Status::max_steps_reached;
    }
    stepper.step(sys, t_last, y, p, t_stop - t_last, y_new, err);
    if (stopped_by_event(events, stepper, sys, t_last, t_stop, y, y_new, p, plan, sink, counters, next_save,
                         stop_is_save, t)) {
      return Status::stopped_by_event;
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
/// plain loop (no unrolling): only solves that interpolate a series build it.
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
  const T span = plan.t_end - plan.t0;
  const T steps_wanted = steps_over(span, h);
  const bool within = steps_wanted <= T(plan.max_steps);
  const port::uint64_t steps = within ? static_cast<port::uint64_t>(steps_wanted) : plan.max_steps;
  State y_new{}, err{};
  DenseStep<Stepper, N> dense;
  for (port::uint64_t j = 0; j < steps; ++j) {
    // The times and steps of integrate_fixed's one segment: the same numbers as a solve without saves.
    const T t = plan.t0 + T(j) * h;
    t_reached = t;
    if (stop_asked(plan, j)) return Status::not_solved;
    const bool last = within && j + 1 == steps;
    const T t_new = last ? plan.t_end : t + h;
    stepper.step(sys, t, y, p, last ? plan.t_end - t : h, y_new, err);
    if (stopped_by_event(events, stepper, sys, t, t_new, y, y_new, p, plan, sink, counters, next_save, false,
                         t_reached)) {
      return Status::stopped_by_event;
    }
    dense.before_accept(stepper, sys, t, y, t_new, y_new, p, plan, sink, next_save, counters);
    keep_step(stepper, sys, t_new, y, y_new, p);
    t_reached = t_new;
    ++counters.accepted_steps;
    if (dense.due || last) {
      if (!states_finite<N>(sys, y)) return Status::non_finite_state;
    }
    dense.after_accept(stepper, sys, t, t_new, y, p, plan, sink, next_save, counters);
  }
  if (!within) return Status::max_steps_reached;
  return states_finite<N>(sys, y) ? Status::success : Status::non_finite_state;
}

/// Host compilers: makes the compiler forget the values of x it holds in registers, so that it reloads
/// them from memory where it needs them next instead of keeping copies live across calls (spilled and
/// reloaded around each). No instruction. Device code: nothing.
template <class X>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void forget_values([[maybe_unused]] X& x) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("" : "+m"(x));
#endif
}

/// Adaptive steps with the PI controller of StepControl, landing exactly on every stop.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class Sink>
BATCHODE_HOST_DEVICE Status integrate_adaptive(Stepper& stepper, const System& sys,
                                               typename Stepper::state_type& y, const T* p,
                                               const RunSettings<T>& plan, Sink& sink, RunCounters& counters,
                                               port::uint32_t& next_save, EventTracker<System, T>& events,
                                               T& t_reached) {
  using State = typename Stepper::state_type;
  constexpr port::size_t N = System::n_states;
  constexpr T eps = port::numeric_limits<T>::epsilon();
  // t is this function's own, not t_reached: through a reference the host compiler must assume that
  // every store to the state may change it, and reload it after each.
  T t = plan.t0;
  const auto ended = [&](Status status) {
    t_reached = t;
    return status;
  };
  T h = plan.dt;
  if (!(h > T(0))) {
    h = initial_step<N, Stepper::order>(sys, t, y, stepper.derivative(), p, plan);
    counters.rhs_evaluations += 1;
  }
  h = min_of(h, plan.dt_max);
  // Controller exponents: k = error_order + 1 (the local order of the error estimate). The norm is
  // kept squared (no square root on the step-size chain): err^-a = exp(-a/2 log(err^2)), and the PI
  // factor safety * err^-exp_i * err_prev^exp_p is one exp and one log per step.
  constexpr T k = T(Stepper::error_order + 1);
  const T half_exp_i = plan.ki / (2 * k);
  const T half_exp_p = plan.kp / (2 * k);
  T log_e2_prev = port::log(T(1e-8));  // Hairer's start value err_prev = 1e-4, squared

  // t stays in [t0, t_end], where 16 eps |t| <= 16 eps max(|t0|, |t_end|): a step at least h_safe
  // passes the underflow test below whatever t is, so that test is made only for steps below it.
  const T h_safe = max_of(plan.dt_min, T(16) * eps * max_of(port::fabs(plan.t0), port::fabs(plan.t_end)));

  port::uint64_t attempts = 0;
  State y_new{}, err{};
  while (t < plan.t_end) {
    bool stop_is_save;
    const T t_stop = stop_at_break(sys, t, next_stop<Sink>(plan, next_save, stop_is_save), stop_is_save);
    if (attempts >= plan.max_steps) return ended(Status::max_steps_reached);
    if (stop_asked(plan, attempts)) return ended(Status::not_solved);
    const T remaining = t_stop - t;
    const bool lands = remaining <= h * (T(1) + landing_slack<T>);
    const T h_try = lands ? remaining : h;
    // A step shortened to land on a stop says little about the step size the solution allows: if it
    // is accepted, the size proposed before shortening is kept if larger (-inf: nothing kept). Decided
    // here, so that neither h nor remaining is live across the step and the controller's libm calls.
    const T h_kept = (lands && h_try < h) ? h : -port::numeric_limits<T>::infinity();
    stepper.step(sys, t, y, p, h_try, y_new, err);
    ++attempts;
    if constexpr (reports_failure<Stepper>::value) {
      const Status failure = stepper.failure();
      if (failure != Status::success) return ended(failure);
    }

    const T e2 = error_norm_squared<N>(sys, y, y_new, err, plan.rtol, plan.atol);
    if (!(e2 <= T(1))) {  // rejected; a NaN error lands here too
      ++counters.rejected_steps;
      const bool finite = is_finite(e2);
      const T shrink = finite ? max_of(plan.min_factor, plan.safety * port::exp(-port::log(e2) / (2 * k)))
                              : plan.min_factor;
      h = h_try * shrink;
      // Below 16 ulps of t, t + h barely moves t. Relative to t, not to the next stop: a stiff run
      // starting at t = 0 towards t_end = 1e5 needs steps of 1e-6, far below 16 eps t_end in float.
      const T floor = max_of(plan.dt_min, max_of(T(16) * eps * port::fabs(t), port::numeric_limits<T>::min()));
      if (h < floor) return ended(finite ? Status::step_size_underflow : Status::non_finite_state);
      continue;
    }
    // Accepted. The state moves on before the controller's log and exp: on the CPU those are libm
    // calls, across which every live floating-point value is spilled and reloaded (x86-64 has no
    // callee-saved xmm registers), so as few values as possible are live across them: the state is
    // stored and forgotten (forget_values), h_kept was decided before the step, t is in memory.
    // Lorenz dopri5 on one core: 727 -> 667 instructions per step with the other changes here.
    const T t_new = lands ? t_stop : t + h_try;
    if (stopped_by_event(events, stepper, sys, t, t_new, y, y_new, p, plan, sink, counters, next_save,
                         lands && stop_is_save, t_reached)) {
      return Status::stopped_by_event;
    }
    [[maybe_unused]] DenseStep<Stepper, N> dense;
    if constexpr (Sink::active) {
      if (plan.interpolate_saves != 0) {
        dense.before_accept(stepper, sys, t, y, t_new, y_new, p, plan, sink, next_save, counters);
      }
    }
    keep_step(stepper, sys, t_new, y, y_new, p);
    ++counters.accepted_steps;
    if (!states_finite<N>(sys, y)) {
      t = t_new;
      return ended(Status::non_finite_state);
    }
    if constexpr (Sink::active) {
      if (lands && stop_is_save) sink.save(next_save++, t_new, &y[0]);
      dense.after_accept(stepper, sys, t, t_new, y, p, plan, sink, next_save, counters);
    }

    detail::forget_values(y);
    const T log_e2 = port::log(max_of(e2, T(1e-8)));
    // e2 == 0: the largest growth (+inf clamps to max_factor). exp(...) * safety rather than
    // safety * exp(...): the same product, with safety loaded after the call, not kept across it.
    T factor = e2 > T(0) ? port::exp(half_exp_p * log_e2_prev - half_exp_i * log_e2) * plan.safety
                         : port::numeric_limits<T>::infinity();
    factor = min_of(plan.max_factor, max_of(plan.min_factor, factor));
    log_e2_prev = log_e2;
    const T h_new = min_of(h_try * factor, plan.dt_max);
    h = max_of(h_kept, h_new);
    t = t_new;
    // Accepted steps may shrink too: below the floor, t + h == t and time would stop advancing.
    if (h < h_safe && t < plan.t_end && h < max_of(plan.dt_min, T(16) * eps * port::fabs(t))) {
      return ended(Status::step_size_underflow);
    }
  }
  return ended(Status::success);
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
BATCHODE_HOST_DEVICE Status integrate_run(Stepper& stepper, const System& sys, typename Stepper::state_type& y,
                                          const T* p, const RunSettings<T>& plan, Sink& sink, RunCounters& counters,
                                          T& t_reached) {
  port::uint32_t next_save = 0;
  [[maybe_unused]] const RunCounters at_start = counters;
  if constexpr (Sink::active) {
    if (plan.n_saves > 0 && save_time(plan, 0) <= plan.t0) sink.save(next_save++, plan.t0, &y[0]);
  }
  stepper.reset(sys, plan.t0, y, p);
  detail::EventTracker<System, T> events;
  if constexpr (n_events_v<System> > 0) events.start(sys, plan.t0, y, p);
  Status status;
  if constexpr (Stepper::adaptive) {
    status = detail::integrate_adaptive(stepper, sys, y, p, plan, sink, counters, next_save, events, t_reached);
  } else if constexpr (Sink::active) {
    status = plan.interpolate_saves != 0
                 ? detail::integrate_fixed_dense(stepper, sys, y, p, plan, sink, counters, next_save, events,
                                                 t_reached)
                 : detail::integrate_fixed(stepper, sys, y, p, plan, sink, counters, next_save, events, t_reached);
  } else {
    status = detail::integrate_fixed(stepper, sys, y, p, plan, sink, counters, next_save, events, t_reached);
  }
  if constexpr (n_events_v<System> > 0) events.finish(sink, plan);
  if constexpr (Sink::active) {
    for (port::uint32_t s = next_save; s < plan.n_saves; ++s) sink.mark_unsaved(s);
  }
  if constexpr (detail::evaluations_from_steps<Stepper>::value) {
    // A run a terminal event stopped never accept()ed its last step (no evaluation there for methods
    // that are not FSAL): counted as an attempt that was not accepted.
    const port::uint32_t unaccepted = status == Status::stopped_by_event ? 1u : 0u;
    counters.rhs_evaluations +=
        Stepper::rhs_evaluations(counters.accepted_steps - at_start.accepted_steps - unaccepted,
                                 counters.rejected_steps - at_start.rejected_steps + unaccepted);
  } else {
    counters.rhs_evaluations += stepper.rhs_evaluations();
  }
  return status;
}

}  // namespace batchode
