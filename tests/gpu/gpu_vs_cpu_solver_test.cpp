// GPU vs CPU through one Solver: events, reuse, recycled pinned memory, bad input in a later chunk,
// stop requests, budgets and the timing of each chunk.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "gpu_compare.hpp"
#include "gpu_vs_cpu_setup.hpp"
#include "require_gpu.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using namespace batchode::testing::gpu_vs_cpu;
using batchode::testing::Lorenz;

// Events (issue 12) on the GPU, run by run as the CPU path, every GPU method: the oscillator's zeros
// recorded (5 of x's, 3 of v's, in 3 chunks), then x's first zero as a terminal event: the same
// crossings counted, their times and states and the stopped states within the usual bound.
TEST(GpuSolver, EventsRecordedAndTerminalMatchTheCpu) {
  BATCHODE_REQUIRE_GPU();
  using batchode::testing::OscillatorEvents;
  Batch<double> batch;
  batch.n_runs = 1000;
  for (double w : linspace<double>(0.5, 3.0, batch.n_runs)) {
    batch.y0.insert(batch.y0.end(), {1.0, 0.0});
    batch.params.push_back(w);
  }
  for (Method m : all_methods) {
    if (!method_info(m).gpu) continue;
    SolveOptions o = base_options(m, false);
    o.t_end = 10.0;
    if (!method_info(m).adaptive) o.dt = 1e-3;
    o.gpu.chunks = 3;
    o.events = {{"x", EventDirection::both, EventAction::record, 5}, {"v", EventDirection::both, EventAction::record, 3}};
    for (EventAction first : {EventAction::record, EventAction::terminal}) {
      o.events[0].action = first;
      o.backend = Backend::cpu;
      const SolveResult<double> cpu = solve_ivp(OscillatorEvents{}, batch, o);
      o.backend = Backend::gpu;
      const SolveResult<double> gpu = solve_ivp(OscillatorEvents{}, batch, o);
      const std::string what = to_string(m) + (first == EventAction::terminal ? " terminal" : " recorded");
      const double bound = batchode::testing::agreement_bound<double>(m, o.rtol, 10000);
      batchode::testing::expect_runs_agree(gpu, cpu, bound, what);
      std::size_t reported = 0;
      for (std::size_t r = 0; r < batch.n_runs; ++r) {
        for (std::size_t e = 0; e < 2; ++e) {
          ASSERT_EQ(gpu.event_count(r, e), cpu.event_count(r, e)) << what << " run " << r << " event " << e;
          for (std::size_t j = 0; j < gpu.event_slots(); ++j) {
            const double a = gpu.event_time(r, e, j), b = cpu.event_time(r, e, j);
            if (std::isnan(b) && std::isnan(a)) continue;
            if (!(std::fabs(a - b) <= bound * std::max(1.0, std::fabs(b))) && reported++ < 10) {
              ADD_FAILURE() << what << " run " << r << " event " << e << " crossing " << j << ": " << a << " vs " << b;
            }
            for (std::size_t s = 0; s < 2; ++s) {
              const double x = gpu.event_state(r, e, j, s), y = cpu.event_state(r, e, j, s);
              if (!(std::fabs(x - y) <= bound * std::max(1.0, std::fabs(y))) && reported++ < 10) {
                ADD_FAILURE() << what << " run " << r << " event " << e << " state " << s << ": " << x << " vs " << y;
              }
            }
          }
        }
        if (first == EventAction::terminal) EXPECT_EQ(gpu.status(r), Status::stopped_by_event) << what;
      }
      EXPECT_EQ(reported, 0u) << what;
    }
  }
}

