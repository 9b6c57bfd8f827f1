// tests/timing/: the TimeLogger's trace (Trace Event Format): a split, multi-threaded CPU solve's
// trace holds every occurrence the logger holds, with its duration, start, thread and parent, each
// child inside its parent; nothing at Verbosity::none; errors that name the file; BATCHODE_TRACE;
// profiler ranges switched on where this build has no profiler API or no profiler attached.
// A program of its own: it sets BATCHODE_TRACE.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <batchode/gpu/profiler_ranges.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_systems.hpp"
#include "trace_checks.hpp"

namespace {

using namespace batchode;
using batchode::testing::Decay;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".json"))
      .string();
}

SolveOptions cpu_options() {
  SolveOptions o;
  o.method = Method::dopri5;
  o.t_end = 2.0;
  o.backend = Backend::cpu;
  o.cpu_threads = 2;
  return o;
}

// A logger with the solver's events, writing a trace to a file of its own, removed at the end.
struct TracedLogger {
  std::ostringstream out;
  TimeLogger log;
  const std::string path;
  TracedLogger(Verbosity verbosity, const std::string& name) : log(&out, verbosity), path(temp_path(name)) {
    register_solver_events(log);
    log.start_trace(path);
  }
  ~TracedLogger() { std::remove(path.c_str()); }
};

TEST(Trace, SplitCpuSolveTraceIsTheLoggersTimeline) {
  TracedLogger traced(Verbosity::normal, "batchode-trace-cpu");
  TimeLogger& log = traced.log;
  const std::string& path = traced.path;
  EXPECT_TRUE(log.tracing());
  std::vector<double> y0(64), k(64);
  for (std::size_t i = 0; i < y0.size(); ++i) {
    y0[i] = 1.0 + 0.01 * static_cast<double>(i);
    k[i] = 0.1 + 0.05 * static_cast<double>(i);
  }
  Solver<Decay, double> solver(Decay{}, cpu_options(), log);
  // Two parts, each on a thread of its own with its own CPU workers: several host tracks, events
  // nested across threads through the solve's CallContext.
  solver.force_parts({{BackendId::cpu(), sched::Reason::user_preference, 0, 32, std::nullopt},
                      {BackendId::cpu(), sched::Reason::user_preference, 32, 32, std::nullopt}});
  (void)solver.solve(y0, k);
  (void)solver.solve(y0, k);  // a second top-level event, on the same file
  EXPECT_EQ(log.stop_trace(), path);
  EXPECT_FALSE(log.tracing());
  EXPECT_EQ(log.stop_trace(), "") << "no trace is running any more";

  const trace_checks::Trace trace = trace_checks::read_trace(path);
  trace_checks::expect_matches_logger(trace, log);
  EXPECT_TRUE(trace.gpu.empty()) << "a CPU solve has no GPU track";
  std::set<int> tracks;
  for (const trace_checks::Span& span : trace.host) tracks.insert(span.track);
  EXPECT_GE(tracks.size(), 3u) << "the solve's thread and at least the two parts' threads";
  std::size_t solves = 0, parts = 0;
  for (const trace_checks::Span& span : trace.host) {
    solves += span.name == events::solver_solve_execution;
    if (span.name == events::execution_part) {
      ++parts;
      EXPECT_EQ(span.args["backend"].string, "cpu");  // metadata are the event's arguments
    }
  }
  EXPECT_EQ(solves, 2u);
  EXPECT_EQ(parts, 4u);
}

TEST(Trace, RecordedEventsAndGpuValuesWithoutAPlaceStayOnTheHostTrack) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  log.register_event("outer", "runtime");
  log.register_event("copy", "runtime");
  const std::string path = temp_path("batchode-trace-record");
  log.start_trace(path);
  log.start_event("outer");
  std::this_thread::sleep_for(std::chrono::milliseconds(3));  // the copy "ran" inside outer
  log.record_event("copy", 1.5, {{"nbytes", std::int64_t{4096}}}, 0.75);
  log.stop_event("outer");
  (void)log.stop_trace();
  const trace_checks::Trace trace = trace_checks::read_trace(path);
  trace_checks::expect_matches_logger(trace, log);
  ASSERT_EQ(trace.host.size(), 2u);
  EXPECT_TRUE(trace.gpu.empty()) << "a GPU time given as a number has no device clock to place it by";
  const trace_checks::Span& copy = trace.host[0].name == "copy" ? trace.host[0] : trace.host[1];
  EXPECT_DOUBLE_EQ(copy.dur_us, 1500.0);
  EXPECT_EQ(copy.args["nbytes"].number, 4096.0);
  std::remove(path.c_str());
}

TEST(Trace, NothingIsTracedAtVerbosityNone) {
  TracedLogger traced(Verbosity::none, "batchode-trace-none");
  Solver<Decay, double> solver(Decay{}, cpu_options(), traced.log);
  (void)solver.solve(std::vector<double>{1.0, 2.0}, std::vector<double>{0.5, 1.0});
  (void)traced.log.stop_trace();
  const trace_checks::Trace trace = trace_checks::read_trace(traced.path);
  EXPECT_TRUE(trace.host.empty());
  EXPECT_TRUE(trace.gpu.empty());
}

TEST(Trace, AFileThatCannotBeWrittenIsNamedAndNothingChanges) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  const std::string path = "/nonexistent-batchode-folder/trace.json";
  try {
    log.start_trace(path);
    FAIL() << "start_trace did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the folder '/nonexistent-batchode-folder' does not exist"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(log.tracing());
}

