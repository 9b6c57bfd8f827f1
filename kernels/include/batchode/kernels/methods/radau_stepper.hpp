// kernels/methods/: one step of Radau IIA 5 (kernels/methods/radau_tableau.hpp), host and device, as
// Hairer's RADAU5 takes it (Hairer & Wanner II, IV.8). The three stages' increments Z are found together by
// simplified Newton; in the coordinates W = T^-1 Z that diagonalise A^-1, each iteration solves one real
// system with E1 = gamma / h M - J and one complex system with E2 = (alpha + i beta) / h M - J, both
// factorised once per step (kernels/linalg/iteration_matrix.hpp in the system's layout: dense, band or its
// own sparse LU, the complex one in kernels/linalg/complex.hpp's numbers). The iteration starts from the
// previous step's collocation polynomial; J is kept for the next step when the iterations contracted fast
// (RADAU5's THET); the error estimate is RADAU5's, filtered through E1, with its second form (one more
// evaluation of f) on a run's first step and after a rejection, where the first can be too large for a
// stiff problem. Dense output is the collocation polynomial (order 3, as RADAU5's CONTR5). A system with
// algebraic states (a semi-explicit index-1 DAE) is solved with M = diag(1 .. 1, 0 .. 0). The CPU path
// runs this same class.
//
// The run's tolerances are taken as given, as scipy's Radau takes them. RADAU5 tightens them to 0.1
// rtol^(2/3) (its order-3 estimate overrates the order-5 solution's error at small steps), but on van der
// Pol (mu = 1000, CPU) that left the error 11x the tolerance at 1e-8 and 400x at 1e-10
// (benchmarks/RESULTS.md, "Radau IIA 5"); as given, it stays below.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/linalg/complex.hpp"
#include "batchode/kernels/linalg/iteration_matrix.hpp"
#include "batchode/kernels/loop/step_control.hpp"  // error_norm_squared
#include "batchode/kernels/methods/newton_stepper_base.hpp"
#include "batchode/kernels/methods/radau_tableau.hpp"
#include "batchode/kernels/methods/rk_stepper.hpp"

namespace batchode {

/// The stepper interface of kernels/loop/run_integrator.hpp for Radau IIA 5, N states, precision T, the
/// Jacobian kept in Shape's layout (kernels::RosenbrockShape of the system). An attempt whose Newton
/// iteration does not converge (with a fresh J) is rejected by an infinite error estimate and
/// newton_failed() says so (Status::newton_failure when the step cannot shrink further); an exactly
/// singular E1 or E2 ends the run (singular_matrix), as in the other stiff steppers.
template <class T, port::size_t N, class Shape = kernels::BandShape<N>>
class RadauStepper : public NewtonStepperBase<T, N, Shape> {
  using Tab = tableau::RadauIIA5;
  using C = kernels::Complex<T>;
  using Base = NewtonStepperBase<T, N, Shape>;
  using Base::atol_, Base::evaluations_, Base::f0_, Base::ft_, Base::J_, Base::newton_tol_, Base::rtol_,
      Base::theta_max_;

 public:
  using state_type = typename Base::state_type;
  static constexpr int order = Tab::order;
  static constexpr int error_order = Tab::error_order;
  static constexpr int stages = Tab::stages;
  static constexpr bool own_dense_output = true;  // the collocation polynomial (interpolate)
  static constexpr bool solves_dae = true;
  /// Iterations a step may take before its attempt fails (RADAU5's NIT).
  static constexpr int max_iterations = 7;
  /// An accepted step keeps J for the next when its iterations contracted by this much or more (theta
  /// at most this; a step settled by one iteration counts as 0): RADAU5's THET.
  static constexpr double keep_jacobian_below = 0.001;

  template <class System>
  BATCHODE_HOST_DEVICE void reset(const System& sys, T t, const state_type& y, const T* p) {
    this->restart(sys, t, y, p);
    has_polynomial_ = false;
    attempted_ = false;
    faccon_ = T(1);
  }

