// kernels/outputs/: a chunk's saved series reduced across its runs on the device (issue 52: ensemble
// statistics): at every save time and column, how many runs have a value there (NaN, a point a failed
// run never reached, is left out), their mean, their sum of squared deviations about it, their min and
// max. One launch per chunk and array (states, observables), on the chunk's stream after its kernel,
// so that only these few values per save time, not the runs' series, cross to the host, where the
// chunks' moments are joined by the same formula (join_moments, Chan, Golub and LeVeque).
// Deterministic: a thread's values are summed in order, and a block joins its threads' sums by a
// fixed tree. Plain device code, no standard header: nvcc/hipcc compile it in the user's unit and
// NVRTC/hipRTC in a program of its own (runtime_kernel_source.hpp: series_moments_program).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode::kernels {

/// The moments of a group of values: their count (a double, exact below 2^53), mean, sum of squared
/// deviations about the mean (m2), min and max. An empty group has n = 0 and the others unused.
struct Moments {
  double n, mean, m2, min, max;
};
/// Doubles per Moments in the kernel's output.
inline constexpr unsigned moments_values = 5;

/// `a` joined by `b` (Chan, Golub and LeVeque: two groups' means and squared deviations, exact in
/// exact arithmetic and stable in floating point); the one join of the device tree and the host's.
BATCHODE_HOST_DEVICE inline Moments join_moments(const Moments& a, const Moments& b) {
  if (b.n == 0) return a;
  if (a.n == 0) return b;
  const double n = a.n + b.n, delta = b.mean - a.mean, share = b.n / n;
  return Moments{n, a.mean + delta * share, a.m2 + b.m2 + delta * delta * a.n * share,
                 b.min < a.min ? b.min : a.min, b.max > a.max ? b.max : a.max};
}

/// Threads per block of series_moments: one block per (row, part).
inline constexpr unsigned series_moments_block = 256;

/// Everything one launch of series_moments reads and writes; passed by value.
template <class T>
struct SeriesMomentsJob {
  /// The chunk's array: rows of `stride` values (device_views.hpp: row k * width + c is column c at
  /// save k, its runs fastest), of which the first `runs` are the chunk's.
  const T* values;
  port::uint32_t rows;   ///< n_saves x width
  port::uint32_t width;  ///< columns a save in `values`
  port::size_t stride;
  port::size_t runs;
  /// Each row's runs are cut into `parts` equal stretches, one block each (a short series of a large
  /// chunk still fills the device); the host joins them in order.
  port::uint32_t parts;
  /// The result: save k, column first_column + c, part p at
  /// ((k * columns + first_column + c) * parts + p) * moments_values, as n, mean, m2, min, max.
  double* moments;
  port::uint32_t columns;       ///< columns a save in `moments` (states and observables)
  port::uint32_t first_column;  ///< where `values`' columns start among them
};

static_assert(port::is_trivially_copyable_v<SeriesMomentsJob<double>> &&
              port::is_standard_layout_v<SeriesMomentsJob<double>>);

/// Parts per row for `rows` rows of `runs` runs: enough blocks to fill a large device (about 2048),
/// but no part under 2048 runs.
constexpr port::uint32_t series_moments_parts(port::size_t rows, port::size_t runs) {
  const port::size_t by_device = rows >= 2048 ? 1 : (2048 + rows - 1) / rows;
  const port::size_t by_runs = (runs + 2047) / 2048;
  const port::size_t parts = by_device < by_runs ? by_device : by_runs;
  return static_cast<port::uint32_t>(parts > 0 ? parts : 1);
}

/// The moments of values[first, end) with a stride of `step`, NaN left out: sums about the first
/// value met (no division per value), turned into a mean and m2 at the end. Host and device.
template <class T>
BATCHODE_HOST_DEVICE Moments moments_of(const T* values, port::size_t first, port::size_t end, port::size_t step) {
  double n = 0, shift = 0, s1 = 0, s2 = 0, low = 0, high = 0;
  for (port::size_t r = first; r < end; r += step) {
    const double x = static_cast<double>(values[r]);
    if (x != x) continue;  // NaN: a point the run never reached
    if (n == 0) {
      shift = low = high = x;
    }
    const double d = x - shift;
    n += 1;
    s1 += d;
    s2 += d * d;
    low = x < low ? x : low;
    high = x > high ? x : high;
  }
  if (n == 0) return Moments{0, 0, 0, 0, 0};
  const double offset = s1 / n, m2 = s2 - s1 * offset;
  return Moments{n, shift + offset, m2 > 0 ? m2 : 0, low, high};
}

#if BATCHODE_GPU_COMPILER
/// Block (row, part) = (blockIdx.x / parts, blockIdx.x % parts): the part's runs of the row, each
/// thread a stride of them, then the threads' moments joined pairwise in shared memory.
template <class T>
__global__ void __launch_bounds__(series_moments_block) series_moments(SeriesMomentsJob<T> job) {
  __shared__ Moments joined[series_moments_block];
  const port::uint32_t t = threadIdx.x;
  const port::uint32_t row = blockIdx.x / job.parts, part = blockIdx.x % job.parts;
  const port::size_t per_part = (job.runs + job.parts - 1) / job.parts;
  const port::size_t first = part * per_part;
  const port::size_t end = first + per_part < job.runs ? first + per_part : job.runs;
  const T* values = job.values + static_cast<port::size_t>(row) * job.stride;
  joined[t] = moments_of(values, first + t, end, series_moments_block);
  __syncthreads();
  for (port::uint32_t half = series_moments_block / 2; half > 0; half >>= 1) {
    if (t < half) joined[t] = join_moments(joined[t], joined[t + half]);
    __syncthreads();
  }
  if (t == 0) {
    const port::uint32_t k = row / job.width, c = row % job.width;
    double* out = job.moments +
                  ((static_cast<port::size_t>(k) * job.columns + job.first_column + c) * job.parts + part) * moments_values;
    const Moments& m = joined[0];
    out[0] = m.n;
    out[1] = m.mean;
    out[2] = m.m2;
    out[3] = m.min;
    out[4] = m.max;
  }
}
#endif

}  // namespace batchode::kernels
