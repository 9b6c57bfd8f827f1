// The plan of a GPU chunk's run order (arrays/run_order.hpp) and the key the device sorts by
// (kernels/launch/run_order_kernels.hpp), with the device's counting sort replaced by a stable sort on the
// host: where no input varies, or a sweep is already in its own order, the chunk keeps its order; a
// shuffled one-parameter sweep comes back sorted to the key's resolution (linear and, over seven
// decades, logarithmic; uniform over (0, 100] stays linear); a shuffled two-parameter grid comes back
// in windows of a warp that each cover a small patch of the grid; every key is a valid bucket, also
// for values the sample missed.
#include "batchode/arrays/run_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace {

using batchode::arrays::plan_run_order;
using batchode::arrays::RunOrderPlan;
using batchode::kernels::run_order_buckets;
using batchode::kernels::run_order_key;

template <class T>
std::vector<std::uint32_t> keys_of(const RunOrderPlan& plan, const std::vector<T>& y0,
                                   const std::vector<T>& params, std::size_t runs, std::size_t ns,
                                   std::size_t np) {
  std::vector<std::uint32_t> keys(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    keys[r] = run_order_key(plan.key, y0.data(), params.data(), static_cast<std::uint32_t>(ns),
                            static_cast<std::uint32_t>(np), r);
  }
  return keys;
}

/// The device's order up to the order within a key: runs sorted by key.
template <class T>
std::vector<std::uint32_t> order_of(const RunOrderPlan& plan, const std::vector<T>& y0,
                                    const std::vector<T>& params, std::size_t runs, std::size_t ns,
                                    std::size_t np) {
  const std::vector<std::uint32_t> keys = keys_of(plan, y0, params, runs, ns, np);
  std::vector<std::uint32_t> order(runs);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  return order;
}

template <class T>
void shuffle(std::vector<T>& v, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
}

/// Mean over windows of 32 consecutive ordered runs of the range of `value` they cover.
template <class F>
double mean_window_span(const std::vector<std::uint32_t>& order, F value) {
  double span = 0;
  const std::size_t windows = order.size() / 32;
  for (std::size_t w = 0; w < windows; ++w) {
    double lo = 1e300, hi = -1e300;
    for (std::size_t i = 32 * w; i < 32 * w + 32; ++i)
      lo = std::min(lo, value(order[i])), hi = std::max(hi, value(order[i]));
    span += hi - lo;
  }
  return span / static_cast<double>(windows);
}

/// The largest decrease of `value` between consecutive ordered runs, over runs inside the sampled
/// range (keys other than the edge cells, which also hold the runs beyond it).
template <class F>
double largest_drop_inside(const std::vector<std::uint32_t>& order, const std::vector<std::uint32_t>& keys,
                           F value) {
  double drop = 0;
  auto inside = [&](std::uint32_t r) { return keys[r] != 0 && keys[r] != run_order_buckets - 1; };
  for (std::size_t i = 1; i < order.size(); ++i) {
    if (inside(order[i - 1]) && inside(order[i]))
      drop = std::max(drop, value(order[i - 1]) - value(order[i]));
  }
  return drop;
}

std::size_t edge_runs(const std::vector<std::uint32_t>& keys) {
  return static_cast<std::size_t>(std::count_if(
      keys.begin(), keys.end(), [](std::uint32_t k) { return k == 0 || k == run_order_buckets - 1; }));
}

TEST(RunOrderPlan, ConstantInputsKeepTheBatchOrder) {
  const std::size_t runs = 1000;
  std::vector<double> y0(runs * 3, 1.0), params(runs, 28.0);
  const RunOrderPlan plan = plan_run_order(y0.data(), params.data(), runs, 3, 1);
  EXPECT_FALSE(plan.order);
  EXPECT_EQ(plan.varying_columns, 0u);
}