  /// A system with algebraic states: makes them consistent at (t, y) (kernels/linalg/iteration_matrix.hpp's
  /// make_algebraic_consistent, with this stepper's J and real W).
  template <class System>
  BATCHODE_HOST_DEVICE bool make_consistent(const System& sys, T t, state_type& y, const T* p, T rtol, T atol,
                                            port::uint32_t& evaluations) {
    return kernels::make_algebraic_consistent<Shape>(sys, t, &y[0], p, rtol, atol, evaluations, f0_.v, J_,
                                                     ft_, E1_, piv1_);
  }

  template <class System>
  BATCHODE_HOST_DEVICE void step(const System& sys, T t, const state_type& y, const T* p, T h,
                                 state_type& y_new, state_type& err) {
    // A step() with no accept() since the last one: that attempt was rejected (the error estimate's
    // second form is taken after a rejection).
    const bool after_rejection = attempted_;
    attempted_ = true;
    h_ = h;
    this->step_with_retry(sys, t, y, p, y_new, err,
                          [&] { return attempt(sys, t, y, p, h, after_rejection, y_new, err); });
  }

  /// The run moved to (t_new, y_new): the step's collocation polynomial is kept for the next step's
  /// starting values; f is evaluated there by the next step, and J too unless this step's iterations
  /// contracted fast (keep_jacobian_below).
  template <class System>
  BATCHODE_HOST_DEVICE void accept(const System&, T, const state_type&, const T*) {
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) polynomial(i, poly_[0][i], poly_[1][i], poly_[2][i]);
    h_old_ = h_;
    has_polynomial_ = true;
    attempted_ = false;
    this->moved_on(keep_jacobian_below);
  }

