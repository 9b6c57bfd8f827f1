// The summary kernel's cost in isolation (issue 11): RK4 Lorenz, 2^22 runs, dt 1e-3 over [0, 1], one
// chunk, the kernels launched directly (no solver around them): the plain kernel, the one built for
// mean, max, peaks[3] (accumulators in registers) and the one built for every kind (local memory),
// 10 windows of the 3 states, a sample every ARGV[1] steps (default 10). Prints the median of 7
// launches of each, the ratios to the plain kernel, and a checksum of the summaries written (the
// same to the bit before and after a change of the sample path that keeps its numbers).
// A standalone nvcc program (3 s to build, against any copy of the headers; gpu_lorenz takes 7 min):
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -DBATCHODE_WITH_CUDA=1 -Ikernels/include \
//        -Ibenchmarks -DT_=float -o summary_sample_path benchmarks/summary_kernel/summary_sample_path.cu
//   ./summary_sample_path 10
// Instructions per launch: ncu --kernel-name-base mangled -k regex:Lj265 -c 1
//   --metrics smsp__inst_executed.sum ./summary_sample_path 10   (Lj265: the kernel for the 3 kinds)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "batchode/kernels/launch/batch_kernel.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "kernel_timing.cuh"
#include "lorenz_rho.hpp"
using L = batchode_bench::LorenzRho;
using namespace batchode;
constexpr port::uint32_t lean =
    summary_bit(SummaryKind::mean) | summary_bit(SummaryKind::max) | summary_bit(SummaryKind::peaks);
#ifndef T_
#define T_ float
#endif
using T = T_;

int main(int argc, char** argv) {
  const size_t n = size_t(1) << 22;
  const int every = argc > 1 ? atoi(argv[1]) : 10;  // steps per sample
  const int reps = 7;
  std::vector<T> y0(n * 3), rho(n);
  for (size_t i = 0; i < n; ++i) {
    y0[3 * i] = 1;
    y0[3 * i + 1] = 1;
    y0[3 * i + 2] = 1;
    rho[i] = T(28.0 * (0.5 + double(i) / n));
  }
  T *d_y0, *d_p, *d_final, *d_sum;
  port::int32_t* d_status;
  const port::uint32_t windows = 10, slots = 15;
  CK(cudaMalloc(&d_y0, n * 3 * sizeof(T)));
  CK(cudaMalloc(&d_p, n * sizeof(T)));
  CK(cudaMalloc(&d_final, n * 3 * sizeof(T)));
  CK(cudaMalloc(&d_sum, n * windows * slots * sizeof(T)));
  CK(cudaMalloc(&d_status, n * 4));
  cudaMemcpy(d_y0, y0.data(), n * 3 * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(d_p, rho.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  RunSettings<T> plain{};
  plain.t0 = 0;
  plain.t_end = 1;
  plain.dt = T(1e-3);
  plain.n_saves = 0;
  plain.series_every = 0;
  plain.max_steps = 1u << 30;
  RunSettings<T> sum = plain;
  const port::uint32_t samples = 1000 / every / windows;
  sum.save_every = T(every * 1e-3);
  sum.n_saves = windows * samples + 1;
  sum.series_every = 0;
  sum.n_series = 0;
  sum.summary_windows = windows;
  sum.summary_samples = samples;
  sum.summary_metrics = lean;
  sum.summary_slots = slots;
  sum.summary_peaks = 3;
  sum.summary_variables = 7;
  sum.summary_offset[(int)SummaryKind::mean] = 0;
  sum.summary_stride[(int)SummaryKind::mean] = 1;
  sum.summary_offset[(int)SummaryKind::max] = 3;
  sum.summary_stride[(int)SummaryKind::max] = 1;
  sum.summary_offset[(int)SummaryKind::peaks] = 6;
  sum.summary_stride[(int)SummaryKind::peaks] = 3;
  kernels::DeviceInputs<T> in{d_y0, d_p, n};
  kernels::DeviceOutputs<T> out{d_final, nullptr, d_status, nullptr, nullptr, nullptr, n, 0};
  kernels::DeviceOutputs<T> sout = out;
  sout.n_saves = sum.n_saves;
  sout.summaries = d_sum;
  const float t_plain =
      median_batch_kernel_ms<L>(kernels::integrate_chunk<tableau::Rk4, false, L, T, 0u>, plain, in, out, reps);
  const float t_lean =
      median_batch_kernel_ms<L>(kernels::integrate_chunk<tableau::Rk4, true, L, T, lean>, sum, in, sout, reps);
  const float t_all = median_batch_kernel_ms<L>(kernels::integrate_chunk<tableau::Rk4, true, L, T, all_summary_kinds>,
                                                sum, in, sout, reps);
  CK(cudaGetLastError());
  std::vector<T> s(n * windows * slots);
  std::vector<port::int32_t> st(n);
  cudaMemcpy(s.data(), d_sum, s.size() * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(st.data(), d_status, n * 4, cudaMemcpyDeviceToHost);
  double check = 0;
  size_t nans = 0, bad = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (std::isnan(s[i]))
      ++nans;
    else
      check += double(s[i]) * double(1 + i % 7);
  }
  for (size_t i = 0; i < n; ++i) bad += st[i] != 0;
  printf(
      "%s every %d steps: plain %.3f ms, lean %.3f ms (%.3fx), all-kinds %.3f ms (%.3fx); checksum %.10g "
      "nans %zu failed %zu\n",
      sizeof(T) == 4 ? "f32" : "f64", every, t_plain, t_lean, t_lean / t_plain, t_all, t_all / t_plain, check,
      nans, bad);
  return 0;
}
