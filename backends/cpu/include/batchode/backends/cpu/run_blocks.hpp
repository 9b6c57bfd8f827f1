// backends/cpu/: runs in the lanes of the CPU's vector registers. A block of W runs is integrated at
// once: its states, stages and parameters are packs of W runs' values (kernels::RunPack), the method's
// CPU stepper (cpu_stepper.hpp) does its arithmetic on packs, so each of its operations is a loop over
// the lanes that the compiler turns into vector instructions, and each run keeps its own step size,
// acceptance and status as a GPU thread does: the step controller's decisions are taken lane by lane,
// with the scalar loop's own code (kernels/loop/step_control.hpp; its log and exp for all lanes at once
// in vector instructions, kernels/loop/controller_math.hpp, the same arithmetic), and a lane whose run
// has ended takes steps of size 0 until the block's last run ends. A run's numbers are therefore its scalar
// numbers, bit for bit (the same operations in the same order, none contracted: batchode compiles host code
// with -ffp-contract=off), whichever runs share its block.
//
// What runs in blocks: a system that takes packs (simd_runs, kernels/core/system.hpp) integrated by an
// explicit method to its final state, with no saves, summaries, events, drivers or algebraic states
// (runs_in_blocks_v, plan_runs_in_blocks); the rest runs a run at a time (run_range.hpp), as do the
// runs past the last whole block. The block loops are compiled once per instruction set (AVX-512 with
// two vectors per pack, AVX2, the baseline) and the widest the CPU has is chosen at run time
// (simd_set), so one binary runs anywhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/cpu/cpu_stepper.hpp"
#include "batchode/backends/cpu/simd_set.hpp"
#include "batchode/kernels/core/run_pack.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/core/tolerance.hpp"
#include "batchode/kernels/loop/run_integrator.hpp"

namespace batchode::cpu {

/// Whether method Tab's runs of System in precision T can run in blocks: the system takes packs, the
/// method is explicit with one error estimate (dop853 combines two by their norms), and nothing of a
/// run but its state is carried (no events, drivers, breaks or algebraic states).
template <class Tab, class System, class T>
inline constexpr bool runs_in_blocks_v =
    simd_runs_v<System> && !has_stiff_stepper_v<Tab> && tableau::runs_on_gpu_v<Tab> &&
    !tableau::combines_estimates_v<Tab> && n_events_v<System> == 0 && n_drivers_v<System> == 0 &&
    n_algebraic_v<System> == 0 && !has_breaks_v<System, T> &&
    (std::is_same_v<T, float> || std::is_same_v<T, double>);

/// Whether a solve's plan lets its runs run in blocks: it keeps the final state only (no series, no
/// summaries).
template <class T>
bool plan_runs_in_blocks(const RunSettings<T>& plan) {
  return plan.n_saves == 0 && plan.summary_windows == 0;
}

namespace blocks {

/// Where each run of a block stands: the scalar loop's variables, one per lane, each in an array of its
/// own so that a loop over the lanes is a few vector instructions.
template <class T, std::size_t W>
struct Lanes {
  /// A lane's yes or no, as wide as T: GCC vectorised no loop that mixed bools with T.
  using Flag = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  T t[W], h[W], log_e2_prev[W];
  std::uint32_t accepted_steps[W], rejected_steps[W], rhs_evaluations[W];
  Status status[W];
  Flag active[W];

  void end(std::size_t l, Status s) {
    status[l] = s;
    active[l] = 0;
  }
};

/// The scalar error norm (kernels/loop/step_control.hpp's error_norm_squared) of every lane: the same
/// operations in the same order, lane by lane.
template <std::size_t N, class State, class T, std::size_t W>
inline kernels::RunPack<T, W> error_norm_squared(const State& y, const State& y_new, const State& err, T rtol,
                                                 T atol) {
  using Pack = kernels::RunPack<T, W>;
  Pack sum(T(0));
  for (std::size_t i = 0; i < N; ++i) {
    const Pack scale =
        zip(y[i], y_new[i], [rtol, atol](T a, T b) { return kernels::tolerance_scale(atol, rtol, a, b); });
    const Pack r = err[i] / scale;
    sum += r * r;
  }
  return sum * Pack(T(1) / T(N));
}

/// finite[l]: whether lane l's states are all finite (1) or not (0), every lane at once.
template <std::size_t N, class State, class Flag, std::size_t W>
inline void lanes_finite(const State& y, Flag (&finite)[W]) {
  for (std::size_t l = 0; l < W; ++l) finite[l] = 1;
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t l = 0; l < W; ++l) finite[l] = detail::is_finite(y[i][l]) ? finite[l] : 0;
  }
}

