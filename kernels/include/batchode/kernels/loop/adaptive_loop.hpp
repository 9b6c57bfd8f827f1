// kernels/loop/: the adaptive loop: steps sized by step_control.hpp's controller, landing exactly on
// every stop (save times, t_end, a driver's breaks). Apart from the fixed-step loops because its
// costs are elsewhere: the controller's libm calls and what stays live across them on the CPU, the
// rejected attempts, the stops a step is shortened to meet.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/loop/events.hpp"
#include "batchode/kernels/loop/loop_parts.hpp"
#include "batchode/kernels/loop/step_control.hpp"
#include "batchode/kernels/loop/step_outputs.hpp"

namespace batchode::detail {

/// Whether a stepper has failure() (run_integrator.hpp's stepper interface): a Rosenbrock stepper's
/// singular matrix ends the run after the attempt.
template <class Stepper, class = void>
struct reports_failure : port::false_type {};
template <class Stepper>
struct reports_failure<Stepper, port::void_t<decltype(port::declval<const Stepper&>().failure())>>
    : port::true_type {};

/// Whether a stepper has newton_failed() (an implicit method's: its attempt was rejected because a
/// stage's Newton iteration did not converge, with an infinite error estimate).
template <class Stepper, class = void>
struct reports_newton : port::false_type {};
template <class Stepper>
struct reports_newton<Stepper, port::void_t<decltype(port::declval<const Stepper&>().newton_failed())>>
    : port::true_type {};

/// How a run ends whose rejected attempts shrank its step below the floor, the last one with a
/// finite error estimate or not: step_size_underflow, or non_finite_state, or newton_failure where the
/// stepper says its iteration failed (its estimate is infinite then, the state is not).
template <class Stepper>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE Status underflow_status(const Stepper& stepper, bool finite) {
  if constexpr (reports_newton<Stepper>::value) {
    if (stepper.newton_failed()) return Status::newton_failure;
  } else {
    (void)stepper;
  }
  return finite ? Status::step_size_underflow : Status::non_finite_state;
}

/// The stop of an adaptive step from t: `t_stop` (next_stop's), or the system's next break before it
/// (a driver's knot, kernels/outputs/driven_system.hpp: a linear driver's slope jumps there, a cubic spline's
/// third derivative, and an embedded error estimate misjudges a step across the jump: dopri5 was 2e-8
/// off for 1e-11 asked (linear), 5.5e-8 for 1e-10 (cubic)). Breaks within 16 ulps of t or of t_stop
/// are passed over rather than met by a step of a few ulps. Systems without breaks (has_breaks_v,
/// kernels/core/system.hpp): t_stop as it is.
template <class System, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T stop_at_break(const System& sys, T t, T t_stop, bool& is_save) {
  if constexpr (has_breaks_v<System, T>) {
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

/// Host compilers: makes the compiler forget the values of x it holds in registers, so that it reloads
/// them from memory where it needs them next instead of keeping copies live across calls (spilled and
/// reloaded around each). No instruction. Device code: nothing.
template <class X>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void forget_values([[maybe_unused]] X& x) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("" : "+m"(x));
#endif
}

/// Adaptive steps with the PI controller of StepControl (step_control.hpp's PiController), landing
/// exactly on every stop.
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
  const PiController<T, Stepper::error_order> control(plan);
  T log_e2_prev = control.first_log_e2_prev();

  // t stays in [t0, t_end], where 16 eps |t| <= 16 eps max(|t0|, |t_end|): a step at least h_safe
  // passes the underflow test below whatever t is, so that test is made only for steps below it.
  const T h_safe = max_of(plan.dt_min, T(16) * eps * max_of(port::fabs(plan.t0), port::fabs(plan.t_end)));

  port::uint64_t attempts = 0;
  State y_new{}, err{};
  while (t < plan.t_end) {
    bool stop_is_save;
    const T t_stop = stop_at_time_event(
        events, stop_at_break(sys, t, next_stop<Sink>(plan, next_save, stop_is_save), stop_is_save),
        stop_is_save);
    if (attempts >= plan.max_steps) return ended(Status::max_steps_reached);
    if (stop_asked(plan, attempts)) return ended(Status::not_solved);
    const T remaining = t_stop - t;
    const bool lands = remaining <= h * (T(1) + landing_slack<T>);
    const T h_try = lands ? remaining : h;
    // A step shortened to land on a stop says little about the step size the solution allows: if it
    // is accepted, the size proposed before shortening is kept if larger (-inf: nothing kept). Decided
    // here, so that neither h nor remaining is live across the step and the controller.
    const T h_kept = (lands && h_try < h) ? h : -port::numeric_limits<T>::infinity();
    stepper.step(sys, t, y, p, h_try, y_new, err);
    ++attempts;
    if constexpr (reports_failure<Stepper>::value) {
      const Status failure = stepper.failure();
      if (failure != Status::success) return ended(failure);
    }

    const T e2 = error_norm_squared<N>(sys, y, y_new, err, plan.rtol, plan.atol);
    if (!control.accepts(e2)) {  // rejected; a NaN error lands here too
      ++counters.rejected_steps;
      const bool finite = is_finite(e2);
      h = h_try * control.rejected(e2, finite, plan);
      // Below 16 ulps of t, t + h barely moves t. Relative to t, not to the next stop: a stiff run
      // starting at t = 0 towards t_end = 1e5 needs steps of 1e-6, far below 16 eps t_end in float.
      const T floor = max_of(plan.dt_min, max_of(T(16) * eps * port::fabs(t), port::numeric_limits<T>::min()));
      if (h < floor) return ended(underflow_status(stepper, finite));
      continue;
    }
    // Accepted. The state moves on before the controller's log and exp: on the CPU those were libm
    // calls (now controller_math.hpp's inline arithmetic), across which every live floating-point
    // value was spilled and reloaded (x86-64 has no callee-saved xmm registers), so as few values as
    // possible are live across them: the state is stored and forgotten (forget_values), h_kept was
    // decided before the step, t is in memory. Lorenz dopri5 on one core: 727 -> 667 instructions
    // per step with the other changes here.
    const T t_new = lands ? t_stop : t + h_try;
    const EventStop event_stop = stopped_by_event(events, stepper, sys, t, t_new, y, y_new, p, plan, sink,
                                                  counters, next_save, lands && stop_is_save, t_reached);
    if (event_stop == EventStop::ended) return Status::stopped_by_event;
    if constexpr (EventTracker<System, T>::acting != 0) {
      if (event_stop == EventStop::restart) {  // assignments changed the state at t_reached
        t = t_reached;
        const Status restarted = restart_after_assignments(stepper, sys, t, y, p, plan, events, counters);
        if (restarted != Status::success) return ended(restarted);
        // The estimate knows no floor: a state reset to 0 gets Hairer's 1e-6 start, 1e-4 after growth,
        // below 16 ulps of t at t = 65 in float, where the controller would call it an underflow.
        const T estimate = initial_step<N, Stepper::order>(sys, t, y, stepper.derivative(), p, plan);
        h = min_of(max_of(estimate, T(64) * eps * port::fabs(t)), plan.dt_max);
        counters.rhs_evaluations += 1;
        log_e2_prev = control.first_log_e2_prev();
        continue;
      }
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
    const auto next = control.accepted(e2, log_e2_prev, plan);
    log_e2_prev = next.log_e2;
    const T h_new = min_of(h_try * next.factor, plan.dt_max);
    h = max_of(h_kept, h_new);
    t = t_new;
    // Accepted steps may shrink too: below the floor, t + h == t and time would stop advancing.
    if (h < h_safe && t < plan.t_end && h < max_of(plan.dt_min, T(16) * eps * port::fabs(t))) {
      return ended(Status::step_size_underflow);
    }
  }
  return ended(Status::success);
}

}  // namespace batchode::detail
