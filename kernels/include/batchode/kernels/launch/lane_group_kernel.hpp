// kernels/launch/: the batch kernel of the lane-group layout (kernels/launch/lane_group.hpp): L threads of a
// warp integrate one run of a chunk, final state only. It takes the place of batch_kernel.hpp's final-state
// kernel where lanes_per_run is above 1 (backends/gpu/gpu_runner.hpp); same inputs, same outputs,
// the same numbers.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/launch/batch_kernel.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/launch/lane_group.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/methods/rk_stepper.hpp"
#include "batchode/kernels/loop/run_integrator.hpp"

namespace batchode::kernels {

/// Bytes of shared memory a block of `block` threads needs for runs of n states split over `lanes` lanes,
/// in values of value_bytes; and for runs of System in T split over L lanes.
BATCHODE_HOST_DEVICE constexpr port::size_t lane_group_shared_bytes(port::size_t block, port::size_t n,
                                                                    port::size_t lanes,
                                                                    port::size_t value_bytes) {
  return (block / lanes) * lane_group_stride(n, lanes) * value_bytes;
}
template <class System, class T, port::size_t L>
BATCHODE_HOST_DEVICE constexpr port::size_t lane_group_shared_bytes(port::size_t block) {
  return lane_group_shared_bytes(block, System::n_states, L, sizeof(T));
}

/// The shared memory every device gives a block without opting in.
inline constexpr port::size_t lane_group_shared_limit = 48 * 1024;

/// The block for runs of n states split over `lanes` lanes (values of value_bytes), and of System in T
/// over L: `block` threads halved (multiples of 32, at least 32) until the block's runs fit
/// lane_group_shared_limit. A run too large for that in a block of 32 threads does not fit: the caller
/// checks lane_group_shared_bytes of the result.
BATCHODE_HOST_DEVICE constexpr port::size_t lane_group_block(port::size_t block, port::size_t n,
                                                             port::size_t lanes, port::size_t value_bytes) {
  while (block > 32 && lane_group_shared_bytes(block, n, lanes, value_bytes) > lane_group_shared_limit) {
    block = block / 2 / 32 * 32 < 32 ? 32 : block / 2 / 32 * 32;
  }
  return block;
}
template <class System, class T, port::size_t L>
BATCHODE_HOST_DEVICE constexpr port::size_t lane_group_block(port::size_t block) {
  return lane_group_block(block, System::n_states, L, sizeof(T));
}

/// Lane `lane` of run r's group (`shared`: the group's values) integrates its share of the run and
/// writes it: the final state, and (lane 0) the status and counters. Shared by the kernel and by host
/// tests of one lane (L = 1).
template <class Tab, class System, class T, port::size_t L>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void integrate_lane_share(
    const System& sys, const RunSettings<T>& plan, const DeviceInputs<T>& in, const DeviceOutputs<T>& out,
    port::size_t r, T* shared, port::uint32_t lane, port::uint32_t lane_base) {
  static_assert(splits_over_lanes_v<Tab>, "lane groups step explicit methods whose steps sum over no states");
  constexpr port::size_t N = System::n_states;
  constexpr port::size_t P = System::n_params;
  using Share = LaneGroup<System, T, L>;
  constexpr port::size_t M = Share::n_states;
  const Share share{sys, shared, lane, lane_base};
  Vec<T, M> y;
  BATCHODE_UNROLL
  for (port::size_t j = 0; j < M; ++j) y[j] = in.y0[r * N + share.first() + j];
  T p[P > 0 ? P : 1];
  BATCHODE_UNROLL
  for (port::size_t i = 0; i < P; ++i) p[i] = in.params[r * P + i];
  RkStepper<Tab, T, M> stepper;
  RunCounters counters{};
  NoSeries none;
  T t_reached = plan.t0;
  const Status status = integrate_run(stepper, share, y, P > 0 ? p : nullptr, plan, none, counters, t_reached);
  BATCHODE_UNROLL
  for (port::size_t j = 0; j < M; ++j) out.final_state[r * N + share.first() + j] = y[j];
  if (lane == 0) store_run_outcome(out, r, status, counters, t_reached);
}

#if BATCHODE_GPU_COMPILER
// clang (HIP) does not unroll a loop with a run-time trip count around a barrier (a convergent call:
// the fixed-step loop's BATCHODE_UNROLL_4 in run_integrator.hpp, around LaneGroup's syncs) and says
// so; the loop stays a loop.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
/// L consecutive threads per run (a group never straddles a warp: L divides 32); launched with
/// L times the threads of integrate_chunk and lane_group_shared_bytes of dynamic shared memory. A
/// group's lanes take the same branches (every decision is on values the run's lanes share), so the
/// group barriers in LaneGroup always meet; groups past the chunk's end return together.
template <class Tab, class System, class T, port::size_t L>
__global__ void integrate_chunk_in_lane_groups(System sys, RunSettings<T> plan, DeviceInputs<T> in,
                                               DeviceOutputs<T> out) {
  extern __shared__ __attribute__((aligned(16))) unsigned char lane_group_memory[];
  const port::size_t slot = (static_cast<port::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / L;
  if (slot >= in.stride) return;
  const port::size_t r = in.order != nullptr ? static_cast<port::size_t>(in.order[slot]) : slot;
  const port::uint32_t lane = threadIdx.x % L;
  T* shared =
      reinterpret_cast<T*>(lane_group_memory) + (threadIdx.x / L) * lane_group_stride<System::n_states, L>();
  integrate_lane_share<Tab, System, T, L>(sys, plan, in, out, r, shared, lane,
                                          static_cast<port::uint32_t>(threadIdx.x % warpSize - lane));
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
#endif

}  // namespace batchode::kernels
