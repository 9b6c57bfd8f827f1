// tests/arrays/: the runs several GPUs share (arrays/shared_runs.hpp): every run is taken exactly
// once, a consumer's own range goes first and front to back, tails are taken from the back of the
// range with the most left and never below min_take from a consumer still working, and a consumer
// that leaves hands back what it took (and, when it is the last, everything left).
#include "batchode/arrays/shared_runs.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <cstddef>
#include <thread>
#include <vector>

namespace {

using batchode::arrays::merge_slices;
using batchode::arrays::RunSlice;
using batchode::arrays::SharedRuns;

// How often each run of [0, n) appears in `slices`.
std::vector<int> coverage(const std::vector<RunSlice>& slices, std::size_t n) {
  std::vector<int> seen(n, 0);
  for (const RunSlice& s : slices) {
    for (std::size_t r = s.first; r < s.first + s.count; ++r) seen.at(r) += 1;
  }
  return seen;
}

TEST(SharedRuns, OneConsumerTakesItsRangeFrontToBack) {
  SharedRuns shared({{100, 250}}, 100);
  std::vector<RunSlice> got;
  while (auto s = shared.next(0, 100)) got.push_back(*s);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], (RunSlice{100, 100}));
  EXPECT_EQ(got[1], (RunSlice{200, 100}));
  EXPECT_EQ(got[2], (RunSlice{300, 50}));
  EXPECT_FALSE(shared.next(0, 100)) << "done stays done";
  ASSERT_EQ(shared.pieces(0).size(), 1u);
  EXPECT_EQ(shared.pieces(0)[0], (RunSlice{100, 250}));
  EXPECT_EQ(shared.taken_over(0), 0u);
  EXPECT_EQ(shared.slices_taken(0), 3u);
}

TEST(SharedRuns, AFastConsumerTakesTheOthersTailFromTheBack) {
  // Consumer 0 owns [0, 1000), consumer 1 [1000, 9000); 1 takes one slice, then 0 drains its own and
  // takes from the back of what 1 has left.
  SharedRuns shared({{0, 1000}, {1000, 8000}}, 100);
  EXPECT_EQ(*shared.next(1, 500), (RunSlice{1000, 500}));
  EXPECT_EQ(*shared.next(0, 1000), (RunSlice{0, 1000}));
  // 1 has [1500, 9000) left, 7500 runs, all that is left: half of them is 3750, capped by
  // max_runs 1000.
  EXPECT_EQ(*shared.next(0, 1000), (RunSlice{8000, 1000}));
  // 6500 left: half is 3250, capped by max_runs 2000.
  EXPECT_EQ(*shared.next(0, 2000), (RunSlice{6000, 2000}));
  EXPECT_EQ(shared.taken_over(0), 3000u);
  // Both pieces taken from 1's back join: [6000, 9000).
  const std::vector<RunSlice> p0 = shared.pieces(0);
  ASSERT_EQ(p0.size(), 2u);
  EXPECT_EQ(p0[1], (RunSlice{6000, 3000}));
  // 1 goes on from its front, in shrinking slices, up to what was taken.
  std::size_t last = 5000;
  while (auto s = shared.next(1, 5000)) {
    EXPECT_LE(s->count, last) << "guided slices shrink";
    EXPECT_LE(s->first + s->count, 6000u);
    last = s->count;
  }
  EXPECT_FALSE(shared.next(0, 5000));
  std::vector<RunSlice> all = shared.pieces(0);
  for (const RunSlice& s : shared.pieces(1)) all.push_back(s);
  for (int c : coverage(all, 9000)) ASSERT_EQ(c, 1);
}

TEST(SharedRuns, GuidedSlicesShrinkToMinTake) {
  SharedRuns shared({{0, 10000}, {10000, 0}}, 100);
  std::vector<std::size_t> sizes;
  while (auto s = shared.next(0, 10000)) sizes.push_back(s->count);
  // Half of what is left each time (an even share for two consumers), never below 100 but for the
  // remainder.
  const std::vector<std::size_t> expected{5000, 2500, 1250, 625, 313, 156, 100, 56};
  EXPECT_EQ(sizes, expected);
}

TEST(SharedRuns, SlicesAreTakenAheadOfNeedOnlyWhilePlentyIsLeft) {
  // Two consumers: ahead of need while three slices of 100 are left (one more each, after it).
  SharedRuns shared({{0, 200}, {200, 200}}, 100);
  EXPECT_TRUE(shared.plenty_left(100)) << "400 left";
  EXPECT_FALSE(shared.plenty_left(134)) << "400 left, under three slices of 134";
  (void)shared.next(0, 100);
  EXPECT_TRUE(shared.plenty_left(100)) << "300 left";
  (void)shared.next(1, 100);
  EXPECT_FALSE(shared.plenty_left(100)) << "200 left";
  EXPECT_TRUE(shared.plenty_left(60)) << "200 left, three slices of 60";
  shared.cancel();
  EXPECT_FALSE(shared.plenty_left(1)) << "nothing is taken after cancel()";
}

TEST(SharedRuns, NothingBelowMinTakeFromAConsumerStillWorking) {
  SharedRuns shared({{0, 10}, {10, 150}}, 100);
  EXPECT_EQ(*shared.next(1, 100), (RunSlice{10, 100}));
  EXPECT_EQ(*shared.next(0, 100), (RunSlice{0, 10}));
  EXPECT_FALSE(shared.next(0, 100)) << "50 left with its owner is below min_take";
  EXPECT_EQ(*shared.next(1, 100), (RunSlice{110, 50}));
}