/// The attempt just made becomes the state of the lanes that accepted it (keep_step's work): their
/// y takes y_new and the stepper moves on at t_new; the other lanes keep their state and the stepper's
/// f(t, y) (a FSAL method's accept() would take its last stage in every lane).
template <class Stepper, class System, class Pack, class Flag, std::size_t W>
inline void keep_accepted(Stepper& stepper, const System& sys, const Pack& t_new,
                          typename Stepper::state_type& y, const typename Stepper::state_type& y_new,
                          const Pack* p, const Flag (&accepted)[W], bool all) {
  using State = typename Stepper::state_type;
  constexpr std::size_t N = System::n_states;
  if (all) {
    keep_step(stepper, sys, t_new, y, y_new, p);
    return;
  }
  const State kept = stepper.derivative();
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t l = 0; l < W; ++l) y[i][l] = accepted[l] ? y_new[i][l] : y[i][l];
  }
  stepper.accept(sys, t_new, y, p);
  // derivative() is the stepper's own first stage (or odeint stepper's dxdt), not a copy: the lanes
  // that did not move get theirs back.
  State& f = const_cast<State&>(stepper.derivative());
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t l = 0; l < W; ++l) f[i][l] = accepted[l] ? f[i][l] : kept[i][l];
  }
}

/// integrate_fixed (kernels/loop/fixed_step_loop.hpp) without stops: every lane takes the same steps.
template <class Stepper, class System, class T, std::size_t W>
void integrate_fixed(Stepper& stepper, const System& sys, typename Stepper::state_type& y,
                     const kernels::RunPack<T, W>* p, const RunSettings<T>& plan, Lanes<T, W>& lanes) {
  using Pack = kernels::RunPack<T, W>;
  using State = typename Stepper::state_type;
  constexpr std::size_t N = System::n_states;
  const T h = plan.dt;
  const auto all_end = [&](Status status, T t, std::uint64_t steps) {
    for (std::size_t l = 0; l < W; ++l) {
      lanes.t[l] = t;
      lanes.accepted_steps[l] += static_cast<std::uint32_t>(steps);
      lanes.end(l, status);
    }
  };
  if (!(plan.t0 < plan.t_end)) return all_end(Status::success, plan.t0, 0);
  const std::uint64_t allowed = plan.max_steps;
  const T steps_wanted = detail::steps_over(plan.t_end - plan.t0, h);
  const bool within = steps_wanted <= T(allowed) && steps_wanted < T(18446744073709551616.0);  // 2^64
  const std::uint64_t steps = within ? static_cast<std::uint64_t>(steps_wanted) : allowed + 1;
  const std::uint64_t full = (steps <= allowed ? steps : allowed + 1) - 1;  // steps of exactly h
  State y_new{}, err{};
  for (std::uint64_t base = 0; base < full;) {
    const std::uint32_t round =
        static_cast<std::uint32_t>(detail::min_of<std::uint64_t>(full - base, 1u << 31));
    const T t_round = plan.t0 + T(base) * h;
    for (std::uint32_t j = 0; j < round; ++j) {
      const T tj = t_round + T(j) * h;
      if (detail::stop_asked(plan, j)) return all_end(Status::not_solved, tj, base + j);
      stepper.step(sys, Pack(tj), y, p, Pack(h), y_new, err);
      keep_step(stepper, sys, Pack(tj + h), y, y_new, p);
    }
    base += round;
  }
  const T t_last = plan.t0 + T(full) * h;
  if (steps > allowed) return all_end(Status::max_steps_reached, t_last, full);
  stepper.step(sys, Pack(t_last), y, p, Pack(plan.t_end - t_last), y_new, err);
  keep_step(stepper, sys, Pack(plan.t_end), y, y_new, p);
  all_end(Status::success, plan.t_end, full + 1);
  typename Lanes<T, W>::Flag finite[W];
  lanes_finite<N>(y, finite);
  for (std::size_t l = 0; l < W; ++l) {
    if (!finite[l]) lanes.status[l] = Status::non_finite_state;
  }
}

