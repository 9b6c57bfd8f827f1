// tests/timing/: what solves print and record in a shared TimeLogger: each call at its own level
// whatever other threads do, one summary per call with a split solve's parts nested in it, loggers
// that nobody registered, and BATCHODE_VERBOSITY empty, invalid or valid.
// A program of its own: it sets BATCHODE_VERBOSITY and redirects the default logger.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Decay;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

SolveOptions small_options(std::optional<Verbosity> verbosity) {
  SolveOptions o;
  o.method = Method::rk4;
  o.dt = 0.05;
  o.t_end = 1.0;
  o.backend = Backend::cpu;  // no "no usable GPU" notice
  o.cpu_threads = 1;
  o.verbosity = verbosity;
  return o;
}

const std::vector<double> y0{1.0, 2.0, 3.0, 4.0};
const std::vector<double> k{0.5, 1.0, 1.5, 2.0};

// Every test starts from an unset variable and leaves it unset.
struct SolveTiming : ::testing::Test {
  SolveTiming() { unsetenv("BATCHODE_VERBOSITY"); }
  ~SolveTiming() override { unsetenv("BATCHODE_VERBOSITY"); }
};

// Item 9 of issue 20: a solve's verbosity used to be set on the shared logger for the solve's
// duration, so threads solving at other levels switched each other's output on and off (and
// switching to none cut the others' events into top-level fragments with summaries of their own).
TEST_F(SolveTiming, EachThreadSolvesAtItsOwnLevelOnTheSharedDefaultLogger) {
  TimeLogger& log = default_timelogger();
  std::ostringstream out;
  log.set_verbosity(Verbosity::normal);
  log.set_output(&out);
  constexpr int per_thread = 25;
  // The logger's level (normal), normal, none and verbose.
  const std::optional<Verbosity> levels[] = {std::nullopt, Verbosity::normal, Verbosity::none,
                                             Verbosity::verbose};
  std::vector<std::thread> threads;
  for (const std::optional<Verbosity> level : levels) {
    threads.emplace_back([level] {
      const SolveOptions o = small_options(level);
      for (int i = 0; i < per_thread; ++i) (void)solve_ivp(Decay{}, y0, k, o);
    });
  }
  for (std::thread& t : threads) t.join();
  log.set_output(nullptr);
  const std::string text = out.str();
  // Three threads print one summary per call, all of the whole solve; the fourth prints nothing.
  EXPECT_EQ(count_of(text, "batchode timing: solve_ivp_execution took"), 3u * per_thread) << text;
  EXPECT_EQ(count_of(text, "batchode timing: "), 3u * per_thread) << text;
  // One thread's events printed one line each as they completed: its solves' top-level lines.
  EXPECT_EQ(count_of(text, "[batchode] solve_ivp_execution: "), std::size_t{per_thread}) << text;
  EXPECT_EQ(log.verbosity(), Verbosity::normal) << "the logger's own level is left alone";
}

