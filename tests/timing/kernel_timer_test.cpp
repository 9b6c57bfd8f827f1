// tests/timing/: KernelTimer in CPU mode and its misuse (any build), and ScopedTimer.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>

#include <batchode/timing/kernel_timer.hpp>
#include <batchode/timing/scoped_timer.hpp>

#include "wall_clock.hpp"

namespace {

using batchode::KernelTimer;
using batchode::ScopedTimer;
using batchode::TimeLogger;
using batchode::TimingError;
using batchode::Verbosity;
using batchode::testing::busy_wait_ms;
using batchode::testing::ms_since;
using batchode::testing::WallClock;

// EXPECT_THROW that also checks the message names the timer and the mistake.
#define EXPECT_TIMING_ERROR(statement, fragment)                                              \
  do {                                                                                        \
    try {                                                                                     \
      statement;                                                                              \
      ADD_FAILURE() << "expected TimingError from " #statement;                               \
    } catch (const TimingError& error) {                                                      \
      const std::string what_ = error.what();                                                 \
      EXPECT_NE(what_.find("KernelTimer 'k'"), std::string::npos) << what_;                   \
      EXPECT_NE(what_.find(fragment), std::string::npos) << what_;                            \
    }                                                                                         \
  } while (0)

// Bounds that hold however loaded the machine is (wall_clock.hpp): at least the busy wait inside
// the measurement, at most the test's own clock readings around it.
TEST(KernelTimerCpu, MeasuresHostTimeAndRestarts) {
  KernelTimer timer("k");
  EXPECT_EQ(timer.name(), "k");
  const auto before = WallClock::now();
  timer.start_cpu();
  EXPECT_TRUE(timer.running());
  busy_wait_ms(5.0);
  timer.stop_cpu();
  const double around_first = ms_since(before);
  EXPECT_FALSE(timer.running());
  const double first = timer.elapsed_ms();
  EXPECT_GE(first, 5.0);
  EXPECT_LE(first, around_first);
  EXPECT_EQ(timer.elapsed_ms(), first);  // reading does not change it

  const auto restart = WallClock::now();
  timer.start_cpu();
  timer.stop_cpu();
  const double around_second = ms_since(restart);
  const double second = timer.elapsed_ms();
  EXPECT_LE(second, around_second);  // a new measurement, not a sum with the first 5 ms

  KernelTimer moved(std::move(timer));
  EXPECT_EQ(moved.name(), "k");
  EXPECT_EQ(moved.elapsed_ms(), second);
  EXPECT_THROW((void)timer.elapsed_ms(), TimingError);  // NOLINT(bugprone-use-after-move): moved-from is idle
}

// is_started/is_stopped/elapsed() only ask: they never throw, and elapsed() is empty whenever
// elapsed_ms() would be a TimingError.
TEST(KernelTimerCpu, AsksWhatItHoldsWithoutThrowing) {
  KernelTimer timer("k");
  EXPECT_FALSE(timer.is_started());
  EXPECT_FALSE(timer.is_stopped());
  EXPECT_FALSE(timer.elapsed().has_value()) << "a new timer has measured nothing";

  timer.start_cpu();
  EXPECT_TRUE(timer.is_started());
  EXPECT_FALSE(timer.is_stopped());
  EXPECT_FALSE(timer.elapsed().has_value()) << "a running measurement has no result yet";
  busy_wait_ms(1.0);
  timer.stop_cpu();
  EXPECT_TRUE(timer.is_started());
  EXPECT_TRUE(timer.is_stopped());
  ASSERT_TRUE(timer.elapsed().has_value());
  EXPECT_GE(*timer.elapsed(), 1.0);
  EXPECT_EQ(*timer.elapsed(), timer.elapsed_ms());

  timer.start_cpu();  // a restart: the old result is gone, the new one not there yet
  EXPECT_FALSE(timer.is_stopped());
  EXPECT_FALSE(timer.elapsed().has_value());
  EXPECT_THROW(timer.start_cpu(), TimingError);  // misuse changes nothing
  EXPECT_TRUE(timer.is_started());
  timer.stop_cpu();
  EXPECT_TRUE(timer.elapsed().has_value());

  KernelTimer moved(std::move(timer));
  EXPECT_TRUE(moved.is_stopped());
  EXPECT_EQ(moved.elapsed(), moved.elapsed_ms());
  // NOLINTNEXTLINE(bugprone-use-after-move): a moved-from timer is idle
  EXPECT_FALSE(timer.is_started() || timer.is_stopped() || timer.elapsed().has_value());
}

TEST(KernelTimerCpu, MisuseIsATimingError) {
  KernelTimer timer("k");
  EXPECT_TIMING_ERROR(timer.stop_cpu(), "without a running start_cpu()");
  EXPECT_TIMING_ERROR((void)timer.elapsed_ms(), "before any measurement");
  EXPECT_TIMING_ERROR((void)timer.deferred(), "before any measurement");
  timer.start_cpu();
  EXPECT_TIMING_ERROR(timer.start_cpu(), "while a measurement is running");
  EXPECT_TIMING_ERROR((void)timer.elapsed_ms(), "while the measurement is running");
  timer.stop_cpu();
  EXPECT_TIMING_ERROR(timer.stop_cpu(), "without a running start_cpu()");  // stopped twice
  EXPECT_TIMING_ERROR((void)timer.deferred(), "needs a GPU measurement");
  EXPECT_GE(timer.elapsed_ms(), 0.0);  // the good measurement survived the misuse
}

TEST(KernelTimerCpu, ModesDoNotMix) {
  KernelTimer timer("k");
  timer.start_cpu();
#if BATCHODE_HAS_GPU_RUNTIME
  EXPECT_TIMING_ERROR(timer.stop(batchode::gpu::stream_t{}), "started with start_cpu()");
#else
  EXPECT_TIMING_ERROR(timer.stop(batchode::gpu::stream_t{}), "built without one");
#endif
  EXPECT_TRUE(timer.running());  // still running in CPU mode
  timer.stop_cpu();
}

#if !BATCHODE_HAS_GPU_RUNTIME
TEST(KernelTimerCpu, GpuMethodsSayTheBuildHasNoGpuBackend) {
  KernelTimer timer("k");
  EXPECT_TIMING_ERROR(timer.start(nullptr), "batchode was built without one (BATCHODE_GPU=off)");
  EXPECT_TIMING_ERROR(timer.stop(nullptr), "batchode was built without one (BATCHODE_GPU=off)");
  EXPECT_FALSE(timer.running());
  // Without a GPU nothing was started: the questions have plain answers, no error.
  EXPECT_FALSE(timer.is_started());
  EXPECT_FALSE(timer.is_stopped());
  EXPECT_FALSE(timer.elapsed().has_value());
  // A CPU measurement is untouched by a GPU call that failed.
  timer.start_cpu();
  timer.stop_cpu();
  EXPECT_TIMING_ERROR(timer.start(nullptr), "built without one");
  EXPECT_TRUE(timer.is_stopped());
  EXPECT_TRUE(timer.elapsed().has_value());
}
#endif

// --- ScopedTimer ------------------------------------------------------------------------------

struct ScopedTimerTest : ::testing::Test {
  std::ostringstream out;
  TimeLogger log{&out, Verbosity::normal};
  ScopedTimerTest() {
    log.register_event("outer", "runtime", "");
    log.register_event("inner", "runtime", "");
  }
};

TEST_F(ScopedTimerTest, TimesItsScopeWithMetadata) {
  {
    ScopedTimer outer(log, "outer");
    {
      ScopedTimer inner(log, "inner");
      inner.add_metadata("runs", 10);
      inner.add_metadata("chunk_slice", "0:10");
      inner.set_gpu_time(0.5);
      busy_wait_ms(2.0);
    }
    EXPECT_EQ(log.stats("inner").count, 1u);
    EXPECT_EQ(log.stats("outer").count, 0u);  // still running
  }
  const auto inner = log.occurrences("inner");
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_GE(inner[0].wall_ms, 2.0);
  EXPECT_EQ(inner[0].metadata.find("runs")->as_int(), 10);
  EXPECT_EQ(inner[0].metadata.find("chunk_slice")->as_string(), "0:10");
  EXPECT_EQ(inner[0].gpu_ms, 0.5);
  EXPECT_EQ(inner[0].parent, log.occurrences("outer")[0].id);
  EXPECT_FALSE(inner[0].metadata.contains("unwound"));
}

TEST_F(ScopedTimerTest, RecordsTheScopeLeftByAnException) {
  EXPECT_THROW(
      {
        ScopedTimer outer(log, "outer");
        throw std::runtime_error("boom");
      },
      std::runtime_error);
  const auto outer = log.occurrences("outer");
  ASSERT_EQ(outer.size(), 1u);
  EXPECT_EQ(outer[0].metadata.find("unwound")->as_int(), 1);
}

TEST_F(ScopedTimerTest, ClosesEventsAnExceptionLeftOpenInside) {
  EXPECT_THROW(
      {
        ScopedTimer outer(log, "outer");
        log.start_event("inner");
        throw std::runtime_error("skips stop_event(inner)");
      },
      std::runtime_error);
  EXPECT_EQ(log.occurrences("inner").at(0).metadata.find("interrupted")->as_int(), 1);
  EXPECT_EQ(log.stats("outer").count, 1u);
  log.start_event("outer");  // nothing is left open: a new event is top-level
  log.stop_event("outer");
  EXPECT_FALSE(log.occurrences("outer").at(1).parent.has_value());
}

TEST_F(ScopedTimerTest, DestructorNeverThrowsWhenTheEventIsGone) {
  EXPECT_NO_THROW({
    ScopedTimer outer(log, "outer");
    log.set_verbosity(Verbosity::none);  // closes the event under the timer's feet
    log.set_verbosity(Verbosity::normal);
  });
  EXPECT_EQ(log.stats("outer").count, 1u);
  EXPECT_TRUE(log.occurrences("outer")[0].metadata.contains("interrupted"));
}

TEST_F(ScopedTimerTest, ExplicitStopAndDisabledLogger) {
  {
    ScopedTimer outer(log, "outer");
    outer.stop();
    EXPECT_EQ(log.stats("outer").count, 1u);
    outer.stop();  // later calls do nothing
  }
  EXPECT_EQ(log.stats("outer").count, 1u);
  EXPECT_THROW(ScopedTimer(log, "unregistered"), TimingError);

  log.set_verbosity(Verbosity::none);
  {
    ScopedTimer outer(log, "outer");
    outer.add_metadata("ignored", 1);
  }
  log.set_verbosity(Verbosity::normal);
  EXPECT_EQ(log.stats("outer").count, 1u);
}

}  // namespace
