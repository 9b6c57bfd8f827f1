// tests/timing/: what each verbosity level prints, parsing of level names and BATCHODE_VERBOSITY.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#include <batchode/timing/time_logger.hpp>
#include <batchode/timing/verbosity.hpp>

namespace {

using batchode::TimeLogger;
using batchode::Verbosity;

// True when `text` has a line matching `pattern` (spaces between columns are free).
bool has_line(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex("(^|\\n)" + pattern + "(\\n|$)"));
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

TEST(VerbosityTest, ParsesEveryNameAndDefaultMeansNormal) {
  EXPECT_EQ(batchode::parse_verbosity("none"), Verbosity::none);
  EXPECT_EQ(batchode::parse_verbosity("default"), Verbosity::normal);
  EXPECT_EQ(batchode::parse_verbosity("normal"), Verbosity::normal);
  EXPECT_EQ(batchode::parse_verbosity("verbose"), Verbosity::verbose);
  EXPECT_EQ(batchode::parse_verbosity("debug"), Verbosity::debug);
  EXPECT_EQ(batchode::parse_verbosity("DEBUG"), Verbosity::debug);
  for (Verbosity v : {Verbosity::none, Verbosity::normal, Verbosity::verbose, Verbosity::debug}) {
    EXPECT_EQ(batchode::parse_verbosity(batchode::to_string(v)), v);
  }
  EXPECT_EQ(batchode::to_string(Verbosity::normal), "normal");
}

TEST(VerbosityTest, InvalidNameThrowsListingValidOnes) {
  try {
    (void)batchode::parse_verbosity("loud");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("'loud'"), std::string::npos) << what;
    EXPECT_NE(what.find("none, default, normal, verbose, debug"), std::string::npos) << what;
  }
}

// The same nested workload at every level: outer > inner > 3 x leaf (+ a compile event).
struct Output : ::testing::Test {
  std::ostringstream out;
  TimeLogger log{&out, Verbosity::normal};
  Output() {
    log.register_event("outer", "runtime", "");
    log.register_event("inner", "runtime", "");
    log.register_event("leaf", "runtime", "");
    log.register_event("load", "compile", "");
  }
  void run_workload() {
    log.start_event("outer");
    log.start_event("inner");
    for (int i = 0; i < 3; ++i) {
      log.start_event("leaf");
      log.stop_event("leaf", {{"nbytes", 3'000'000}, {"chunk_slice", "0:100"}}, 1.0);
    }
    log.record_event("load", 2.0, {{"runs", 5}});
    log.stop_event("inner");
    summary_before_top_level_stop = out.str().find("batchode timing") != std::string::npos;
    log.stop_event("outer");
  }
  bool summary_before_top_level_stop = false;
};

TEST_F(Output, NonePrintsNothing) {
  log.set_verbosity(Verbosity::none);
  run_workload();
  EXPECT_EQ(out.str(), "");
}

TEST_F(Output, NormalPrintsOneSummaryWhenTheTopLevelEventStops) {
  run_workload();
  const std::string text = out.str();
  EXPECT_FALSE(summary_before_top_level_stop) << text;
  EXPECT_EQ(count_of(text, "batchode timing: outer took"), 1u) << text;
  EXPECT_EQ(count_of(text, "[batchode]"), 0u) << text;  // no per-event lines at normal
  // A tree: children indented under their parent, repeated leaf aggregated with its count.
  EXPECT_TRUE(has_line(text, "  event +count +total ms +mean ms +min ms +max ms +gpu ms +throughput")) << text;
  EXPECT_TRUE(has_line(text, "  outer +1 +[0-9.]+ +-")) << text;
  EXPECT_TRUE(has_line(text, "    inner +1 +[0-9.]+ +-")) << text;
  // leaf: count, total, mean, min, max, GPU total (3 x 1 ms) and 9 MB over 3 ms of GPU time.
  EXPECT_TRUE(has_line(text, "      leaf +3( +[0-9.]+){4} +3\\.000 +3\\.00 GB/s")) << text;
  EXPECT_TRUE(has_line(text, "      load +1 +2\\.000 +-")) << text;
  // Totals per category: runtime is outer's time alone, compile the load event.
  EXPECT_TRUE(has_line(text, "  category +total ms .*")) << text;
  EXPECT_TRUE(has_line(text, "  runtime +[0-9.]+")) << text;
  EXPECT_TRUE(has_line(text, "  compile +2\\.000")) << text;

  // A second top-level event gets its own summary, covering only what happened since it started.
  out.str("");
  log.record_event("load", 1.0);
  EXPECT_EQ(count_of(out.str(), "batchode timing: load took 1.000 ms"), 1u) << out.str();
  EXPECT_EQ(count_of(out.str(), "leaf"), 0u) << out.str();
}

TEST_F(Output, VerbosePrintsEachEventAsItCompletes) {
  log.set_verbosity(Verbosity::verbose);
  run_workload();
  const std::string text = out.str();
  EXPECT_EQ(count_of(text, "[batchode]     leaf: "), 3u) << text;
  EXPECT_EQ(count_of(text, "(gpu 1.000 ms)"), 3u) << text;
  EXPECT_EQ(count_of(text, "[batchode]     load: 2.000 ms"), 1u) << text;
  EXPECT_EQ(count_of(text, "[batchode]   inner: "), 1u) << text;
  EXPECT_EQ(count_of(text, "[batchode] outer: "), 1u) << text;
  EXPECT_EQ(count_of(text, "start"), 0u) << text;     // starts are debug only
  EXPECT_EQ(count_of(text, "runs=5"), 0u) << text;    // and so is metadata
  EXPECT_EQ(count_of(text, "batchode timing: outer took"), 1u) << text;  // plus the summary
  EXPECT_LT(text.find("[batchode] outer: "), text.find("batchode timing: outer took"));
}

