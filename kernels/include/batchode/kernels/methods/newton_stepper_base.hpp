// kernels/methods/: what the implicit steppers share, host and device (kernels/methods/esdirk_stepper.hpp,
// radau_stepper.hpp): f and J at the current point, J kept across steps while the Newton iterations
// contract fast, an attempt that fails with a kept J retried once with a fresh one, the tolerances of the
// Newton test, and the statuses a run ends with (newton_failure through newton_failed(), singular_matrix
// through failure()). Each stepper adds its stages, its iteration and its estimate.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/tolerance.hpp"
#include "batchode/kernels/linalg/iteration_matrix.hpp"
#include "batchode/kernels/methods/rk_stepper.hpp"

namespace batchode {

/// How one attempt of an implicit step ended.
enum class NewtonAttempt { done, newton_failed, unfactorised };

/// The shared part of an implicit stepper for N states in precision T, J kept in Shape's layout. The
/// steppers derive from it and name its members with using-declarations.
template <class T, port::size_t N, class Shape>
class NewtonStepperBase {
  static_assert(Shape::n == N, "an implicit stepper's Jacobian shape is for another state count");

 public:
  using state_type = Vec<T, N>;
  static constexpr bool adaptive = true;
  /// The Newton iteration stops when its remaining error is estimated below min(newton_kappa,
  /// rtol^(1/2)) of the tolerances (RADAU5's FNEWT, kernels/core/tolerance.hpp; Hairer & Wanner's kappa is
  /// 0.01 to 0.1). For kvaerno5, 0.03 at every tolerance took 10-21% fewer evaluations on van der Pol,
  /// Robertson and BRUSS 16, but the Bari test set's HIRES at rtol 1e-8 came out 6.3 times its tolerance
  /// instead of 0.7 (tests/stiff/reference_test.cpp).
  static constexpr double newton_kappa = 0.03;

  /// The tolerances the Newton iteration's stopping test is scaled by (integrate_run passes the run's):
  /// an iteration has converged when its remaining error is estimated below newton_tol_ of them.
  BATCHODE_HOST_DEVICE void use_tolerances(T rtol, T atol) {
    rtol_ = rtol;
    atol_ = atol;
    newton_tol_ = kernels::newton_stopping_fraction(rtol, newton_kappa);
  }

  /// f(t, y) at the current point, once a step has been attempted from it (or after reset()).
  BATCHODE_HOST_DEVICE const state_type& derivative() const { return f0_; }

  /// Status::success, or why the run cannot go on (singular_matrix).
  BATCHODE_HOST_DEVICE Status failure() const { return failure_; }

  /// Whether the last attempt was rejected because its Newton iteration did not converge.
  BATCHODE_HOST_DEVICE bool newton_failed() const { return newton_failed_; }

  BATCHODE_HOST_DEVICE port::uint32_t rhs_evaluations() const { return evaluations_; }

 protected:
  /// A run (re)starts at (t, y): f there, no J yet, no failure.
  template <class System>
  BATCHODE_HOST_DEVICE void restart(const System& sys, T t, const state_type& y, const T* p) {
    sys(t, &y[0], p, f0_.v);
    evaluations_ = 1;  // a run's own count: the CPU path reuses one stepper for a worker's runs
    linearized_ = false;
    f_current_ = true;
    failure_ = Status::success;
    newton_failed_ = false;
  }

  /// One step from (t, y): f and J made current (J only when none is kept), then attempt() (which returns
  /// a NewtonAttempt); at most twice, since an iteration that fails with a J kept from an earlier point
  /// is tried once more with a new J at this one, at the same h. A failed iteration leaves y_new = y and
  /// an infinite estimate (the step is rejected); an unfactorisable W, unfactorised()'s.
  template <class System, class Attempt>
  BATCHODE_HOST_DEVICE void step_with_retry(const System& sys, T t, const state_type& y, const T* p,
                                            state_type& y_new, state_type& err, Attempt&& attempt) {
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
      const NewtonAttempt outcome = attempt();
      if (outcome == NewtonAttempt::unfactorised) return unfactorised(y, y_new, err);
      newton_failed_ = outcome == NewtonAttempt::newton_failed;
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

  /// The run moved on: f is evaluated at the new point by the next step, and J too unless the accepted
  /// step's iterations all contracted by keep_jacobian_below or more (theta_max_).
  BATCHODE_HOST_DEVICE void moved_on(double keep_jacobian_below) {
    f_current_ = false;
    jacobian_kept_ = theta_max_ <= T(keep_jacobian_below);
    linearized_ = linearized_ && jacobian_kept_;
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
  T ft_[N];  // df/dt, which linearize_in gives with J; the implicit steps do not use it
  T rtol_ = T(1e-6), atol_ = T(1e-6), newton_tol_ = T(1e-3);
  T theta_max_ = T(0);  // the slowest contraction of the last attempt's iterations (0: one iteration)
  port::uint32_t evaluations_ = 0;
  Status failure_ = Status::success;
  bool linearized_ = false;     // J_ is usable: computed at the current point, or kept
  bool jacobian_kept_ = false;  // J_ was computed at an earlier point than the current one
  bool f_current_ = false;      // f0_ is f at the current point
  bool newton_failed_ = false;
};

}  // namespace batchode