  /// The method's own dense output: the collocation polynomial of the attempt (between step() and
  /// accept()) through y at t and y + Z_s at t + c_s h, at ts in [t, t + h].
  BATCHODE_HOST_DEVICE void interpolate(T t, T h, T ts, const state_type&, const state_type& y_new,
                                        T* out) const {
    const T s = (ts - (t + h)) / h;
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) {
      T a1, a2, a3;
      polynomial(i, a1, a2, a3);
      out[i] = y_new[i] + s * (a1 + (s - T(Tab::c2 - 1)) * (a2 + (s - T(Tab::c1 - 1)) * a3));
    }
  }

 private:
  /// Component i of the collocation polynomial of the current Z, in RADAU5's Newton form around the
  /// step's end: y_new + s (a1 + (s - c2 + 1) (a2 + (s - c1 + 1) a3)), s = (t' - t - h) / h in [-1, 0].
  BATCHODE_HOST_DEVICE void polynomial(port::size_t i, T& a1, T& a2, T& a3) const {
    const T z1 = Z_[0][i], z2 = Z_[1][i], z3 = Z_[2][i];
    a1 = (z2 - z3) * T(1.0 / (Tab::c2 - 1));
    const T ak = (z1 - z2) * T(1.0 / (Tab::c1 - Tab::c2));
    const T third = (ak - z1 * T(1.0 / Tab::c1)) * T(1.0 / Tab::c2);
    a2 = (ak - a1) * T(1.0 / (Tab::c1 - 1));
    a3 = a2 - third;
  }

  /// Z_ and W_ = T^-1 Z_ at component i.
  BATCHODE_HOST_DEVICE void set_increments(port::size_t i, T z1, T z2, T z3) {
    Z_[0][i] = z1;
    Z_[1][i] = z2;
    Z_[2][i] = z3;
    W_[0][i] = T(Tab::ti11) * z1 + T(Tab::ti12) * z2 + T(Tab::ti13) * z3;
    W_[1][i] = T(Tab::ti21) * z1 + T(Tab::ti22) * z2 + T(Tab::ti23) * z3;
    W_[2][i] = T(Tab::ti31) * z1 + T(Tab::ti32) * z2 + T(Tab::ti33) * z3;
  }

  /// One attempt of size h from (t, y), f0_ = f(t, y) and J_ current: E1 and E2 factorised, Z by
  /// simplified Newton, then y_new = y + Z_3 and the error estimate.
  template <class System>
  BATCHODE_HOST_DEVICE NewtonAttempt attempt(const System& sys, T t, const state_type& y, const T* p, T h,
                                             bool after_rejection, state_type& y_new, state_type& err) {
    constexpr port::size_t first_algebraic = N - n_algebraic_v<System>;
    const T inv_h = T(1) / h;
    const T fac1 = T(Tab::gamma) * inv_h;
    const C fac2(T(Tab::alpha) * inv_h, T(Tab::beta) * inv_h);
    if (!kernels::factor_iteration_matrix<Shape>(sys, fac1, J_, E1_, piv1_))
      return NewtonAttempt::unfactorised;
    if (!kernels::factor_iteration_matrix<Shape>(sys, fac2, J_, E2_, piv2_))
      return NewtonAttempt::unfactorised;

    // Starting values: the last step's collocation polynomial at this step's nodes, else zero.
    const T ratio = h / h_old_;
    const T q1 = T(Tab::c1) * ratio, q2 = T(Tab::c2) * ratio;
    T scale[N];
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) {
      const T a1 = poly_[0][i], a2 = poly_[1][i], a3 = poly_[2][i];
      const auto at = [&](T q) {
        return has_polynomial_ ? q * (a1 + (q - T(Tab::c2 - 1)) * (a2 + (q - T(Tab::c1 - 1)) * a3)) : T(0);
      };
      set_increments(i, at(q1), at(q2), at(ratio));
      scale[i] = atol_ + rtol_ * port::fabs(y[i]);
    }
    if constexpr (n_algebraic_v < System >> 0) {
      // An algebraic state's update is its equation's residual over dg/dz, and that residual is computed
      // from terms of the states' size: its rounding, eps max_j |y_j|, is noise no iteration removes. Below
      // it the test would wait for that noise to contract (Robertson's y3 = 1 - y1 - y2 in float at atol
      // 1e-8: 200 of 512 runs ended as newton_failure); 100 eps max_j |y_j| is where the test stops.
      T largest = T(0);
      for (port::size_t i = 0; i < N; ++i) largest = port::fabs(y[i]) > largest ? port::fabs(y[i]) : largest;
      const T rounding = T(100) * port::numeric_limits<T>::epsilon() * largest;
      for (port::size_t i = first_algebraic; i < N; ++i) scale[i] = scale[i] > rounding ? scale[i] : rounding;
    }

    const T eps = port::numeric_limits<T>::epsilon();
    T faccon = port::pow(faccon_ > eps ? faccon_ : eps, T(0.8));
    T previous = T(0), previous_ratio = T(0);
    theta_max_ = T(0);
    bool converged = false;
    for (int iteration = 0; iteration < max_iterations && !converged; ++iteration) {
      // f at the three stages, transformed by T^-1, less the W terms: the right-hand sides.
      T F[3][N];
      const T nodes[3] = {T(Tab::c1), T(Tab::c2), T(1)};
      BATCHODE_UNROLL
      for (int s = 0; s < 3; ++s) {
        T Y[N];
        BATCHODE_UNROLL_STEP_STATES
        for (port::size_t i = 0; i < N; ++i) Y[i] = y[i] + Z_[s][i];
        sys(t + nodes[s] * h, Y, p, F[s]);
      }
      evaluations_ += 3;
      T d1[N];
      C d2[N];
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        const T f1 = F[0][i], f2 = F[1][i], f3 = F[2][i];
        const T g1 = T(Tab::ti11) * f1 + T(Tab::ti12) * f2 + T(Tab::ti13) * f3;
        const C g2(T(Tab::ti21) * f1 + T(Tab::ti22) * f2 + T(Tab::ti23) * f3,
                   T(Tab::ti31) * f1 + T(Tab::ti32) * f2 + T(Tab::ti33) * f3);
        // M W's terms: none in an algebraic row.
        const bool differential = i < first_algebraic;
        d1[i] = differential ? g1 - fac1 * W_[0][i] : g1;
        d2[i] = differential ? g2 - fac2 * C(W_[1][i], W_[2][i]) : g2;
      }
      kernels::solve_iteration_matrix<Shape>(sys, E1_, piv1_, d1);
      kernels::solve_iteration_matrix<Shape>(sys, E2_, piv2_, d2);
      T sum = T(0);
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        const T inv = T(1) / scale[i];
        const T a = d1[i] * inv, b = d2[i].re * inv, c = d2[i].im * inv;
        sum += a * a + b * b + c * c;
      }
      const T norm = port::sqrt(sum * (T(1) / T(3 * N)));
      if (!(norm <= port::numeric_limits<T>::max())) return NewtonAttempt::newton_failed;  // NaN or infinite
      if (iteration > 0) {
        // RADAU5's rate: the last two ratios' geometric mean from the third iteration on.
        const T ratio_now = norm / previous;
        const T theta = iteration == 1 ? ratio_now : port::sqrt(ratio_now * previous_ratio);
        previous_ratio = ratio_now;
        theta_max_ = theta > theta_max_ ? theta : theta_max_;
        if (!(theta < T(0.99))) return NewtonAttempt::newton_failed;
        faccon = theta / (T(1) - theta);
        // The update left after the iterations still allowed, at this rate (RADAU5's DYTH).
        const int left = max_iterations - 1 - iteration;
        if (faccon * norm * port::pow(theta, T(left)) > newton_tol_) return NewtonAttempt::newton_failed;
      }
      previous = norm > eps ? norm : eps;
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) {
        const T w1 = W_[0][i] + d1[i], w2 = W_[1][i] + d2[i].re, w3 = W_[2][i] + d2[i].im;
        W_[0][i] = w1;
        W_[1][i] = w2;
        W_[2][i] = w3;
        Z_[0][i] = T(Tab::t11) * w1 + T(Tab::t12) * w2 + T(Tab::t13) * w3;
        Z_[1][i] = T(Tab::t21) * w1 + T(Tab::t22) * w2 + T(Tab::t23) * w3;
        Z_[2][i] = T(Tab::t31) * w1 + w2;
      }
      converged = faccon * norm <= newton_tol_;
    }
    if (!converged) return NewtonAttempt::newton_failed;
    faccon_ = faccon;

    // The error estimate: E1^-1 (f0 + M (dd1 Z1 + dd2 Z2 + dd3 Z3) / h) (RADAU5's ESTRAD).
    T e2[N];
    BATCHODE_UNROLL_STEP_STATES
    for (port::size_t i = 0; i < N; ++i) {
      y_new[i] = y[i] + Z_[2][i];
      const T weighted = (T(Tab::dd1) * Z_[0][i] + T(Tab::dd2) * Z_[1][i] + T(Tab::dd3) * Z_[2][i]) * inv_h;
      e2[i] = i < first_algebraic ? weighted : T(0);
      // An algebraic row's f0 is g(y) at a consistent state: zero but for rounding, which E1^-1 would
      // pass on as an error of z (Robertson's DAE in float: runs ended in step_size_underflow).
      err[i] = (i < first_algebraic ? f0_[i] : T(0)) + e2[i];
    }
    kernels::solve_iteration_matrix<Shape>(sys, E1_, piv1_, &err[0]);
    // The second form where the first is at least the tolerance (the loop's norm, step_control.hpp) on a
    // run's first step or after a rejection: f at y + that estimate instead of at y, which damps its stiff
    // components (RADAU5).
    if ((!has_polynomial_ || after_rejection) &&
        !(detail::error_norm_squared<N>(y, y_new, err, rtol_, atol_) < T(1))) {
      T Y[N], f1[N];
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) Y[i] = y[i] + err[i];
      sys(t, Y, p, f1);
      ++evaluations_;
      BATCHODE_UNROLL_STEP_STATES
      for (port::size_t i = 0; i < N; ++i) err[i] = f1[i] + e2[i];
      kernels::solve_iteration_matrix<Shape>(sys, E1_, piv1_, &err[0]);
    }
    return NewtonAttempt::done;
  }

  T Z_[3][N];     // the stage increments Y_s - y of the attempt (of the accepted step, after accept())
  T W_[3][N];     // T^-1 Z
  T poly_[3][N];  // the last accepted step's collocation polynomial (polynomial())
  // Matrices are members, never locals of step() (see RosenbrockStepper).
  T E1_[Shape::lu_size];
  C E2_[kernels::iteration_matrix_size<Shape, C, T>];
  int piv1_[Shape::sparse ? 1 : N];
  int piv2_[Shape::sparse ? 1 : N];
  T faccon_ = T(1);  // the last step's theta / (1 - theta), the next iteration's first estimate
  T h_ = T(0), h_old_ = T(1);
  bool has_polynomial_ = false;  // poly_ holds an accepted step's polynomial (not on a run's first step)
  bool attempted_ = false;       // step() was called since the last accept() or reset()
};

}  // namespace batchode