// Item 10: a solve split into parts ran each part on a new thread whose events were top-level,
// so one Solver::solve printed five summaries and its tree lost the parts.
TEST_F(SolveTiming, SplitSolvePrintsOneSummaryWithItsPartsNested) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  register_solver_events(log);
  Solver<Decay, double> solver(Decay{}, small_options(std::nullopt), log);
  solver.force_parts({{BackendId::cpu(), sched::Reason::user_preference, 0, 2, std::nullopt},
                      {BackendId::cpu(), sched::Reason::user_preference, 2, 2, std::nullopt}});
  const SolveResult<double> result = solver.solve(y0, k);
  ASSERT_EQ(result.execution().size(), 2u);
  const std::string text = out.str();
  EXPECT_EQ(count_of(text, "batchode timing: "), 1u) << text;
  EXPECT_EQ(count_of(text, "batchode timing: solver_solve_execution took"), 1u) << text;

  const std::vector<Occurrence> solves = log.occurrences(events::solver_solve_execution);
  ASSERT_EQ(solves.size(), 1u);
  const Occurrence& solve = solves[0];
  EXPECT_FALSE(solve.parent.has_value());
  // Everything else nests under the solve, the parts' events from threads other than the solve's.
  for (const Occurrence& o : log.occurrences()) {
    if (o.id == solve.id) continue;
    EXPECT_TRUE(o.parent.has_value()) << o.label << " is top-level";
    std::size_t root = o.id;
    for (std::optional<std::size_t> p = o.parent; p; p = log.occurrence(*p).parent) root = *p;
    EXPECT_EQ(root, solve.id) << o.label;
  }
  const std::vector<Occurrence> runs = log.occurrences(events::kernel_run_execution);
  ASSERT_EQ(runs.size(), 2u);
  // Each part is an execution_part under the solve, opened on the part's thread, and the part's
  // kernel_run_execution nests under it (issue 19: it used to be printed as its sibling).
  const std::vector<Occurrence> parts = log.occurrences(events::execution_part);
  ASSERT_EQ(parts.size(), 2u);
  for (const Occurrence& part : parts) {
    EXPECT_EQ(part.parent, solve.id);
    EXPECT_EQ(part.depth, solve.depth + 1);
  }
  for (const Occurrence& run : runs) {
    ASSERT_TRUE(run.parent.has_value());
    EXPECT_EQ(log.occurrence(*run.parent).label, events::execution_part);
    EXPECT_EQ(log.occurrence(*run.parent).thread, run.thread);
    EXPECT_EQ(run.depth, solve.depth + 2);
    EXPECT_NE(run.thread, solve.thread) << "each part runs on a thread of its own";
  }
  EXPECT_NE(runs[0].thread, runs[1].thread);
  const std::vector<Occurrence> workers = log.occurrences(events::cpu_integration);
  ASSERT_EQ(workers.size(), 2u);
  for (const Occurrence& w : workers) {
    EXPECT_EQ(w.depth, solve.depth + 3);
    EXPECT_EQ(log.occurrence(*w.parent).label, events::kernel_run_execution);
  }
  // The one summary shows both parts, and their runs under them, as rows of the solve's tree.
  const std::regex parts_row(
      "\n  solver_solve_execution +1 .*\n(    .*\n)*    execution_part +2 .*\n      kernel_run_execution +2 ");
  EXPECT_TRUE(std::regex_search(text, parts_row)) << text;
}

// Item 11: a logger nobody registered made every solve throw TimingError.
TEST_F(SolveTiming, SolverRegistersItsEventsOnAnyLogger) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  Solver<Decay, double> solver(Decay{}, small_options(std::nullopt), log);
  EXPECT_TRUE(log.is_registered(events::solver_solve_execution));
  EXPECT_TRUE(log.is_registered(events::kernel_compile));
  EXPECT_NO_THROW((void)solver.solve(y0, k));
  EXPECT_EQ(log.stats(events::solver_solve_execution).count, 1u);
  EXPECT_EQ(log.stats(events::cpu_integration).count, 1u);
  EXPECT_EQ(count_of(out.str(), "batchode timing: solver_solve_execution took"), 1u) << out.str();

  // solve_ivp too, and registration is idempotent: a second Solver on the same logger is fine.
  TimeLogger fresh(&out, Verbosity::normal);
  EXPECT_NO_THROW((void)solve_ivp(Decay{}, y0, k, small_options(std::nullopt), fresh));
  EXPECT_NO_THROW((void)solve_ivp(Decay{}, y0, k, small_options(std::nullopt), fresh));
  EXPECT_EQ(fresh.stats(events::solve_ivp_execution).count, 2u);
  EXPECT_EQ(fresh.stats(events::solver_solve_execution).count, 2u);
}

// A label the user registered under another category keeps it; the solve still runs and times
// every event.
TEST_F(SolveTiming, ConflictingRegistrationDoesNotFailTheSolve) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  log.register_event(events::input_validation, "mine", "");
  EXPECT_NO_THROW((void)solve_ivp(Decay{}, y0, k, small_options(std::nullopt), log));
  EXPECT_EQ(log.stats(events::input_validation).category, "mine");
  EXPECT_GE(log.stats(events::input_validation).count, 1u);
  EXPECT_EQ(log.stats(events::cpu_integration).count, 1u) << "events after the conflict are registered too";
}

