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
// explicit method, or by a Rosenbrock method where its sparse linearisation and LU take packs too
// (simd_linearization: a model written as equations, whose generated LU tells which lanes kept their
// pivots), with or without a series (saved on the batch's save times, landed on or interpolated, with
// observables, a choice of variables and summaries: each lane saves into its own run's row and keeps its
// own run's summaries, run_sinks.hpp), and no save times of each run's own, events, drivers or algebraic
// states (runs_in_blocks_v, plan_runs_in_blocks); the rest runs a run at a time (run_range.hpp), as do the
// runs past the last whole block and a fixed-step block whose state turned non-finite
// (integrate_block). The block loops are compiled once per instruction set (AVX-512 with
// two vectors per pack, AVX2, the baseline) and the widest the CPU has is chosen at run time
// (simd_set), so one binary runs anywhere.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/cpu/cpu_stepper.hpp"
#include "batchode/backends/cpu/run_sinks.hpp"
#include "batchode/backends/cpu/simd_set.hpp"
#include "batchode/kernels/core/run_pack.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/core/tolerance.hpp"
#include "batchode/kernels/loop/run_integrator.hpp"

namespace batchode::cpu {

/// Whether method Tab's runs of System in precision T can run in blocks: the system takes packs; the
/// method is explicit (dop853's two estimates combined lane by lane), or Rosenbrock on a
/// system whose sparse linearisation and LU take packs (the ESDIRK and Radau steppers' Newton
/// iterations are a run's own); nothing of a run but its state is carried (no events, drivers, breaks
/// or algebraic states).
template <class Tab, class System, class T>
inline constexpr bool runs_in_blocks_v =
    simd_runs_v<System> && !has_breaks_v<System, T> && tableau::runs_on_gpu_v<Tab> &&
    (!has_stiff_stepper_v<Tab> || (tableau::is_rosenbrock_v<Tab> && simd_linearization_v<System> &&
                                   kernels::RosenbrockShape<System, T>::sparse)) &&
    n_events_v<System> == 0 && n_drivers_v<System> == 0 && n_algebraic_v<System> == 0 &&
    (std::is_same_v<T, float> || std::is_same_v<T, double>);

/// Whether a block of Stepper's lanes interpolates saves: with the method's own dense output, or the
/// Hermite cubic on the slopes the stepper keeps (a Rosenbrock step without its own, ros3p's doubled
/// one, has no slope at its end until the next linearisation: its runs interpolate a run at a time).
template <class Stepper>
inline constexpr bool lanes_interpolate_v =
    detail::own_dense_output<Stepper>::value || detail::keeps_derivative<Stepper>::value;

/// Whether a solve's plan lets its runs run in blocks: save times (if any) the same for every run (each
/// lane's sink keeps its run's summaries too: LaneSink); for fixed steps (not `adaptive`), saves every whole
/// number of steps or interpolated (blocks::integrate_fixed), not steps landing on other save times;
/// interpolated saves only where the lanes can (`interpolates`: lanes_interpolate_v).
template <class T>
bool plan_runs_in_blocks(const RunSettings<T>& plan, bool adaptive, bool interpolates) {
  const bool fixed_saves =
      plan.n_saves == 0 || plan.interpolate_saves != 0 || detail::steps_between_saves(plan) != 0;
  const bool interpolated = plan.n_saves > 0 && plan.interpolate_saves != 0;
  return plan.save_times_per_run == 0 && (adaptive || fixed_saves) && (interpolates || !interpolated);
}

/// The runs a block loop leaves to be integrated one at a time, [first, last): the runs past the last
/// whole block, a block that must run a run at a time (integrate_block), or all of them where blocks
/// are not allowed. Runs after `last` are still to do.
struct RunsAlone {
  std::size_t first, last;
};

namespace blocks {

/// Where each run of a block stands: the scalar loop's variables, one per lane, each in an array of its
/// own so that a loop over the lanes is a few vector instructions.
template <class T, std::size_t W>
struct Lanes {
  /// A lane's yes or no, as wide as T: GCC vectorised no loop that mixed bools with T.
  using Flag = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  T t[W], h[W], log_e2_prev[W];
  std::uint32_t accepted_steps[W], rejected_steps[W], rhs_evaluations[W];
  std::uint32_t next_save[W];  ///< the lane's next save (adaptive methods: each lane saves at its own steps)
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

/// integrate_fixed (kernels/loop/fixed_step_loop.hpp) for a block: every lane takes the same steps,
/// at t0 + j dt with the last landing on t_end, and saves at the same points, into `sink` (its lanes'
/// rows): after every m-th step (integrate_fixed_saving_every's saves, m = steps_between_saves), or
/// interpolated from the step that passes each save time (integrate_fixed_dense's: DenseStep on
/// packs). Landed segments (save times that are no whole number of steps) are not taken in blocks
/// (plan_runs_in_blocks). Returns false where a lane's state is non-finite at a save, which would
/// have ended its run there alone: the block's runs are then integrated a run at a time
/// (integrate_block). A state non-finite at t_end alone ends the lane's run there, as it would alone.
template <class Stepper, class System, class T, std::size_t W, class Sink>
bool integrate_fixed(Stepper& stepper, const System& sys, typename Stepper::state_type& y,
                     const kernels::RunPack<T, W>* p, const RunSettings<T>& plan, Lanes<T, W>& lanes,
                     Sink& sink, std::uint32_t& next_save) {
  using Pack = kernels::RunPack<T, W>;
  using State = typename Stepper::state_type;
  using Flag = typename Lanes<T, W>::Flag;
  constexpr std::size_t N = System::n_states;
  const T h = plan.dt;
  const auto all_end = [&](Status status, T t, std::uint64_t steps) {
    for (std::size_t l = 0; l < W; ++l) {
      lanes.t[l] = t;
      lanes.accepted_steps[l] += static_cast<std::uint32_t>(steps);
      lanes.end(l, status);
    }
    return true;
  };
  const auto all_finite = [&] {
    Flag finite[W];
    lanes_finite<N>(y, finite);
    Flag all = 1;
    for (std::size_t l = 0; l < W; ++l) all &= finite[l];
    return all != 0;
  };
  if (!(plan.t0 < plan.t_end)) return all_end(Status::success, plan.t0, 0);
  const std::uint64_t allowed = plan.max_steps;
  const T steps_wanted = detail::steps_over(plan.t_end - plan.t0, h);
  const bool within = steps_wanted <= T(allowed) && steps_wanted < T(18446744073709551616.0);  // 2^64
  const std::uint64_t steps = within ? static_cast<std::uint64_t>(steps_wanted) : allowed + 1;
  const std::uint64_t full = (steps <= allowed ? steps : allowed + 1) - 1;  // steps of exactly h
  State y_new{}, err{};
  if (plan.n_saves > 0 && plan.interpolate_saves != 0) {
    // Interpolated: integrate_fixed_dense's steps (as many as max_steps allows), each save time
    // interpolated from the step that passes it.
    const std::uint64_t n = within ? steps : allowed;
    detail::DenseStep<Stepper, N> dense;
    // The fixed-step tables (euler, rk4) interpolate by the Hermite cubic on the stepper's slopes: no
    // evaluation to count (an interpolant's own stages would be each lane's to count, as LanesDense does).
    static_assert(detail::dense_extra_stages<Stepper>::value == 0,
                  "a fixed-step table with interpolant stages");
    RunCounters counters{};
    T t_reached = plan.t0;
    for (std::uint64_t j = 0; j < n; ++j) {
      const T t = plan.t0 + T(j) * h;
      if (detail::stop_asked(plan, j)) return all_end(Status::not_solved, t, j);
      const bool last = within && j + 1 == n;
      const T t_new = last ? plan.t_end : t + h;
      stepper.step(sys, Pack(t), y, p, Pack(last ? plan.t_end - t : h), y_new, err);
      dense.before_accept(stepper, sys, t, y, t_new, y_new, p, plan, sink, next_save, counters);
      keep_step(stepper, sys, Pack(t_new), y, y_new, p);
      t_reached = t_new;
      if ((dense.due || last) && !all_finite()) return false;
      dense.after_accept(stepper, sys, t, t_new, y, p, plan, sink, next_save, counters);
    }
    return all_end(within ? Status::success : Status::max_steps_reached, t_reached, n);
  }
  // Saves after every m-th step (save k after step k m, its time t0 + k save_every; fewer than 2^31
  // steps), or none: integrate_fixed's one segment, in rounds of 2^31 steps as there.
  const std::uint32_t m = plan.n_saves > 0 ? detail::steps_between_saves(plan) : 0;
  for (std::uint64_t base = 0; m == 0 && base < full;) {
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
  for (std::uint32_t j = 0; m != 0 && j < full;) {
    // To the step after which the next save falls, or to the last full step.
    const std::uint64_t save_step = std::uint64_t{next_save} * m;
    const bool saving = next_save < plan.n_saves && save_step <= full;
    const std::uint32_t until =
        saving ? static_cast<std::uint32_t>(save_step) : static_cast<std::uint32_t>(full);
    for (; j < until; ++j) {
      const T tj = plan.t0 + T(j) * h;
      if (detail::stop_asked(plan, j)) return all_end(Status::not_solved, tj, j);
      stepper.step(sys, Pack(tj), y, p, Pack(h), y_new, err);
      keep_step(stepper, sys, Pack(tj + h), y, y_new, p);
    }
    if (saving) {
      if (!all_finite()) return false;
      sink.save(next_save, std::fma(static_cast<T>(next_save), plan.save_every, plan.t0), &y[0]);
      ++next_save;
    }
  }
  const T t_last = plan.t0 + T(full) * h;
  if (steps > allowed) return all_end(Status::max_steps_reached, t_last, full);
  stepper.step(sys, Pack(t_last), y, p, Pack(plan.t_end - t_last), y_new, err);
  keep_step(stepper, sys, Pack(plan.t_end), y, y_new, p);
  all_end(Status::success, plan.t_end, full + 1);
  Flag finite[W];
  lanes_finite<N>(y, finite);
  Flag all = 1;
  for (std::size_t l = 0; l < W; ++l) {
    all &= finite[l];
    if (!finite[l]) lanes.status[l] = Status::non_finite_state;
  }
  // A save left lands on t_end (integrate_fixed_saving_every's last); a lane non-finite there saves
  // nothing alone.
  if (m != 0 && next_save < plan.n_saves) {
    if (!all) return false;
    sink.save(next_save++, plan.t_end, &y[0]);
  }
  return true;
}

/// The saves of the lanes that accepted a step from t to t_new, interpolated (DenseStep's work,
/// kernels/loop/step_outputs.hpp, for every lane at once): the method's own dense output before the
/// step is kept (before_keep, while the stages are current), else the Hermite cubic after it
/// (after_keep, with the new slopes). Each lane saves the points it passed into its own run's row,
/// with the numbers its run alone saves; the lanes that passed none are computed and not stored.
template <class Stepper, std::size_t N, class T, std::size_t W>
struct LanesDense {
  using Pack = kernels::RunPack<T, W>;
  using State = typename Stepper::state_type;
  using Flag = typename Lanes<T, W>::Flag;
  State y0{}, f0{};  // (written before read: any_due; -O3 -Wuninitialized cannot tell)
  Flag due[W] = {};
  Flag any_due = 0;

  /// Which lanes pass a save time; their points are saved now for a method's own dense output.
  /// finite[l]: whether lane l's y_new is finite.
  template <class System, class Sink>
  void before_keep(Stepper& stepper, const System& sys, const Pack& t, const State& y, const Pack& t_new,
                   const State& y_new, const Pack* p, const Flag (&accepted)[W], const Flag (&finite)[W],
                   const RunSettings<T>& plan, Lanes<T, W>& lanes, Sink& sink) {
    any_due = 0;
    for (std::size_t l = 0; l < W; ++l) {
      due[l] = accepted[l] & Flag(detail::next_save_time(plan, lanes.next_save[l]) <= t_new[l]);
      any_due |= due[l];
    }
    if (!any_due) return;
    if constexpr (detail::own_dense_output<Stepper>::value) {
      // A step to a non-finite state ends the run right after: its points stay unsaved (NaN).
      Flag any_finite = 0;
      for (std::size_t l = 0; l < W; ++l) {
        due[l] &= finite[l];
        any_finite |= due[l];
      }
      const Pack h = t_new - t;
      if constexpr (detail::dense_extra_stages<Stepper>::value > 0) {
        // The interpolant's own stages, for every lane; each due lane counts them, as its run alone
        // does on this step.
        if (!any_finite) return;
        stepper.prepare_dense(sys, t, h, y, p);
        for (std::size_t l = 0; l < W; ++l) {
          if (due[l]) lanes.rhs_evaluations[l] += detail::dense_extra_stages<Stepper>::value;
        }
      }
      State out;
      save_due(t_new, y_new, plan, lanes, sink, [&](const Pack& ts) {
        stepper.interpolate(t, h, ts, y, y_new, &out[0]);
        return out;
      });
    } else if constexpr (detail::keeps_derivative<Stepper>::value) {  // the Hermite cubic's start
      y0 = y;
      f0 = stepper.derivative();
    }  // (else no interpolation in blocks: lanes_interpolate_v)
  }

  /// The Hermite points of the lanes that passed a save time and whose state is finite.
  template <class Sink>
  void after_keep(const Stepper& stepper, const Pack& t, const Pack& t_new, const State& y1,
                  const Flag (&finite)[W], const RunSettings<T>& plan, Lanes<T, W>& lanes, Sink& sink) {
    if constexpr (!detail::own_dense_output<Stepper>::value && detail::keeps_derivative<Stepper>::value) {
      if (!any_due) return;
      for (std::size_t l = 0; l < W; ++l) due[l] &= finite[l];
      const State& f1 = stepper.derivative();
      const Pack h = t_new - t;
      State out;
      save_due(t_new, y1, plan, lanes, sink, [&](const Pack& ts) {
        detail::hermite<N>((ts - t) / h, h, y0, f0, y1, f1, &out[0]);
        return out;
      });
    } else {
      (void)stepper, (void)t, (void)t_new, (void)y1, (void)finite, (void)plan, (void)lanes, (void)sink;
    }
  }

 private:
  /// Every due lane's save times up to t_new, a point of each lane a pass: interpolated by `at` (the
  /// step's end itself: y_end as it is), as DenseStep's loop does for one run.
  template <class Sink, class At>
  void save_due(const Pack& t_new, const State& y_end, const RunSettings<T>& plan, Lanes<T, W>& lanes,
                Sink& sink, const At& at) {
    for (;;) {
      Flag any = 0;
      for (std::size_t l = 0; l < W; ++l) any |= due[l];
      if (!any) return;
      Pack ts;
      for (std::size_t l = 0; l < W; ++l) ts[l] = due[l] ? save_time(plan, lanes.next_save[l]) : t_new[l];
      const State& out = at(ts);
      for (std::size_t l = 0; l < W; ++l) {
        if (!due[l]) continue;
        const std::uint32_t k = lanes.next_save[l]++;
        sink.save_lane(l, k, ts[l], ts[l] == t_new[l] ? y_end : out);
        due[l] = detail::next_save_time(plan, lanes.next_save[l]) <= t_new[l] ? 1 : 0;
      }
    }
  }
};

/// integrate_adaptive (kernels/loop/adaptive_loop.hpp) lane by lane: each lane's step, acceptance,
/// step-size update and saves are the scalar loop's, on its own run's numbers. lane_params[l]: lane l's
/// run's parameters (the first step's estimate evaluates f for one run). The loops over the lanes are
/// written as selects, so that they vectorise; a run's end, which is rare, is decided apart. Sink: the
/// block's LanesSink (run_sinks.hpp), whose lanes save at their own times (lanes.next_save: the next of
/// each), their steps landing on them or interpolated; a solve without saves takes none of it.
template <class Stepper, class System, class T, std::size_t W, class Sink>
void integrate_adaptive(Stepper& stepper, const System& sys, typename Stepper::state_type& y,
                        const kernels::RunPack<T, W>* p, const T* const (&lane_params)[W],
                        const RunSettings<T>& plan, Lanes<T, W>& lanes, Sink& sink) {
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
  // Saves: each lane's stop is its next save time where steps land on them (next_stop), t_end otherwise.
  const bool landing = plan.interpolate_saves == 0 && plan.n_saves > 0;
  const bool interpolating = plan.interpolate_saves != 0 && plan.n_saves > 0;
  T stop[W];
  Flag stop_is_save[W];
  for (std::size_t l = 0; l < W; ++l) stop[l] = plan.t_end, stop_is_save[l] = 0;
  LanesDense<Stepper, N, T, W> dense;
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
    if (landing) {
      for (std::size_t l = 0; l < W; ++l) {
        bool is_save = false;
        stop[l] = detail::next_stop<Sink>(plan, lanes.next_save[l], is_save);
        stop_is_save[l] = is_save ? 1 : 0;
      }
    }
    for (std::size_t l = 0; l < W; ++l) {
      const T remaining = stop[l] - lanes.t[l];
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
      t_new[l] = accepted[l] ? (lands[l] ? stop[l] : lanes.t[l] + h_try[l]) : lanes.t[l];
    // Whether each lane's attempt is finite: an accepted lane's state after the keep (read with
    // `accepted` only), and what its own dense output may save from before it.
    lanes_finite<N>(y_new, finite);
    if (interpolating)
      dense.before_keep(stepper, sys, t_now, y, t_new, y_new, p, accepted, finite, plan, lanes, sink);
    keep_accepted(stepper, sys, t_new, y, y_new, p, accepted, all_accepted != 0);

    // The accepted lanes move on: their time, the controller's memory and the next step size.
    if (landing) {  // a lane that landed on its save time saves there (a non-finite state: not)
      for (std::size_t l = 0; l < W; ++l) {
        if (accepted[l] & finite[l] & lands[l] & stop_is_save[l])
          sink.save_lane(l, lanes.next_save[l]++, t_new[l], y);
      }
    } else if (interpolating) {
      dense.after_keep(stepper, t_now, t_new, y, finite, plan, lanes, sink);
    }
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
/// work, run_range.hpp, for a block), saving into `sink` (their rows' LanesSink). Returns false where
/// a fixed-step block's state turned non-finite at a save (integrate_fixed): its runs are then to be
/// integrated a run at a time, each ending where its own state turned, their saves overwritten.
template <class Stepper, class System, class T, std::size_t W, class Sink>
bool integrate_block(Stepper& stepper, const System& sys, const T* y0, const T* params, std::size_t first,
                     const RunSettings<T>& plan, const ResultView<T>& result, Sink& sink) {
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
  // The save at t0 (integrate_run's), before the first step.
  const bool at_t0 = plan.n_saves > 0 && save_time(plan, 0) <= plan.t0;
  if (at_t0) sink.save(0, plan.t0, &y[0]);
  for (std::size_t l = 0; l < W; ++l) lanes.next_save[l] = at_t0 ? 1 : 0;
  // A stepper that reads the tolerances (dop853's estimates) takes them before reset, as a run's does.
  if constexpr (detail::takes_tolerances<Stepper, Pack>::value) {
    stepper.use_tolerances(Pack(plan.rtol), Pack(plan.atol));
  }
  stepper.reset(sys, Pack(plan.t0), y, pp);
  if constexpr (Stepper::adaptive) {
    integrate_adaptive(stepper, sys, y, pp, lane_params, plan, lanes, sink);
  } else {
    (void)lane_params;
    std::uint32_t next_save = lanes.next_save[0];
    if (!integrate_fixed(stepper, sys, y, pp, plan, lanes, sink, next_save)) return false;
    for (std::size_t l = 0; l < W; ++l) lanes.next_save[l] = next_save;
  }
  for (std::size_t l = 0; l < W; ++l) {
    for (std::uint32_t k = lanes.next_save[l]; k < plan.n_saves; ++k) sink.lanes[l].mark_unsaved(k);
  }
  for (std::size_t l = 0; l < W; ++l) {
    const std::size_t r = first + l;
    for (std::size_t i = 0; i < N; ++i) result.final_state[r * N + i] = y[i][l];
    RunCounters counters;
    counters.accepted_steps = lanes.accepted_steps[l];
    counters.rejected_steps = lanes.rejected_steps[l];
    if constexpr (detail::evaluations_from_steps<Stepper>::value) {
      counters.rhs_evaluations = lanes.rhs_evaluations[l] +
                                 Stepper::rhs_evaluations(counters.accepted_steps, counters.rejected_steps);
    } else {  // counted lane by lane by the stepper (a Rosenbrock step's)
      counters.rhs_evaluations = lanes.rhs_evaluations[l] + stepper.rhs_evaluations()[l];
    }
    if (Status* out = result.status) out[r] = lanes.status[l];
    if (T* out = result.stop_time) out[r] = lanes.t[l];
    if (RunCounters* out = result.counters) out[r] = counters;
  }
  return true;
}

/// Whole blocks of W runs from `begin`, up to the first that must run a run at a time or the runs that
/// fill no block.
template <class Tab, class System, class T, std::size_t W>
RunsAlone integrate_blocks(const System& sys, const T* y0, const T* params, std::size_t begin,
                           std::size_t end, const RunSettings<T>& plan, const ResultView<T>& result) {
  using Stepper = typename IntegratedStepperFor<Tab, System, kernels::RunPack<T, W>>::type;
  constexpr std::size_t P = System::n_params;
  Stepper stepper{};
  for (std::size_t r = begin; end - r >= W; r += W) {
    // Each lane's run's row and its summaries (a solve without saves: sinks never called).
    using Series = decltype(series_sink(sys, params, plan, result, r));
    LanesSink<LaneSink<Series, System, T>, T, System::n_states, W> sink;
    for (std::size_t l = 0; l < W; ++l) {
      const T* p = P > 0 ? params + (r + l) * P : nullptr;
      sink.lanes[l] = {summary_sink(series_sink(sys, p, plan, result, r + l), sys, p, plan, result, r + l),
                       plan.summary_windows != 0};
    }
    if (!integrate_block<Stepper, System, T, W>(stepper, sys, y0, params, r, plan, result, sink))
      return {r, r + W};
  }
  const std::size_t tail = end - (end - begin) % W;
  return {tail, end};
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
BATCHODE_BLOCKS_AVX512 RunsAlone integrate_blocks_avx512(const System& sys, const T* y0, const T* params,
                                                         std::size_t begin, std::size_t end,
                                                         const RunSettings<T>& plan,
                                                         const ResultView<T>& result) {
  return integrate_blocks<Tab, System, T, block_runs<T>>(sys, y0, params, begin, end, plan, result);
}
template <class Tab, class System, class T>
__attribute__((target("avx2,fma"), flatten)) RunsAlone integrate_blocks_avx2(
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
RunsAlone
integrate_blocks_baseline(const System& sys, const T* y0, const T* params, std::size_t begin, std::size_t end,
                          const RunSettings<T>& plan, const ResultView<T>& result) {
  return integrate_blocks<Tab, System, T, block_runs<T>>(sys, y0, params, begin, end, plan, result);
}

}  // namespace blocks

/// The runs of [begin, end) that fill whole blocks, integrated in blocks with the widest instruction
/// set the CPU has (simd_set), up to the first block that must run a run at a time; returns the runs
/// left for integrate_one_run next (all of them when none can run in blocks: the method, system or
/// plan does not allow it, or BATCHODE_CPU_SIMD is off), after which the caller goes on from `last`.
template <class Tab, class System, class T>
RunsAlone integrate_run_blocks(const System& sys, const T* y0, const T* params, std::size_t begin,
                               std::size_t end, const RunSettings<T>& plan, const ResultView<T>& result) {
  if constexpr (runs_in_blocks_v<Tab, System, T>) {
    using Stepper = typename IntegratedStepperFor<Tab, System, kernels::RunPack<T, block_runs<T>>>::type;
    if (!plan_runs_in_blocks(plan, Tab::adaptive, lanes_interpolate_v<Stepper>)) return {begin, end};
    switch (simd_set()) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#if BATCHODE_CPU_BLOCK_SETS & 8
      case SimdSet::avx512:
        return blocks::integrate_blocks_avx512<Tab>(sys, y0, params, begin, end, plan, result);
#endif
#if BATCHODE_CPU_BLOCK_SETS & 4
      case SimdSet::avx2:
        return blocks::integrate_blocks_avx2<Tab>(sys, y0, params, begin, end, plan, result);
#endif
#endif
#if BATCHODE_CPU_BLOCK_SETS & 2
      case SimdSet::baseline:
        return blocks::integrate_blocks_baseline<Tab>(sys, y0, params, begin, end, plan, result);
#endif
      default:  // off, or a set not compiled here (BATCHODE_CPU_BLOCK_SETS)
        return {begin, end};
    }
  } else {
    (void)sys, (void)y0, (void)params, (void)plan, (void)result;
    return {begin, end};
  }
}

}  // namespace batchode::cpu
