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
#include "batchode/kernels/core/tolerance.hpp"
#include "batchode/kernels/linalg/iteration_matrix.hpp"
#include "batchode/kernels/methods/esdirk_tableaux.hpp"
#include "batchode/kernels/methods/newton_stepper_base.hpp"
#include "batchode/kernels/methods/rk_stepper.hpp"

namespace batchode {

/// The stepper interface of kernels/loop/run_integrator.hpp for an ESDIRK table Tab, N states, precision T,
/// the Jacobian kept in Shape's layout (kernels::RosenbrockShape of the system). An attempt whose Newton
/// iteration does not converge (with a fresh J) is rejected by an infinite error estimate and
/// newton_failed() says so: the step shrinks, and a run whose step falls below its floor that way ends
/// as Status::newton_failure. An exactly singular W ends the run (failure(): singular_matrix), as in the
/// Rosenbrock stepper.
template <class Tab, class T, port::size_t N, class Shape = kernels::BandShape<N>>
class EsdirkStepper : public NewtonStepperBase<T, N, Shape> {
  static_assert(Tab::a(0, 0) == 0.0, "EsdirkStepper: an ESDIRK table's first stage is explicit");
  using Base = NewtonStepperBase<T, N, Shape>;
  using Base::atol_, Base::evaluations_, Base::f0_, Base::J_, Base::newton_tol_, Base::rtol_,
      Base::theta_max_;

 public:
  using state_type = typename Base::state_type;
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
  template <class System>
  BATCHODE_HOST_DEVICE void reset(const System& sys, T t, const state_type& y, const T* p) {
    this->restart(sys, t, y, p);
    eta_ = T(1);
  }

  template <class System>
  BATCHODE_HOST_DEVICE void step(const System& sys, T t, const state_type& y, const T* p, T h,
                                 state_type& y_new, state_type& err) {
    this->step_with_retry(sys, t, y, p, y_new, err, [&] { return attempt(sys, t, y, p, h, y_new, err); });
  }

  /// The run moved to (t_new, y_new): f is evaluated there by the next step, and J too unless this
  /// step's iterations all contracted fast (keep_jacobian_below).
  template <class System>
  BATCHODE_HOST_DEVICE void accept(const System&, T, const state_type&, const T*) {
    this->moved_on(keep_jacobian_below);
  }

 private:

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
  BATCHODE_HOST_DEVICE NewtonAttempt attempt(const System& sys, T t, const state_type& y, const T* p, T h,
                                             state_type& y_new, state_type& err) {
    const T gh = T(Tab::gamma()) * h;
    const T inv_gh = T(1) / gh;
    if (!kernels::factor_iteration_matrix<Shape>(sys, inv_gh, J_, W_, piv_))
      return NewtonAttempt::unfactorised;
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
    if (!converged) return NewtonAttempt::newton_failed;
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
    return NewtonAttempt::done;
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
        const T r = d[i] / kernels::tolerance_scale(atol_, rtol_, y[i], Y[i]);
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

  T F_[Tab::stages][N];
  // Matrices are members, never locals of step() (see RosenbrockStepper).
  T W_[Shape::lu_size];
  int piv_[Shape::sparse ? 1 : N];
  T eta_ = T(1);  // the last stage's eta, the next stage's first estimate
};

}  // namespace batchode