TEST(GpuSolver, ReusedSolverGivesIdenticalResults) {
  BATCHODE_REQUIRE_GPU();
  SolveOptions o = base_options(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.gpu.chunks = 5;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const Batch<double> a = lorenz_sweep<double>(2000), b = lorenz_sweep<double>(777);
  const auto first = solver.solve(a);
  const auto other = solver.solve(b);
  const auto again = solver.solve(a);
  EXPECT_EQ(first.final_state(), again.final_state());
  EXPECT_EQ(other.n_runs(), 777u);
  const auto fresh = solve_ivp(Lorenz{}, b, o);
  EXPECT_EQ(other.final_state(), fresh.final_state());
}

TEST(GpuSolver, RecycledResultMemoryIsPinnedAndTakesTheDownloadsDirectly) {
  BATCHODE_REQUIRE_GPU();
  // 200k runs: final states of 4.8 MB, a block the Solver's pool recycles. The first result's block
  // comes back page-locked; the next solve downloads into it without staging and must give the
  // same numbers as the first (staged) solve and as the CPU.
  SolveOptions o = base_options(Method::rk4, false);
  o.t_end = 0.05;
  o.backend = Backend::gpu;
  o.gpu.chunks = 3;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const Batch<double> batch = lorenz_sweep<double>(200'000);
  std::vector<double> staged;
  const double* block = nullptr;
  {
    const auto first = solver.solve(batch);
    staged.assign(first.final_state().begin(), first.final_state().end());
    block = first.final_state().data();
    ASSERT_NE(first.memory(), nullptr);
    EXPECT_FALSE(first.memory()->is_pinned(block, staged.size() * sizeof(double)));
  }
  const auto second = solver.solve(batch);
  ASSERT_EQ(second.final_state().data(), block) << "the pool did not recycle the block";
  EXPECT_TRUE(second.memory()->is_pinned(block, staged.size() * sizeof(double)));
  EXPECT_TRUE(second.all_succeeded());
  EXPECT_TRUE(std::equal(staged.begin(), staged.end(), second.final_state().begin()));
  SolveOptions c = o;
  c.backend = Backend::cpu;
  const auto cpu = solve_ivp(Lorenz{}, batch, c);
  batchode::testing::expect_runs_agree(second, cpu, batchode::testing::agreement_bound<double>(Method::rk4, 0, 50),
                                       "pinned result vs cpu");
}

TEST(GpuSolver, NonFiniteInputInALaterChunkIsNamedAndTheSolverRecovers) {
  BATCHODE_REQUIRE_GPU();
  // The GPU path checks values while staging each chunk, so a NaN in chunk 5 of 7 is met after
  // chunks 0-4 are in flight: the error must still name the run, and the Solver's buffers must be
  // left fit for the next solve.
  SolveOptions o = base_options(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.gpu.chunks = 7;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const Batch<double> good = lorenz_sweep<double>(7000);
  const auto before = solver.solve(good);
  Batch<double> bad_y0 = good, bad_param = good;
  bad_y0.y0[5321 * 3 + 2] = std::nan("");
  bad_param.params[6999 * 3 + 1] = -INFINITY;
  try {
    (void)solver.solve(bad_y0);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("initial value of run 5321 (index 2)"), std::string::npos) << what;
  }
  try {
    (void)solver.solve(bad_param);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("parameter of run 6999 (index 1) is -inf"), std::string::npos) << what;
  }
  const auto after = solver.solve(good);
  EXPECT_EQ(before.final_state(), after.final_state());
  EXPECT_TRUE(after.all_succeeded());
}

TEST(GpuSolver, AStopRequestEndsTheSolveBetweenChunksAndTheSolverRecovers) {
  BATCHODE_REQUIRE_GPU();
  // SolveOptions.stop (Ctrl-C in Python): checked before each chunk is queued; here set before the
  // solve, so it stops before chunk 0 and the Solver's buffers stay fit for the next solve. (A stop
  // in the middle of a solve, with chunks in flight: python/tests' test_ctrl_c_stops_a_gpu_solve.)
  std::atomic<bool> stop{false};
  SolveOptions o = base_options(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.gpu.chunks = 7;
  o.stop = &stop;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const Batch<double> batch = lorenz_sweep<double>(7000);
  const auto before = solver.solve(batch);
  stop = true;
  try {
    (void)solver.solve(batch);
    FAIL() << "expected SolveInterrupted";
  } catch (const SolveInterrupted& e) {
    EXPECT_NE(std::string(e.what()).find("on GPU 0 before chunk 0 of 7"), std::string::npos) << e.what();
  }
  stop = false;
  const auto after = solver.solve(batch);
  EXPECT_EQ(before.final_state(), after.final_state());
  EXPECT_TRUE(after.all_succeeded());
}

TEST(GpuSolver, ImpossibleBudgetIsRefusedWithNumbers) {
  BATCHODE_REQUIRE_GPU();
  SolveOptions o = base_options(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.gpu.memory_bytes = 16;  // less than one run needs
  try {
    (void)solve_ivp(Lorenz{}, lorenz_sweep<double>(100), o);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
  }
}

TEST(GpuSolver, TimingEventsRecordedPerChunk) {
  BATCHODE_REQUIRE_GPU();
  TimeLogger log(nullptr, Verbosity::normal);
  register_solver_events(log);
  std::ostringstream sink;
  log.set_output(&sink);
  SolveOptions o = base_options(Method::rk4, true);
  o.backend = Backend::gpu;
  o.gpu.chunks = 7;
  o.verbosity.reset();
  (void)solve_ivp(Lorenz{}, lorenz_sweep<float>(5000), o, log);
  EXPECT_EQ(log.stats(events::kernel_launch).count, 7u);
  EXPECT_EQ(log.stats(events::kernel_launch).gpu_count, 7u);
  EXPECT_GT(log.stats(events::kernel_launch).total_gpu_ms, 0.0);
  EXPECT_EQ(log.stats(events::h2d_transfer_initial_values).count, 7u);
  EXPECT_EQ(log.stats(events::d2h_transfer_state).count, 7u);
  EXPECT_EQ(log.stats(events::h2d_transfer_initial_values).total_nbytes, 5000 * 3 * 4);
  EXPECT_NE(sink.str().find("kernel_launch"), std::string::npos) << "summary printed at verbosity default";
}

}  // namespace
