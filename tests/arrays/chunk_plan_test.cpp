// tests/arrays: chunk planning (budget arithmetic, alignment, forced chunks, refusals) and the host
// memory check.
#include "batchode/arrays/chunk_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "batchode/kernels/core/status.hpp"
#include "expect_invalid_input.hpp"

namespace {

using batchode::GpuOptions;
using batchode::InvalidInput;
using batchode::OutputSelection;
using batchode::arrays::ChunkPlan;
using batchode::arrays::plan_chunks;
using batchode::arrays::RunFootprint;

RunFootprint bytes_per_run(std::size_t device) { return RunFootprint{device, device, device}; }

GpuOptions fraction(double f) {
  GpuOptions gpu;
  gpu.memory_fraction = f;
  return gpu;
}

// The chunks tile [0, n_runs) in order, none empty, none above capacity.
void expect_tiles(const ChunkPlan& plan) {
  std::size_t next = 0;
  for (std::size_t i = 0; i < plan.n_chunks; ++i) {
    EXPECT_EQ(plan.first(i), next) << "chunk " << i;
    EXPECT_GT(plan.count(i), 0u) << "chunk " << i;
    EXPECT_LE(plan.count(i), plan.chunk_runs) << "chunk " << i;
    next += plan.count(i);
  }
  EXPECT_EQ(next, plan.n_runs);
}

using batchode::testing::invalid_input_message;

TEST(RunFootprint, CountsInputsActiveOutputsAndResult) {
  // 3 states, 2 parameters, 4 saves of doubles: y0 3 + params 2 + final 3 + series 12 = 20 values.
  const RunFootprint all =
      batchode::arrays::run_footprint(3, 2, 4, sizeof(double), OutputSelection{true, true});
  // The status (4 bytes) comes with the stop time (a value), the counters are 12.
  EXPECT_EQ(all.device_bytes_per_run, 20 * 8 + 4 + 8 + 12u);
  EXPECT_EQ(all.host_staging_bytes_per_run, all.device_bytes_per_run);
  // The result always holds status, stop time and counters, never the inputs.
  EXPECT_EQ(all.result_bytes_per_run,
            15 * 8 + sizeof(batchode::Status) + sizeof(double) + sizeof(batchode::RunCounters));

  const RunFootprint bare =
      batchode::arrays::run_footprint(3, 0, 0, sizeof(float), OutputSelection{false, false});
  EXPECT_EQ(bare.device_bytes_per_run, 6 * 4u);
  EXPECT_EQ(bare.result_bytes_per_run, 3 * 4 + 16 + 4u);
}

TEST(RunFootprint, RefusesNoStatesAndOverflow) {
  EXPECT_THROW(batchode::arrays::run_footprint(0, 1, 1, 8, {}), InvalidInput);
  EXPECT_THROW(batchode::arrays::run_footprint(1, 0, 0, 0, {}), InvalidInput);
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
  EXPECT_THROW(batchode::arrays::run_footprint(4, 0, huge, 8, {}), InvalidInput);
}

TEST(PlanChunks, FractionOfFreeMemoryAlignedCapacity) {
  // Budget 0.5 * 1e6 = 500000 bytes; 2 slots x 100 bytes per run: 2500 runs, aligned down to 2304.
  const ChunkPlan plan = plan_chunks(10000, bytes_per_run(100), 1'000'000, fraction(0.5));
  EXPECT_EQ(plan.budget_bytes, 500000u);
  EXPECT_EQ(plan.slots, 2u);
  EXPECT_EQ(plan.chunk_runs, 2304u);
  EXPECT_EQ(plan.chunk_runs % 256, 0u);
  EXPECT_EQ(plan.n_chunks, 5u);  // 4 x 2304 + 784
  EXPECT_EQ(plan.device_bytes, 2 * 2304 * 100u);
  EXPECT_LE(plan.device_bytes, plan.budget_bytes);
  EXPECT_EQ(plan.host_staging_bytes, 2 * 2304 * 100u);
  EXPECT_EQ(plan.first(4), 4 * 2304u);
  EXPECT_EQ(plan.count(4), 784u);
  EXPECT_FALSE(plan.balanced);
  expect_tiles(plan);
}

TEST(PlanChunks, AlignmentAndSlotsAreParameters) {
  const ChunkPlan plan = plan_chunks(10000, bytes_per_run(100), 1'000'000, fraction(0.5), 32, 3);
  // 500000 / 300 = 1666 runs, aligned down to 32: 1664.
  EXPECT_EQ(plan.chunk_runs, 1664u);
  EXPECT_EQ(plan.slots, 3u);
  EXPECT_EQ(plan.device_bytes, 3 * 1664 * 100u);
  expect_tiles(plan);
}

TEST(PlanChunks, WholeBatchInOneChunkWhenItFits) {
  const ChunkPlan plan = plan_chunks(1000, bytes_per_run(100), 1'000'000, fraction(0.8));
  EXPECT_EQ(plan.chunk_runs, 1000u);  // all runs, not rounded to the alignment
  EXPECT_EQ(plan.n_chunks, 1u);
  EXPECT_EQ(plan.count(0), 1000u);
  expect_tiles(plan);
}

TEST(PlanChunks, ExplicitBytesOverrideTheFraction) {
  GpuOptions gpu = fraction(0.01);
  gpu.memory_bytes = 51200;  // exactly 256 runs x 2 slots x 100 bytes
  const ChunkPlan plan = plan_chunks(1000, bytes_per_run(100), 1'000'000, gpu);
  EXPECT_EQ(plan.budget_bytes, 51200u);
  EXPECT_EQ(plan.chunk_runs, 256u);
  EXPECT_EQ(plan.n_chunks, 4u);
  EXPECT_EQ(plan.count(3), 1000 - 3 * 256u);
  expect_tiles(plan);
}

TEST(PlanChunks, RefusesBudgetAboveFreeMemory) {
  GpuOptions gpu;
  gpu.memory_bytes = 2'000'000;
  const std::string message =
      invalid_input_message([&] { plan_chunks(10, bytes_per_run(100), 1'000'000, gpu); });
  EXPECT_NE(message.find("2000000"), std::string::npos) << message;
  EXPECT_NE(message.find("1000000"), std::string::npos) << message;
}

TEST(PlanChunks, RefusesBadFractionAndEmptyBatch) {
  for (double f : {1.5, 0.0, -0.1, std::nan("")}) {
    const std::string message =
        invalid_input_message([&] { plan_chunks(10, bytes_per_run(100), 1'000'000, fraction(f)); });
    EXPECT_NE(message.find("memory_fraction"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(plan_chunks(10, bytes_per_run(100), 1'000'000, fraction(1.0)));
  EXPECT_THROW(plan_chunks(0, bytes_per_run(100), 1'000'000, fraction(0.5)), InvalidInput);
  EXPECT_THROW(plan_chunks(10, bytes_per_run(100), 1'000'000, fraction(0.5), 0), InvalidInput);
  EXPECT_THROW(plan_chunks(10, bytes_per_run(100), 1'000'000, fraction(0.5), 256, 0), InvalidInput);
}

TEST(PlanChunks, ImpossibleBudgetNamesTheNumbers) {
  // Budget 0.8 * 100000 = 80000 bytes holds 40 runs of 1000 bytes x 2, less than one aligned group.
  const std::string message =
      invalid_input_message([] { plan_chunks(10000, bytes_per_run(1000), 100000, fraction(0.8)); });
  EXPECT_NE(message.find("impossible memory budget"), std::string::npos) << message;
  EXPECT_NE(message.find("one run needs 1000 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("x2"), std::string::npos) << message;
  EXPECT_NE(message.find("80000"), std::string::npos) << message;
  EXPECT_NE(message.find("fraction 0.8 of 100000 free"), std::string::npos) << message;
  EXPECT_NE(message.find("256 runs"), std::string::npos) << message;

  // A single run that does not fit, with an explicit budget.
  GpuOptions gpu;
  gpu.memory_bytes = 1000;
  const std::string single = invalid_input_message([&] { plan_chunks(1, bytes_per_run(1000), 100000, gpu); });
  EXPECT_NE(single.find("one run needs 1000 bytes"), std::string::npos) << single;
  EXPECT_NE(single.find("budget is 1000 bytes"), std::string::npos) << single;
  EXPECT_NE(single.find("gpu.memory_bytes"), std::string::npos) << single;
}

TEST(PlanChunks, SmallBatchBelowAlignmentFitsWhole) {
  // 40 runs fit the budget; a batch of 30 (fewer than one aligned group) is one chunk.
  const ChunkPlan plan = plan_chunks(30, bytes_per_run(1000), 100000, fraction(0.8));
  EXPECT_EQ(plan.chunk_runs, 30u);
  EXPECT_EQ(plan.n_chunks, 1u);
  // 50 runs do not fit whole and no aligned group fits: refused.
  EXPECT_THROW(plan_chunks(50, bytes_per_run(1000), 100000, fraction(0.8)), InvalidInput);
}

TEST(PlanChunks, ForcedChunksSevenWithPartialLast) {
  GpuOptions gpu;
  gpu.chunks = 7;
  const ChunkPlan plan = plan_chunks(1000, bytes_per_run(100), 1'000'000, gpu);
  EXPECT_EQ(plan.n_chunks, 7u);
  EXPECT_EQ(plan.chunk_runs, 143u);  // ceil(1000 / 7), not aligned
  EXPECT_TRUE(plan.balanced);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(plan.count(i), 143u) << i;
  EXPECT_EQ(plan.count(6), 142u);  // 6 x 143 + 142 = 1000
  EXPECT_EQ(plan.first(6), 858u);
  EXPECT_EQ(plan.device_bytes, 2 * 143 * 100u);
  expect_tiles(plan);
}

TEST(PlanChunks, ForcedChunksNeverEmpty) {
  GpuOptions gpu;
  gpu.chunks = 7;
  // ceil(10 / 7) = 2 would give only 5 chunks of 2: the runs are spread instead (2,2,2,1,1,1,1).
  const ChunkPlan plan = plan_chunks(10, bytes_per_run(100), 1'000'000, gpu);
  EXPECT_EQ(plan.n_chunks, 7u);
  EXPECT_EQ(plan.chunk_runs, 2u);
  EXPECT_EQ(plan.count(0), 2u);
  EXPECT_EQ(plan.count(6), 1u);
  expect_tiles(plan);

  gpu.chunks = 3;
  const ChunkPlan three = plan_chunks(9, bytes_per_run(100), 1'000'000, gpu);
  EXPECT_EQ(three.chunk_runs, 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(three.count(i), 3u);

  gpu.chunks = 10;
  const ChunkPlan ones = plan_chunks(10, bytes_per_run(100), 1'000'000, gpu);
  EXPECT_EQ(ones.n_chunks, 10u);
  expect_tiles(ones);

  gpu.chunks = 11;
  const std::string message =
      invalid_input_message([&] { plan_chunks(10, bytes_per_run(100), 1'000'000, gpu); });
  EXPECT_NE(message.find("gpu.chunks = 11"), std::string::npos) << message;
  EXPECT_NE(message.find("10"), std::string::npos) << message;
}

TEST(PlanChunks, ForcedChunksCheckedAgainstTheBudget) {
  GpuOptions gpu;
  gpu.chunks = 2;
  gpu.memory_bytes = 100'000;  // 500 runs per chunk x 2 slots x 100 bytes = 100000: fits exactly
  EXPECT_EQ(plan_chunks(1000, bytes_per_run(100), 1'000'000, gpu).chunk_runs, 500u);
  gpu.memory_bytes = 99'999;
  const std::string message =
      invalid_input_message([&] { plan_chunks(1000, bytes_per_run(100), 1'000'000, gpu); });
  EXPECT_NE(message.find("impossible memory budget"), std::string::npos) << message;
  EXPECT_NE(message.find("gpu.chunks = 2"), std::string::npos) << message;
  EXPECT_NE(message.find("100000 bytes"), std::string::npos) << message;  // what the chunks need
  EXPECT_NE(message.find("99999"), std::string::npos) << message;
}

TEST(PlanChunks, ChunkIndexOutOfRangeThrows) {
  const ChunkPlan plan = plan_chunks(1000, bytes_per_run(100), 1'000'000, fraction(0.8));
  EXPECT_THROW((void)plan.first(1), std::out_of_range);
  EXPECT_THROW((void)plan.count(1), std::out_of_range);
}

TEST(HostMemory, CheckRefusesWithGiB) {
  constexpr std::size_t gib = std::size_t{1} << 30;
  EXPECT_NO_THROW(batchode::arrays::check_host_memory(gib, gib));
  const std::string message =
      invalid_input_message([] { batchode::arrays::check_host_memory(3 * gib, gib); });
  EXPECT_NE(message.find("outputs need 3.00 GiB of host memory, only 1.00 GiB available"), std::string::npos)
      << message;
}

TEST(HostMemory, AvailableIsPositive) { EXPECT_GT(batchode::arrays::available_host_memory(), 0u); }

}  // namespace
