// kernels/: the GPU side of batchode: the register-resident Runge-Kutta stepper, the output sinks,
// and the batch kernel (kernels/batch_kernel.hpp). Everything here is host+device code written in
// HIP; it also compiles as plain C++, which lets CPU tests pin the stepper against Boost.Odeint.
// This file: one explicit RK step of any tableau in solver/tableaux.hpp, with stages in registers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "batchode/gpu/runtime.hpp"

namespace batchode {

/// A fixed-size state vector usable on host and device (std::array's operator[] is not device code
/// under every compiler we support).
template <class T, std::size_t N>
struct Vec {
  T v[N];
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T& operator[](std::size_t i) { return v[i]; }
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE const T& operator[](std::size_t i) const { return v[i]; }
  static constexpr std::size_t size() { return N; }
};

/// Explicit Runge-Kutta stepper over tableau Tab (solver/tableaux.hpp) for an N-state system in
/// precision T. The stage derivatives k[s][i] are indexed only with compile-time constants after
/// unrolling, so they live in registers; zero coefficients generate no code.
template <class Tab, class T, std::size_t N>
class RkStepper {
 public:
  using state_type = Vec<T, N>;
  static constexpr bool adaptive = Tab::adaptive;
  static constexpr int order = Tab::order;
  static constexpr int error_order = Tab::error_order;
  static constexpr int stages = Tab::stages;

  template <class System>
  BATCHODE_HOST_DEVICE void reset(const System& sys, T t, const state_type& y, const T* p) {
    sys(t, &y[0], p, k_[0]);
    ++evaluations_;
  }

  /// f(t, y) at the current point (valid after reset and after every accept).
  BATCHODE_HOST_DEVICE const state_type& derivative() const {
    return *reinterpret_cast<const state_type*>(&k_[0][0]);
  }

  /// One attempt from (t, y) with step h. Each stage argument is y + sum_j (h a_sj) k_j: the products
  /// h a_sj are shared by all states, so every term is one fused multiply-add (a zero coefficient
  /// costs nothing, a unit one no multiply).
  template <class System>
  BATCHODE_HOST_DEVICE void step(const System& sys, T t, const state_type& y, const T* p, T h, state_type& y_new,
                                 state_type& err) {
    BATCHODE_UNROLL
    for (int s = 1; s < stages; ++s) {
      T arg[N];
      BATCHODE_UNROLL
      for (std::size_t i = 0; i < N; ++i) {
        T sum = y[i];
        BATCHODE_UNROLL
        for (int j = 0; j < s; ++j) {
          if (Tab::a(s, j) != 0.0) sum += (h * T(Tab::a(s, j))) * k_[j][i];
        }
        arg[i] = sum;
      }
      sys(t + T(Tab::c(s)) * h, arg, p, k_[s]);
    }
    evaluations_ += stages - 1;
    BATCHODE_UNROLL
    for (std::size_t i = 0; i < N; ++i) {
      T sum = y[i];
      BATCHODE_UNROLL
      for (int s = 0; s < stages; ++s) {
        if (Tab::b(s) != 0.0) sum += (h * T(Tab::b(s))) * k_[s][i];
      }
      y_new[i] = sum;
    }
    if constexpr (adaptive) {
      BATCHODE_UNROLL
      for (std::size_t i = 0; i < N; ++i) {
        T sum = 0;
        BATCHODE_UNROLL
        for (int s = 0; s < stages; ++s) {
          if (Tab::e(s) != 0.0) sum += (h * T(Tab::e(s))) * k_[s][i];
        }
        err[i] = sum;
      }
    } else {
      (void)err;
    }
  }

  /// The attempt was accepted and the run is now at (t_new, y_new): the next step's first stage is
  /// f(t_new, y_new). FSAL methods evaluated it as their last stage; the others evaluate it here, so
  /// step() needs no "is the first stage current" test (a rejected attempt leaves it current).
  template <class System>
  BATCHODE_HOST_DEVICE void accept(const System& sys, T t_new, const state_type& y_new, const T* p) {
    if constexpr (Tab::fsal) {
      BATCHODE_UNROLL
      for (std::size_t i = 0; i < N; ++i) k_[0][i] = k_[stages - 1][i];
    } else {
      sys(t_new, &y_new[0], p, k_[0]);
      ++evaluations_;
    }
  }

  BATCHODE_HOST_DEVICE std::uint32_t rhs_evaluations() const { return evaluations_; }

 private:
  T k_[Tab::stages][N];
  std::uint32_t evaluations_ = 0;
};

}  // namespace batchode
