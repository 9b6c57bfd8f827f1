// kernels/methods/: one Rosenbrock (linearly implicit) step of any table in
// kernels/methods/rosenbrock_tableaux.hpp, host and device: J and f_t from kernels/linalg/jacobian.hpp
// (analytic or AD), W = I / (gamma h) - J factorised (kernels/linalg/iteration_matrix.hpp), one solve per
// stage. The CPU path runs this same class. A system with a narrow declared band (kernels/linalg/band.hpp)
// keeps J and W in band storage and factorises them with kernels/linalg/band_lu.hpp: the same numbers, in N
// (L + U) storage and work instead of N^2 and N^3. A system with its own sparse LU (generated model code
// where it is the cheapest: kernels/linalg/sparse_lu.hpp) keeps J as its nonzeros and W as its slots, and a
// pivot that order loses in rounding rejects the step instead of ending the run. A system with algebraic
// states (n_algebraic: a semi-explicit index-1 DAE, kernels/core/system.hpp) is solved with the mass matrix M
// = diag(1 .. 1, 0 .. 0) as Hairer & Wanner II, VI.4 write the method for M y' = f: W = M / (gamma h) - J,
// and the stages' sum of earlier stages over h is multiplied by M (the algebraic rows have none). For an ODE,
// M = I and every such test folds away at compile time.
//
// The CPU runs a block of runs in SIMD lanes through this same class (T a kernels::RunPack:
// backends/cpu/run_blocks.hpp) for a system whose sparse LU takes packs (simd_linearization): the
// factorisation tells which lanes kept their pivots, and a lane that lost one has its attempt rejected
// alone; the block linearises all its lanes whenever one of them moved (a lane that did not gets the same
// numbers again), and each lane counts the evaluations its run alone would make.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/static_for.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/linalg/iteration_matrix.hpp"
#include "batchode/kernels/methods/rk_stepper.hpp"
#include "batchode/kernels/methods/rosenbrock_tableaux.hpp"

namespace batchode {

namespace detail {
/// Where a block's lanes (T a RunPack) were last linearised, to count the evaluations of the lanes that
/// moved since; nothing for a run alone (an empty base).
template <class T>
struct LinearizedAt {};
template <class T, port::size_t W>
struct LinearizedAt<kernels::RunPack<T, W>> {
  kernels::RunPack<T, W> t_linearized;
};
}  // namespace detail

/// The stepper interface of kernels/loop/run_integrator.hpp for a Rosenbrock table Tab, N states, precision
/// T. J and f_t are computed once per accepted point (a rejected attempt reuses them); f(t, y) comes
/// with them for free under AD. An exactly singular W ends the run: failure() turns to
/// Status::singular_matrix and integrate_run returns it. Shape: the Jacobian's layout
/// (kernels::RosenbrockShape of the system: dense, its band, or its own sparse LU).
template <class Tab, class T, port::size_t N, class Shape = kernels::BandShape<N>>
class RosenbrockStepper : private detail::LinearizedAt<T> {
  static_assert(Shape::n == N, "RosenbrockStepper: the Jacobian's shape is for another state count");
  /// A block of runs in SIMD lanes (the CPU's): only with a sparse LU, whose lost pivots reject a lane's
  /// attempt (a dense or band LU's pivoting, and a singular W that ends a run, are a run's own).
  static constexpr bool lanes = kernels::is_run_pack<T>::value;
  static_assert(!lanes || Shape::sparse, "RosenbrockStepper: blocks of runs take a system's sparse LU");

 public:
  using state_type = Vec<T, N>;
  static constexpr bool adaptive = true;
  static constexpr int order = Tab::order;
  static constexpr int error_order = Tab::error_order;
  static constexpr int stages = Tab::stages;
  /// interpolate() is the method's own dense output (rodas4's; dense_form.hpp). Not for tables whose
  /// error is estimated by step doubling (ros3p): the kept result is two half steps, whose stages
  /// no single formula spans.
  static constexpr bool own_dense_output =
      tableau::dense_form_v<Tab> == tableau::DenseForm::rosenbrock && !tableau::estimates_by_doubling_v<Tab>;
  /// Systems with algebraic states may be solved (make_consistent, the mass matrix): rodas4, rodas5p.
  static constexpr bool solves_dae = tableau::solves_dae_v<Tab>;

  /// Evaluations of f: a run's count, or each lane's (a block of runs).
  using count_type = kernels::per_run_t<T, port::uint32_t>;