// Item 12: the solver asked only whether BATCHODE_VERBOSITY was set, so an empty or invalid value
// (which the logger ignores) made every solve ignore SolveOptions::verbosity.
TEST_F(SolveTiming, EmptyOrInvalidEnvironmentLeavesTheSolvesLevel) {
  for (const char* value : {"", "chatty"}) {
    ASSERT_EQ(setenv("BATCHODE_VERBOSITY", value, 1), 0);
    std::ostringstream out;
    TimeLogger log(&out, Verbosity::normal);
    register_solver_events(log);
    (void)solve_ivp(Decay{}, y0, k, small_options(Verbosity::none), log);
    EXPECT_EQ(out.str(), "") << "BATCHODE_VERBOSITY='" << value << "'";
    (void)solve_ivp(Decay{}, y0, k, small_options(Verbosity::verbose), log);
    EXPECT_EQ(count_of(out.str(), "[batchode] solve_ivp_execution: "), 1u)
        << "BATCHODE_VERBOSITY='" << value << "'";
  }
}

// A valid value overrides both the logger's level and the solve's (docs/guide/timing.md).
TEST_F(SolveTiming, ValidEnvironmentOverridesTheSolveAndTheLogger) {
  ASSERT_EQ(setenv("BATCHODE_VERBOSITY", "none", 1), 0);
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  register_solver_events(log);
  (void)solve_ivp(Decay{}, y0, k, small_options(Verbosity::verbose), log);
  (void)solve_ivp(Decay{}, y0, k, small_options(std::nullopt), log);
  EXPECT_EQ(out.str(), "");
  ASSERT_EQ(setenv("BATCHODE_VERBOSITY", "Verbose", 1), 0);
  TimeLogger quiet(&out, Verbosity::none);
  register_solver_events(quiet);
  (void)solve_ivp(Decay{}, y0, k, small_options(Verbosity::none), quiet);
  EXPECT_EQ(count_of(out.str(), "[batchode] solve_ivp_execution: "), 1u) << out.str();
  EXPECT_EQ(count_of(out.str(), "batchode timing: solve_ivp_execution took"), 1u) << out.str();
  EXPECT_EQ(quiet.verbosity(), Verbosity::none) << "the logger's own level is left alone";
}

// Issue 19: the metadata keys of the timing design, pinned on the CPU path (the GPU path's
// transfers and launches: tests/gpu/event_keys_gpu_test.cpp).
TEST_F(SolveTiming, OuterEventsCarryTheDesignsMetadataKeys) {
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  const SolveResult<double> r = solve_ivp(Decay{}, y0, k, small_options(std::nullopt), log);
  ASSERT_EQ(r.n_runs(), 4u);
  for (const char* label : {events::solve_ivp_execution, events::solver_solve_execution, events::kernel_run_execution,
                            events::execution_part}) {
    SCOPED_TRACE(label);
    const std::vector<Occurrence> found = log.occurrences(label);
    ASSERT_EQ(found.size(), 1u);
    const Metadata& m = found[0].metadata;
    ASSERT_NE(m.find(keys::num_chunks), nullptr);
    EXPECT_EQ(m.find(keys::num_chunks)->as_int(), 1);
    if (std::string(label) != events::execution_part) {
      ASSERT_NE(m.find(keys::total_runs), nullptr);
      EXPECT_EQ(m.find(keys::total_runs)->as_int(), 4);
    }
  }
  const Metadata run = log.occurrences(events::kernel_run_execution)[0].metadata;
  ASSERT_NE(run.find(keys::backend), nullptr);
  EXPECT_EQ(run.find(keys::backend)->as_string(), "cpu");
  const Metadata part = log.occurrences(events::execution_part)[0].metadata;
  EXPECT_EQ(part.find(keys::backend)->as_string(), "cpu");
  EXPECT_EQ(part.find("runs")->as_int(), 4);
}

}  // namespace