/// integrate_adaptive (kernels/loop/adaptive_loop.hpp) without stops, lane by lane: each lane's step,
/// acceptance and step-size update are the scalar loop's, on its own run's numbers. lane_params[l]:
/// lane l's run's parameters (the first step's estimate evaluates f for one run). The loops over the
/// lanes are written as selects, so that they vectorise; a run's end, which is rare, is decided apart.
template <class Stepper, class System, class T, std::size_t W>
void integrate_adaptive(Stepper& stepper, const System& sys, typename Stepper::state_type& y,
                        const kernels::RunPack<T, W>* p, const T* const (&lane_params)[W],
                        const RunSettings<T>& plan, Lanes<T, W>& lanes) {
  using Pack = kernels::RunPack<T, W>;
  using State = typename Stepper::state_type;
  constexpr std::size_t N = System::n_states;
  constexpr T eps = port::numeric_limits<T>::epsilon();
  const detail::PiController<T, Stepper::error_order> control(plan);
  // The controller's loops over the lanes read the settings from this copy: loads from the caller's
  // could alias their stores, and GCC did not vectorise them.
  const RunSettings<T> settings = plan;
  for (std::size_t l = 0; l < W; ++l) {
    lanes.t[l] = plan.t0;
    lanes.h[l] = plan.dt;
  }
  if (!(plan.dt > T(0))) {
    const State& f0 = stepper.derivative();
    for (std::size_t l = 0; l < W; ++l) {
      std::array<T, N> y_lane, f_lane;
      for (std::size_t i = 0; i < N; ++i) y_lane[i] = y[i][l], f_lane[i] = f0[i][l];
      lanes.h[l] =
          detail::initial_step<N, Stepper::order>(sys, plan.t0, y_lane, f_lane, lane_params[l], plan);
      lanes.rhs_evaluations[l] += 1;
    }
  }
  for (std::size_t l = 0; l < W; ++l) {
    lanes.h[l] = detail::min_of(lanes.h[l], plan.dt_max);
    lanes.log_e2_prev[l] = control.first_log_e2_prev();
    lanes.active[l] = 1;
    if (!(plan.t0 < plan.t_end)) lanes.end(l, Status::success);
  }
  const T h_safe =
      detail::max_of(plan.dt_min, T(16) * eps * detail::max_of(port::fabs(plan.t0), port::fabs(plan.t_end)));

  State y_new{}, err{};
  Pack t_now, h_now, t_new;
  using Flag = typename Lanes<T, W>::Flag;
  T h_try[W], h_kept[W], log_e2[W], exponent[W], factor[W];
  Flag lands[W], accepted[W], rejected[W], ends[W], finite[W], underflow[W];
  // Every lane still running has made as many attempts as the others: one a pass.
  for (std::uint64_t attempts = 0;; ++attempts) {
    Flag any = 0;
    for (std::size_t l = 0; l < W; ++l) any |= lanes.active[l];
    if (!any) return;
    const bool out_of_steps = attempts >= plan.max_steps;
    if (out_of_steps || detail::stop_asked(plan, attempts)) {
      for (std::size_t l = 0; l < W; ++l) {
        if (lanes.active[l]) lanes.end(l, out_of_steps ? Status::max_steps_reached : Status::not_solved);
      }
      return;
    }
    // Each lane's attempt, as the scalar loop sizes it (a lane whose run has ended: a step of 0).
    for (std::size_t l = 0; l < W; ++l) {
      const T remaining = plan.t_end - lanes.t[l];
      lands[l] = remaining <= lanes.h[l] * (T(1) + detail::landing_slack<T>);
      h_try[l] = lands[l] ? remaining : lanes.h[l];
      h_kept[l] = (lands[l] && h_try[l] < lanes.h[l]) ? lanes.h[l] : -port::numeric_limits<T>::infinity();
      h_now[l] = lanes.active[l] ? h_try[l] : T(0);
      t_now[l] = lanes.t[l];
    }
    stepper.step(sys, t_now, y, p, h_now, y_new, err);
    const Pack e2 = error_norm_squared<N, State, T, W>(y, y_new, err, plan.rtol, plan.atol);

    // Each lane's verdict, and the controller's factor: one log and one exp a lane, in vector
    // instructions (controller_math.hpp: the scalar loop's arithmetic; a rejected attempt's finite
    // e2 > 1 is its own log_of).
    Flag any_rejected = 0, any_accepted = 0, all_accepted = 1;
    for (std::size_t l = 0; l < W; ++l) {
      const Flag accepts = control.accepts(e2[l]) ? 1 : 0;  // a NaN error is rejected
      accepted[l] = lanes.active[l] & accepts;
      rejected[l] = lanes.active[l] & (accepts ^ 1);
      any_rejected |= rejected[l];
      any_accepted |= accepted[l];
      all_accepted &= accepted[l];
    }
    for (std::size_t l = 0; l < W; ++l) log_e2[l] = control.log_argument(e2[l]);
    detail::host_math::log_lanes(log_e2, log_e2);  // control.log_of(e2[l])
    for (std::size_t l = 0; l < W; ++l) {
      exponent[l] = rejected[l] ? control.rejected_exponent(log_e2[l])
                                : control.accepted_exponent(log_e2[l], lanes.log_e2_prev[l]);
    }
    detail::host_math::exp_lanes(exponent, factor);  // controller_exp(exponent[l])
    for (std::size_t l = 0; l < W; ++l) {
      factor[l] = rejected[l] ? control.rejected_factor(detail::is_finite(e2[l]), factor[l], settings)
                              : control.accepted_factor(e2[l], factor[l], settings);
    }
    if (any_rejected) {
      for (std::size_t l = 0; l < W; ++l) {
        lanes.rejected_steps[l] += rejected[l] ? 1u : 0u;
        lanes.h[l] = rejected[l] ? h_try[l] * factor[l] : lanes.h[l];
      }
      for (std::size_t l = 0; l < W; ++l) {
        if (!rejected[l]) continue;
        // Below 16 ulps of t, t + h barely moves t (adaptive_loop.hpp).
        const T floor = detail::max_of(plan.dt_min, detail::max_of(T(16) * eps * port::fabs(lanes.t[l]),
                                                                   port::numeric_limits<T>::min()));
        if (lanes.h[l] < floor) {
          lanes.end(l, detail::is_finite(e2[l]) ? Status::step_size_underflow : Status::non_finite_state);
        }
      }
    }
    if (!any_accepted) continue;
    for (std::size_t l = 0; l < W; ++l)
      t_new[l] = accepted[l] ? (lands[l] ? plan.t_end : lanes.t[l] + h_try[l]) : lanes.t[l];
    keep_accepted(stepper, sys, t_new, y, y_new, p, accepted, all_accepted != 0);

    // The accepted lanes move on: their time, the controller's memory and the next step size.
    lanes_finite<N>(y, finite);
    Flag any_ends = 0;
    for (std::size_t l = 0; l < W; ++l) {
      const Flag a = accepted[l];
      lanes.accepted_steps[l] += a ? 1u : 0u;
      lanes.t[l] = t_new[l];
      lanes.log_e2_prev[l] = a ? log_e2[l] : lanes.log_e2_prev[l];
      const T h_new = detail::min_of(h_try[l] * factor[l], plan.dt_max);
      lanes.h[l] = a ? detail::max_of(h_kept[l], h_new) : lanes.h[l];
      const T t = lanes.t[l], h = lanes.h[l];
      // Accepted steps may shrink too: below the floor, t + h == t and time would stop advancing.
      underflow[l] =
          (h < h_safe) & (t < plan.t_end) & (h < detail::max_of(plan.dt_min, T(16) * eps * port::fabs(t)));
      ends[l] = a & ((finite[l] ^ 1) | underflow[l] | Flag(!(t < plan.t_end)));
      any_ends |= ends[l];
    }
    if (!any_ends) continue;
    for (std::size_t l = 0; l < W; ++l) {
      if (!ends[l]) continue;
      lanes.end(l, !finite[l] ? Status::non_finite_state
                              : (underflow[l] ? Status::step_size_underflow : Status::success));
    }
  }
}

