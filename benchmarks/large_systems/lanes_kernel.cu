// The explicit workload's kernel with a run split over L lanes (kernels/launch/lane_group.hpp), for choosing
// lanes_per_run: Lorenz-96 (benchmarks/large_systems/systems.hpp) with F swept over [6, 10], RUNS runs,
// t in [0, 1], RK4 with dt = 1e-3 or dopri5 at rtol = atol = 1e-6 (first step estimated), final
// state. For each L in 1, 2, 4, ... 32 that divides N: the median kernel time of 5 launches, the rate
// in state-steps per second, and how many final values, statuses and step counts differ from one
// thread per run (L = 1: batch_kernel.hpp's integrate_chunk); `rule` is the L lanes_per_run picks.
// One N, precision and method a build; lanes_kernel.sh builds and runs them:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -DBATCHODE_WITH_CUDA=1 -Ikernels/include
//     -Ibenchmarks -DN_=64 -DT_=double -DMETHOD_=Rk4 -o lanes_kernel benchmarks/large_systems/lanes_kernel.cu
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "batchode/kernels/launch/batch_kernel.hpp"
#include "batchode/kernels/launch/lane_group_kernel.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "kernel_timing.cuh"
#include "large_systems/systems.hpp"

#ifndef N_
#define N_ 64
#endif
#ifndef T_
#define T_ double
#endif
#ifndef METHOD_
#define METHOD_ Rk4
#endif
#ifndef RUNS_
#define RUNS_ 262144
#endif

#define LANES_KERNEL_STR2(x) #x
#define LANES_KERNEL_STR(x) LANES_KERNEL_STR2(x)
constexpr const char* method_name = LANES_KERNEL_STR(METHOD_);

using namespace batchode;
using T = T_;
using Tab = tableau::METHOD_;
constexpr size_t N = N_, n = RUNS_;
using System = batchode_bench::Lorenz96<N>;

struct Outputs {
  std::vector<T> final_state;
  std::vector<port::int32_t> status;
  std::vector<port::uint32_t> accepted;
};

struct Device {
  T *y0, *p, *final_state;
  port::int32_t* status;
  port::uint32_t *accepted, *rejected, *rhs;
};

template <size_t L>
int run(const Device& d, const RunSettings<T>& plan, const Outputs* one_thread, Outputs& got) {
  kernels::DeviceInputs<T> in{d.y0, d.p, n};
  kernels::DeviceOutputs<T> out{d.final_state, nullptr, d.status, d.accepted, d.rejected, d.rhs, n, 0};
  CK(cudaMemset(d.final_state, 0, n * N * sizeof(T)));
  float ms;
  if constexpr (L == 1) {
    ms =
        median_batch_kernel_ms<System>(kernels::integrate_chunk<Tab, false, System, T, 0u>, plan, in, out, 5);
  } else {
    // Halved until its runs fit 48 KiB of shared memory, as GpuRunner launches it.
    const int block = static_cast<int>(kernels::lane_group_block<System, T, L>(128));
    const int grid = static_cast<int>((n * L + block - 1) / block);
    const size_t shared = kernels::lane_group_shared_bytes<System, T, L>(block);
    ms = median_launch_ms(
        [&] {
          kernels::integrate_chunk_in_lane_groups<Tab, System, T, L>
              <<<grid, block, shared>>>(System{}, plan, in, out);
        },
        5);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  got.final_state.resize(n * N);
  got.status.resize(n);
  got.accepted.resize(n);
  CK(cudaMemcpy(got.final_state.data(), d.final_state, n * N * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got.status.data(), d.status, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got.accepted.data(), d.accepted, n * 4, cudaMemcpyDeviceToHost));
  double steps = 0;
  size_t failed = 0, values_differ = 0, runs_differ = 0;
  double worst = 0;
  for (size_t r = 0; r < n; ++r) {
    steps += got.accepted[r];
    failed += got.status[r] != 0;
    if (one_thread != nullptr &&
        (got.status[r] != one_thread->status[r] || got.accepted[r] != one_thread->accepted[r])) {
      ++runs_differ;
    }
  }
  if (one_thread != nullptr) {
    for (size_t k = 0; k < n * N; ++k) {
      if (std::memcmp(&got.final_state[k], &one_thread->final_state[k], sizeof(T)) != 0) {
        ++values_differ;
        const double a = got.final_state[k], b = one_thread->final_state[k];
        worst = std::fmax(worst, std::fabs(a - b) / std::fmax(1.0, std::fabs(b)));
      }
    }
  }
  std::printf(
      "lanes_kernel N=%zu %s %s lanes=%zu rule=%zu runs=%zu kernel_ms=%.3f steps_per_run=%.1f "
      "state_steps_per_s=%.3g failed=%zu values_differing=%zu runs_differing=%zu worst_rel=%.3g\n",
      N, sizeof(T) == 4 ? "float32" : "float64", method_name, L, kernels::lanes_per_run<Tab, System, T>(), n,
      ms, steps / double(n), steps * double(N) / (ms * 1e-3), failed, values_differ, runs_differ, worst);
  return 0;
}

template <size_t... L>
int run_all(const Device& d, const RunSettings<T>& plan) {
  Outputs one_thread, got;
  if (run<1>(d, plan, nullptr, one_thread) != 0) return 1;
  int failed = 0;
  ((failed |= (L <= 32 && N % L == 0) ? run<(N % L == 0 ? L : 1)>(d, plan, &one_thread, got) : 0), ...);
  return failed;
}

int main() {
  std::vector<T> y0(n * N), f(n);
  for (size_t r = 0; r < n; ++r) {
    f[r] = T(6 + 4 * double(r) / double(n - 1));
    for (size_t i = 0; i < N; ++i)
      y0[r * N + i] = T(8 + 0.5 * std::sin(2 * 3.14159265358979 * double(i) / double(N) + 1e-3 * double(r)));
  }
  Device d{};
  CK(cudaMalloc(&d.y0, n * N * sizeof(T)));
  CK(cudaMalloc(&d.p, n * sizeof(T)));
  CK(cudaMalloc(&d.final_state, n * N * sizeof(T)));
  CK(cudaMalloc(&d.status, n * 4));
  CK(cudaMalloc(&d.accepted, n * 4));
  CK(cudaMalloc(&d.rejected, n * 4));
  CK(cudaMalloc(&d.rhs, n * 4));
  CK(cudaMemcpy(d.y0, y0.data(), n * N * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.p, f.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  RunSettings<T> plan{};
  plan.t0 = 0;
  plan.t_end = 1;
  plan.dt = Tab::adaptive ? T(0) : T(1e-3);
  plan.rtol = plan.atol = T(1e-6);
  plan.safety = T(0.9);
  plan.min_factor = T(0.2);
  plan.max_factor = T(10);
  plan.ki = T(0.85);  // SolveOptions' defaults
  plan.kp = T(0.2);
  plan.dt_max = T(1e30);
  plan.max_steps = 1000000;
  return run_all<2, 4, 8, 16, 32>(d, plan);
}