// A sweep in its own order, and a grid along its fastest axis, already give warps neighbours: kept.
TEST(RunOrderPlan, SweepsInTheirOwnOrderAreKept) {
  const std::size_t runs = 1 << 16;
  std::vector<double> rho(runs), y0(runs, 1.0);
  for (std::size_t i = 0; i < runs; ++i)
    rho[i] = 100.0 * static_cast<double>(i) / static_cast<double>(runs - 1);
  RunOrderPlan plan = plan_run_order(y0.data(), rho.data(), runs, 1, 1);
  EXPECT_FALSE(plan.order);
  EXPECT_TRUE(plan.already_in_order);
  EXPECT_EQ(plan.varying_columns, 1u);
  std::vector<double> grid(2 * runs);  // 256 x 256, the second axis fastest
  for (std::size_t r = 0; r < runs; ++r) grid[2 * r] = double(r / 256), grid[2 * r + 1] = double(r % 256);
  plan = plan_run_order(y0.data(), grid.data(), runs, 1, 2);
  EXPECT_TRUE(plan.already_in_order);
  // A chunk of fewer runs than key cells steps over several cells from run to run, in order all the same.
  plan = plan_run_order(y0.data(), rho.data(), 1667, 1, 1);
  EXPECT_TRUE(plan.already_in_order);
  // One run in 8 out of place is no longer a sweep in order.
  for (std::size_t i = 0; i + 8 < runs; i += 8) std::swap(rho[i], rho[runs - 1 - i]);
  plan = plan_run_order(y0.data(), rho.data(), runs, 1, 1);
  EXPECT_TRUE(plan.order);
  EXPECT_FALSE(plan.already_in_order);
}

// rho shuffled over [0, 100]: sorted by key, rho never decreases by more than about a key cell
// (1/4096 of the range) inside the sampled range; the few runs beyond it share the edge cells. That
// is what makes each warp's runs alike.
TEST(RunOrderPlan, ShuffledSweepComesBackSortedToTheKeysResolution) {
  const std::size_t runs = std::size_t(1) << 16;
  std::vector<float> rho(runs);
  for (std::size_t i = 0; i < runs; ++i)
    rho[i] = 100.0f * static_cast<float>(i) / static_cast<float>(runs - 1);
  shuffle(rho, 1);
  std::vector<float> y0(runs * 3, 0.0f);
  for (std::size_t r = 0; r < runs; ++r) y0[r * 3] = 1.0f;
  const RunOrderPlan plan = plan_run_order(y0.data(), rho.data(), runs, 3, 1);
  ASSERT_TRUE(plan.order);
  EXPECT_EQ(plan.varying_columns, 1u);
  EXPECT_EQ(plan.log_columns, 0u);
  EXPECT_EQ(plan.key.columns, 1u);
  EXPECT_EQ(plan.key.bits, 12u);
  const std::vector<std::uint32_t> order = order_of(plan, y0, rho, runs, 3, 1);
  const std::vector<std::uint32_t> keys = keys_of(plan, y0, rho, runs, 3, 1);
  const double cell = 100.0 / 4096.0;
  EXPECT_LE(largest_drop_inside(order, keys, [&](std::uint32_t r) { return double(rho[r]); }), 1.5 * cell);
  EXPECT_LT(edge_runs(keys), runs / 100);
  // Shuffled, a window of 32 runs spans most of the range; ordered, 16 runs per cell: about two cells.
  EXPECT_LE(mean_window_span(order, [&](std::uint32_t r) { return double(rho[r]); }), 3.0 * cell);
}

// k3 log-spaced over 1e2 .. 1e9 (Robertson): ordered by its logarithm, so the keys spread over the
// seven decades instead of most runs falling into the lowest linear cell.
TEST(RunOrderPlan, LogSpacedSweepIsOrderedByItsLogarithm) {
  const std::size_t runs = 20000;
  std::vector<double> k(runs * 3), k3(runs);
  for (std::size_t i = 0; i < runs; ++i)
    k3[i] = std::pow(10.0, 2.0 + 7.0 * static_cast<double>(i) / (runs - 1));
  shuffle(k3, 2);
  for (std::size_t r = 0; r < runs; ++r) k[3 * r] = 0.04, k[3 * r + 1] = 3e7, k[3 * r + 2] = k3[r];
  std::vector<double> y0(runs * 3, 0.0);
  for (std::size_t r = 0; r < runs; ++r) y0[3 * r] = 1.0;
  const RunOrderPlan plan = plan_run_order(y0.data(), k.data(), runs, 3, 3);
  ASSERT_TRUE(plan.order);
  EXPECT_EQ(plan.log_columns, 1u);
  const std::vector<std::uint32_t> order = order_of(plan, y0, k, runs, 3, 3);
  const std::vector<std::uint32_t> keys = keys_of(plan, y0, k, runs, 3, 3);
  const double cell = 7.0 / 4096.0;  // decades per key cell
  EXPECT_LE(largest_drop_inside(order, keys, [&](std::uint32_t r) { return std::log10(k[3 * r + 2]); }),
            1.5 * cell);
  EXPECT_LT(edge_runs(keys), runs / 50);
}

