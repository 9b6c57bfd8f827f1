// tests/arrays: the checked size arithmetic every count goes through (checked_size.hpp), at the
// size_t boundary, and the arrays/ code that sizes with it (buffer bytes, array managers, footprints,
// chunk plans): a size that does not fit is refused with InvalidInput naming it, never wrapped.
#include "batchode/checks/checked_size.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "batchode/gpu/buffers.hpp"
#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/input_array_manager.hpp"
#include "batchode/arrays/output_array_manager.hpp"
#include "expect_invalid_input.hpp"

namespace {

using batchode::InvalidInput;
using batchode::checks::checked_add;
using batchode::checks::checked_mul;
using batchode::checks::checked_product;
using batchode::checks::saturating_mul;

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();  // 2^64 - 1
constexpr std::size_t kHalf = kMax / 2;                                // 2^63 - 1
constexpr std::size_t k2to32 = std::size_t(1) << 32;

using batchode::testing::expect_contains;
using batchode::testing::invalid_input_message;

TEST(CheckedSize, MultiplyAtTheBoundary) {
  EXPECT_EQ(checked_mul(kHalf, 2, "x"), kMax - 1);
  EXPECT_EQ(checked_mul(2, kHalf, "x"), kMax - 1);
  EXPECT_EQ(checked_mul(kMax, 1, "x"), kMax);
  EXPECT_EQ(checked_mul(1, kMax, "x"), kMax);
  EXPECT_EQ(checked_mul(0, kMax, "x"), 0u);
  EXPECT_EQ(checked_mul(kMax, 0, "x"), 0u);
  EXPECT_EQ(checked_mul(k2to32 - 1, k2to32 + 1, "x"), kMax);   // (2^32 - 1)(2^32 + 1) = 2^64 - 1
  EXPECT_THROW(checked_mul(kHalf + 1, 2, "x"), InvalidInput);  // 2^64
  EXPECT_THROW(checked_mul(kHalf, 3, "x"), InvalidInput);
  EXPECT_THROW(checked_mul(k2to32, k2to32, "x"), InvalidInput);
  EXPECT_THROW(checked_mul(kMax, kMax, "x"), InvalidInput);
  const std::string message = invalid_input_message([] { checked_mul(kHalf + 1, 2, "series size"); });
  expect_contains(message, "series size");
  expect_contains(message, "9223372036854775808 x 2");
  expect_contains(message, "size_t");
}

TEST(CheckedSize, AddAtTheBoundary) {
  EXPECT_EQ(checked_add(kMax - 1, 1, "x"), kMax);
  EXPECT_EQ(checked_add(kMax, 0, "x"), kMax);
  EXPECT_EQ(checked_add(kHalf, kHalf + 1, "x"), kMax);
  EXPECT_THROW(checked_add(kMax, 1, "x"), InvalidInput);
  EXPECT_THROW(checked_add(1, kMax, "x"), InvalidInput);
  EXPECT_THROW(checked_add(kHalf + 1, kHalf + 1, "x"), InvalidInput);  // 2^64
  const std::string message = invalid_input_message([] { checked_add(5, kMax, "values per run"); });
  expect_contains(message, "values per run");
  expect_contains(message, "5 + 18446744073709551615");
}

TEST(CheckedSize, ProductNamesEveryFactor) {
  EXPECT_EQ(checked_product({}, "x"), 1u);
  EXPECT_EQ(checked_product({7}, "x"), 7u);
  EXPECT_EQ(checked_product({2, 3, 4}, "x"), 24u);
  EXPECT_EQ(checked_product({65536, 65536, 65536, 65535}, "x"),
            kMax - (std::size_t(1) << 48) + 1);  // 2^64 - 2^48
  // A zero factor makes the product 0 however large the others (whose partial product overflows).
  EXPECT_EQ(checked_product({kMax, kMax, 0}, "x"), 0u);
  // The probe's grids: 2^64 + 4 runs (which wrapped to 4) and exactly 2^64 (which wrapped to 0).
  const std::vector<std::size_t> axes = {20, 5581, 8681, 49477, 384773};
  std::string message =
      invalid_input_message([&] { checked_product(axes.begin(), axes.end(), "grid runs"); });
  expect_contains(message, "grid runs");
  expect_contains(message, "20 x 5581 x 8681 x 49477 x 384773");
  message = invalid_input_message([] { checked_product({65536, 65536, 65536, 65536}, "grid runs"); });
  expect_contains(message, "65536 x 65536 x 65536 x 65536");
  EXPECT_THROW(checked_product({kHalf + 1, 1, 2}, "x"), InvalidInput);
  EXPECT_EQ(checked_product({kHalf, 1, 2}, "x"), kMax - 1);
}

TEST(CheckedSize, SaturatingMultiplyForComparisons) {
  EXPECT_EQ(saturating_mul(kHalf, 2), kMax - 1);
  EXPECT_EQ(saturating_mul(kHalf + 1, 2), kMax);
  EXPECT_EQ(saturating_mul(k2to32, k2to32), kMax);
  EXPECT_EQ(saturating_mul(0, kMax), 0u);
}

TEST(CheckedSize, RoundUpAtTheBoundary) {
  EXPECT_EQ(batchode::checks::checked_round_up(0, 4096, "x"), 0u);
  EXPECT_EQ(batchode::checks::checked_round_up(1, 4096, "x"), 4096u);
  EXPECT_EQ(batchode::checks::checked_round_up(4096, 4096, "x"), 4096u);
  EXPECT_EQ(batchode::checks::checked_round_up(kMax - 4095, 4096, "x"), kMax - 4095);  // already a multiple
  const std::string message =
      invalid_input_message([] { (void)batchode::checks::checked_round_up(kMax - 4094, 4096, "pinned bytes"); });
  expect_contains(message, "pinned bytes");
}

TEST(CheckedSize, BufferBytes) {
  namespace gd = batchode::gpu::detail;
  EXPECT_EQ(gd::checked_bytes(kMax / 8, 8), kMax / 8 * 8);
  const std::string message = invalid_input_message([] { gd::checked_bytes(kMax / 8 + 1, 8); });
  expect_contains(message, "2305843009213693952 x 8");
  // ensure() refuses the size before asking any runtime for memory, and leaves the buffer as it was.
  batchode::gpu::DeviceBuffer<double> buffer;
  EXPECT_THROW(buffer.ensure(kMax / 8 + 1), InvalidInput);
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(CheckedSize, ArrayManagersRefuseBuffersThatDoNotFit) {
  batchode::arrays::ChunkPlan plan;
  plan.n_runs = plan.chunk_runs = kHalf + 1;  // 2^63 runs per chunk
  plan.n_chunks = 1;
  plan.slots = 1;
  batchode::arrays::InputArrayManager<double> inputs;
  std::string message = invalid_input_message([&] { inputs.prepare(plan, 2, 0); });
  expect_contains(message, "initial-value buffer");
  expect_contains(message, "2 x 9223372036854775808");
  EXPECT_EQ(inputs.capacity(), 0u) << "a refused plan leaves the manager as it was";
  message = invalid_input_message([&] { inputs.prepare(plan, 1, 3); });
  expect_contains(message, "parameter buffer");

  plan.n_runs = plan.chunk_runs = k2to32;
  batchode::arrays::OutputArrayManager<double> outputs;
  message = invalid_input_message([&] { outputs.prepare(plan, 65536, 65536, true, true); });
  expect_contains(message, "series buffer");
  expect_contains(message, "65536 x 65536 x 4294967296");
  EXPECT_EQ(outputs.capacity(), 0u);
}

TEST(CheckedSize, FootprintAndChunkPlanNameTheSizes) {
  const std::string message = invalid_input_message(
      [] { batchode::arrays::run_footprint(4, 0, kHalf, 8, batchode::OutputSelection{}); });
  expect_contains(message, "series size");
  expect_contains(message, "9223372036854775807 x 4");
  EXPECT_THROW(batchode::arrays::run_footprint(1, kMax, 0, 8, batchode::OutputSelection{}), InvalidInput);
  batchode::arrays::RunFootprint footprint{kHalf + 1, kHalf + 1, kHalf + 1};
  const std::string plan_message = invalid_input_message([&] {
    batchode::arrays::plan_chunks(10, footprint, std::size_t(1) << 30, batchode::GpuOptions{}, 1, 2);
  });
  expect_contains(plan_message, "9223372036854775808 x 2");
}

}  // namespace