/// Runs [first, first + W) of a validated batch into the same rows of `result` (integrate_one_run's
/// work, run_range.hpp, for a block).
template <class Stepper, class System, class T, std::size_t W>
void integrate_block(Stepper& stepper, const System& sys, const T* y0, const T* params, std::size_t first,
                     const RunSettings<T>& plan, const ResultView<T>& result) {
  using Pack = kernels::RunPack<T, W>;
  constexpr std::size_t N = System::n_states;
  constexpr std::size_t P = System::n_params;
  typename Stepper::state_type y;
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t l = 0; l < W; ++l) y[i][l] = y0[(first + l) * N + i];
  }
  Pack p[P > 0 ? P : 1];
  const T* lane_params[W];
  for (std::size_t l = 0; l < W; ++l) lane_params[l] = P > 0 ? params + (first + l) * P : nullptr;
  for (std::size_t k = 0; k < P; ++k) {
    for (std::size_t l = 0; l < W; ++l) p[k][l] = lane_params[l][k];
  }
  const Pack* pp = P > 0 ? p : nullptr;
  Lanes<T, W> lanes{};
  stepper.reset(sys, Pack(plan.t0), y, pp);
  if constexpr (Stepper::adaptive) {
    integrate_adaptive(stepper, sys, y, pp, lane_params, plan, lanes);
  } else {
    (void)lane_params;
    integrate_fixed(stepper, sys, y, pp, plan, lanes);
  }
  for (std::size_t l = 0; l < W; ++l) {
    const std::size_t r = first + l;
    for (std::size_t i = 0; i < N; ++i) result.final_state[r * N + i] = y[i][l];
    RunCounters counters;
    counters.accepted_steps = lanes.accepted_steps[l];
    counters.rejected_steps = lanes.rejected_steps[l];
    counters.rhs_evaluations =
        lanes.rhs_evaluations[l] + Stepper::rhs_evaluations(counters.accepted_steps, counters.rejected_steps);
    if (Status* out = result.status) out[r] = lanes.status[l];
    if (T* out = result.stop_time) out[r] = lanes.t[l];
    if (RunCounters* out = result.counters) out[r] = counters;
  }
}

