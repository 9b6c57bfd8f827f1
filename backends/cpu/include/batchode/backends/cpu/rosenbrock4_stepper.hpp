// backends/cpu/: Boost.Odeint's rosenbrock4 behind the stepper interface of kernels/loop/run_integrator.hpp,
// so the CPU-only method `rosenbrock4` gets our step control, save landing and statuses. odeint's stepper
// does the arithmetic on its uBLAS state (copied in and out of our fixed-size state per attempt);
// its Jacobian functor is kernels/linalg/jacobian.hpp's linearize (the system's analytic J, or AD).
//
// Boost's coefficients have one wrong sign (seen in Debian 12's Boost 1.74): its
// default_rosenbrock_coefficients has d4 = +0.0362, where Hairer's rodas.f (RO4COE) and every RODAS4
// transcription have d4 = -0.0362 (= gamma_4, the row sum of Gamma, which
// tests/solver/rosenbrock_tableau_test.cpp checks). d multiplies h f_t, so only problems whose
// right-hand side depends on t see it: y' = -2 (y - cos t) - sin t at 1e-9 ended with a relative
// error of 2.6e-5 after 17k steps, against 6e-11 with rodas4. We therefore run odeint's stepper (its
// own code: uBLAS LU, its stage loop) with RODAS4's coefficients from
// kernels/methods/rosenbrock_tableaux.hpp, d4 included; only the dense-output coefficients, which we never
// use, are Boost's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <boost/numeric/odeint.hpp>

#include "batchode/kernels/linalg/jacobian.hpp"
#include "batchode/kernels/methods/rosenbrock_tableaux.hpp"

namespace batchode::cpu {

/// odeint's rosenbrock coefficient set (same member names) filled from tableau::Rodas4: the
/// transformed-form a_ij, C_ij, c_i, d_i and gamma of Hairer's RODAS4, with d4 = -0.0362.
template <class Value>
struct Rodas4CoefficientsForOdeint {
  using value_type = Value;
  using order_type = unsigned short;
  using Tab = tableau::Rodas4;
  static constexpr Value a(int i, int j) { return static_cast<Value>(Tab::a(i, j)); }
  static constexpr Value C(int i, int j) { return static_cast<Value>(Tab::C(i, j)); }
  static constexpr Value d(int i) { return static_cast<Value>(Tab::d(i)); }
  static constexpr Value c(int i) { return static_cast<Value>(Tab::c(i)); }

  const value_type gamma = static_cast<Value>(Tab::gamma());
  const value_type d1 = d(0), d2 = d(1), d3 = d(2), d4 = d(3);
  const value_type c2 = c(1), c3 = c(2), c4 = c(3);
  const value_type c21 = C(1, 0);
  const value_type a21 = a(1, 0);
  const value_type c31 = C(2, 0), c32 = C(2, 1);
  const value_type a31 = a(2, 0), a32 = a(2, 1);
  const value_type c41 = C(3, 0), c42 = C(3, 1), c43 = C(3, 2);
  const value_type a41 = a(3, 0), a42 = a(3, 1), a43 = a(3, 2);
  const value_type c51 = C(4, 0), c52 = C(4, 1), c53 = C(4, 2), c54 = C(4, 3);
  const value_type a51 = a(4, 0), a52 = a(4, 1), a53 = a(4, 2), a54 = a(4, 3);
  const value_type c61 = C(5, 0), c62 = C(5, 1), c63 = C(5, 2), c64 = C(5, 3), c65 = C(5, 4);
  // Dense output only (calc_state), unused by batchode: Boost's values.
  const boost::numeric::odeint::default_rosenbrock_coefficients<Value> boost_{};
  const value_type d21 = boost_.d21, d22 = boost_.d22, d23 = boost_.d23, d24 = boost_.d24, d25 = boost_.d25;
  const value_type d31 = boost_.d31, d32 = boost_.d32, d33 = boost_.d33, d34 = boost_.d34, d35 = boost_.d35;

  static const order_type stepper_order = 4;
  static const order_type error_order = 3;
};

template <class System, class T>
class OdeintRosenbrock4Stepper {
 public:
  static constexpr std::size_t N = System::n_states;
  static constexpr std::size_t P = System::n_params;
  using state_type = std::array<T, N>;
  static constexpr bool adaptive = true;
  static constexpr int order = 4;
  static constexpr int error_order = 3;
  using odeint_stepper = boost::numeric::odeint::rosenbrock4<T, Rodas4CoefficientsForOdeint<T>>;
  using vector = typename odeint_stepper::state_type;
  using matrix = typename odeint_stepper::matrix_type;

  OdeintRosenbrock4Stepper() : x_(N), xout_(N), xerr_(N) {}

  void reset(const System& sys, T t, const state_type& y, const T* p) {
    sys(t, y.data(), p, f0_.data());
    evaluations_ = 1;
  }
  const state_type& derivative() const { return f0_; }

  void step(const System& sys, T t, const state_type& y, const T* p, T h, state_type& y_new, state_type& err) {
    for (std::size_t i = 0; i < N; ++i) x_[i] = y[i];
    Rhs rhs{&sys, p, &evaluations_};
    Jac jac{&sys, p, &evaluations_};
    stepper_.do_step(std::make_pair(rhs, jac), x_, t, xout_, h, xerr_);
    for (std::size_t i = 0; i < N; ++i) {
      y_new[i] = xout_[i];
      err[i] = xerr_[i];
    }
  }
  void accept(const System&, T, const state_type&, const T*) {}
  std::uint32_t rhs_evaluations() const { return evaluations_; }

 private:
  struct Rhs {
    const System* sys;
    const T* p;
    std::uint32_t* count;
    void operator()(const vector& x, vector& dxdt, T t) const {
      T y[N], f[N];
      for (std::size_t i = 0; i < N; ++i) y[i] = x[i];
      (*sys)(t, y, p, f);
      for (std::size_t i = 0; i < N; ++i) dxdt[i] = f[i];
      ++*count;
    }
  };
  struct Jac {
    const System* sys;
    const T* p;
    std::uint32_t* count;
    // J straight into odeint's N x N matrix (resized before this call), whose row-major storage is
    // linearize's layout: a copy beside it would be N^2 values on the worker's stack (8 MB at 1000 states).
    static_assert(
        std::is_same_v<typename matrix::orientation_category, boost::numeric::ublas::row_major_tag>);
    void operator()(const vector& x, matrix& J, const T& t, vector& dfdt) const {
      T y[N], f[N], ft[N];
      for (std::size_t i = 0; i < N; ++i) y[i] = x[i];
      kernels::linearize<N, P>(*sys, t, y, p, f, &J.data()[0], ft);
      for (std::size_t i = 0; i < N; ++i) dfdt[i] = ft[i];
      ++*count;
    }
  };

  odeint_stepper stepper_;
  vector x_, xout_, xerr_;
  state_type f0_{};
  std::uint32_t evaluations_ = 0;
};

}  // namespace batchode::cpu
