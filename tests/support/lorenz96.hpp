// Lorenz-96 with one component of its right-hand side (rhs_component), so that the GPU may split a
// run over several lanes (kernels/launch/lane_group.hpp): dx_i = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F,
// p = {F}. Lanes > 0 declares lanes_per_run; 0 leaves the choice to the rule. The call operator is
// written for float and double, not as a template: no dual numbers reach it, so no Rosenbrock kernel
// is built for it (a test's compile time), and the CPU path integrates it as any system.
#pragma once

#include <cstddef>

#include "batchode/kernels/core/annotations.hpp"

namespace batchode::testing {

template <std::size_t Lanes>
struct DeclaredLanes {
  static constexpr std::size_t lanes_per_run = Lanes;
};
template <>
struct DeclaredLanes<0> {};

template <std::size_t N, std::size_t Lanes = 0>
struct Lorenz96 : DeclaredLanes<Lanes> {
  static constexpr std::size_t n_states = N;
  static constexpr std::size_t n_params = 1;
  template <class T, class State>
  BATCHODE_HOST_DEVICE T rhs_component(std::size_t i, T, const State& y, const T* p) const {
    return (y[(i + 1) % N] - y[(i + N - 2) % N]) * y[(i + N - 1) % N] - y[i] + p[0];
  }
  BATCHODE_HOST_DEVICE void operator()(float t, const float* y, const float* p, float* dydt) const {
    rhs(t, y, p, dydt);
  }
  BATCHODE_HOST_DEVICE void operator()(double t, const double* y, const double* p, double* dydt) const {
    rhs(t, y, p, dydt);
  }

 private:
  template <class T>
  BATCHODE_HOST_DEVICE void rhs(T t, const T* y, const T* p, T* dydt) const {
    BATCHODE_UNROLL
    for (std::size_t i = 0; i < N; ++i) dydt[i] = rhs_component(i, t, y, p);
  }
};

}  // namespace batchode::testing