/// Every whole block of W runs in [begin, end); returns where the runs left over start.
template <class Tab, class System, class T, std::size_t W>
std::size_t integrate_blocks(const System& sys, const T* y0, const T* params, std::size_t begin,
                             std::size_t end, const RunSettings<T>& plan, const ResultView<T>& result) {
  using Stepper = typename IntegratedStepperFor<Tab, System, kernels::RunPack<T, W>>::type;
  Stepper stepper{};
  std::size_t r = begin;
  for (; end - r >= W; r += W)
    integrate_block<Stepper, System, T, W>(stepper, sys, y0, params, r, plan, result);
  return r;
}

// The block loops compiled for each instruction set, everything they call inlined into them (flatten),
// so that the stepper's and the system's arithmetic on packs is compiled for that set too. AVX-512 with
// 512-bit vectors: GCC's tuning for most CPUs prefers 256 bits even where AVX-512 is enabled.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__clang__)
#define BATCHODE_BLOCKS_AVX512 \
  __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma"), min_vector_width(512), flatten))
#else
#define BATCHODE_BLOCKS_AVX512 \
  __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma,prefer-vector-width=512"), flatten))
#endif
template <class Tab, class System, class T>
BATCHODE_BLOCKS_AVX512 std::size_t integrate_blocks_avx512(const System& sys, const T* y0, const T* params,
                                                           std::size_t begin, std::size_t end,
                                                           const RunSettings<T>& plan,
                                                           const ResultView<T>& result) {
  return integrate_blocks<Tab, System, T, block_runs<T>>(sys, y0, params, begin, end, plan, result);
}
template <class Tab, class System, class T>
__attribute__((target("avx2,fma"), flatten)) std::size_t integrate_blocks_avx2(
    const System& sys, const T* y0, const T* params, std::size_t begin, std::size_t end,
    const RunSettings<T>& plan, const ResultView<T>& result) {
  return integrate_blocks<Tab, System, T, block_runs<T>>(sys, y0, params, begin, end, plan, result);
}
#undef BATCHODE_BLOCKS_AVX512
#endif
template <class Tab, class System, class T>
#if defined(__GNUC__) || defined(__clang__)
__attribute__((flatten))
#endif
std::size_t
integrate_blocks_baseline(const System& sys, const T* y0, const T* params, std::size_t begin, std::size_t end,
                          const RunSettings<T>& plan, const ResultView<T>& result) {
  return integrate_blocks<Tab, System, T, block_runs<T>>(sys, y0, params, begin, end, plan, result);
}

}  // namespace blocks

/// The runs of [begin, end) that fill whole blocks, integrated in blocks with the widest instruction
/// set the CPU has (simd_set); returns the first run left for integrate_one_run (begin when none ran
/// in blocks: the method, system or plan does not allow it, or BATCHODE_CPU_SIMD is off).
template <class Tab, class System, class T>
std::size_t integrate_run_blocks(const System& sys, const T* y0, const T* params, std::size_t begin,
                                 std::size_t end, const RunSettings<T>& plan, const ResultView<T>& result) {
  if constexpr (runs_in_blocks_v<Tab, System, T>) {
    if (!plan_runs_in_blocks(plan)) return begin;
    switch (simd_set()) {
      case SimdSet::off:
        return begin;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
      case SimdSet::avx512:
        return blocks::integrate_blocks_avx512<Tab>(sys, y0, params, begin, end, plan, result);
      case SimdSet::avx2:
        return blocks::integrate_blocks_avx2<Tab>(sys, y0, params, begin, end, plan, result);
#endif
      default:
        return blocks::integrate_blocks_baseline<Tab>(sys, y0, params, begin, end, plan, result);
    }
  } else {
    (void)sys, (void)y0, (void)params, (void)end, (void)plan, (void)result;
    return begin;
  }
}

}  // namespace batchode::cpu
