// kernels/launch/: the order in which a chunk's threads take its runs, made on the device (issue 18). A warp
// runs until its slowest run is done, so on an uneven sweep (adaptive or stiff methods, a parameter
// that sets the time scale) a shuffled batch loses up to 1.4x to idle lanes (benchmarks/RESULTS.md).
// Each run gets a key from its inputs: the varying initial values and parameters the host chose
// (arrays/run_order.hpp: from a sample of the batch), scaled to [0, 2^bits) and interleaved bit by
// bit (a Morton code) into 12 bits; each segment of 4096 runs is then counting-sorted by key in shared
// memory. Neighbours in input space become neighbours in the order, so where a run's cost follows
// its inputs, warps get runs of equal cost. One kernel per chunk, on its stream after its upload and
// before integrate_chunk. Order within a key is whatever the atomics give: which thread takes a run
// never changes its result (each run reads and writes only its own rows).
// Plain device code, no standard header: nvcc/hipcc compile it in the user's unit and NVRTC/hipRTC
// in a runtime model's program.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode::kernels {

inline constexpr port::uint32_t run_order_key_bits = 12;
inline constexpr port::uint32_t run_order_buckets = 1u << run_order_key_bits;
inline constexpr port::uint32_t run_order_max_columns = run_order_key_bits;
/// Threads per block of run_order_segments, and runs per thread: each block sorts one segment of
/// run_order_segment runs.
inline constexpr unsigned run_order_block = 1024;
inline constexpr unsigned run_order_runs_per_thread = 4;
inline constexpr unsigned run_order_segment = run_order_block * run_order_runs_per_thread;
static_assert(run_order_buckets == run_order_block * run_order_runs_per_thread,
              "run_order_segments scans run_order_runs_per_thread bins per thread");

/// Blocks of run_order_segments for a chunk of `runs` runs.
constexpr unsigned run_order_blocks(port::size_t runs) {
  return static_cast<unsigned>((runs + run_order_segment - 1) / run_order_segment);
}

/// How a run's key is made: `columns` input columns (column c < n_states: initial value c, else
/// parameter c - n_states), each scaled as (v - low) * scale, or (log v - low) * scale where bit k of
/// log_mask is set, into cells [0, 2^bits), interleaved from the highest bit down.
struct RunOrderKey {
  port::uint32_t columns;
  port::uint32_t bits;
  port::uint32_t log_mask;
  port::uint32_t column[run_order_max_columns];
  double low[run_order_max_columns];
  double scale[run_order_max_columns];
};

/// Everything the order kernel of one chunk reads and writes; passed by value.
template <class T>
struct RunOrderJob {
  DeviceInputs<T> in;  ///< the chunk's inputs (in.stride runs)
  port::uint32_t n_states, n_params;
  RunOrderKey key;
  port::uint32_t* order;  ///< the result: order[i] is the run thread i integrates
};

static_assert(port::is_trivially_copyable_v<RunOrderJob<double>> &&
              port::is_standard_layout_v<RunOrderJob<double>>);

/// Run r's key; shared by the device and the host-side tests.
template <class T>
BATCHODE_HOST_DEVICE port::uint32_t run_order_key(const RunOrderKey& key, const T* y0, const T* params,
                                                  port::uint32_t n_states, port::uint32_t n_params,
                                                  port::size_t r) {
  const double top = static_cast<double>((1u << key.bits) - 1);
  port::uint32_t cell[run_order_max_columns];
  for (port::uint32_t k = 0; k < key.columns; ++k) {
    const port::uint32_t c = key.column[k];
    const double v =
        static_cast<double>(c < n_states ? y0[r * n_states + c] : params[r * n_params + (c - n_states)]);
    double x = (((key.log_mask >> k) & 1u) ? port::log(v) : v) - key.low[k];
    x *= key.scale[k];
    // Below the sampled range, or not a number (the log of a value <= 0 no sample showed): cell 0.
    x = x >= 0 ? (x < top ? x : top) : 0.0;
    cell[k] = static_cast<port::uint32_t>(x);
  }
  if (key.columns == 1) return cell[0];
  port::uint32_t code = 0;
  for (port::uint32_t j = key.bits; j-- > 0;) {
    for (port::uint32_t k = 0; k < key.columns; ++k) code = (code << 1) | ((cell[k] >> j) & 1u);
  }
  return code;
}

#if BATCHODE_GPU_COMPILER
/// One block of run_order_block threads per segment of run_order_segment consecutive runs: a
/// counting sort of the segment's runs by key, in shared memory, into the segment's stretch of the
/// order. A warp's 32 runs then span about 1/128 of what the segment spans (4096 random runs of a
/// one-parameter sweep: 1/128 of its range), close to a sort of the whole chunk (predicted from CPU
/// step counts of the uneven Lorenz sweep: 1.006x the lanes of a perfect sort, against 1.41x
/// shuffled), in one launch with no global atomics and nothing to clear between chunks.
template <class T>
__global__ void __launch_bounds__(run_order_block) run_order_segments(RunOrderJob<T> job) {
  __shared__ port::uint32_t position[run_order_buckets];  // counts, then each key's next position
  __shared__ port::uint32_t partial[run_order_block];     // per thread: the sum of its bins, scanned
  __shared__ port::uint16_t keys[run_order_segment];
  const port::uint32_t t = threadIdx.x;
  const port::size_t base = static_cast<port::size_t>(blockIdx.x) * run_order_segment;
  for (port::uint32_t j = 0; j < run_order_runs_per_thread; ++j)
    position[t * run_order_runs_per_thread + j] = 0;
  __syncthreads();
  for (port::uint32_t j = 0; j < run_order_runs_per_thread; ++j) {
    const port::uint32_t slot = j * run_order_block + t;
    const port::size_t r = base + slot;
    if (r < job.in.stride) {
      const port::uint32_t k =
          run_order_key(job.key, job.in.y0, job.in.params, job.n_states, job.n_params, r);
      keys[slot] = static_cast<port::uint16_t>(k);
      atomicAdd(&position[k], 1u);
    }
  }
  __syncthreads();
  // Exclusive prefix sum of the bins: each thread's four, then the threads' sums (Hillis-Steele).
  port::uint32_t own = 0;
  for (port::uint32_t j = 0; j < run_order_runs_per_thread; ++j)
    own += position[t * run_order_runs_per_thread + j];
  partial[t] = own;
  __syncthreads();
  for (port::uint32_t offset = 1; offset < run_order_block; offset <<= 1) {
    const port::uint32_t add = t >= offset ? partial[t - offset] : 0u;
    __syncthreads();
    partial[t] += add;
    __syncthreads();
  }
  port::uint32_t first = partial[t] - own;
  for (port::uint32_t j = 0; j < run_order_runs_per_thread; ++j) {
    const port::uint32_t count = position[t * run_order_runs_per_thread + j];
    position[t * run_order_runs_per_thread + j] = first;
    first += count;
  }
  __syncthreads();
  for (port::uint32_t j = 0; j < run_order_runs_per_thread; ++j) {
    const port::uint32_t slot = j * run_order_block + t;
    const port::size_t r = base + slot;
    if (r < job.in.stride) {
      const port::uint32_t at = atomicAdd(&position[keys[slot]], 1u);
      job.order[base + at] = static_cast<port::uint32_t>(r);
    }
  }
}
#endif

}  // namespace batchode::kernels