TEST(SharedRuns, ALeavingConsumerHandsBackItsSlicesAndItsRestGoesToTheOthers) {
  SharedRuns shared({{0, 100}, {100, 100}}, 64);
  EXPECT_EQ(*shared.next(1, 30), (RunSlice{100, 30}));
  const std::vector<RunSlice> back = shared.leave(1);
  ASSERT_EQ(back.size(), 1u) << "consumer 0 is still working: only what 1 took comes back";
  EXPECT_EQ(back[0], (RunSlice{100, 30}));
  EXPECT_FALSE(shared.next(1, 30)) << "a consumer that left takes nothing";
  std::vector<RunSlice> got;
  while (auto s = shared.next(0, 40)) got.push_back(*s);
  // Its own 100, then the 70 that 1 left, in slices of any size (even below min_take: nobody else
  // would run them).
  std::vector<RunSlice> all = got;
  all.push_back(back[0]);
  for (int c : coverage(all, 200)) ASSERT_EQ(c, 1);
  EXPECT_EQ(shared.taken_over(0), 70u);
}

TEST(SharedRuns, TheLastToLeaveReceivesEverythingLeft) {
  SharedRuns shared({{0, 100}, {100, 100}}, 64);
  EXPECT_EQ(*shared.next(0, 100), (RunSlice{0, 100}));
  EXPECT_EQ(*shared.next(1, 60), (RunSlice{100, 60}));
  EXPECT_FALSE(shared.next(0, 100)) << "40 left with a working owner: consumer 0 is done";
  const std::vector<RunSlice> back = merge_slices(shared.leave(1));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], (RunSlice{100, 100})) << "its own slice and the 40 nobody else will take";
}

TEST(SharedRuns, AnOwnerWhoseCostlyRunsLieAtTheBackStartsThereAndOthersTakeItsFront) {
  // Consumer 1's runs cost more towards its back: it starts there, and consumer 0, once done with
  // its own, takes 1's cheap front, which joins its own range.
  SharedRuns shared({{0, 100}, {100, 1000}}, 100, {false, true});
  EXPECT_EQ(*shared.next(1, 300), (RunSlice{800, 300}));
  EXPECT_EQ(*shared.next(0, 1000), (RunSlice{0, 100}));
  // 700 left, all with consumer 1: half of them, from its front.
  EXPECT_EQ(*shared.next(0, 1000), (RunSlice{100, 350}));
  ASSERT_EQ(shared.pieces(0).size(), 1u);
  EXPECT_EQ(shared.pieces(0)[0], (RunSlice{0, 450}));
  while (auto s = shared.next(1, 300)) EXPECT_GE(s->first, 450u);
  EXPECT_FALSE(shared.next(0, 300));
  const std::vector<RunSlice> ones = shared.pieces(1);
  ASSERT_EQ(ones.size(), 1u) << "consumer 1 ran one piece, from its back";
  EXPECT_EQ(ones[0], (RunSlice{450, 650}));
  EXPECT_THROW(SharedRuns({{0, 1}}, 1, {true, false}), std::invalid_argument);
}

TEST(SharedRuns, CancelStopsEveryConsumer) {
  SharedRuns shared({{0, 1000}, {1000, 1000}}, 10);
  ASSERT_TRUE(shared.next(0, 100));
  shared.cancel();
  EXPECT_FALSE(shared.next(0, 100));
  EXPECT_FALSE(shared.next(1, 100)) << "a cancelled solve hands out nothing more";
}

TEST(SharedRuns, AConsumerLeavingWhileAnotherTakesLosesNoRun) {
  // Consumer 1 fails after three slices while consumer 0 keeps taking: what 0 ran and what 1 hands
  // back (to be run on the CPU) cover every run once. (Its three slices come first: a consumer 0
  // already running could take all of 1's range before 1 asks.)
  constexpr std::size_t n = 200'000;
  SharedRuns shared({{0, n / 2}, {n / 2, n / 2}}, 1000);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(shared.next(1, 3000));
  std::vector<RunSlice> zero, back;
  std::thread taker([&] {
    while (auto s = shared.next(0, 3000)) zero.push_back(*s);
  });
  back = shared.leave(1);
  EXPECT_TRUE(shared.leave(1).empty()) << "leaving twice hands back nothing more";
  taker.join();
  std::vector<RunSlice> all = zero;
  all.insert(all.end(), back.begin(), back.end());
  for (int c : coverage(all, n)) ASSERT_EQ(c, 1);
}

TEST(SharedRuns, ThreadsTakeEveryRunExactlyOnce) {
  constexpr std::size_t n = 1'000'003;
  const std::vector<RunSlice> ranges{{0, 100'000}, {100'000, 600'000}, {700'000, 300'003}};
  SharedRuns shared(ranges, 1000, {false, true, false});
  std::vector<std::vector<RunSlice>> got(ranges.size());
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    threads.emplace_back([&, c] {
      // Consumer 1 is slow: the others take its tail.
      while (auto s = shared.next(c, 20'000)) {
        got[c].push_back(*s);
        if (c == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<RunSlice> all;
  for (const auto& g : got) all.insert(all.end(), g.begin(), g.end());
  for (int c : coverage(all, n)) ASSERT_EQ(c, 1);
  EXPECT_GT(shared.taken_over(0) + shared.taken_over(2), 0u) << "the slow consumer's tail was taken";
  for (std::size_t c = 0; c < ranges.size(); ++c) {
    EXPECT_EQ(merge_slices(got[c]), shared.pieces(c));
  }
}

TEST(SharedRuns, MergeJoinsAdjacentSlicesInRunOrder) {
  const std::vector<RunSlice> merged = merge_slices({{50, 10}, {0, 20}, {20, 5}, {40, 10}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0], (RunSlice{0, 25}));
  EXPECT_EQ(merged[1], (RunSlice{40, 20}));
}

}  // namespace
