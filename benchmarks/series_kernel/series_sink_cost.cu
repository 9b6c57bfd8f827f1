// The series sinks' cost in isolation (issue 11, save_variables): RK4 Lorenz with two observables,
// 2^20 runs, dt 1e-3 over [0, 1], a save every 10 steps (101 saves), one chunk, the kernels launched
// directly (no solver around them): the final-state kernel, the series kernel saving every state and
// observable (5 columns), and, built against headers that have save_variables (-DCHOSEN=1), the same
// kernel saving z alone (1 column, the masked sinks). Built against two copies of the headers (before
// and after a change), the series kernel's time before and after. Prints medians of 7 launches, the
// ratios to the final-state kernel, and a checksum of the series written.
// A standalone nvcc program (3 s to build):
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -DBATCHODE_WITH_CUDA=1 -Ikernels/include \
//        -Ibenchmarks -DT_=float [-DCHOSEN=1] -o series_sink_cost
//        benchmarks/series_kernel/series_sink_cost.cu
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "batchode/kernels/launch/batch_kernel.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "kernel_timing.cuh"
#include "lorenz_rho.hpp"
using L = batchode_bench::LorenzRhoObserved;
using namespace batchode;
#ifndef T_
#define T_ float
#endif
using T = T_;

/// Sum of the first `values` values of `d` (as written by the last launch), weighted by position.
double checksum(const T* d, size_t values) {
  std::vector<T> h(values);
  cudaMemcpy(h.data(), d, values * sizeof(T), cudaMemcpyDeviceToHost);
  double c = 0;
  for (size_t i = 0; i < values; ++i) c += double(h[i]) * double(1 + i % 7);
  return c;
}

int main() {
  const size_t n = size_t(1) << 20;
  const int reps = 7;
  const port::uint32_t saves = 101;
  std::vector<T> y0(n * 3), rho(n);
  for (size_t i = 0; i < n; ++i) {
    y0[3 * i] = 1;
    y0[3 * i + 1] = 1;
    y0[3 * i + 2] = 1;
    rho[i] = T(28.0 * (0.5 + double(i) / n));
  }
  T *d_y0, *d_p, *d_final, *d_series, *d_obs;
  port::int32_t* d_status;
  CK(cudaMalloc(&d_y0, n * 3 * sizeof(T)));
  CK(cudaMalloc(&d_p, n * sizeof(T)));
  CK(cudaMalloc(&d_final, n * 3 * sizeof(T)));
  CK(cudaMalloc(&d_series, n * saves * 3 * sizeof(T)));
  CK(cudaMalloc(&d_obs, n * saves * 2 * sizeof(T)));
  CK(cudaMalloc(&d_status, n * 4));
  cudaMemcpy(d_y0, y0.data(), n * 3 * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(d_p, rho.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  RunSettings<T> plain{};
  plain.t0 = 0;
  plain.t_end = 1;
  plain.dt = T(1e-3);
  plain.max_steps = 1u << 30;
  RunSettings<T> series = plain;
  series.save_every = T(1e-2);
  series.n_saves = saves;
  series.n_series = saves;
  kernels::DeviceInputs<T> in{d_y0, d_p, n};
  kernels::DeviceOutputs<T> out{d_final, nullptr, d_status, nullptr, nullptr, nullptr, n, 0};
  kernels::DeviceOutputs<T> sout = out;
  sout.series = d_series;
  sout.n_saves = saves;
  sout.observables = d_obs;
  const float t_plain = median_batch_kernel_ms<L>(kernels::integrate_chunk<tableau::Rk4, false, L, T, 0u>,
                                                  plain, in, out, reps);
  const float t_all = median_batch_kernel_ms<L>(kernels::integrate_chunk<tableau::Rk4, true, L, T, 0u>,
                                                series, in, sout, reps);
  const double check_all = checksum(d_series, n * saves * 3) + checksum(d_obs, n * saves * 2);
  printf("%s: final state %.3f ms; series, every variable %.3f ms (%.3fx), checksum %.10g",
         sizeof(T) == 4 ? "f32" : "f64", t_plain, t_all, t_all / t_plain, check_all);
#if CHOSEN
  RunSettings<T> chosen = series;
  chosen.series_chosen = 1;
  chosen.series_states = 1;
  chosen.series_observables = 0;
  chosen.series_variables[0] = 1u << 2;  // z
  const float t_z = median_batch_kernel_ms<L>(kernels::integrate_chunk<tableau::Rk4, true, L, T, 0u>, chosen,
                                              in, sout, reps);
  printf("; z alone %.3f ms (%.3fx), checksum %.10g", t_z, t_z / t_plain, checksum(d_series, n * saves));
#endif
  printf("\n");
  CK(cudaGetLastError());
  return 0;
}
