// kernels/launch/: several threads per run (a lane group) for systems too large for one thread's registers.
// One run per thread keeps a run's state and stages in registers, which holds up to ~32 states in
// double and ~64 in float; past that they spill to local memory and an explicit step's rate falls 8x
// (benchmarks/RESULTS.md, "Large systems"). A lane group splits a run over L lanes of one warp: lane l
// keeps the states l M .. l M + M - 1 (M = N / L) and their stages in registers and steps them with
// the same RkStepper as one thread does; the right-hand side reads the run's whole stage argument from
// shared memory, where each lane writes its share before the group evaluates. A system opts in by
// giving one component of its right-hand side, reading the state by y[k]:
//
//   template <class T, class State>
//   BATCHODE_HOST_DEVICE T rhs_component(std::size_t i, T t, const State& y, const T* p) const;  // dydt[i]
//
// (the call operator stays: the CPU path and the other kernels use it; it may call rhs_component with
// its own y). Sums over a run's states (the error norm, the first step's estimate) are taken in state
// order from shared memory, and a run's lanes take every decision together: a run's numbers are those
// of one thread per run, bit for bit. Explicit methods, final states only, systems without events or
// drivers; the rest runs one thread per run (lanes_per_run below).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/loop/events.hpp"
#include "batchode/kernels/methods/rosenbrock_tableaux.hpp"
#include "batchode/kernels/methods/tableaux.hpp"

// When a run is split over lanes, and over how many (lanes_per_run), in 32-bit words of a run's arrays
// (its states, its stages and two step temporaries): a run whose arrays take at most
// BATCHODE_SPLIT_RUN_WORDS stays on one thread; a larger one is split until a lane's share takes at most
// BATCHODE_LANE_WORDS. Measured on an H100 (benchmarks/RESULTS.md, "Several lanes per run";
// lanes_kernel.sh; an H200 gave the same choices): one thread per run was fastest up to 448 words (RK4 on 32
// states in double, 64 in float) and slower from 640 (dopri5 on 32 states in double); split runs were
// fastest, or within 4% of it, at shares of 80 to 224 words.
#ifndef BATCHODE_SPLIT_RUN_WORDS
#define BATCHODE_SPLIT_RUN_WORDS 512
#endif
#ifndef BATCHODE_LANE_WORDS
#define BATCHODE_LANE_WORDS 128
#endif

namespace batchode::kernels {

/// A run's state as rhs_component reads it on the GPU: y[k] is state k. Lane l of L keeps states
/// [l M, (l + 1) M) (M = N / L), stored with one value of padding after each lane's block, so that
/// the lanes' blocks, and the runs of a warp (lane_group_stride), start on different banks.
template <class T, port::size_t N, port::size_t L>
struct LaneGroupState {
  static constexpr port::size_t share = N / L;
  const T* values;
  /// Where state k is kept.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE static constexpr port::size_t slot(port::size_t k) {
    return L > 1 ? k + k / share : k;
  }
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE const T& operator[](port::size_t k) const {
    return values[slot(k)];
  }
};

}  // namespace batchode::kernels

namespace batchode {
/// Whether system S in precision T gives rhs_component (the lane-group layout's one requirement),
/// reading the state a lane group passes. The member is documented and detected in
/// kernels/core/system.hpp (detail::has_rhs_component, over a State type); the State is this room's.
/// A trait over a system, so in `batchode` (system.hpp's namespace rule).
template <class S, class T>
inline constexpr bool has_rhs_component_v =
    detail::has_rhs_component<S, T, kernels::LaneGroupState<T, S::n_states, 2>>::value;
}  // namespace batchode

