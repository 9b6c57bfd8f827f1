// kernels/loop/: dense output: the state inside an accepted step, for saves at arbitrary times
// (step_outputs.hpp's DenseStep) and for locating events (events.hpp). The method's own
// continuous extension where it has one (a stepper's interpolate(): dopri5's, tsit5's, vern7's, vern9's,
// dop853's, the Rosenbrock tables', radau5's; dense_form.hpp), else the cubic Hermite interpolant of the
// step's ends and slopes.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/status.hpp"

namespace batchode::detail {

/// Whether stepper.derivative() is f(t, y) at the run's current point before an attempt and after
/// accept() (the RK steppers: their first stage), so that dense output takes its slopes from it.
/// Steppers that do not keep it (Rosenbrock: f comes with the next linearisation) declare
/// `static constexpr bool keeps_derivative = false`, or nothing: dense output then evaluates f.
template <class Stepper, class = void>
struct keeps_derivative : port::false_type {};
template <class Stepper>
struct keeps_derivative<Stepper, port::void_t<decltype(Stepper::keeps_derivative)>>
    : port::bool_constant<Stepper::keeps_derivative> {};

/// Cubic Hermite interpolation of a step from (t, y0) to (t + h, y1), slopes f0 and f1 at its ends,
/// at t + theta h (theta in [0, 1]): y0 + theta d + theta (theta - 1) [(1 - 2 theta) d + (theta - 1) h f0
/// + theta h f1], d = y1 - y0. Exact at both ends (theta = 1 gives y1), local error O(h^4): the
/// dense output of every method without its own (own_dense_output), third order whatever the method's.
BATCHODE_HD_TEMPLATE
template <port::size_t N, class State, class T, class Value>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void hermite(T theta, T h, const State& y0, const State& f0,
                                                       const State& y1, const State& f1, Value* out) {
  const T a = theta * (theta - T(1));
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < N; ++i) {
    const Value d = y1[i] - y0[i];
    out[i] = y0[i] + theta * d + a * ((T(1) - T(2) * theta) * d + (theta - T(1)) * h * f0[i] + theta * h * f1[i]);
  }
}

/// Whether a stepper interpolates with the method's own dense output (stepper.interpolate(t, h, ts,
/// y, y_new, out), between step() and accept(): dopri5's, tsit5's, vern7's, vern9's, dop853's, the
/// Rosenbrock tables', radau5's), instead of the Hermite cubic.
template <class Stepper, class = void>
struct own_dense_output : port::false_type {};
template <class Stepper>
struct own_dense_output<Stepper, port::void_t<decltype(Stepper::own_dense_output)>>
    : port::bool_constant<Stepper::own_dense_output> {};

/// Stepper::dense_extra_stages: the stages a method's own dense output adds to its step (RkStepper's
/// prepare_dense: dop853, vern7, vern9); 0 for the others.
template <class Stepper, class = void>
struct dense_extra_stages : port::integral_constant<int, 0> {};
template <class Stepper>
struct dense_extra_stages<Stepper, port::void_t<decltype(Stepper::dense_extra_stages)>>
    : port::integral_constant<int, Stepper::dense_extra_stages> {};

/// Readies the stepper's own dense output of the attempt just made from (t, y) with step h for
/// interpolate() (its extra stages, once an attempt), counting the evaluations it makes.
BATCHODE_HD_TEMPLATE
template <class Stepper, class System, class T, class State, class Param>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void prepare_dense(Stepper& stepper, const System& sys, T t, T h,
                                                             const State& y, const Param* p,
                                                             RunCounters& counters) {
  if constexpr (dense_extra_stages<Stepper>::value > 0) {
    counters.rhs_evaluations += stepper.prepare_dense(sys, t, h, y, p);
  } else {
    (void)stepper, (void)sys, (void)t, (void)h, (void)y, (void)p, (void)counters;
  }
}

/// The dense output of one accepted attempt from (t, y0) to (t + h, y1), before accept(): the
/// method's own (the stepper's interpolate(), while its stages are current) where it has one, else
/// the Hermite cubic, whose end slopes are taken on first use (the start's from the stepper when it
/// keeps it, the end's evaluated: one or two evaluations, only on steps where an event is located).
template <class Stepper, class System, class T>
struct StepInterpolant {
  using State = typename Stepper::state_type;
  static constexpr port::size_t N = System::n_states;
  Stepper& stepper;
  const System& sys;
  const T* p;
  T t, h;
  const State& y0;
  const State& y1;
  RunCounters& counters;
  State f0{}, f1{};
  bool have_slopes = false;

  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void state(T theta, T* out) {
    if (theta >= T(1)) {
      BATCHODE_UNROLL
      for (port::size_t i = 0; i < N; ++i) out[i] = y1[i];
      return;
    }
    if constexpr (own_dense_output<Stepper>::value) {
      prepare_dense(stepper, sys, t, h, y0, p, counters);
      stepper.interpolate(t, h, t + theta * h, y0, y1, out);
    } else {
      if (!have_slopes) {
        if constexpr (keeps_derivative<Stepper>::value) {
          f0 = stepper.derivative();
        } else {
          sys(t, &y0[0], p, &f0[0]);
          ++counters.rhs_evaluations;
        }
        sys(t + h, &y1[0], p, &f1[0]);
        ++counters.rhs_evaluations;
        have_slopes = true;
      }
      hermite<N>(theta, h, y0, f0, y1, f1, out);
    }
  }
};

}  // namespace batchode::detail
