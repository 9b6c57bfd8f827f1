// kernels/loop/: what every loop of one run shares, so that the fixed-step loops
// (fixed_step_loop.hpp) and the adaptive one (adaptive_loop.hpp) keep a step, test a state, meet a
// stop request and talk to a sink in the same words, and the GPU and CPU paths agree run by run:
// the stop request, a lane's share of a run's states, the finite test, the sink interface (NoSeries,
// save_past_first, takes_windows), keep_step and the next stop. Device and runtime-compiler code
// alike (port:: only).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"

#if !BATCHODE_RTC
#include <atomic>  // RunSettings::stop, read on the host only (stop_asked)
#endif

namespace batchode {

namespace detail {

// Steppers that solve systems with algebraic states declare `static constexpr bool solves_dae = true`
// (kernels/methods/rosenbrock_stepper.hpp for rodas4 and rodas5p) and have make_consistent.
template <class Stepper, class = void>
struct stepper_solves_dae : port::false_type {};
template <class Stepper>
struct stepper_solves_dae<Stepper, port::void_t<decltype(Stepper::solves_dae)>>
    : port::bool_constant<Stepper::solves_dae> {};

// Steppers whose right-hand-side evaluations follow from the step counts (static
// rhs_evaluations(accepted, rejected): kernels/methods/rk_stepper.hpp) rather than counted as they go.
template <class Stepper, class = void>
struct evaluations_from_steps : port::false_type {};
template <class Stepper>
struct evaluations_from_steps<
    Stepper, port::void_t<decltype(Stepper::rhs_evaluations(port::uint32_t{}, port::uint32_t{}))>>
    : port::true_type {};

/// The type of a state's values: T for a run, kernels::RunPack<T, W> for a block of runs in SIMD lanes
/// (backends/cpu/run_blocks.hpp: its fixed-step loop saves through DenseStep on packs, at times in T).
template <class State>
using state_value_t = decltype(port::declval<const State&>()[0] + port::declval<const State&>()[0]);

template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool is_finite(T x) {
  return port::fabs(x) <= port::numeric_limits<T>::max();  // false for NaN and +-inf
}
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T min_of(T a, T b) { return a < b ? a : b; }
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T max_of(T a, T b) { return a > b ? a : b; }

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

/// A system whose n_states are one lane's share of a run's state (kernels/launch/lane_group.hpp: several
/// threads integrate one run, each its share of the states): sums and tests over a run's states go
/// through it (step_control.hpp's sum_of_squares, all_of here), so that every lane of the run sees
/// the whole run's. The loops are then over the lane's share; n_states_total is the run's.
template <class S, class = void>
struct is_state_share : port::false_type {};
template <class S>
struct is_state_share<S, port::enable_if_t<S::is_state_share>> : port::true_type {};

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

// A step within 1% of the distance to the next stop goes all the way, instead of leaving a sliver.
template <class T>
inline constexpr T landing_slack = T(0.01);

}  // namespace detail

/// A sink that keeps no series: saving compiles to nothing.
struct NoSeries {
  static constexpr bool active = false;
  template <class T>
  BATCHODE_HOST_DEVICE void save(port::uint32_t, T, const T*) {}
  BATCHODE_HOST_DEVICE void mark_unsaved(port::uint32_t) {}
};

/// The step's end state y_new becomes the run's state at t_new, and the stepper is told (FSAL
/// derivatives, a Rosenbrock stepper's Jacobian): what every loop does with a step it keeps.
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

}  // namespace batchode
