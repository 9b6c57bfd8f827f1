// What a hand-written kernel pays for mean, max, peaks[3] of Lorenz's 3 states (issue 11): RK4 dt 1e-3,
// 1000 steps, 2^22 runs, a sample every ARGV[1] steps (default 10), 10 windows; the floor the
// library's summary kernel (summary_sample_path.cu) is held to. Kernels: plain; the steps cut every m
// by a trivial sample (unrolled 4, 2, 1: the loop structure's own cost); the summaries with the window
// tested at every sample (flat) and window by window (nested). Medians of 7 launches, ratios to plain.
//   nvcc -O3 -arch=sm_90 -std=c++17 -Ibenchmarks -DT_=float -o hand_written_summaries \
//        benchmarks/summary_kernel/hand_written_summaries.cu && ./hand_written_summaries 10
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "kernel_timing.cuh"
#ifndef T_
#define T_ float
#endif
using T = T_;

struct St {
  T x, y, z;
};
__device__ __forceinline__ void rk4(St& s, T r, T dt) {
  const T sg = 10, b = T(8.0 / 3.0);
  T x = s.x, y = s.y, z = s.z;
  const T k1x = sg * (y - x), k1y = x * (r - z) - y, k1z = x * y - b * z;
  T xa = x + dt / 2 * k1x, ya = y + dt / 2 * k1y, za = z + dt / 2 * k1z;
  const T k2x = sg * (ya - xa), k2y = xa * (r - za) - ya, k2z = xa * ya - b * za;
  xa = x + dt / 2 * k2x, ya = y + dt / 2 * k2y, za = z + dt / 2 * k2z;
  const T k3x = sg * (ya - xa), k3y = xa * (r - za) - ya, k3z = xa * ya - b * za;
  xa = x + dt * k3x, ya = y + dt * k3y, za = z + dt * k3z;
  const T k4x = sg * (ya - xa), k4y = xa * (r - za) - ya, k4z = xa * ya - b * za;
  s.x = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
  s.y = y + dt / 6 * (k1y + 2 * k2y + 2 * k3y + k4y);
  s.z = z + dt / 6 * (k1z + 2 * k2z + 2 * k3z + k4z);
}
struct Args {
  const T* rho;
  T* out;
  T* sum;
  size_t n;
  int steps;
  int m;
  int S;
  int W;
  T dt;
};

__global__ void plain(Args a) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  St s{1, 1, 1};
  const T r = a.rho[i];
