// benchmarks/: Lorenz with rho per run and sigma = 10, beta = 8/3 as constants, the GPU ODE
// benchmarks' system (one parameter per run crosses the bus, as in their hand-written baseline).
// One definition for gpu_lorenz, runtime_kernel and run_order; runtime_kernel.cpp also holds it as
// text for the runtime compiler, which must stay the same arithmetic.
#pragma once

#include <batchode/kernels/core/annotations.hpp>
#include <batchode/kernels/outputs/summaries.hpp>
#include <cstddef>

namespace batchode_bench {

struct LorenzRho {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 1;  // rho
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    const T sigma = 10, beta = T(8.0 / 3.0);
    dydt[0] = sigma * (y[1] - y[0]);
    dydt[1] = y[0] * (p[0] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - beta * y[2];
  }
};

/// The same with one event function, x (its zero crossings: a run with rho > 1 swings through
/// x = 0 between its wings), for the cost of events (gpu_lorenz).
struct LorenzRhoEvent : LorenzRho {
  static constexpr std::size_t n_events = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* g) const {
    g[0] = y[0];
  }
};

/// The same with two observables, x y and x^2 + y^2 + z^2, saved beside the state (gpu_lorenz).
struct LorenzRhoObserved : LorenzRho {
  static constexpr std::size_t n_observables = 2;
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T, const T* y, const T*, T* out) const {
    out[0] = y[0] * y[1];
    out[1] = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
  }
};

/// The same with its summary kernel built for mean, max and peaks only (kernels/outputs/summaries.hpp: the
/// accumulators in registers), as a runtime-compiled model's kernel is for the kinds a solve keeps.
struct LorenzRhoSummarised : LorenzRho {
  static constexpr batchode::port::uint32_t summary_kinds =
      batchode::summary_bit(batchode::SummaryKind::mean) | batchode::summary_bit(batchode::SummaryKind::max) |
      batchode::summary_bit(batchode::SummaryKind::peaks);
};

}  // namespace batchode_bench
