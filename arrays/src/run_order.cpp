// arrays/: the host's plan of a batch's run order (run_order.hpp): column ranges from a sample, the
// key's scaling, and the check that the batch is not already in input order.
#include "batchode/arrays/run_order.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace batchode::arrays {

namespace {

// A positive column whose largest sampled value is at least this many times its smallest, and whose
// values crowd its low end, is scaled by its logarithm.
constexpr double log_scale_ratio = 1e3;

}  // namespace

template <class T>
RunOrderPlan plan_run_order(const T* y0, const T* params, std::size_t runs, std::size_t n_states,
                            std::size_t n_params) {
  RunOrderPlan plan;
  if (runs < 2 || runs > std::numeric_limits<std::uint32_t>::max()) return plan;
  const std::size_t columns = n_states + (params != nullptr ? n_params : 0);
  auto value = [&](std::size_t r, std::size_t c) -> double {
    return c < n_states ? static_cast<double>(y0[r * n_states + c])
                        : static_cast<double>(params[r * n_params + (c - n_states)]);
  };
  // The sample: every stride-th run and its successor, each value read once into `sample` (the
  // reads miss the caches and the TLB: 512 pairs cost about 0.1 ms, 4096 pairs 1 ms on the H100 machine).
  const std::size_t stride = std::max<std::size_t>(1, runs / run_order_sampled_runs);
  // Each sample at a pseudo-random place within its stretch of `stride` runs: a fixed stride would
  // alias with a grid whose axis period divides it (and see one value of that axis).
  std::vector<std::size_t> rows;
  std::uint64_t jitter = 0x9E3779B97F4A7C15ull;
  for (std::size_t begin = 0; begin + 1 < runs; begin += stride) {
    jitter = jitter * 6364136223846793005ull + 1442695040888963407ull;  // Knuth's MMIX LCG
    const std::size_t r = std::min(begin + static_cast<std::size_t>((jitter >> 33) % stride), runs - 2);
    rows.push_back(r);
    rows.push_back(r + 1);
  }
  std::vector<double> sample(rows.size() * columns);  // sample[i * columns + c]: column c of rows[i]
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t c = 0; c < columns; ++c) sample[i * columns + c] = value(rows[i], c);
  }
  std::vector<double> low(columns), high(columns);
  for (std::size_t c = 0; c < columns; ++c) {
    low[c] = high[c] = sample[c];
    for (std::size_t i = 1; i < rows.size(); ++i) {
      low[c] = std::min(low[c], sample[i * columns + c]);
      high[c] = std::max(high[c], sample[i * columns + c]);
    }
  }
  // Whether more than half of the sampled values of column c lie in the lowest 1/64 of its linear
  // range, as with a log-spaced sweep: a linear key would put them in a few cells.
  auto crowded_low = [&](std::size_t c) {
    const double edge = low[c] + (high[c] - low[c]) / 64;
    std::size_t below = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) below += sample[i * columns + c] < edge ? 1 : 0;
    return 2 * below > rows.size();
  };

  kernels::RunOrderKey& key = plan.key;
  for (std::size_t c = 0; c < columns; ++c) {
    if (!(high[c] > low[c])) continue;
    ++plan.varying_columns;
    if (key.columns == kernels::run_order_max_columns) continue;
    const bool log = low[c] > 0 && high[c] >= log_scale_ratio * low[c] && crowded_low(c);
    const std::uint32_t k = key.columns++;
    key.column[k] = static_cast<std::uint32_t>(c);
    key.low[k] = log ? std::log(low[c]) : low[c];
    key.scale[k] = 1.0 / ((log ? std::log(high[c]) : high[c]) - key.low[k]);  // times the cells, below
    if (log) {
      key.log_mask |= 1u << k;
      ++plan.log_columns;
    }
  }
  if (key.columns == 0) return plan;
  key.bits = kernels::run_order_key_bits / key.columns;  // per column, >= 1
  const double cells = static_cast<double>(1u << key.bits);
  for (std::uint32_t k = 0; k < key.columns; ++k) key.scale[k] *= cells;

  // Already in input order? Count the sampled pairs of consecutive runs that are far apart in some
  // key column: more than one cell, and more than 8 times the spacing of the batch's runs spread
  // evenly over the column (a batch of fewer runs than cells is in order with steps of many cells).
  const double far = std::max(1.0, 8.0 * cells / static_cast<double>(runs));
  auto scaled = [&](std::uint32_t k, double v) {
    // As the key scales it (from low): differences of large values with a small range keep their digits.
    const double x = ((key.log_mask >> k) & 1u) != 0 ? std::log(std::max(v, std::numeric_limits<double>::min())) : v;
    return (x - key.low[k]) * key.scale[k];
  };
  std::size_t pairs = 0, jumps = 0;
  for (std::size_t i = 0; i + 1 < rows.size(); i += 2, ++pairs) {
    for (std::uint32_t k = 0; k < key.columns; ++k) {
      const std::size_t c = key.column[k];
      if (std::fabs(scaled(k, sample[(i + 1) * columns + c]) - scaled(k, sample[i * columns + c])) > far) {
        ++jumps;
        break;
      }
    }
  }
  plan.already_in_order = 16 * jumps <= pairs;
  plan.order = !plan.already_in_order;
  return plan;
}

template RunOrderPlan plan_run_order<float>(const float*, const float*, std::size_t, std::size_t,
                                            std::size_t);
template RunOrderPlan plan_run_order<double>(const double*, const double*, std::size_t, std::size_t,
                                             std::size_t);

}  // namespace batchode::arrays
