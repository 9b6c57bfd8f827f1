// kernels/methods/: one step of an ESDIRK table (kernels/methods/esdirk_tableaux.hpp), host and device. Each
// implicit stage is solved by the simplified Newton iteration of Hairer & Wanner II, IV.8: one Jacobian and
// one factorised W = I / (gamma h) - J (kernels/linalg/iteration_matrix.hpp, in the system's layout: dense,
// band or its own sparse LU) serve every stage of a step, since the stages share gamma; an accepted step
// whose iterations contracted fast keeps J for the next step (the point moved, h did: W is factorised
// again), and one that did not, or an iteration that fails with a kept J, takes a new one. The error
// estimate is filtered through (I - gamma h J)^-1 (Shampine's), which keeps it bounded where h J is
// large, as the method's L-stability keeps the solution. The CPU path runs this same class.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/static_for.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/linalg/iteration_matrix.hpp"
#include "batchode/kernels/methods/esdirk_tableaux.hpp"
#include "batchode/kernels/methods/rk_stepper.hpp"

namespace batchode {

/// The stepper interface of kernels/loop/run_integrator.hpp for an ESDIRK table Tab, N states, precision T,
/// the Jacobian kept in Shape's layout (kernels::RosenbrockShape of the system). An attempt whose Newton
/// iteration does not converge (with a fresh J) is rejected by an infinite error estimate and
/// newton_failed() says so: the step shrinks, and a run whose step falls below its floor that way ends
/// as Status::newton_failure. An exactly singular W ends the run (failure(): singular_matrix), as in the
/// Rosenbrock stepper.
template <class Tab, class T, port::size_t N, class Shape = kernels::BandShape<N>>
class EsdirkStepper {
  static_assert(Shape::n == N, "EsdirkStepper: the Jacobian's shape is for another state count");
  static_assert(Tab::a(0, 0) == 0.0, "EsdirkStepper: an ESDIRK table's first stage is explicit");

 public:
  using state_type = Vec<T, N>;
  static constexpr bool adaptive = true;
  static constexpr int order = Tab::order;
  static constexpr int error_order = Tab::error_order;
  static constexpr int stages = Tab::stages;
  /// Iterations a stage may take before its attempt fails (RADAU5's default is 7; a stage here may
  /// start from a cruder guess than RADAU5's collocation polynomial: covering_stage).
  static constexpr int max_iterations = 10;
  /// An accepted step keeps J for the next when every iteration of it contracted by this much or more
  /// (theta, the ratio of successive updates' norms, at most this; a stage settled by one iteration
  /// counts as 0): a linear system's J is kept for good. RADAU5's THET is 0.001. Larger values cost
  /// more iterations than the Jacobians they save: on van der Pol, Robertson and BRUSS 16 (CPU, rtol
  /// 1e-5 to 1e-6) 0.1 took 5-30% more evaluations of f than 0.01, which was within 3% of never
  /// keeping J (benchmarks/RESULTS.md, "Kvaerno5 and DOP853").
  static constexpr double keep_jacobian_below = 0.01;
  /// The Newton iteration stops when its remaining error is estimated below min(newton_kappa,
  /// rtol^(1/2)) of the tolerances (RADAU5's FNEWT; Hairer & Wanner's kappa is 0.01 to 0.1). 0.03 at
  /// every tolerance took 10-21% fewer evaluations on the problems above, but the Bari test set's
  /// HIRES at rtol 1e-8 came out 6.3 times its tolerance instead of 0.7 (tests/stiff/reference_test.cpp).
  static constexpr double newton_kappa = 0.03;

  /// The tolerances the Newton iteration's stopping test is scaled by (integrate_run passes the
  /// run's): an iteration has converged when its remaining error is estimated below newton_tol_ of
  /// them, max(min(newton_kappa, rtol^(1/2)), 10 eps / rtol) (the last: updates at rounding level).
  BATCHODE_HOST_DEVICE void use_tolerances(T rtol, T atol) {
    rtol_ = rtol;
    atol_ = atol;
    const T rounding = T(10) * port::numeric_limits<T>::epsilon() / rtol;
    const T root = port::sqrt(rtol);
    const T kappa = root < T(newton_kappa) ? root : T(newton_kappa);
    newton_tol_ = rounding > kappa ? rounding : kappa;
  }

  template <class System>
  BATCHODE_HOST_DEVICE void reset(const System& sys, T t, const state_type& y, const T* p) {
    sys(t, &y[0], p, f0_.v);
    evaluations_ = 1;  // a run's own count: the CPU path reuses one stepper for a worker's runs
    linearized_ = false;
    f_current_ = true;
    failure_ = Status::success;
    newton_failed_ = false;
    eta_ = T(1);
  }

  /// f(t, y) at the current point, once a step has been attempted from it (or after reset()).
  BATCHODE_HOST_DEVICE const state_type& derivative() const { return f0_; }

  /// Status::success, or why the run cannot go on (singular_matrix).
  BATCHODE_HOST_DEVICE Status failure() const { return failure_; }

  /// Whether the last attempt was rejected because a stage's Newton iteration did not converge.
  BATCHODE_HOST_DEVICE bool newton_failed() const { return newton_failed_; }

