// solver/: Boost.Odeint's rosenbrock4 behind the stepper interface of solver/run_integrator.hpp, so
// the CPU-only method `rosenbrock4` gets our step control, save landing and statuses. odeint's stepper
// does the arithmetic on its uBLAS state (copied in and out of our fixed-size state per attempt);
// its Jacobian functor is kernels/jacobian.hpp's linearize (the system's analytic J, or AD).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <boost/numeric/odeint.hpp>

#include "batchode/kernels/jacobian.hpp"

namespace batchode::cpu {

template <class System, class T>
class OdeintRosenbrock4Stepper {
 public:
  static constexpr std::size_t N = System::n_states;
  static constexpr std::size_t P = System::n_params;
  using state_type = std::array<T, N>;
  static constexpr bool adaptive = true;
  static constexpr int order = 4;
  static constexpr int error_order = 3;
  using odeint_stepper = boost::numeric::odeint::rosenbrock4<T>;
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
    void operator()(const vector& x, matrix& J, const T& t, vector& dfdt) const {
      T y[N], f[N], jac[N * N], ft[N];
      for (std::size_t i = 0; i < N; ++i) y[i] = x[i];
      kernels::linearize<N, P>(*sys, t, y, p, f, jac, ft);
      for (std::size_t i = 0; i < N; ++i) {
        dfdt[i] = ft[i];
        for (std::size_t j = 0; j < N; ++j) J(i, j) = jac[i * N + j];
      }
      ++*count;
    }
  };

  odeint_stepper stepper_;
  vector x_, xout_, xerr_;
  state_type f0_{};
  std::uint32_t evaluations_ = 0;
};

}  // namespace batchode::cpu