  template <class System>
  BATCHODE_HOST_DEVICE void reset(const System& sys, T t, const state_type& y, const T* p) {
    sys(t, &y[0], p, f0_.v);
    evaluations_ = 1;  // a run's own count: the CPU path reuses one stepper for a worker's runs
    linearized_ = false;
    failure_ = Status::success;
    if constexpr (lanes) this->t_linearized = T(port::numeric_limits<kernels::lane_value_t<T>>::quiet_NaN());
  }

  /// A system with algebraic states: makes them consistent at (t, y) (kernels/linalg/iteration_matrix.hpp's
  /// make_algebraic_consistent, with this stepper's J and W).
  template <class System>
  BATCHODE_HOST_DEVICE bool make_consistent(const System& sys, T t, state_type& y, const T* p, T rtol, T atol,
                                            port::uint32_t& evaluations) {
    return kernels::make_algebraic_consistent<Shape>(sys, t, &y[0], p, rtol, atol, evaluations, f0_.v, J_,
                                                     ft_, W_, piv_);
  }

  /// f(t, y) at the current point.
  BATCHODE_HOST_DEVICE const state_type& derivative() const { return f0_; }

  /// Status::success, or why the run cannot go on (singular_matrix).
  BATCHODE_HOST_DEVICE Status failure() const { return failure_; }

  template <class System>
  BATCHODE_HOST_DEVICE void step(const System& sys, T t, const state_type& y, const T* p, T h,
                                 state_type& y_new, state_type& err) {
    if (!linearized_) {
      kernels::linearize_in<Shape>(sys, t, &y[0], p, f0_.v, J_, ft_);
      if constexpr (lanes) {
        count_moved_lanes(t, h);
      } else {
        ++evaluations_;  // one (dual-number) evaluation: f, J and f_t together
      }
      linearized_ = true;
    }
    // A block of runs goes through every solve with all its lanes, and those that lost a pivot on the
    // way are marked in `kept` and rejected at the end (unfactorised_lanes); a run alone stops there.
    kernels::PivotsKept<T> kept = true;
    if constexpr (tableau::estimates_by_doubling_v<Tab>) {
      // Step doubling (Hairer, Norsett & Wanner I, II.4): one step of h and two of h/2. The two
      // halves are the result (the method itself, unextrapolated); the estimate is their difference
      // from the whole step, i.e. (2^order - 1) times Richardson's estimate of the halves' own error:
      // close to the whole step's error, as an embedded pair estimates its less accurate member
      // while the more accurate one is kept. The second half linearises at the midpoint.
      state_type y_whole, y_half, unused;
      if (!held(kept, solve_step<false>(sys, t, y, p, h, f0_, J_, ft_, y_whole, unused), h)) {
        return unfactorised(y, y_new, err);
      }
      if (!held(kept, solve_step<false>(sys, t, y, p, h / T(2), f0_, J_, ft_, y_half, unused), h)) {
        return unfactorised(y, y_new, err);
      }
      state_type f_mid;
      T ft_mid[N];
      const T t_mid = t + h / T(2);
      kernels::linearize_in<Shape>(sys, t_mid, &y_half[0], p, f_mid.v, J_mid_, ft_mid);
      if constexpr (lanes) {
        count_lanes(kept, h, 1);
      } else {
        ++evaluations_;
      }
      if (!held(kept,
                solve_step<false>(sys, t_mid, y_half, p, h / T(2), f_mid, J_mid_, ft_mid, y_new, unused),
                h)) {
        return unfactorised(y, y_new, err);
      }
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) err[i] = y_new[i] - y_whole[i];
    } else {
      if (!held(kept, solve_step<true>(sys, t, y, p, h, f0_, J_, ft_, y_new, err), h))
        unfactorised(y, y_new, err);
    }
    if constexpr (lanes) unfactorised_lanes(kept, y, y_new, err);
  }

  /// The run moved to (t_new, y_new): the next step linearises there (and gets f with it).
  template <class System>
  BATCHODE_HOST_DEVICE void accept(const System&, T, const state_type&, const T*) {
    linearized_ = false;
  }

  BATCHODE_HOST_DEVICE count_type rhs_evaluations() const { return evaluations_; }