#pragma unroll 4
  for (int k = 0; k < a.steps; ++k) rk4(s, r, a.dt);
  a.out[i] = s.x;
  a.out[a.n + i] = s.y;
  a.out[2 * a.n + i] = s.z;
}
// The steps cut every m by a trivial sample (a sum of x): the loop structure's own cost.
template <int U>
__global__ void segmented(Args a) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  St s{1, 1, 1};
  const T r = a.rho[i];
  T acc = 0;
  for (int k = 0; k < a.steps / a.m; ++k) {
#pragma unroll U
    for (int j = 0; j < a.m; ++j) rk4(s, r, a.dt);
    acc += s.x;
  }
  a.out[i] = s.x + acc;
  a.out[a.n + i] = s.y;
  a.out[2 * a.n + i] = s.z;
}
struct Acc {
  T shift, sum, max, prev, pprev;
  unsigned np;
};
__device__ __forceinline__ T& at(const Args& a, size_t i, int w, int slot) {
  return a.sum[(size_t(w) * 15 + slot) * a.n + i];
}
__device__ __forceinline__ void take(const Args& a, size_t i, Acc& c, int v, T x, T tprev, int its_w) {
  c.sum += x - c.shift;
  c.max = x > c.max ? x : c.max;
  const bool peak = c.prev > x && c.prev > c.pprev && c.np < 3;
  if (peak) at(a, i, its_w, 6 + 3 * v + c.np) = tprev;
  c.np += peak;
  c.pprev = c.prev;
  c.prev = x;
}
__device__ __forceinline__ void close(const Args& a, size_t i, Acc& c, int v, int w) {
  at(a, i, w, v) = c.shift + c.sum / T(a.S);
  at(a, i, w, 3 + v) = c.max;
  for (unsigned q = c.np; q < 3; ++q) at(a, i, w, 6 + 3 * v + q) = T(0) / T(0);
}
// Each state's accumulators at t0 (the history starts there; no peak at sample 1).
__device__ __forceinline__ void start(Acc (&c)[3], const St& s) {
  const T y0[3] = {s.x, s.y, s.z};
  for (int v = 0; v < 3; ++v) c[v] = Acc{y0[v], 0, -T(INFINITY), y0[v], y0[v], 0};
}
// Nested: windows, the first sample of each peeled (its peaks belong to the window before).
__global__ void nested(Args a) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  St s{1, 1, 1};
  const T r = a.rho[i];
  const T inf = INFINITY;
  Acc c[3];
  start(c, s);
  const T te = a.dt * a.m;
  int k = 0;
  T tprev = 0;
  for (int w = 0; w < a.W; ++w) {
    for (int q = 0; q < a.S; ++q) {
#pragma unroll 4
      for (int j = 0; j < a.m; ++j) rk4(s, r, a.dt);
      ++k;
      const T t = T(k) * te;
      T x[3] = {s.x, s.y, s.z};
      if (q == 0) {
#pragma unroll
        for (int v = 0; v < 3; ++v) {
          take(a, i, c[v], v, x[v], tprev, w - 1);
          c[v].np = 0;
        }
      } else {
#pragma unroll
        for (int v = 0; v < 3; ++v) take(a, i, c[v], v, x[v], tprev, w);
      }
      tprev = t;
    }
#pragma unroll
    for (int v = 0; v < 3; ++v) {
      close(a, i, c[v], v, w);
      c[v].shift = c[v].prev;
      c[v].sum = 0;
      c[v].max = -inf;
    }
  }
  a.out[i] = s.x;
  a.out[a.n + i] = s.y;
  a.out[2 * a.n + i] = s.z;
}
// Flat: one sample loop, the window's first sample and closing by selects (the library's shape before
// it took whole windows at a time).
__global__ void flat(Args a) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  St s{1, 1, 1};
  const T r = a.rho[i];
  const T inf = INFINITY;
  Acc c[3];
  start(c, s);
  const T te = a.dt * a.m;
  int w = 0, in_w = 0;
  T tprev = 0;
  for (int k = 1; k <= a.S * a.W; ++k) {
#pragma unroll 4
    for (int j = 0; j < a.m; ++j) rk4(s, r, a.dt);
    const T t = T(k) * te;
    T x[3] = {s.x, s.y, s.z};
    const bool first = in_w == 0;
    ++in_w;
    const bool closing = in_w == a.S;
#pragma unroll
    for (int v = 0; v < 3; ++v) {
      take(a, i, c[v], v, x[v], tprev, first ? w - 1 : w);
      c[v].np = first ? 0u : c[v].np;  // (approximately the library's: reset after the first sample's test)
      if (closing) close(a, i, c[v], v, w);
      c[v].shift = closing ? c[v].prev : c[v].shift;
      c[v].sum = closing ? T(0) : c[v].sum;
      c[v].max = closing ? -inf : c[v].max;
    }
    tprev = t;
    w += closing;
    in_w = closing ? 0 : in_w;
  }
  a.out[i] = s.x;
  a.out[a.n + i] = s.y;
  a.out[2 * a.n + i] = s.z;
}

template <class K>
float timed(K k, const Args& a, int reps) {
  const int g = int((a.n + 127) / 128);
  return median_launch_ms([&] { k<<<g, 128>>>(a); }, reps);
}
int main(int argc, char** argv) {
  const size_t n = size_t(1) << 22;
  const int m = argc > 1 ? atoi(argv[1]) : 10;
  std::vector<T> rho(n);
  for (size_t i = 0; i < n; ++i) rho[i] = T(28.0 * (0.5 + double(i) / n));
  Args a{};
  a.n = n;
  a.steps = 1000;
  a.m = m;
  a.W = 10;
  a.S = 1000 / m / 10;
  a.dt = T(1e-3);
  cudaMalloc(&a.rho, n * sizeof(T));
  cudaMalloc(&a.out, 3 * n * sizeof(T));
  cudaMalloc(&a.sum, n * 150 * sizeof(T));
  cudaMemcpy((void*)a.rho, rho.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  const float p = timed(plain, a, 7);
  const float s4 = timed(segmented<4>, a, 7), s2 = timed(segmented<2>, a, 7), s1 = timed(segmented<1>, a, 7);
  const float fl = timed(flat, a, 7), ne = timed(nested, a, 7);
  printf(
      "%s m=%d: plain %.3f ms | segmented unroll4 %.3fx unroll2 %.3fx unroll1 %.3fx | flat %.3fx nested "
      "%.3fx (%s)\n",
      sizeof(T) == 4 ? "f32" : "f64", m, p, s4 / p, s2 / p, s1 / p, fl / p, ne / p,
      cudaGetErrorString(cudaGetLastError()));
}
