// benchmarks/large_systems/: the two workloads of issue 13 compiled in (the same systems as
// benchmarks/large_systems.sh writes as model text), for register_use.cu and bruss_kernel.cu.
// Lorenz-96 (explicit) and the 1-D Brusselator (stiff; its band declared unless BAND_ is 0).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

#ifndef BAND_
#define BAND_ 1
#endif

namespace batchode_bench {
using batchode::port::size_t;

/// Lorenz-96: dx_i = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F, p = {F}. Its rhs_component lets a run be
/// split over several lanes (kernels/launch/lane_group.hpp).
template <size_t N>
struct Lorenz96 {
  static constexpr size_t n_states = N;
  static constexpr size_t n_params = 1;
  template <class T, class State>
  BATCHODE_HOST_DEVICE T rhs_component(size_t i, T, const State& y, const T* p) const {
    return (y[(i + 1) % N] - y[(i + N - 2) % N]) * y[(i + N - 1) % N] - y[i] + p[0];
  }
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* dydt) const {
    BATCHODE_UNROLL
    for (size_t i = 0; i < N; ++i) dydt[i] = rhs_component(i, t, y, p);
  }
};

/// The 1-D Brusselator on M = N / 2 points (u_i, v_i interleaved), alpha = 1/50, p = {A}; its Jacobian
/// is a band of 2 sub- and 2 superdiagonals (declared unless BAND_ is 0).
template <size_t N>
struct Brusselator {
  static constexpr size_t n_states = N;
  static constexpr size_t n_params = 1;
  static constexpr size_t jacobian_lower_bandwidth = BAND_ ? 2 : N - 1;
  static constexpr size_t jacobian_upper_bandwidth = BAND_ ? 2 : N - 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    constexpr size_t M = N / 2;
    const T c = T((M + 1) * (M + 1)) / T(50);
    BATCHODE_UNROLL
    for (size_t i = 0; i < M; ++i) {
      const T u = y[2 * i], v = y[2 * i + 1];
      const T ul = i == 0 ? T(1) : y[2 * i - 2], ur = i + 1 == M ? T(1) : y[2 * i + 2];
      const T vl = i == 0 ? T(3) : y[2 * i - 1], vr = i + 1 == M ? T(3) : y[2 * i + 3];
      dydt[2 * i] = p[0] + u * u * v - T(4) * u + c * (ul - T(2) * u + ur);
      dydt[2 * i + 1] = T(3) * u - u * u * v + c * (vl - T(2) * v + vr);
    }
  }
};
}  // namespace batchode_bench