TEST(Trace, StartingAgainClosesTheFirstFile) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  log.register_event("step", "runtime");
  const std::string first = temp_path("batchode-trace-first"), second = temp_path("batchode-trace-second");
  log.start_trace(first);
  log.start_event("step");
  log.stop_event("step");
  log.start_trace(second);
  log.start_event("step");
  log.stop_event("step");
  log.start_event("step");
  log.stop_event("step");
  EXPECT_EQ(log.stop_trace(), second);
  EXPECT_EQ(trace_checks::read_trace(first).host.size(), 1u);  // closed, so valid JSON
  EXPECT_EQ(trace_checks::read_trace(second).host.size(), 2u);
  std::remove(first.c_str());
  std::remove(second.c_str());
}

TEST(Trace, StartingAgainOnTheSameFileClosesItFirst) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  log.register_event("step", "runtime");
  const std::string path = temp_path("batchode-trace-same");
  log.start_trace(path);
  log.start_event("step");
  log.stop_event("step");
  log.start_trace(path);  // BATCHODE_TRACE and --trace naming one file do this
  log.start_event("step");
  log.stop_event("step");
  EXPECT_EQ(log.stop_trace(), path);
  EXPECT_EQ(trace_checks::read_trace(path).host.size(), 1u) << "the second trace, alone and valid";
  std::remove(path.c_str());
}

// The solver's events and two of a test's own, "outer" and "inner".
struct NestedTraced : TracedLogger {
  explicit NestedTraced(const std::string& name) : TracedLogger(Verbosity::normal, name) {
    log.register_event("outer", "runtime");
    log.register_event("inner", "runtime");
  }
};

TEST(Trace, SerialsStayUniqueAcrossAReset) {
  NestedTraced traced("batchode-trace-reset");
  TimeLogger& log = traced.log;
  for (int round = 0; round < 2; ++round) {
    log.start_event("outer");
    log.start_event("inner");
    log.stop_event("inner");
    log.stop_event("outer");
    log.reset();
  }
  (void)log.stop_trace();
  const trace_checks::Trace trace = trace_checks::read_trace(traced.path);
  ASSERT_EQ(trace.host.size(), 4u);
  std::set<double> serials;
  std::map<double, std::string> name_of;
  for (const trace_checks::Span& span : trace.host) {
    EXPECT_TRUE(serials.insert(span.args["serial"].number).second) << "serial repeated";
    name_of[span.args["serial"].number] = span.name;
  }
  for (const trace_checks::Span& span : trace.host) {
    if (span.name == "inner") {
      EXPECT_EQ(name_of.at(span.args["parent_serial"].number), "outer");
    }
  }
}

TEST(Trace, EventsClosedBySwitchingTimingOffAreTracedAsInterrupted) {
  NestedTraced traced("batchode-trace-interrupted");
  TimeLogger& log = traced.log;
  log.start_event("outer");
  log.start_event("inner");
  log.set_verbosity(Verbosity::none);  // as the command line does after an error
  (void)log.stop_trace();
  const trace_checks::Trace trace = trace_checks::read_trace(traced.path);
  ASSERT_EQ(trace.host.size(), 2u);
  for (const trace_checks::Span& span : trace.host)
    EXPECT_EQ(span.args["interrupted"].number, 1.0) << span.name;
}

TEST(Trace, EnvironmentStartsATraceAndNamesAFileItCannotWrite) {
  const std::string path = temp_path("batchode-trace-env");
  setenv("BATCHODE_TRACE", path.c_str(), 1);
  {
    std::ostringstream out;
    TimeLogger log(&out, Verbosity::normal);
    log.apply_environment();
    EXPECT_TRUE(log.tracing());
    log.register_event("step", "runtime");
    log.start_event("step");
    log.stop_event("step");
  }  // the destructor closes the file
  EXPECT_EQ(trace_checks::read_trace(path).host.size(), 1u);
  std::remove(path.c_str());

  setenv("BATCHODE_TRACE", "/nonexistent-batchode-folder/trace.json", 1);
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  log.apply_environment();
  EXPECT_FALSE(log.tracing());
  EXPECT_NE(out.str().find("ignoring BATCHODE_TRACE: cannot write the trace file "
                           "'/nonexistent-batchode-folder/trace.json'"),
            std::string::npos)
      << out.str();
  unsetenv("BATCHODE_TRACE");
}

TEST(Trace, ProfilerRangesFollowTheEnvironmentAndNeverFailARecording) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  log.register_event("step", "runtime");
  EXPECT_FALSE(log.profiler_ranges()) << "off by default";
  setenv("BATCHODE_PROFILER_RANGES", "1", 1);
  log.apply_environment();
  EXPECT_TRUE(log.profiler_ranges());
  setenv("BATCHODE_PROFILER_RANGES", "0", 1);
  log.apply_environment();
  EXPECT_FALSE(log.profiler_ranges());
  unsetenv("BATCHODE_PROFILER_RANGES");
  // On, with whatever API this build has (none, or roctx/NVTX with no profiler attached): the
  // events are recorded as ever.
  log.set_profiler_ranges(true);
  log.start_event("step");
  log.stop_event("step");
  EXPECT_EQ(log.stats("step").count, 1u);
  const std::string api = gpu::profiler_ranges_api();
  EXPECT_TRUE(api == "none" || api == "nvtx" || api == "roctx") << api;
  EXPECT_EQ(api != "none", gpu::profiler_ranges_available());
}

}  // namespace