namespace batchode::kernels {

/// Whether method Tab's runs may be split over lanes: explicit GPU methods whose steps take no sum
/// over a run's states inside the stepper. dop853 does (its two estimates combined by their norms,
/// tableaux.hpp's combines_estimates_v): over a lane's share that would be the share's, not the run's.
template <class Tab>
inline constexpr bool splits_over_lanes_v =
    tableau::runs_on_gpu_v<Tab> && !tableau::is_stiff_v<Tab> && !tableau::combines_estimates_v<Tab>;

/// lanes_per_run's rule by size, for a run of n states of an explicit method of `stages` stages in
/// values of value_bytes: 1 where the run's arrays (the state, the stages and two step temporaries)
/// take at most BATCHODE_SPLIT_RUN_WORDS 32-bit words, else the fewest lanes (a power of two dividing
/// n, at most 32) whose share takes at most BATCHODE_LANE_WORDS. Also the host's, for a model compiled
/// at run time (backends/gpu/runtime_kernel_source.hpp's runtime_lanes_per_run).
BATCHODE_HOST_DEVICE constexpr port::size_t lanes_for_size(port::size_t n, port::size_t stages,
                                                           port::size_t value_bytes) {
  const port::size_t words = value_bytes / 4;
  const port::size_t arrays = stages + 3;
  port::size_t l = 1;
  // (No early return: nvcc flags the loop after one as unreachable where n is constant.)
  const bool split = arrays * n * words > BATCHODE_SPLIT_RUN_WORDS;
  while (split && l < 32 && n % (2 * l) == 0 && arrays * (n / l) * words > BATCHODE_LANE_WORDS) l *= 2;
  return l;
}

/// The lanes that integrate one run of System with method Tab in precision T on the GPU: 1 (one thread
/// per run) unless the method splits over lanes (splits_over_lanes_v) and the system gives rhs_component
/// and has no events or drivers; then the system's own `lanes_per_run` if it declares one, else
/// lanes_for_size's.
template <class Tab, class System, class T>
constexpr port::size_t lanes_per_run() {
  constexpr port::size_t n = System::n_states;
  if constexpr (!has_rhs_component_v<System, T> || !splits_over_lanes_v<Tab> || n_events_v<System> != 0 ||
                n_drivers_v<System> != 0) {
    return 1;
  } else if constexpr (declared_lanes_per_run_v<System> != 0) {
    constexpr port::size_t l = declared_lanes_per_run_v<System>;
    static_assert(l <= 32 && (l & (l - 1)) == 0 && n % l == 0,
                  "lanes_per_run: a power of two of at most 32 that divides n_states");
    return l;
  } else {
    return lanes_for_size(n, static_cast<port::size_t>(Tab::stages), sizeof(T));
  }
}

/// Shared-memory values a group keeps for one run: its N states and a value of padding after each
/// lane's block (LaneGroupState), so that no two lanes of a warp meet on one bank where N / L is a
/// multiple of 16.
BATCHODE_HOST_DEVICE constexpr port::size_t lane_group_stride(port::size_t n, port::size_t lanes) {
  return n + (lanes > 1 ? lanes : 0);
}
template <port::size_t N, port::size_t L>
BATCHODE_HOST_DEVICE constexpr port::size_t lane_group_stride() {
  return lane_group_stride(N, L);
}

/// One lane's view of a run of System split over L lanes: a system of n_states = N / L states (the
/// lane's share: states lane N / L + j), whose right-hand side the run's lanes evaluate together through
/// `shared` (the run's lane_group_stride values), and whose sums and tests over states are the run's
/// (kernels/loop/loop_parts.hpp's is_state_share). Every member is called by all L lanes of the run at once.
template <class System, class T, port::size_t L>
struct LaneGroup {
  static_assert(System::n_states % L == 0, "a run's states split evenly over its lanes");
  static constexpr bool is_state_share = true;
  static constexpr port::size_t n_states_total = System::n_states;
  static constexpr port::size_t n_states = System::n_states / L;
  static constexpr port::size_t n_params = System::n_params;

  const System& system;
  T* shared;                 ///< the run's values in shared memory (L = 1: any N values)
  port::uint32_t lane;       ///< in [0, L)
  port::uint32_t lane_base;  ///< the group's first lane in its warp

  /// Orders the group's shared-memory writes and reads: a barrier of the group's lanes.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void sync() const {
    if constexpr (L > 1) {
#if defined(__CUDA_ARCH__)
      __syncwarp(group_mask());
#elif defined(__HIP_DEVICE_COMPILE__)
      // A wavefront's lanes run in lockstep: a fence within it orders the shared-memory accesses.
      __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
      __builtin_amdgcn_wave_barrier();
      __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#endif
    }
  }

  /// Whether `value` holds on every lane of the run.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool all_of(bool value) const {
    if constexpr (L > 1) {
#if defined(__CUDA_ARCH__)
      return __all_sync(group_mask(), value) != 0;
#elif defined(__HIP_DEVICE_COMPILE__)
      const unsigned long long lanes = (~0ull >> (64 - L)) << lane_base;
      return (__ballot(value) & lanes) == lanes;
#endif
    }
    return value;
  }

  using State = LaneGroupState<T, n_states_total, L>;

  /// The first of the lane's states.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE port::size_t first() const { return lane * n_states; }

  /// dydt for the lane's share from the lane's share y of the stage argument. The lane's states are
  /// consecutive, so a right-hand side that reads neighbours (i +- 1, ...) reads most of them once for
  /// two components: the shared-memory loads, not arithmetic, bound a step here (RESULTS.md).
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void operator()(T t, const T* y, const T* p, T* dydt) const {
    publish(y);
    const State state{shared};
    BATCHODE_UNROLL
    for (port::size_t j = 0; j < n_states; ++j) dydt[j] = system.rhs_component(first() + j, t, state, p);
  }

  /// sum_i q_i^2 over the run's states in state order (q: the lane's share), on every lane: the sum one
  /// thread per run takes (kernels/loop/step_control.hpp's error_norm_squared and initial_step), the same
  /// bits.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T sum_of_squares(const T* q) const {
    publish(q);
    const State v{shared};
    T sum = 0;  // (as step_control.hpp's sums: one way to fuse each term)
    for (port::size_t i = 0; i < n_states_total; ++i) sum += v[i] * v[i];
    return sum;
  }

 private:
  /// The run's values from each lane's share, once every lane has read the last ones.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void publish(const T* values) const {
    sync();
    BATCHODE_UNROLL
    for (port::size_t j = 0; j < n_states; ++j) shared[State::slot(first() + j)] = values[j];
    sync();
  }
#if defined(__CUDA_ARCH__)
  BATCHODE_DEVICE BATCHODE_FORCEINLINE unsigned group_mask() const {
    return L >= 32 ? 0xffffffffu : ((1u << (L % 32)) - 1u) << lane_base;
  }
#endif
};

}  // namespace batchode::kernels
