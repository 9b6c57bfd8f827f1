// SolveOptions.stop on the CPU path: a set flag ends a solve with SolveInterrupted (never a result with
// runs missing), from before the solve or from another thread while it runs, within ~1000 steps of a
// long run in progress; an unset flag changes nothing. (The GPU path: gpu_vs_cpu_test's
// AStopRequestEndsTheSolveBetweenChunksAndTheSolverRecovers. Python's Ctrl-C: python/tests.)
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "test_systems.hpp"

namespace {

using batchode::testing::Oscillator;

batchode::SolveOptions long_options(std::atomic<bool>* stop) {
  batchode::SolveOptions o;
  o.method = batchode::Method::rk4;
  o.dt = 1e-3;
  o.t_end = 100.0;  // 10^5 steps per run, about 1 ms (5 ms under the sanitizers)
  o.backend = batchode::Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  o.stop = stop;
  return o;
}

TEST(StopRequest, ASetFlagStopsTheSolveBeforeAnyRun) {
  std::atomic<bool> stop{true};
  batchode::Solver<Oscillator, double> solver(Oscillator{}, long_options(&stop));
  const std::vector<double> y0(2 * 64, 1.0), p(64, 1.0);
  try {
    (void)solver.solve(y0, p);
    FAIL() << "expected SolveInterrupted";
  } catch (const batchode::SolveInterrupted& e) {
    // Each worker stops before its first block; which worker's message is rethrown is not fixed.
    EXPECT_NE(std::string(e.what()).find("solve stopped on request on the CPU (run "), std::string::npos) << e.what();
  }
}

TEST(StopRequest, AFlagSetWhileSolvingStopsSoonAndTheSolverStaysUsable) {
  std::atomic<bool> stop{false};
  // 5000 steps per run: 65536 runs are over a second of work on two cores in Release, and a block of
  // 256 runs about 2.6 s in the sanitized build at -O0 (10^5 steps per run made it 54 s there).
  batchode::SolveOptions o = long_options(&stop);
  o.t_end = 5.0;
  batchode::Solver<Oscillator, double> solver(Oscillator{}, o);
  const std::size_t runs = 65536;
  const std::vector<double> y0(2 * runs, 1.0), p(runs, 1.0);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW((void)solver.solve(y0, p), batchode::SolveInterrupted);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stopper.join();
  EXPECT_LT(seconds, 10.0) << "a block is at most 256 runs (2.6 s under the sanitizers): the stop comes within one";
  stop = false;
  const std::vector<double> one_y0{1.0, 0.0}, one_p{1.0};
  EXPECT_TRUE(solver.solve(one_y0, one_p).all_succeeded());
}

TEST(StopRequest, AnUnsetFlagChangesNothing) {
  std::atomic<bool> stop{false};
  batchode::SolveOptions with = long_options(&stop), without = long_options(nullptr);
  with.t_end = without.t_end = 1.0;
  const std::vector<double> y0{1.0, 0.0, 0.5, 0.5}, p{1.0, 2.0};
  const auto a = batchode::solve_ivp(Oscillator{}, y0, p, with);
  const auto b = batchode::solve_ivp(Oscillator{}, y0, p, without);
  EXPECT_EQ(a.final_state(), b.final_state());
}

// Issue 44 item 10: one long run (dopri5 at rtol 1e-12 over 10^6 periods: minutes of work) could not be
// stopped until it ended, as the flag was read between blocks of runs only. Each run now reads it
// every 1024 steps: the solve ends soon after it is set, and the Solver solves again afterwards.
TEST(StopRequest, ALongRunInProgressStopsSoon) {
  std::atomic<bool> stop{false};
  batchode::SolveOptions o = long_options(&stop);
  o.method = batchode::Method::dopri5;
  o.dt.reset();
  o.rtol = o.atol = 1e-12;
  o.t_end = 1e6;
  o.max_steps = batchode::max_steps_limit;
  batchode::Solver<Oscillator, double> solver(Oscillator{}, o);
  const std::vector<double> y0{1.0, 0.0}, p{1.0};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)solver.solve(y0, p);
    ADD_FAILURE() << "expected SolveInterrupted";
  } catch (const batchode::SolveInterrupted& e) {
    EXPECT_NE(std::string(e.what()).find("inside runs 0 to 0 of 1"), std::string::npos) << e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stopper.join();
  EXPECT_LT(seconds, 2.0) << "1024 steps take well under a millisecond (tens under the sanitizers)";
  stop = false;
  o.t_end = 1.0;
  batchode::Solver<Oscillator, double> again(Oscillator{}, o);
  EXPECT_TRUE(again.solve(y0, p).all_succeeded());
}

}  // namespace