  template <class System>
  BATCHODE_HOST_DEVICE void step(const System& sys, T t, const state_type& y, const T* p, T h,
                                 state_type& y_new, state_type& err) {
    // At most twice: an iteration that fails with a J kept from an earlier point is tried once more with
    // a new J at this one, at the same h.
    for (int tries = 0; tries < 2; ++tries) {
      const bool kept_jacobian = linearized_ && jacobian_kept_;
      if (!linearized_) {
        kernels::linearize_in<Shape>(sys, t, &y[0], p, f0_.v, J_, ft_);
        ++evaluations_;  // one (dual-number) evaluation: f and J together
        linearized_ = true;
        jacobian_kept_ = false;
        f_current_ = true;
      } else if (!f_current_) {
        sys(t, &y[0], p, f0_.v);
        ++evaluations_;
        f_current_ = true;
      }
      const Attempt outcome = attempt(sys, t, y, p, h, y_new, err);
      if (outcome == Attempt::unfactorised) return unfactorised(y, y_new, err);
      newton_failed_ = outcome == Attempt::newton_failed;
      if (!newton_failed_ || !kept_jacobian) break;
      linearized_ = false;
    }
    if (newton_failed_) {
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        y_new[i] = y[i];
        err[i] = port::numeric_limits<T>::infinity();
      }
    }
  }

  /// The run moved to (t_new, y_new): f is evaluated there by the next step, and J too unless this
  /// step's iterations all contracted fast (keep_jacobian_below).
  template <class System>
  BATCHODE_HOST_DEVICE void accept(const System&, T, const state_type&, const T*) {
    f_current_ = false;
    jacobian_kept_ = theta_max_ <= T(keep_jacobian_below);
    linearized_ = linearized_ && jacobian_kept_;
  }

  BATCHODE_HOST_DEVICE port::uint32_t rhs_evaluations() const { return evaluations_; }

 private:
  enum class Attempt { done, newton_failed, unfactorised };

  /// The implicit stage before s (from 1) whose node c_q is the largest, when it covers c_s (c_q >= c_s):
  /// stage s's guess then interpolates between the step's start and it. 0 when none does.
  static constexpr int covering_stage(int s) {
    int best = 0;
    for (int j = 1; j < s; ++j) {
      if (Tab::c(j) > Tab::c(best)) best = j;
    }
    return best > 0 && Tab::c(best) >= Tab::c(s) ? best : 0;
  }

