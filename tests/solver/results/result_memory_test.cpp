// The Solver's pool of large result blocks: a result that dies gives its blocks back, the next
// result of the same shape gets them (already mapped), small arrays never enter the pool, the pool
// keeps a bounded number of free blocks, and results outlive the Solver that made them.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <limits>
#include <optional>
#include <vector>

#include "test_systems.hpp"

namespace {

using batchode::ResultMemoryPool;
using batchode::SolveOptions;
using batchode::SolveResult;

TEST(ResultMemoryPool, AReleasedBlockServesTheNextRequestOfItsSize) {
  ResultMemoryPool pool;
  const std::size_t bytes = ResultMemoryPool::min_block_bytes + 123;
  void* a = pool.acquire(bytes);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % (std::size_t(2) << 20), 0u) << "2 MiB boundary";
  pool.release(a, bytes);
  EXPECT_EQ(pool.free_blocks(), 1u);
  void* other_size = pool.acquire(bytes + (std::size_t(4) << 20));
  EXPECT_NE(other_size, a);
  EXPECT_EQ(pool.acquire(bytes), a);
  EXPECT_EQ(pool.free_blocks(), 0u);
  pool.release(a, bytes);
  pool.release(other_size, bytes + (std::size_t(4) << 20));
}

TEST(ResultMemoryPool, KeepsAtMostMaxFreeBlocks) {
  ResultMemoryPool pool;
  const std::size_t bytes = ResultMemoryPool::min_block_bytes;
  std::vector<void*> blocks;
  for (std::size_t i = 0; i < ResultMemoryPool::max_free_blocks + 3; ++i) blocks.push_back(pool.acquire(bytes));
  for (void* b : blocks) pool.release(b, bytes);
  EXPECT_EQ(pool.free_blocks(), ResultMemoryPool::max_free_blocks);
}

TEST(ResultMemoryPool, PinsRecycledBlocksOnlyWhenAskedAndWhereItCan) {
  ResultMemoryPool pool;
  const std::size_t bytes = ResultMemoryPool::min_block_bytes;
  void* a = pool.acquire(bytes);
  pool.release(a, bytes);
  EXPECT_FALSE(pool.is_pinned(a, bytes)) << "pinning was not enabled";
  pool.enable_pinning();
  void* b = pool.acquire(bytes);
  pool.release(b, bytes);
  // Pinned where a GPU runtime with a device took the registration; never a block it does not hold.
  const bool have_device = batchode::gpu::discover().available;
  if (!have_device) {
    EXPECT_FALSE(pool.is_pinned(b, bytes));
  }
  int on_stack = 0;
  EXPECT_FALSE(pool.is_pinned(&on_stack, sizeof on_stack));
  EXPECT_FALSE(pool.is_pinned(static_cast<char*>(b) + 1, ResultMemoryPool::rounded(bytes))) << "runs past the block";
}

// Rounding a request up to 2 MiB must not wrap past size_t (it gave a 0-byte block for the largest
// requests): the largest request that rounds within size_t is exact, one byte more is refused.
TEST(ResultMemoryPool, RoundingUpStopsAtTheSizeTBoundary) {
  constexpr std::size_t huge_page = std::size_t(2) << 20;
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  const std::size_t largest = max - huge_page + 1;  // 2^64 - 2^21, the last multiple of 2 MiB
  EXPECT_EQ(ResultMemoryPool::rounded(largest), largest);
  EXPECT_EQ(ResultMemoryPool::rounded(largest - huge_page + 1), largest);
  EXPECT_EQ(ResultMemoryPool::rounded(1), huge_page);
  EXPECT_THROW(ResultMemoryPool::rounded(largest + 1), batchode::InvalidInput);  // would round to 2^64
  EXPECT_THROW(ResultMemoryPool::rounded(max), batchode::InvalidInput);
  ResultMemoryPool pool;
  EXPECT_THROW(pool.acquire(max), batchode::InvalidInput);
  EXPECT_EQ(pool.free_blocks(), 0u);
}

TEST(ResultMemoryPool, ASolversNextResultReusesTheLastOnesMemory) {
  using batchode::testing::Decay;
  static_assert(Decay::n_states == 1 && Decay::n_params == 1);
  SolveOptions o;
  o.method = batchode::Method::euler;
  o.dt = 0.5;
  o.t_end = 1.0;
  o.backend = batchode::Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  const std::size_t runs = (ResultMemoryPool::min_block_bytes / sizeof(double)) + 1000;  // a pooled block
  const std::vector<double> y0(runs, 1.0);
  std::vector<double> rates(runs);
  for (std::size_t i = 0; i < runs; ++i) rates[i] = 1.0 + static_cast<double>(i % 7);
  std::optional<SolveResult<double>> kept;
  const double* first_block = nullptr;
  {
    batchode::Solver<Decay, double> solver(Decay{}, o);
    {
      const SolveResult<double> first = solver.solve(y0, rates);
      first_block = first.final_state().data();
    }
    const SolveResult<double> second = solver.solve(y0, rates);
    EXPECT_EQ(second.final_state().data(), first_block) << "the dead result's block was not reused";
    // The values are this solve's, not left over: euler with dt 0.5 twice gives (1 - 0.5 k)^2.
    for (std::size_t i = 0; i < runs; i += 997) {
      const double k = rates[i];
      EXPECT_DOUBLE_EQ(second.final_state(i, 0), (1 - 0.5 * k) * (1 - 0.5 * k)) << i;
    }
    kept.emplace(solver.solve(y0, rates));
  }
  // The Solver is gone; its last result still owns valid memory (and frees it when it dies).
  EXPECT_DOUBLE_EQ(kept->final_state(0, 0), 0.25);
  EXPECT_EQ(kept->n_runs(), runs);
}

}  // namespace
