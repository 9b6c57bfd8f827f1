// tests/arrays: the host transposes between run-major arrays and the runs-fastest device layout.
#include "batchode/arrays/transpose.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "batchode/kernels/core/status.hpp"

namespace {

using batchode::arrays::pack_runs_fastest;
using batchode::arrays::unpack_to_run_major;

template <class T>
class Transpose : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Transpose, ValueTypes);

// Run r's value j, distinct for every (r, j) and exact in float.
template <class T>
T value(std::size_t r, std::size_t j) {
  return static_cast<T>(r * 1000 + j) + T(0.5);
}

TYPED_TEST(Transpose, PackPlacesStateSOfRunRAtSTimesStridePlusR) {
  using T = TypeParam;
  const std::size_t count = 3, width = 2, stride = 5;  // stride > count: a partial chunk's buffer
  std::vector<T> run_major(count * width);
  for (std::size_t r = 0; r < count; ++r)
    for (std::size_t j = 0; j < width; ++j) run_major[r * width + j] = value<T>(r, j);
  std::vector<T> device(width * stride, T(-1));
  pack_runs_fastest(run_major.data(), count, width, device.data(), stride);
  for (std::size_t j = 0; j < width; ++j) {
    for (std::size_t r = 0; r < stride; ++r) {
      EXPECT_EQ(device[j * stride + r], r < count ? value<T>(r, j) : T(-1)) << "j=" << j << " r=" << r;
    }
  }
}

TYPED_TEST(Transpose, RoundTripAcrossTileEdges) {
  using T = TypeParam;
  // Sizes around the 32-wide tiles: partial tiles in both directions, a single column, a single run.
  for (std::size_t count : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{100}}) {
    for (std::size_t width : {std::size_t{1}, std::size_t{7}, std::size_t{32}, std::size_t{65}}) {
      std::vector<T> run_major(count * width);
      for (std::size_t r = 0; r < count; ++r)
        for (std::size_t j = 0; j < width; ++j) run_major[r * width + j] = value<T>(r, j);
      std::vector<T> device(width * count);
      pack_runs_fastest(run_major.data(), count, width, device.data(), count);
      for (std::size_t r = 0; r < count; ++r)
        for (std::size_t j = 0; j < width; ++j) ASSERT_EQ(device[j * count + r], value<T>(r, j));
      std::vector<T> back(count * width, T(0));
      unpack_to_run_major(device.data(), count, count, width, back.data());
      EXPECT_EQ(back, run_major) << "count=" << count << " width=" << width;
    }
  }
}

TYPED_TEST(Transpose, SeriesIndexingMatchesTheResultLayout) {
  using T = TypeParam;
  // Device series [(k * n_states + s) * stride + r] unpacks to the result's (r * n_saves + k) * n_states + s.
  const std::size_t n_runs = 4, n_saves = 3, n_states = 2;
  std::vector<T> device(n_saves * n_states * n_runs);
  for (std::size_t k = 0; k < n_saves; ++k)
    for (std::size_t s = 0; s < n_states; ++s)
      for (std::size_t r = 0; r < n_runs; ++r)
        device[(k * n_states + s) * n_runs + r] = static_cast<T>(100 * r + 10 * k + s);
  std::vector<T> result(n_runs * n_saves * n_states);
  unpack_to_run_major(device.data(), n_runs, n_runs, n_saves * n_states, result.data());
  for (std::size_t r = 0; r < n_runs; ++r)
    for (std::size_t k = 0; k < n_saves; ++k)
      for (std::size_t s = 0; s < n_states; ++s)
        EXPECT_EQ(result[(r * n_saves + k) * n_states + s], static_cast<T>(100 * r + 10 * k + s));
}

TEST(TransposeConversion, Int32StatusesBecomeStatus) {
  const std::vector<std::int32_t> device = {0, 1, 2, 3};
  std::vector<batchode::Status> statuses(4, batchode::Status::success);
  unpack_to_run_major(device.data(), 4, 4, 1, statuses.data());
  EXPECT_EQ(statuses[1], batchode::Status::max_steps_reached);
  EXPECT_EQ(statuses[3], batchode::Status::non_finite_state);
}

}  // namespace