TEST_F(Output, DebugPrintsEveryStartAndStopWithMetadata) {
  log.set_verbosity(Verbosity::debug);
  run_workload();
  const std::string text = out.str();
  EXPECT_EQ(count_of(text, "[batchode] start outer [thread 0]"), 1u) << text;
  EXPECT_EQ(count_of(text, "[batchode]   start inner"), 1u) << text;
  EXPECT_EQ(count_of(text, "[batchode]     start leaf"), 3u) << text;
  EXPECT_EQ(count_of(text, "[batchode]     stop   leaf: "), 3u) << text;
  EXPECT_EQ(count_of(text, "{nbytes=3000000, chunk_slice=\"0:100\"}"), 3u) << text;
  EXPECT_EQ(count_of(text, "[batchode]     record load: 2.000 ms {runs=5}"), 1u) << text;
  EXPECT_EQ(count_of(text, "[batchode] stop   outer: "), 1u) << text;
  EXPECT_LT(text.find("start leaf"), text.find("stop   leaf"));
  EXPECT_EQ(count_of(text, "batchode timing: outer took"), 1u) << text;
}

TEST_F(Output, PrintSummaryFiltersByCategory) {
  run_workload();
  out.str("");
  log.set_verbosity(Verbosity::none);  // print_summary prints whatever the level
  log.print_summary();
  std::string text = out.str();
  EXPECT_NE(text.find("summary of all events"), std::string::npos) << text;
  EXPECT_NE(text.find("leaf"), std::string::npos) << text;
  out.str("");
  log.print_summary("compile");
  text = out.str();
  EXPECT_NE(text.find("summary of 'compile' events"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "  load +1 +2\\.000 +-")) << text;  // at the top: it has no compile ancestor
  EXPECT_EQ(text.find("leaf"), std::string::npos) << text;
  EXPECT_EQ(text.find("runtime"), std::string::npos) << text;
  out.str("");
  log.reset();
  log.print_summary();
  EXPECT_NE(out.str().find("(no finished events)"), std::string::npos) << out.str();
}

// --- BATCHODE_VERBOSITY -------------------------------------------------------------------------

struct Environment : ::testing::Test {
  ~Environment() override { unsetenv("BATCHODE_VERBOSITY"); }
};

TEST_F(Environment, ValidValueOverridesTheLevel) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  setenv("BATCHODE_VERBOSITY", "debug", 1);
  EXPECT_TRUE(log.apply_environment());
  EXPECT_EQ(log.verbosity(), Verbosity::debug);
  setenv("BATCHODE_VERBOSITY", "default", 1);
  EXPECT_TRUE(log.apply_environment());
  EXPECT_EQ(log.verbosity(), Verbosity::normal);
  setenv("BATCHODE_VERBOSITY", "none", 1);
  EXPECT_TRUE(log.apply_environment());
  EXPECT_EQ(log.verbosity(), Verbosity::none);
  EXPECT_EQ(out.str(), "");
}

TEST_F(Environment, UnsetOrEmptyChangesNothing) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::verbose);
  unsetenv("BATCHODE_VERBOSITY");
  EXPECT_FALSE(log.apply_environment());
  setenv("BATCHODE_VERBOSITY", "", 1);
  EXPECT_FALSE(log.apply_environment());
  EXPECT_EQ(log.verbosity(), Verbosity::verbose);
  EXPECT_EQ(out.str(), "");
}

// The one reading of the variable, shared by the default logger and every solve.
TEST_F(Environment, EnvironmentVerbosityNamesALevelOrNothing) {
  std::string problem;
  unsetenv("BATCHODE_VERBOSITY");
  EXPECT_EQ(batchode::environment_verbosity(&problem), std::nullopt);
  setenv("BATCHODE_VERBOSITY", "", 1);
  EXPECT_EQ(batchode::environment_verbosity(&problem), std::nullopt);
  EXPECT_EQ(problem, "") << "empty means unset, not invalid";
  setenv("BATCHODE_VERBOSITY", "Verbose", 1);
  EXPECT_EQ(batchode::environment_verbosity(&problem), Verbosity::verbose);
  setenv("BATCHODE_VERBOSITY", "none", 1);
  EXPECT_EQ(batchode::environment_verbosity(), Verbosity::none);
  setenv("BATCHODE_VERBOSITY", "chatty", 1);
  EXPECT_EQ(batchode::environment_verbosity(), std::nullopt);
  EXPECT_EQ(batchode::environment_verbosity(&problem), std::nullopt);
  EXPECT_NE(problem.find("'chatty'"), std::string::npos) << problem;
}

TEST_F(Environment, InvalidValueWarnsOnceAndKeepsTheLevel) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::verbose);
  setenv("BATCHODE_VERBOSITY", "chatty", 1);
  EXPECT_FALSE(log.apply_environment());
  EXPECT_FALSE(log.apply_environment());
  EXPECT_EQ(log.verbosity(), Verbosity::verbose);
  const std::string text = out.str();
  EXPECT_EQ(count_of(text, "BATCHODE_VERBOSITY"), 1u) << text;
  EXPECT_NE(text.find("'chatty'"), std::string::npos) << text;
  EXPECT_NE(text.find("keeping verbosity 'verbose'"), std::string::npos) << text;
}

}  // namespace
