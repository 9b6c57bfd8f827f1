// arrays/: the host's half of ordering a GPU solve's runs (issue 18; the device's half, and why, in
// kernels/launch/run_order_kernels.hpp): from a sample of the batch's runs, which input columns vary, how to
// scale each into the key (linearly, or by its logarithm for a positive column spanning three decades
// or more whose values crowd its low end, as a log-spaced sweep's do), and whether ordering is worth
// anything at all: a batch whose consecutive runs are already neighbours in input space (a sweep in
// its own order, a grid along its fastest axis) keeps its order and pays nothing more.
//
// Why the inputs and not a cost estimate: on the CPU, ordering a shuffled Lorenz sweep by a pilot
// integration costs 9-32% of the solve and leaves 1.04-1.16x of lanes idle, while ordering by rho
// costs no integration and leaves 1.003x (benchmarks/RESULTS.md).
#pragma once

#include <cstddef>

#include "batchode/kernels/launch/run_order_kernels.hpp"

namespace batchode::arrays {

/// Runs sampled per plan (about every runs/128-th, with its successor). Each sampled row is a cache
/// and TLB miss: 1024 rows cost about 0.1 ms on the H100 machine.
inline constexpr std::size_t run_order_sampled_runs = 128;

/// What plan_run_order() decided.
struct RunOrderPlan {
  /// true: the device orders each chunk with `key`; false: the runs go in their own order, because
  /// no sampled input varies or its runs are already in input order (already_in_order).
  bool order = false;
  bool already_in_order = false;
  std::size_t varying_columns = 0;  ///< sampled input columns that vary (also those beyond the key's)
  std::size_t log_columns = 0;      ///< key columns scaled by their logarithm
  kernels::RunOrderKey key{};
};

/// Plans the order of a batch (or part) of `runs` runs whose run-major inputs are y0 (runs x n_states) and
/// params (runs x n_params; nullptr when n_params == 0), all finite, reading only a sample of about
/// run_order_sampled_runs runs and their successors. The key's ranges come from the sample: a run
/// outside them falls into an edge cell, which costs some order there and never a wrong result.
/// The batch is left in its order when at most 1 in 16 sampled pairs of consecutive runs are far
/// apart in some key column (more than one cell, and more than 8 times the spacing of the batch's
/// runs spread evenly over the column).
template <class T>
RunOrderPlan plan_run_order(const T* y0, const T* params, std::size_t runs, std::size_t n_states,
                            std::size_t n_params);

extern template RunOrderPlan plan_run_order<float>(const float*, const float*, std::size_t, std::size_t,
                                                   std::size_t);
extern template RunOrderPlan plan_run_order<double>(const double*, const double*, std::size_t, std::size_t,
                                                    std::size_t);

}  // namespace batchode::arrays
