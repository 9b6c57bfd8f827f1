// kernels/loop/: step-size control of the adaptive loop (adaptive_loop.hpp), apart from the loop as
// Boost.Odeint keeps controlled_runge_kutta apart from its steppers: what decides a step's size and
// its fate (the error norm, the first step, the PI controller) is numerics one reads and tunes on its
// own, and the loop around it is bookkeeping (stops, saves, events, counters). The same code on the
// GPU and the CPU, so that both paths take the same steps run by run. Their loops over the states are
// BATCHODE_UNROLL_STEP_STATES's: fully unrolled up to 32 states, as the step's own; past that, where a
// run's arrays have left the registers, loops of 4 (fully unrolled, the first step's and the norm's 512
// divisions took NVRTC 4-5 s of BRUSS's 24 at 128 states).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/tolerance.hpp"
#include "batchode/kernels/loop/controller_math.hpp"
#include "batchode/kernels/loop/loop_parts.hpp"

namespace batchode::detail {

/// Square of the weighted RMS norm of an error estimate (Hairer's): mean((err_i / sc_i)^2),
/// sc_i = atol + rtol * max(|y_i|, |y_new_i|). A step is accepted when it is <= 1. Kept squared so no
/// square root sits on the step-size chain.
BATCHODE_HD_TEMPLATE
template <port::size_t N, class State, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T error_norm_squared(const State& y, const State& y_new,
                                                               const State& err, T rtol, T atol) {
  // The sum starts at 0: each term then adds one product to the sum, which a compiler that fuses
  // multiplies into adds can only fuse one way (fma(r, r, sum)). Started at the first term, r0 r0 +
  // r1 r1 could be fused around either product, and a lane group's sum (kernels/launch/lane_group.hpp) and
  // one thread's were fused differently (dopri5 on Lorenz-96, sm_90): same sums, other bits.
  T sum = 0;
  BATCHODE_UNROLL_STEP_STATES
  for (port::size_t i = 0; i < N; ++i) {
    const T r = err[i] / kernels::tolerance_scale(atol, rtol, y[i], y_new[i]);
    sum += r * r;
  }
  return sum * (T(1) / T(N));
}

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
    BATCHODE_UNROLL_STEP_STATES
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
    for (port::size_t i = 0; i < N; ++i) r[i] = err[i] / kernels::tolerance_scale(atol, rtol, y[i], y_new[i]);
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
  BATCHODE_UNROLL_STEP_STATES
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
  BATCHODE_UNROLL_STEP_STATES
  for (port::size_t i = 0; i < N; ++i) y1[i] = y0[i] + h0 * f0[i];
  sys(t0 + h0, &y1[0], p, &f1[0]);
  T q2[N];
  BATCHODE_UNROLL_STEP_STATES
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

/// The PI step-size controller (Hairer, Norsett & Wanner, Solving ODEs I, II.4, and their DOPRI5
/// code; Gustafsson's PI control), for a method whose error estimate has local order
/// k = ErrorOrder + 1. From an attempt's error norm err (error_norm_squared's, as e2 = err^2;
/// accepted when err <= 1: accepts()) it gives the factor on the step size:
///  rejected: max(min_factor, safety * err^(-1/k)), the elementary (I) controller; min_factor
///   alone for a NaN or infinite err;
///  accepted: clamp(safety * err^(-ki/k) * err_prev^(kp/k), min_factor, max_factor), the PI form
///   (SolveOptions' StepControl: ki, kp; kp = 0 is the classic I controller), err_prev the previous
///   accepted step's err (before the first: Hairer's 1e-4), err taken as at least 1e-4 (err = 0:
///   max_factor).
/// Why squared: no square root sits on the step-size chain; err^a = exp(a/2 log e2), and the
/// accepted step's factor costs one log and one exp (controller_math.hpp's: on the host, the same
/// arithmetic for a run alone and for a block of runs in SIMD lanes). The loop applies the factor, caps the
/// step at dt_max and tests it against the underflow floor. The previous error (its log e2) is the loop's
/// variable, passed in and handed back by value, not a member the controller updates: updated through the
/// controller (or a reference), it became a register later than the loop's own variables and renumbered the
/// PTX's registers.
template <class T, int ErrorOrder>
struct PiController {
  /// An accepted attempt's outcome: the factor on its step size, and its log e2 (the next
  /// accepted() call's log_e2_prev).
  struct Accepted {
    T factor;
    T log_e2;
  };

