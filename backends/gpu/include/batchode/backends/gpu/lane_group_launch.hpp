// backends/gpu/: the launch of a lane-group kernel (kernels/launch/lane_group_kernel.hpp), several lanes
// per run, made from the grid and block one thread per run would have: for compiled-in systems
// (gpu_runner.hpp) and models compiled at run time (runtime_gpu_runner.hpp). Host code.
#pragma once

#include <cstddef>
#include <string>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/kernels/launch/lane_group_kernel.hpp"

namespace batchode {

struct LaneGroupLaunch {
  unsigned grid, block;
  std::size_t shared_bytes;
};

/// The lane-group kernel's launch for the runs one-thread-per-run `grid` x `block` covers, each run
/// of n_states values of value_bytes split over `lanes` lanes: `lanes` times the threads, in blocks
/// halved (multiples of 32) until their runs' values fit the 48 KiB of shared memory every device
/// gives a block without opting in. Throws InvalidInput where one run's values do not fit even so.
inline LaneGroupLaunch lane_group_launch(unsigned grid, unsigned block, std::size_t n_states,
                                         std::size_t lanes, std::size_t value_bytes) {
  const std::size_t threads = static_cast<std::size_t>(grid) * block * lanes;
  const auto b = static_cast<unsigned>(kernels::lane_group_block(block, n_states, lanes, value_bytes));
  const std::size_t bytes = kernels::lane_group_shared_bytes(b, n_states, lanes, value_bytes);
  if (bytes > kernels::lane_group_shared_limit) {
    throw InvalidInput("a run of " + std::to_string(n_states) + " states split over " +
                       std::to_string(lanes) + " lanes needs " + std::to_string(bytes) +
                       " bytes of shared memory a block, over the 49152 a block has: declare more "
                       "lanes_per_run, or give no rhs_component (one thread per run)");
  }
  return {static_cast<unsigned>((threads + b - 1) / b), b, bytes};
}

}  // namespace batchode
