// tests/timing/: an event started inside another is its child in every report (occurrences, JSON,
// summary table), on one thread and across a CallContext; and an event recorded after the fact
// (record_event) nests where the recording thread is, never around events that ran before it.
// The solver's execution_part and kernel_run_execution are the case that motivated these tests.
#include <gtest/gtest.h>

#include <batchode/timing/timed_events.hpp>
#include <batchode/timing/scoped_timer.hpp>
#include <batchode/timing/time_logger.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "json_reader.hpp"

namespace {

using batchode::Occurrence;
using batchode::ScopedTimer;
using batchode::TimeLogger;
using batchode::Verbosity;
namespace events = batchode::events;

struct NestingTest : ::testing::Test {
  std::ostringstream out;
  TimeLogger log{&out, Verbosity::normal};
  NestingTest() { batchode::register_solver_events(log); }

  const Occurrence& only(const std::vector<Occurrence>& found) {
    EXPECT_EQ(found.size(), 1u);
    return found.at(0);
  }
  // The JSON occurrence with this label (the first one).
  static const json_reader::Value& json_occurrence(const json_reader::Value& document,
                                                   const std::string& label) {
    for (const json_reader::Value& o : document["occurrences"].array) {
      if (o["label"].string == label) return o;
    }
    throw std::runtime_error("no JSON occurrence " + label);
  }
};

// solve > part > run on one thread: each is the child of the one it was started in.
TEST_F(NestingTest, AnEventStartedInsideAnotherIsItsChildEverywhere) {
  {
    ScopedTimer solve(log, events::solver_solve_execution);
    ScopedTimer part(log, events::execution_part);
    part.add_metadata("backend", "cpu");
    ScopedTimer run(log, events::kernel_run_execution);
  }
  const Occurrence solve = only(log.occurrences(events::solver_solve_execution));
  const Occurrence part = only(log.occurrences(events::execution_part));
  const Occurrence run = only(log.occurrences(events::kernel_run_execution));
  EXPECT_FALSE(solve.parent.has_value());
  EXPECT_EQ(part.parent, solve.id);
  EXPECT_EQ(part.depth, 1u);
  EXPECT_EQ(run.parent, part.id);
  EXPECT_EQ(run.depth, 2u);

  const json_reader::Value document = json_reader::parse(log.to_json());
  EXPECT_EQ(json_occurrence(document, events::execution_part)["parent"].number,
            static_cast<double>(solve.id));
  EXPECT_EQ(json_occurrence(document, events::kernel_run_execution)["parent"].number,
            static_cast<double>(part.id));
  EXPECT_EQ(json_occurrence(document, events::kernel_run_execution)["depth"].number, 2.0);

  // In the table a child is the next row, indented one level (two spaces) more than its parent.
  const std::regex tree(
      "\n  solver_solve_execution +1 .*\n    execution_part +1 .*\n      kernel_run_execution +1 ");
  EXPECT_TRUE(std::regex_search(log.summary(), tree)) << log.summary();
  EXPECT_TRUE(std::regex_search(out.str(), tree))
      << "the summary printed when the solve ended: " << out.str();
}

// The solver's co-execution: one thread per part, each carrying the solve's context. A part event
// started on the part's thread wraps that part's run, and both parts share one row of the tree.
TEST_F(NestingTest, PartsStartedOnWorkerThreadsWrapTheirRunsUnderTheSolve) {
  {
    const TimeLogger::CallScope call(log, std::nullopt);
    ScopedTimer solve(log, events::solver_solve_execution);
    const TimeLogger::CallContext context = log.context();
    std::vector<std::thread> parts;
    for (int i = 0; i < 2; ++i) {
      parts.emplace_back([&] {
        const TimeLogger::CallScope part_scope(log, context);
        ScopedTimer part(log, events::execution_part);
        ScopedTimer run(log, events::kernel_run_execution);
        log.record_event(events::cpu_integration, 0.25);
      });
    }
    for (std::thread& t : parts) t.join();
  }
  const Occurrence solve = only(log.occurrences(events::solver_solve_execution));
  const std::vector<Occurrence> parts = log.occurrences(events::execution_part);
  ASSERT_EQ(parts.size(), 2u);
  for (const Occurrence& part : parts) {
    EXPECT_EQ(part.parent, solve.id);
    EXPECT_NE(part.thread, solve.thread);
  }
  for (const Occurrence& run : log.occurrences(events::kernel_run_execution)) {
    const Occurrence parent = log.occurrence(run.parent.value());
    EXPECT_EQ(parent.label, events::execution_part);
    EXPECT_EQ(parent.thread, run.thread) << "each run is wrapped by its own part";
  }
  const json_reader::Value document = json_reader::parse(log.to_json());
  for (const json_reader::Value& o : document["occurrences"].array) {
    if (o["label"].string == events::kernel_run_execution) {
      EXPECT_EQ(o["depth"].number, 2.0);
    }
  }
  const std::regex tree(
      "\n  solver_solve_execution +1 .*\n    execution_part +2 .*\n      kernel_run_execution +2 .*\n"
      "        cpu_integration +2 ");
  EXPECT_TRUE(std::regex_search(out.str(), tree)) << out.str();
}

// What the solver did before: the part recorded after it ended, from the solve's thread. A recorded
// event nests in the recording thread's innermost open event and cannot adopt events that already
// ran, so the run it measured stays its sibling. (Start the part event around the run instead.)
TEST_F(NestingTest, AnEventRecordedAfterTheFactIsASiblingOfWhatItMeasured) {
  {
    ScopedTimer solve(log, events::solver_solve_execution);
    { ScopedTimer run(log, events::kernel_run_execution); }
    log.record_event(events::execution_part, 1.0);
  }
  const Occurrence solve = only(log.occurrences(events::solver_solve_execution));
  EXPECT_EQ(only(log.occurrences(events::execution_part)).parent, solve.id);
  EXPECT_EQ(only(log.occurrences(events::kernel_run_execution)).parent, solve.id);
  const std::regex siblings("\n    kernel_run_execution +1 .*\n    execution_part +1 ");
  EXPECT_TRUE(std::regex_search(log.summary(), siblings)) << log.summary();
}

}  // namespace