  /// The method's own dense output (own_dense_output): the state at ts in [t, t + h] of the attempt
  /// just made from (t, y) to y_new, from its stage variables. Only between step() and accept().
  BATCHODE_HOST_DEVICE void interpolate(T t, T h, T ts, const state_type& y, const state_type& y_new,
                                        T* out) const {
    if constexpr (own_dense_output) {
      const T theta = (ts - t) / h, rest = T(1) - theta;
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        constexpr int rows = tableau::dense_rows_v<Tab>;
        T K[rows] = {};
        detail::static_for<0, stages>([&](auto stage) {
          constexpr int s = decltype(stage)::value;
          detail::static_for<0, rows>([&](auto row) {
            constexpr int r = decltype(row)::value;
            if constexpr (Tab::dense_h(r, s) != 0.0) K[r] += T(Tab::dense_h(r, s)) * k_[s][i];
          });
        });
        // K1 + theta (K2 + theta (K3 ...)), by Horner from the last row.
        T poly = K[rows - 1];
        detail::static_for<1, rows>([&](auto back) {
          constexpr int r = rows - 1 - decltype(back)::value;
          poly = K[r] + theta * poly;
        });
        out[i] = y[i] + theta * ((y_new[i] - y[i]) + rest * poly);
      }
    } else {
      (void)t, (void)h, (void)ts, (void)y, (void)y_new, (void)out;
    }
  }

 private:
  /// After a solve_step that factorised W as `now`: whether the attempt goes on. A run alone goes on where
  /// its factorisation held (solve_step counted its stages). A block always does: `kept` keeps the lanes
  /// that held in this solve and every earlier one of the attempt, and they count the stages.
  BATCHODE_HOST_DEVICE bool held(kernels::PivotsKept<T>& kept, const kernels::PivotsKept<T>& now,
                                 const T& h) {
    if constexpr (lanes) {
      for (port::size_t l = 0; l < W_lanes; ++l) kept[l] = kept[l] && now[l];
      count_lanes(kept, h, stages - 1);
      return true;
    } else {
      (void)kept, (void)h;
      return now;
    }
  }

  /// unfactorised() in the lanes of a block that lost a pivot in the attempt (not `kept`).
  void unfactorised_lanes(const kernels::PivotsKept<T>& kept, const state_type& y, state_type& y_new,
                          state_type& err) {
    for (port::size_t l = 0; l < W_lanes; ++l) {
      if (kept[l]) continue;
      for (port::size_t i = 0; i < N; ++i) {
        y_new[i][l] = y[i][l];
        err[i][l] = port::numeric_limits<kernels::lane_value_t<T>>::infinity();
      }
    }
  }

  /// The lanes of a block (T a RunPack), one per run.
  static constexpr port::size_t W_lanes = sizeof(T) / sizeof(kernels::lane_value_t<T>);

  /// k more evaluations in the lanes that `counted` and that take this attempt (h != 0: a block's ended
  /// runs take steps of size 0).
  void count_lanes(const kernels::PivotsKept<T>& counted, const T& h, port::uint32_t k) {
    for (port::size_t l = 0; l < W_lanes; ++l) evaluations_[l] += (counted[l] && h[l] != 0) ? k : 0u;
  }

  /// The linearisation's evaluation in the lanes that take this attempt and moved since their last
  /// (the others were linearised again at the same point, to the same numbers, as their runs alone are
  /// not).
  void count_moved_lanes(const T& t, const T& h) {
    for (port::size_t l = 0; l < W_lanes; ++l) {
      const bool moved = !(t[l] == this->t_linearized[l]);  // NaN after reset(): the first attempt
      evaluations_[l] += (moved && h[l] != 0) ? 1u : 0u;
      this->t_linearized[l] = h[l] != 0 ? t[l] : this->t_linearized[l];
    }
  }

  /// W could not be factorised. Dense and band: it is singular, and the run ends (singular). Sparse:
  /// a pivot of the fixed order was lost in rounding, which a smaller step cures (W tends to
  /// I / (gamma h)): the attempt is rejected by an infinite error estimate, with y unchanged.
  BATCHODE_HOST_DEVICE void unfactorised(const state_type& y, state_type& y_new, state_type& err) {
    if constexpr (Shape::sparse) {
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        y_new[i] = y[i];
        err[i] = T(port::numeric_limits<kernels::lane_value_t<T>>::infinity());
      }
    } else {
      singular(y, y_new, err);
    }
  }

  /// Ends the run at (t, y): the attempt returns y unchanged with a zero estimate.
  BATCHODE_HOST_DEVICE void singular(const state_type& y, state_type& y_new, state_type& err) {
    failure_ = Status::singular_matrix;
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) {
      y_new[i] = y[i];
      err[i] = T(0);
    }
  }

  /// One step of size h from (t, y) with f = f(t, y), Jacobian J and f_t = df/dt there: y_new, and
  /// (Embedded) the table's embedded estimate in err. False when W cannot be factorised.
  template <bool Embedded, class System>
  BATCHODE_HOST_DEVICE kernels::PivotsKept<T> solve_step(const System& sys, T t, const state_type& y,
                                                         const T* p, T h, const state_type& f, const T* J,
                                                         const T* ft, state_type& y_new, state_type& err) {
    constexpr port::size_t first_algebraic = N - n_algebraic_v<System>;
    const T diag = T(1) / (T(Tab::gamma()) * h);
    // (a block of runs: every lane's stages, the lanes that lost a pivot thrown away by step_lanes)
    const kernels::PivotsKept<T> kept = kernels::factor_iteration_matrix<Shape>(sys, diag, J, W_, piv_);
    if constexpr (!lanes) {
      if (!kept) return false;
    }
    const T inv_h = T(1) / h;
    // Stage and coefficient indices are compile-time constants through static_for (not only through
    // unroll pragmas, which the host pass of nvcc does not honour): the table lookups fold into
    // immediates on host and device alike, and k_ stays in registers on the device.
    detail::static_for<0, stages>([&](auto stage) {
      constexpr int s = decltype(stage)::value;
      T rhs[N];
      if constexpr (s == 0) {
        BATCHODE_UNROLL_STEP_STATES
        for (port::size_t i = 0; i < N; ++i) rhs[i] = f[i];
      } else {
        T arg[N];
        BATCHODE_UNROLL_STEP_STATES
        for (port::size_t i = 0; i < N; ++i) {
          T sum = y[i];
          detail::static_for<0, s>([&](auto prev) {
            constexpr int j = decltype(prev)::value;
            if constexpr (Tab::a(s, j) != 0.0) sum += T(Tab::a(s, j)) * k_[j][i];
          });
          arg[i] = sum;
        }
        sys(t + T(Tab::c(s)) * h, arg, p, rhs);
      }
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        T sum = rhs[i];
        if constexpr (Tab::d(s) != 0.0) sum += (h * T(Tab::d(s))) * ft[i];
        if (i < first_algebraic) {  // M's rows: none for the algebraic states
          detail::static_for<0, s>([&](auto prev) {
            constexpr int j = decltype(prev)::value;
            if constexpr (Tab::C(s, j) != 0.0) sum += (inv_h * T(Tab::C(s, j))) * k_[j][i];
          });
        }
        k_[s][i] = sum;
      }
      kernels::solve_iteration_matrix<Shape>(sys, W_, piv_, k_[s]);
    });
    if constexpr (!lanes) evaluations_ += stages - 1;  // (a block: step_lanes counts each lane's)
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) {
      T sum = y[i];
      detail::static_for<0, stages>([&](auto stage) {
        constexpr int s = decltype(stage)::value;
        if constexpr (Tab::b(s) != 0.0) sum += T(Tab::b(s)) * k_[s][i];
      });
      y_new[i] = sum;
      if constexpr (Embedded) {
        T e = 0;
        detail::static_for<0, stages>([&](auto stage) {
          constexpr int s = decltype(stage)::value;
          if constexpr (Tab::e(s) != 0.0) e += T(Tab::e(s)) * k_[s][i];
        });
        err[i] = e;
      }
    }
    if constexpr (lanes) {
      return kept;
    } else {
      return true;
    }
  }

  state_type f0_{};
  T J_[Shape::jacobian_size];
  T ft_[N];
  T k_[Tab::stages][N];
  // Matrices are members, never locals of step(): a dense one holds N^2 values (8 MB at 1000 states in
  // double), more than fits on a CPU worker's 8 MiB stack beside a second one, so the CPU path keeps the
  // whole stepper on the heap (cpu_backend.hpp). W = I / (gamma h) - J and its pivots are rewritten by
  // every attempt; J_mid_ is the midpoint's Jacobian of a doubled step (one unused value otherwise).
  T W_[Shape::lu_size];
  int piv_[Shape::sparse ? 1 : N];  // the sparse LU has no pivoting
  T J_mid_[tableau::estimates_by_doubling_v<Tab> ? Shape::jacobian_size : 1];
  count_type evaluations_ = 0;
  Status failure_ = Status::success;
  bool linearized_ = false;
};

}  // namespace batchode