  T half_exp_i;  ///< ki / (2 k): the exponent of e2 (err squared)
  T half_exp_p;  ///< kp / (2 k): the exponent of the previous e2

  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE explicit PiController(const RunSettings<T>& plan)
      : half_exp_i(plan.ki / (2 * k())), half_exp_p(plan.kp / (2 * k())) {}

  /// k: the local order of the error estimate, error_order + 1.
  static BATCHODE_HOST_DEVICE constexpr T k() { return T(ErrorOrder + 1); }

  /// log e2_prev before the first step: Hairer's start value err_prev = 1e-4, squared.
  static BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T first_log_e2_prev() { return controller_log(T(1e-8)); }

  /// Whether an attempt with squared error norm e2 is accepted (false for NaN).
  static BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool accepts(T e2) { return e2 <= T(1); }

  /// The factor on a rejected attempt's step size; `finite`: is_finite(e2), which the loop also
  /// needs (a non-finite error that shrinks the step below its floor is a non-finite state).
  static BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T rejected(T e2, bool finite, const RunSettings<T>& plan) {
    return rejected_factor(finite, controller_exp(rejected_exponent(controller_log(e2))), plan);
  }

  /// The factor on an accepted attempt's step size, and its log e2.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE Accepted accepted(T e2, T log_e2_prev,
                                                           const RunSettings<T>& plan) const {
    const T log_e2 = log_of(e2);
    return {accepted_factor(e2, controller_exp(accepted_exponent(log_e2, log_e2_prev)), plan), log_e2};
  }

  // rejected() and accepted() in parts, so that a block of runs in SIMD lanes (backends/cpu/
  // run_blocks.hpp) takes one log and one exp per lane in vector instructions, each run's numbers
  // these: log e2, the exponent, its exp, the factor.

  /// log e2 as accepted() keeps it: e2 taken as at least 1e-8 (a rejected attempt's finite e2 > 1
  /// is its own).
  static BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T log_of(T e2) { return controller_log(log_argument(e2)); }
  static BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T log_argument(T e2) { return max_of(e2, T(1e-8)); }

  /// A rejected attempt's factor is exp of this, times safety: err^(-1/k).
  static BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T rejected_exponent(T log_e2) {
    return -log_e2 / (2 * k());
  }

  /// An accepted attempt's factor is exp of this, times safety: err^(-ki/k) err_prev^(kp/k).
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T accepted_exponent(T log_e2, T log_e2_prev) const {
    return half_exp_p * log_e2_prev - half_exp_i * log_e2;
  }

  /// A rejected attempt's factor from exp(rejected_exponent): min_factor alone for a non-finite e2.
  static BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T rejected_factor(bool finite, T exp_value,
                                                                     const RunSettings<T>& plan) {
    return finite ? max_of(plan.min_factor, plan.safety * exp_value) : plan.min_factor;
  }

  /// An accepted attempt's factor from exp(accepted_exponent), clamped to [min_factor, max_factor].
  /// e2 == 0: the largest growth (+inf clamps to max_factor). exp(...) * safety rather than
  /// safety * exp(...): the same product, with safety loaded after the call, not kept across it.
  static BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T accepted_factor(T e2, T exp_value,
                                                                     const RunSettings<T>& plan) {
    const T factor = e2 > T(0) ? exp_value * plan.safety : port::numeric_limits<T>::infinity();
    return min_of(plan.max_factor, max_of(plan.min_factor, factor));
  }
};

}  // namespace batchode::detail
