// tests/timing/: BATCHODE_VERBOSITY sets the default logger's level when it is first used.
// A program of its own, so nothing has touched the default logger before the variable is set.
#include <gtest/gtest.h>

#include <cstdlib>

#include <batchode/timing/time_logger.hpp>

namespace {

TEST(DefaultTimeLoggerEnvironment, OverridesTheDefaultLevel) {
  ASSERT_EQ(setenv("BATCHODE_VERBOSITY", "verbose", 1), 0);
  EXPECT_EQ(batchode::default_timelogger().verbosity(), batchode::Verbosity::verbose);
  // Read once, at construction: later changes need apply_environment().
  ASSERT_EQ(setenv("BATCHODE_VERBOSITY", "debug", 1), 0);
  EXPECT_EQ(batchode::default_timelogger().verbosity(), batchode::Verbosity::verbose);
  EXPECT_TRUE(batchode::default_timelogger().apply_environment());
  EXPECT_EQ(batchode::default_timelogger().verbosity(), batchode::Verbosity::debug);
  batchode::default_timelogger().set_verbosity(batchode::Verbosity::none);  // code still has the last word
  EXPECT_EQ(batchode::default_timelogger().verbosity(), batchode::Verbosity::none);
  unsetenv("BATCHODE_VERBOSITY");
}

}  // namespace
