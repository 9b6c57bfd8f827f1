// The stiff workload's kernel alone, for choosing how a stiff step's loops over N are compiled
// (annotations.hpp's BATCHODE_UNROLL_STATES): rodas4 on the 1-D Brusselator in band storage
// (benchmarks/large_systems/systems.hpp), RUNS runs with A swept over [0.9, 1.1], t in [0, 1],
// rtol = atol = 1e-6 (benchmarks/large_systems.sh's bruss), final state; the median kernel time of 5
// launches, the accepted steps summed over the runs and a checksum of the final states (the variants
// must agree). One N and precision a build; bruss_kernel.sh builds and runs the variants:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -DBATCHODE_WITH_CUDA=1 -Ikernels/include \
//     -Ibenchmarks -DN_=64 -DT_=double [-DBATCHODE_UNROLLED_STATES=16 -DBATCHODE_STATE_LOOP_UNROLL=1] \
//     -o bruss_kernel benchmarks/large_systems/bruss_kernel.cu
#include <cmath>
#include <cstdio>
#include <vector>

#include "batchode/kernels/launch/batch_kernel.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "kernel_timing.cuh"
#include "large_systems/systems.hpp"

#ifndef N_
#define N_ 32
#endif
#ifndef T_
#define T_ double
#endif
#ifndef RUNS_
#define RUNS_ 65536
#endif

using namespace batchode;
using T = T_;
using B = batchode_bench::Brusselator<N_>;

int main() {
  constexpr size_t N = N_, n = RUNS_, M = N / 2;
  std::vector<T> y0(n * N), a(n);
  for (size_t r = 0; r < n; ++r) {
    for (size_t i = 0; i < M; ++i) {
      y0[r * N + 2 * i] = T(1 + std::sin(2 * 3.14159265358979 * double(i + 1) / double(M + 1)));
      y0[r * N + 2 * i + 1] = T(3);
    }
    a[r] = T(0.9 + 0.2 * double(r) / double(n - 1));
  }
  T *d_y0, *d_p, *d_final;
  port::int32_t* d_status;
  port::uint32_t *d_accepted, *d_rejected, *d_rhs;
  CK(cudaMalloc(&d_y0, n * N * sizeof(T)));
  CK(cudaMalloc(&d_p, n * sizeof(T)));
  CK(cudaMalloc(&d_final, n * N * sizeof(T)));
  CK(cudaMalloc(&d_status, n * 4));
  CK(cudaMalloc(&d_accepted, n * 4));
  CK(cudaMalloc(&d_rejected, n * 4));
  CK(cudaMalloc(&d_rhs, n * 4));
  CK(cudaMemcpy(d_y0, y0.data(), n * N * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_p, a.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  RunSettings<T> plan{};
  plan.t0 = 0;
  plan.t_end = 1;
  plan.rtol = plan.atol = T(1e-6);
  plan.safety = T(0.9);
  plan.min_factor = T(0.2);
  plan.max_factor = T(10);
  plan.ki = T(0.85);
  plan.kp = T(0.2);
  plan.dt_max = T(1e30);
  plan.max_steps = 100000;
  kernels::DeviceInputs<T> in{d_y0, d_p, n};
  kernels::DeviceOutputs<T> out{d_final, nullptr, d_status, d_accepted, d_rejected, d_rhs, n, 0};
  const float ms =
      median_batch_kernel_ms<B>(kernels::integrate_chunk<tableau::Rodas4, false, B, T, 0u>, plan, in, out, 5);
  CK(cudaGetLastError());
  std::vector<T> final_state(n * N);
  std::vector<port::uint32_t> accepted(n);
  std::vector<port::int32_t> status(n);
  CK(cudaMemcpy(final_state.data(), d_final, n * N * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(accepted.data(), d_accepted, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(status.data(), d_status, n * 4, cudaMemcpyDeviceToHost));
  double steps = 0, checksum = 0;
  size_t failed = 0;
  for (size_t r = 0; r < n; ++r) {
    steps += accepted[r];
    failed += status[r] != 0;
  }
  for (size_t k = 0; k < n * N; ++k) checksum += double(final_state[k]) * double(1 + k % 7);
  // The final states' bits (FNV-1a): builds that must agree bit for bit print the same.
  unsigned long long bits = 14695981039346656037ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(final_state.data());
  for (size_t k = 0; k < n * N * sizeof(T); ++k) bits = (bits ^ bytes[k]) * 1099511628211ull;
  std::printf(
      "bruss_kernel N=%zu %s band=%d dense_ad_columns=%d unrolled_states=%d loop_unroll=%d runs=%zu "
      "kernel_ms=%.3f steps=%.0f state_steps_per_s=%.3g failed=%zu checksum=%.12g bits=%016llx\n",
      N, sizeof(T) == 4 ? "float32" : "float64", BAND_, BATCHODE_DENSE_AD_COLUMNS, BATCHODE_UNROLLED_STATES,
      BATCHODE_STATE_LOOP_UNROLL, n, ms, steps, steps * double(N) / (ms * 1e-3), failed, checksum, bits);
  return 0;
}
