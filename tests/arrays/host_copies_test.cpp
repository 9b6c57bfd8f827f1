// The host side of a GPU solve's copies: the finiteness check fused into the staging copy, and the
// worker pool that splits large copies (parts, several callers at once).
#include <gtest/gtest.h>

#include <batchode/checks/finite.hpp>
#include <batchode/arrays/host_workers.hpp>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using batchode::checks::copy_checking_finite;
using batchode::checks::first_non_finite_in;
using batchode::arrays::HostWorkers;

template <class T>
class FiniteCheck : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FiniteCheck, Precisions);

TYPED_TEST(FiniteCheck, CopyFindsTheFirstBadValueAnywhereAndCopiesEverything) {
  using T = TypeParam;
  const std::size_t n = 5000;  // several blocks of 1024 and a partial one
  std::vector<T> src(n);
  std::iota(src.begin(), src.end(), T(-2000));
  std::vector<T> dst(n, T(7));
  EXPECT_EQ(copy_checking_finite(dst.data(), src.data(), n), n);
  EXPECT_EQ(dst, src);
  const T bad_values[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity()};
  for (std::size_t at : {std::size_t(0), std::size_t(1023), std::size_t(1024), std::size_t(4999)}) {
    for (T bad : bad_values) {
      std::vector<T> s = src;
      s[at] = bad;
      if (at < n - 1) s[n - 1] = bad;  // a second bad value later: the first one is reported
      std::fill(dst.begin(), dst.end(), T(7));
      EXPECT_EQ(copy_checking_finite(dst.data(), s.data(), n), at) << "bad value at " << at;
      for (std::size_t i = 0; i < n; ++i) {
        if (std::isfinite(s[i])) {
          ASSERT_EQ(dst[i], s[i]) << i;
        } else {
          ASSERT_FALSE(std::isfinite(dst[i])) << i;
        }
      }
      EXPECT_EQ(batchode::checks::first_non_finite_in(s.data(), 0, n), at);
      if (at + 1 < n - 1) {
        EXPECT_EQ(batchode::checks::first_non_finite_in(s.data(), at + 1, n - 1), n - 1) << "a range between the two bad values";
      }
    }
  }
  // The largest finite values are finite; subnormals too.
  src[10] = std::numeric_limits<T>::max();
  src[11] = -std::numeric_limits<T>::max();
  src[12] = std::numeric_limits<T>::denorm_min();
  EXPECT_EQ(copy_checking_finite(dst.data(), src.data(), n), n);
}

TEST(HostWorkers, PartsCoverTheRangeOnceWithTheirIndices) {
  HostWorkers workers(3);
  EXPECT_EQ(workers.concurrency(), 4u);
  EXPECT_EQ(workers.parts_for(0, 10), 0u);
  EXPECT_EQ(workers.parts_for(5, 10), 1u);
  EXPECT_EQ(workers.parts_for(1000, 10), 4u);
  std::vector<int> hits(1000, 0);
  std::vector<std::size_t> part_begin(4, 1000);
  workers.parallel_parts(1000, 4, [&](std::size_t part, std::size_t begin, std::size_t end) {
    part_begin[part] = begin;
    for (std::size_t i = begin; i < end; ++i) ++hits[i];
  });
  EXPECT_EQ(part_begin, (std::vector<std::size_t>{0, 250, 500, 750}));
  for (int h : hits) ASSERT_EQ(h, 1);
}

TEST(HostWorkers, CallersFromSeveralThreadsTakeTurns) {
  // A GPU part's CPU fallback can meet the CPU part on the Solver's pool: both jobs must complete.
  HostWorkers workers(2);
  constexpr std::size_t n = 1 << 16;
  std::vector<std::vector<int>> out(4, std::vector<int>(n, 0));
  std::vector<std::thread> callers;
  for (std::size_t c = 0; c < out.size(); ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round) {
        workers.parallel_for(n, [&](std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) out[c][i] += 1;
        }, 1024);
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (const auto& o : out) {
    for (int v : o) ASSERT_EQ(v, 20);
  }
}

TEST(HostWorkers, AnExceptionInAPartReachesTheCaller) {
  HostWorkers workers(2);
  EXPECT_THROW(workers.parallel_for(
                   1 << 12, [](std::size_t begin, std::size_t) {
                     if (begin > 0) throw std::runtime_error("part failed");
                   },
                   256),
               std::runtime_error);
  std::atomic<std::size_t> sum{0};  // and the pool still works afterwards
  workers.parallel_for(100, [&](std::size_t b, std::size_t e) { sum += e - b; }, 10);
  EXPECT_EQ(sum.load(), 100u);
}

}  // namespace
