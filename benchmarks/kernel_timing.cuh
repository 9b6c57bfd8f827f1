// benchmarks/: what the standalone kernel benchmarks share (nvcc programs built against the headers
// alone, no library: summary_kernel/, series_kernel/): a checked CUDA call, and the median time of a
// launch (and of a batch kernel's) by CUDA events.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

/// Returns 1 from main with the call and CUDA's message when `x` fails.
#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      return 1;                                      \
    }                                                \
  } while (0)

/// The median of `reps` timings (ms, CUDA events) of launch(), after one launch to warm up.
template <class Launch>
float median_launch_ms(Launch launch, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();
  cudaDeviceSynchronize();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// The median ms of `reps` launches of a batch kernel (batchode::kernels::integrate_chunk, or its
/// shape: System{}, plan, inputs, outputs) over in.stride runs, one thread a run in blocks of 128.
template <class System, class Kernel, class Plan, class In, class Out>
float median_batch_kernel_ms(Kernel kernel, const Plan& plan, In in, Out out, int reps) {
  const int block = 128;
  const int grid = static_cast<int>((in.stride + block - 1) / block);
  return median_launch_ms([&] { kernel<<<grid, block>>>(System{}, plan, in, out); }, reps);
}
