// tests/timing/: TimeLogger::CallScope and CallContext: a call's level on its own thread only, its
// worker threads' events nested under it across threads, and misuse dropped inside a call.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include <batchode/timing/scoped_timer.hpp>
#include <batchode/timing/time_logger.hpp>

namespace {

using batchode::Occurrence;
using batchode::TimeLogger;
using batchode::TimingError;
using batchode::Verbosity;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

struct CallScopeTest : ::testing::Test {
  std::ostringstream out;
  TimeLogger log{&out, Verbosity::normal};
  CallScopeTest() {
    log.register_event("call", "runtime", "");
    log.register_event("part", "runtime", "");
    log.register_event("leaf", "runtime", "");
  }
};

TEST_F(CallScopeTest, LevelHoldsOnItsThreadAloneAndLeavesTheLoggersOwn) {
  {
    const TimeLogger::CallScope quiet(log, Verbosity::none);
    EXPECT_EQ(log.verbosity(), Verbosity::none);
    log.start_event("call");  // not recorded
    std::thread([&] {
      EXPECT_EQ(log.verbosity(), Verbosity::normal) << "another thread sees the logger's level";
      log.record_event("leaf", 1.0);
    }).join();
    log.stop_event("call");
    {
      const TimeLogger::CallScope inherit(log, std::nullopt);  // sets no level: the enclosing one holds
      EXPECT_EQ(log.verbosity(), Verbosity::none);
      const TimeLogger::CallScope loud(log, Verbosity::verbose);
      EXPECT_EQ(log.verbosity(), Verbosity::verbose);
    }
    EXPECT_EQ(log.verbosity(), Verbosity::none);
  }
  EXPECT_EQ(log.verbosity(), Verbosity::normal);
  EXPECT_EQ(log.stats("call").count, 0u);
  EXPECT_EQ(log.stats("leaf").count, 1u);
  EXPECT_EQ(count_of(out.str(), "batchode timing: leaf took"), 1u) << out.str();

  TimeLogger other(&out, Verbosity::debug);
  const TimeLogger::CallScope quiet(log, Verbosity::none);
  EXPECT_EQ(other.verbosity(), Verbosity::debug) << "a scope on one logger leaves the others alone";
}

TEST_F(CallScopeTest, WorkerThreadsNestUnderTheCallAndShareItsOneSummary) {
  {
    const TimeLogger::CallScope call_scope(log, Verbosity::verbose);
    batchode::ScopedTimer call(log, "call");
    const TimeLogger::CallContext context = log.context();
    std::thread workers[2];
    for (std::thread& worker : workers) {
      worker = std::thread([&] {
        const TimeLogger::CallScope part_scope(log, context);
        EXPECT_EQ(log.verbosity(), Verbosity::verbose) << "the call's level travels with its context";
        batchode::ScopedTimer part(log, "part");
        log.record_event("leaf", 0.5);
      });
    }
    for (std::thread& worker : workers) worker.join();
    EXPECT_EQ(count_of(out.str(), "batchode timing:"), 0u) << "no summary before the call ends: "
                                                             << out.str();
  }
  const std::string text = out.str();
  EXPECT_EQ(count_of(text, "batchode timing:"), 1u) << text;
  EXPECT_EQ(count_of(text, "[batchode]   part: "), 2u) << "printed one level below the call: " << text;
  const Occurrence call = log.occurrences("call").at(0);
  for (const Occurrence& part : log.occurrences("part")) {
    EXPECT_EQ(part.parent, call.id);
    EXPECT_EQ(part.depth, 1u);
    EXPECT_NE(part.thread, call.thread);
  }
  for (const Occurrence& leaf : log.occurrences("leaf")) {
    EXPECT_EQ(log.occurrence(*leaf.parent).label, "part");
    EXPECT_EQ(leaf.depth, 2u);
  }
  // Outside the scope, the worker threads' events are top-level again: the thread is fresh.
  std::thread([&] { log.record_event("leaf", 1.0); }).join();
  EXPECT_FALSE(log.occurrences("leaf").back().parent.has_value());
}

TEST_F(CallScopeTest, ContextFindsItsEventAfterAReset) {
  log.record_event("leaf", 1.0);  // a finished occurrence, so the reset moves the open one
  log.start_event("call");
  const TimeLogger::CallContext context = log.context();
  log.reset();
  std::thread([&] {
    const TimeLogger::CallScope part_scope(log, context);
    log.record_event("part", 1.0);
  }).join();
  log.stop_event("call");
  const Occurrence call = log.occurrences("call").at(0);
  EXPECT_EQ(call.id, 0u);
  EXPECT_EQ(log.occurrences("part").at(0).parent, call.id);
}

TEST_F(CallScopeTest, ContextOfAnotherLoggerCarriesNothing) {
  TimeLogger other(&out, Verbosity::none);
  other.register_event("call", "runtime", "");
  const TimeLogger::CallScope call_scope(other, Verbosity::debug);
  other.start_event("call");
  const TimeLogger::CallContext foreign = other.context();
  std::thread([&] {
    const TimeLogger::CallScope scope(log, foreign);
    EXPECT_EQ(log.verbosity(), Verbosity::normal);
    log.record_event("part", 1.0);
  }).join();
  other.stop_event("call");
  EXPECT_FALSE(log.occurrences("part").at(0).parent.has_value());
  const TimeLogger::CallContext empty;
  const TimeLogger::CallScope scope(log, empty);
  EXPECT_EQ(log.verbosity(), Verbosity::normal);
}

TEST_F(CallScopeTest, MisuseInsideACallIsReportedOnceAndDropped) {
  EXPECT_THROW(log.stop_event("leaf"), TimingError);  // outside a call: the caller's bug, thrown
  {
    const TimeLogger::CallScope call_scope(log, std::nullopt);
    EXPECT_NO_THROW(log.stop_event("leaf"));
    EXPECT_NO_THROW(log.start_event("unregistered"));
    EXPECT_NO_THROW(log.record_event("unregistered", 1.0));
    EXPECT_NO_THROW(log.record_event("leaf", -1.0));
    log.start_event("call");
    log.start_event("part");
    EXPECT_NO_THROW(log.stop_event("call"));  // "part" still open: dropped, both stay open
    log.stop_event("part");
    log.stop_event("call");
  }
  const std::string text = out.str();
  EXPECT_EQ(count_of(text, "batchode: timing problem ignored"), 1u) << text;
  EXPECT_NE(text.find("'leaf'"), std::string::npos) << text;
  EXPECT_EQ(log.stats("call").count, 1u);
  EXPECT_EQ(log.stats("part").count, 1u);
  EXPECT_THROW(log.start_event("unregistered"), TimingError);  // the scope is gone
}

}  // namespace