  /// One attempt of size h from (t, y), f0_ = f(t, y) and J_ current: every stage by simplified Newton,
  /// then y_new and the filtered estimate.
  template <class System>
  BATCHODE_HOST_DEVICE Attempt attempt(const System& sys, T t, const state_type& y, const T* p, T h,
                                       state_type& y_new, state_type& err) {
    const T gh = T(Tab::gamma()) * h;
    const T inv_gh = T(1) / gh;
    if (!kernels::factor_iteration_matrix<Shape>(sys, inv_gh, J_, W_, piv_)) return Attempt::unfactorised;
    theta_max_ = T(0);
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) F_[0][i] = f0_[i];
    bool converged = true;
    // Stage and coefficient indices are compile-time constants through static_for, as in the
    // Rosenbrock stepper: the table folds into immediates and F_ stays in registers on the device.
    detail::static_for<1, stages>([&](auto stage) {
      constexpr int s = decltype(stage)::value;
      if (!converged) return;
      // Y_s = base + gamma h F(Y_s), base = y + h sum_{j<s} a_sj F_j.
      T base[N], Y[N];
      constexpr int q = covering_stage(s);
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        T sum = T(0);
        detail::static_for<0, s>([&](auto prev) {
          constexpr int j = decltype(prev)::value;
          if constexpr (Tab::a(s, j) != 0.0) sum += T(Tab::a(s, j)) * F_[j][i];
        });
        base[i] = y[i] + h * sum;
        if constexpr (q > 0) {
          // The guess: the cubic through (t, y, F_0) and stage q's (t + c_q h, Y_q, F_q), at c_s <= c_q.
          T sum_q = T(0);
          detail::static_for<0, q + 1>([&](auto prev) {
            constexpr int j = decltype(prev)::value;
            if constexpr (Tab::a(q, j) != 0.0) sum_q += T(Tab::a(q, j)) * F_[j][i];
          });
          constexpr double theta = Tab::c(s) / Tab::c(q);
          constexpr double w = theta * (theta - 1);
          const T d = h * sum_q;  // Y_q - y
          const T hq = T(Tab::c(q)) * h;
          Y[i] = y[i] + T(theta) * d +
                 T(w) * (T(1 - 2 * theta) * d + T(theta - 1) * hq * F_[0][i] + T(theta) * hq * F_[q][i]);
        } else {
          // None covers c_s: F(Y_s) taken as the previous stage's slope.
          Y[i] = base[i] + gh * F_[s - 1][i];
        }
      }
      converged = newton(sys, t + T(Tab::c(s)) * h, y, base, inv_gh, p, Y);
      // The stage's slope from its value (Y_s - base) / (gamma h), not f(Y_s): the same at convergence,
      // without amplifying the iteration's last error by a stiff J.
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) F_[s][i] = (Y[i] - base[i]) * inv_gh;
    });
    if (!converged) return Attempt::newton_failed;
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) {
      T sum = T(0), e = T(0);
      detail::static_for<0, stages>([&](auto stage) {
        constexpr int s = decltype(stage)::value;
        if constexpr (Tab::b(s) != 0.0) sum += T(Tab::b(s)) * F_[s][i];
        if constexpr (Tab::e(s) != 0.0) e += T(Tab::e(s)) * F_[s][i];
      });
      y_new[i] = y[i] + h * sum;
      // (I - gamma h J)^-1 (h sum e_s F_s) = W^-1 (sum e_s F_s) / gamma: solved below.
      err[i] = e * T(1.0 / Tab::gamma());
    }
    kernels::solve_iteration_matrix<Shape>(sys, W_, piv_, &err[0]);
    return Attempt::done;
  }

  /// The simplified Newton iteration for Y = base + gamma h f(ts, Y) from the guess in Y, with the
  /// factorised W = I / (gamma h) - J: W dY = f(ts, Y) - (Y - base) / (gamma h). Hairer & Wanner's test:
  /// converged when eta |dY| <= newton_tol_ (|.| the RMS norm in units of atol + rtol |y|, eta =
  /// theta / (1 - theta) from the contraction theta of successive updates; before a second update
  /// the last stage's eta, its 0.8th power); failed when theta >= 1, when the updates could not get
  /// there within max_iterations at their rate, or when an update is not finite.
  template <class System>
  BATCHODE_HOST_DEVICE bool newton(const System& sys, T ts, const state_type& y, const T* base, T inv_gh,
                                   const T* p, T* Y) {
    const T eps = port::numeric_limits<T>::epsilon();
    T eta = port::pow(eta_ > eps ? eta_ : eps, T(0.8));
    T previous = T(0);
    for (int iteration = 0; iteration < max_iterations; ++iteration) {
      T d[N];
      sys(ts, Y, p, d);
      ++evaluations_;
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) d[i] -= (Y[i] - base[i]) * inv_gh;
      kernels::solve_iteration_matrix<Shape>(sys, W_, piv_, d);
      T sum = T(0);
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        const T larger = port::fabs(y[i]) > port::fabs(Y[i]) ? port::fabs(y[i]) : port::fabs(Y[i]);
        const T scale = atol_ + rtol_ * larger;
        const T r = d[i] / scale;
        sum += r * r;
        Y[i] += d[i];
      }
      const T norm = port::sqrt(sum * (T(1) / T(N)));
      if (!(norm <= port::numeric_limits<T>::max())) return false;  // NaN or infinite
      if (iteration > 0) {
        const T theta = norm / previous;
        theta_max_ = theta > theta_max_ ? theta : theta_max_;
        if (!(theta < T(1))) return false;
        // Hairer & Wanner (IV.8.10): the update left after the iterations still allowed, at this rate.
        const int left = max_iterations - 1 - iteration;
        if (left > 0 && port::pow(theta, T(left)) / (T(1) - theta) * norm > newton_tol_) return false;
        eta = theta / (T(1) - theta);
      }
      if (eta * norm <= newton_tol_ || norm == T(0)) {
        eta_ = eta;
        return true;
      }
      previous = norm;
    }
    return false;
  }

  /// W could not be factorised. Dense and band: it is singular, and the run ends (singular_matrix).
  /// Sparse: a pivot of the fixed order was lost in rounding, which a smaller step cures: the attempt
  /// is rejected by an infinite error estimate (as in the Rosenbrock stepper).
  BATCHODE_HOST_DEVICE void unfactorised(const state_type& y, state_type& y_new, state_type& err) {
    newton_failed_ = false;
    const bool rejects = Shape::sparse;
    if (!rejects) failure_ = Status::singular_matrix;
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) {
      y_new[i] = y[i];
      err[i] = rejects ? port::numeric_limits<T>::infinity() : T(0);
    }
  }

  state_type f0_{};
  T J_[Shape::jacobian_size];
  T ft_[N];  // df/dt, which linearize_in gives with J; an ESDIRK step does not use it
  T F_[Tab::stages][N];
  // Matrices are members, never locals of step() (see RosenbrockStepper).
  T W_[Shape::lu_size];
  int piv_[Shape::sparse ? 1 : N];
  T rtol_ = T(1e-6), atol_ = T(1e-6), newton_tol_ = T(1e-3);
  T eta_ = T(1);        // the last stage's eta, the next stage's first estimate
  T theta_max_ = T(0);  // the slowest contraction of the last attempt's iterations
  port::uint32_t evaluations_ = 0;
  Status failure_ = Status::success;
  bool linearized_ = false;     // J_ is usable: computed at the current point, or kept
  bool jacobian_kept_ = false;  // J_ was computed at an earlier point than the current one
  bool f_current_ = false;      // f0_ is f at the current point
  bool newton_failed_ = false;
};

}  // namespace batchode
