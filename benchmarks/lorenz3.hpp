// benchmarks/: the Lorenz system with sigma, rho and beta as its three parameters, shared by the CPU
// benchmarks (the GPU benchmark's variant sweeps rho alone and keeps the other two as constants).
#pragma once

#include <cstddef>

namespace bench {

struct Lorenz3 {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 3;  // sigma, rho, beta
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * (y[1] - y[0]);
    dydt[1] = y[0] * (p[1] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - p[2] * y[2];
  }
};

}  // namespace bench