// Positive and spanning more than three decades is not enough for a logarithm: uniform values over
// (0, 100] crowd no end and keep a linear key.
TEST(RunOrderPlan, UniformPositiveValuesKeepALinearKey) {
  const std::size_t runs = 10000;
  std::vector<double> p(runs), y0(runs, 1.0);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(1e-3, 100.0);
  for (double& v : p) v = u(rng);
  p[0] = 1e-3;
  const RunOrderPlan plan = plan_run_order(y0.data(), p.data(), runs, 1, 1);
  EXPECT_TRUE(plan.order);
  EXPECT_EQ(plan.log_columns, 0u);
}

// A 256 x 256 grid over (a, b), shuffled: consecutive windows of 32 ordered runs cover on average a
// small patch of the grid in both directions (a Morton order of 6 bits per axis).
TEST(RunOrderPlan, TwoParameterGridGroupsNeighbours) {
  const std::size_t side = 256, runs = side * side;
  std::vector<std::uint32_t> ids(runs);
  std::iota(ids.begin(), ids.end(), 0u);
  shuffle(ids, 3);
  std::vector<double> params(runs * 2), y0(runs, 1.0);
  for (std::size_t r = 0; r < runs; ++r) {
    params[2 * r] = static_cast<double>(ids[r] / side);
    params[2 * r + 1] = -5.0 + static_cast<double>(ids[r] % side) / 10.0;
  }
  const RunOrderPlan plan = plan_run_order(y0.data(), params.data(), runs, 1, 2);
  ASSERT_TRUE(plan.order);
  EXPECT_EQ(plan.varying_columns, 2u);
  EXPECT_EQ(plan.key.bits, 6u);
  const std::vector<std::uint32_t> order = order_of(plan, y0, params, runs, 1, 2);
  // Shuffled, a window spans about 94% of each axis; in Morton cells of 4 x 4 grid points, a few %.
  EXPECT_LT(mean_window_span(order, [&](std::uint32_t r) { return params[2 * r] / 255.0; }), 0.05);
  EXPECT_LT(mean_window_span(order, [&](std::uint32_t r) { return params[2 * r + 1] / 25.5; }), 0.05);
}

// Values the sample did not see (runs 2, 3 and 5 are not among the 128 sampled pairs of this chunk:
// the sample is deterministic) fall into the edge cells, and a value <= 0 in a column keyed by its
// logarithm into cell 0: every key is a valid bucket.
TEST(RunOrderPlan, ValuesOutsideTheSampleGetEdgeKeys) {
  const std::size_t runs = 8192;
  std::vector<double> p(runs), y0(runs, 1.0);
  for (std::size_t r = 0; r < runs; ++r)
    p[r] = std::pow(10.0, 1.0 + 6.0 * static_cast<double>((r * 7919) % runs) / runs);
  p[2] = 1e12;  // above the sampled range
  p[3] = -5.0;  // below it, and no logarithm
  p[5] = 0.0;
  const RunOrderPlan plan = plan_run_order(y0.data(), p.data(), runs, 1, 1);
  ASSERT_TRUE(plan.order);
  ASSERT_EQ(plan.log_columns, 1u);
  const std::vector<std::uint32_t> keys = keys_of(plan, y0, p, runs, 1, 1);
  for (std::uint32_t key : keys) ASSERT_LT(key, run_order_buckets);
  EXPECT_EQ(keys[2], run_order_buckets - 1);
  EXPECT_EQ(keys[3], 0u);
  EXPECT_EQ(keys[5], 0u);
}

TEST(RunOrderPlan, ChunksBeyondThirtyTwoBitsAreNotOrdered) {
  const RunOrderPlan plan = plan_run_order(static_cast<const double*>(nullptr),
                                           static_cast<const double*>(nullptr), std::size_t(1) << 32, 1, 0);
  EXPECT_FALSE(plan.order);
}

}  // namespace
