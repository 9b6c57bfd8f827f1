// The scheduler's decisions with fake backends of known speeds, the cost model's cache file, the
// telemetry's arithmetic, and the real Solver's records on the CPU (no GPU path in this unit).
// Over 400 lines on purpose: the fake backends and the records they produce are shared by every
// test here; split, each file would need its own copy of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <batchode/solver/scheduling/cost_model.hpp>
#include <batchode/solver/scheduling/scheduler.hpp>
#include <batchode/solver/scheduling/telemetry.hpp>
#include <batchode/solver/solver.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../../jit/jit_test_support.hpp"  // ScopedEnv
#include "gpu_compare.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using sched::BackendCapabilities;
using sched::LinearCost;
using sched::Reason;
using sched::Strategy;

BackendCapabilities fake_cpu(double fixed_ms, double per_run_ms) {
  BackendCapabilities b;
  b.id = BackendId::cpu();
  b.cost = LinearCost{fixed_ms, per_run_ms};
  return b;
}

BackendCapabilities fake_gpu(int index, double fixed_ms, double per_run_ms, std::size_t memory = 1u << 30) {
  BackendCapabilities b;
  b.id = BackendId::gpu(index);
  b.memory_bytes = memory;
  b.device_count = 2;
  b.cost = LinearCost{fixed_ms, per_run_ms};
  return b;
}

sched::Request request(std::size_t runs) {
  sched::Request r;
  r.runs = runs;
  r.device_bytes_per_run = 100;
  return r;
}

// CPU: 0.1 ms + 10 us/run; GPU: 5 ms + 0.1 us/run. Crossover near 495 runs.
const std::vector<BackendCapabilities> cpu_and_gpu = {fake_cpu(0.1, 1e-2), fake_gpu(0, 5.0, 1e-4)};

TEST(SchedulerPlan, AutomaticPicksTheCheaperBackendByCost) {
  const sched::Selection small = sched::plan(cpu_and_gpu, Strategy::automatic(), request(100));
  ASSERT_EQ(small.parts.size(), 1u);
  EXPECT_EQ(small.backend, "cpu");
  EXPECT_EQ(small.reason, Reason::cost_model);
  EXPECT_NEAR(*small.predicted_ms, 1.1, 1e-9);
  EXPECT_NE(small.detail.find("cpu"), std::string::npos);
  EXPECT_NE(small.detail.find("gpu:0"), std::string::npos) << "both estimates: " << small.detail;

  const sched::Selection large = sched::plan(cpu_and_gpu, Strategy::automatic(), request(10'000'000));
  ASSERT_EQ(large.parts.size(), 1u) << "the CPU would save under 10%: no CPU part";
  EXPECT_EQ(large.backend, "gpu:0");
  EXPECT_EQ(large.reason, Reason::cost_model);
  EXPECT_EQ(large.parts[0].runs, 10'000'000u);
  EXPECT_NEAR(*large.parts[0].predicted_ms, 1005.0, 1e-6);
}

TEST(SchedulerPlan, EachStrategy) {
  auto gp = sched::plan(cpu_and_gpu, Strategy::gpu_preferred(), request(10));
  EXPECT_EQ(gp.backend, "gpu:0");
  EXPECT_EQ(gp.reason, Reason::gpu_available);
  auto cp = sched::plan(cpu_and_gpu, Strategy::cpu_preferred(), request(10'000'000));
  EXPECT_EQ(cp.backend, "cpu");
  EXPECT_EQ(cp.reason, Reason::user_preference);
  auto only = sched::plan(cpu_and_gpu, Strategy::backend_only(BackendId::gpu(0)), request(10));
  EXPECT_EQ(only.backend, "gpu:0");
  EXPECT_EQ(only.reason, Reason::user_preference);
  EXPECT_THROW(sched::plan(cpu_and_gpu, Strategy::backend_only(BackendId::gpu(3)), request(10)), std::invalid_argument);

  SolveOptions o;
  o.backend = Backend::cpu;
  EXPECT_EQ(sched::strategy_for(o).backend, BackendId::cpu());
  o.backend = Backend::gpu;
  o.gpu.device = 1;
  EXPECT_EQ(sched::strategy_for(o).kind, sched::StrategyKind::backend_only);
  EXPECT_EQ(sched::strategy_for(o).backend, BackendId::gpu(1));
  o.backend = Backend::automatic;
  EXPECT_EQ(sched::strategy_for(o).kind, sched::StrategyKind::automatic);
}

TEST(SchedulerPlan, NoGpuIsGpuUnavailable) {
  const std::vector<BackendCapabilities> cpu_only = {fake_cpu(0.1, 1e-2)};
  for (Strategy s : {Strategy::automatic(), Strategy::gpu_preferred()}) {
    auto sel = sched::plan(cpu_only, s, request(10'000'000));
    EXPECT_EQ(sel.backend, "cpu");
    EXPECT_EQ(sel.reason, Reason::gpu_unavailable);
    EXPECT_STREQ(sched::to_string(sel.reason), "gpu_unavailable");
  }
  // A GPU without the method or precision is no GPU for this batch.
  BackendCapabilities g = fake_gpu(0, 5.0, 1e-4);
  g.methods = {Method::rk4};
  auto sel = sched::plan({fake_cpu(0.1, 1e-2), g}, Strategy::automatic(), request(10'000'000));
  EXPECT_EQ(sel.reason, Reason::gpu_unavailable);
}

TEST(SchedulerPlan, MemoryTooSmallIsMemoryConstraint) {
  const std::vector<BackendCapabilities> tiny = {fake_cpu(0.1, 1e-2), fake_gpu(0, 5.0, 1e-4, 50)};
  auto sel = sched::plan(tiny, Strategy::automatic(), request(10'000'000));
  EXPECT_EQ(sel.backend, "cpu");
  EXPECT_EQ(sel.reason, Reason::memory_constraint);
  EXPECT_STREQ(sched::to_string(sel.reason), "memory_constraint");
}

TEST(SchedulerPlan, WithoutCostsAGpuIsUsedAsAvailable) {
  BackendCapabilities c = fake_cpu(0, 0), g = fake_gpu(0, 0, 0);
  c.cost.reset();
  g.cost.reset();
  auto sel = sched::plan({c, g}, Strategy::automatic(), request(100));
  EXPECT_EQ(sel.backend, "gpu:0");
  EXPECT_EQ(sel.reason, Reason::gpu_available);
  EXPECT_FALSE(sel.predicted_ms.has_value());
}

TEST(SchedulerPlan, WithoutCostsSeveralGpusTakeAsManyRunsEachAndTheDetailSaysWhy) {
  BackendCapabilities c = fake_cpu(0, 0), g0 = fake_gpu(0, 0, 0), g1 = fake_gpu(1, 0, 0);
  c.cost.reset();
  g0.cost.reset();
  g1.cost.reset();
  sched::Request req = request(1001);
  req.no_cost_detail = "the model's CPU code is not compiled";
  auto sel = sched::plan({c, g0, g1}, Strategy::automatic(), req);
  EXPECT_EQ(sel.backend, "gpu:0+gpu:1");
  ASSERT_EQ(sel.parts.size(), 2u);
  EXPECT_EQ(sel.parts[0].first_run, 0u);
  EXPECT_EQ(sel.parts[0].runs + sel.parts[1].runs, 1001u);
  EXPECT_EQ(sel.parts[1].first_run, sel.parts[0].runs);
  EXPECT_LE(std::max(sel.parts[0].runs, sel.parts[1].runs) - std::min(sel.parts[0].runs, sel.parts[1].runs),
            1u);
  for (const sched::Part& p : sel.parts) {
    EXPECT_EQ(p.reason, Reason::gpu_available);
    EXPECT_FALSE(p.predicted_ms.has_value());
  }
  EXPECT_EQ(sel.detail, "the model's CPU code is not compiled: runs split evenly over 2 GPUs");
  // One run for two GPUs: one part.
  EXPECT_EQ(sched::plan({c, g0, g1}, Strategy::automatic(), request(1)).parts.size(), 1u);
  EXPECT_EQ(sched::plan({c, g0}, Strategy::automatic(), req).detail,
            "the model's CPU code is not compiled: GPU used as available");
}

TEST(SchedulerPlan, SplitProportionalToThroughputFinishesTogether) {
  // Two equal GPUs: half each. A GPU twice as fast gets two thirds.
  auto half = sched::plan({fake_cpu(0.1, 1e-2), fake_gpu(0, 1.0, 1e-4), fake_gpu(1, 1.0, 1e-4)},
                          Strategy::automatic(), request(1'000'000));
  ASSERT_EQ(half.parts.size(), 2u);
  EXPECT_EQ(half.backend, "gpu:0+gpu:1");
  EXPECT_EQ(half.parts[0].runs, 500'000u);
  EXPECT_EQ(half.parts[1].first_run, 500'000u);
  EXPECT_EQ(half.parts[1].runs, 500'000u);
  EXPECT_NEAR(*half.predicted_ms, 51.0, 1e-6);

  auto skew = sched::plan({fake_cpu(0.1, 1e-2), fake_gpu(0, 1.0, 0.5e-4), fake_gpu(1, 1.0, 1e-4)},
                          Strategy::automatic(), request(3'000'000));
  ASSERT_EQ(skew.parts.size(), 2u);
  EXPECT_NEAR(static_cast<double>(skew.parts[0].runs), 2e6, 2.0);
  EXPECT_NEAR(*skew.parts[0].predicted_ms, *skew.parts[1].predicted_ms, 1e-3);

  // A CPU as fast as the GPU helps: it takes about half, and finishes with the GPU.
  auto co = sched::plan({fake_cpu(1.0, 1e-4), fake_gpu(0, 1.0, 1e-4)}, Strategy::automatic(), request(1'000'000));
  ASSERT_EQ(co.parts.size(), 2u);
  EXPECT_EQ(co.backend, "gpu:0+cpu");
  EXPECT_EQ(co.parts[0].runs + co.parts[1].runs, 1'000'000u);
  EXPECT_NEAR(static_cast<double>(co.parts[1].runs), 5e5, 2.0);
  for (const sched::Part& p : co.parts) EXPECT_EQ(p.reason, Reason::cost_model);
}

TEST(SchedulerPlan, BackendWhoseFixedCostExceedsTheSplitTimeIsDropped) {
  const auto share = sched::detail::balanced_split({{0.0, 1.0}, {1000.0, 1.0}}, 10);
  EXPECT_EQ(share[0], 10u);
  EXPECT_EQ(share[1], 0u);
}

TEST(CostModelCache, WriteReadRefineDelete) {
  const std::string dir = ::testing::TempDir() + "batchode_cost_model_test";
  std::filesystem::remove_all(dir);
  CostModel model(dir + "/cost_model.txt");
  const std::string key = cost_key("Lorenz", Method::dopri5, true, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(model.find(key).has_value());
  CostCoefficients c{2.0, 3.0, 5.0, 0.5, 1};
  ASSERT_TRUE(model.store(key, c));
  ASSERT_TRUE(std::filesystem::exists(model.path()));
  CostModel again(model.path());
  const auto read = again.find(key);
  ASSERT_TRUE(read.has_value());
  EXPECT_DOUBLE_EQ(read->fixed_ms, 2.0);
  EXPECT_DOUBLE_EQ(read->setup_ms, 3.0);
  EXPECT_DOUBLE_EQ(read->ns_per_run_step, 5.0);
  EXPECT_DOUBLE_EQ(read->ns_per_byte, 0.5);
  // 1000 runs x 100 steps x 5 ns + 1000 x 8 bytes x 0.5 ns = 0.5 + 0.004 ms, plus 2 ms fixed.
  EXPECT_NEAR(read->predict_ms(1000, 100, 8), 2.504, 1e-12);
  EXPECT_NEAR(read->predict_ms(1000, 100, 8, true), 5.504, 1e-12) << "a first use pays the setup";
  // Refinement of the dominant per-run term: 10^4 runs x 100 steps (5 ms predicted, above the 2 ms
  // fixed cost) observed taking 2 + 0.04 + 40 ms means 40 ns/step; EMA 0.5 -> 22.5.
  const auto refined = again.refine(key, 10000, 100, 8, 42.04, false, 0.5);
  ASSERT_TRUE(refined.has_value());
  EXPECT_NEAR(refined->ns_per_run_step, 22.5, 1e-9);
  EXPECT_DOUBLE_EQ(refined->fixed_ms, 2.0);
  EXPECT_EQ(refined->observations, 2u);
  EXPECT_NEAR(model.find(key)->ns_per_run_step, 22.5, 1e-9);
  // A solve dominated by the fixed cost refines the fixed cost: 1 run x 100 steps predicted
  // 2 + 0.00225 ms, observed 1.00225 ms -> fixed 1 ms observed; EMA 0.5 -> 1.5.
  const auto small = again.refine(key, 1, 100, 0, 1.00225, false, 0.5);
  EXPECT_NEAR(small->ns_per_run_step, 22.5, 1e-9);
  EXPECT_NEAR(small->fixed_ms, 1.5, 1e-9);
  // A first-use solve refines the setup: observed 1.5 + 0.00225 + 5 ms -> setup 5; EMA 0.5 -> 4.
  EXPECT_NEAR(again.refine(key, 1, 100, 0, 6.50225, true, 0.5)->setup_ms, 4.0, 1e-9);
  // A large first use (warm prediction above the setup) is mostly buffer growth: ignored.
  EXPECT_NEAR(again.refine(key, 100000, 100, 0, 1000.0, true, 0.5)->setup_ms, 4.0, 1e-9);
  // No observation can make a coefficient negative.
  const auto floored = again.refine(key, 1, 100, 0, 1e-6, false, 1.0);
  EXPECT_GT(floored->fixed_ms, 0.0);
  EXPECT_GT(again.refine(key, 1000000, 100, 0, 1e-6, false, 1.0)->ns_per_run_step, 0.0);
  std::filesystem::remove(model.path());
  EXPECT_FALSE(model.find(key).has_value()) << "deleting the file forgets the calibration";
  std::filesystem::remove_all(dir);
}

TEST(CostModelCache, OlderFormatLinesCostARecalibration) {
  const std::string dir = ::testing::TempDir() + "batchode_cost_model_old";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir + "/cost_model.txt");
    out << "old|dopri5|double|cpu x16\t0.5 6.1 -1 3\n";  // four numbers: the format without setup_ms
  }
  CostModel model(dir + "/cost_model.txt");
  EXPECT_FALSE(model.find("old|dopri5|double|cpu x16").has_value());
  std::filesystem::remove_all(dir);
}

TEST(CostModel, PredictionsArePositiveAndIncreasingInRuns) {
  // Even coefficients a corrupt file might hold (negative, "unknown" -1 per byte) predict sensibly.
  const CostCoefficients odd{-1.0, -2.0, 3.0, -1.0, 1};
  double last = 0;
  for (std::size_t n : {0u, 1u, 100u, 10000u}) {
    const double t = odd.predict_ms(n, 50, 100, true);
    EXPECT_GE(t, last);
    last = t;
  }
  const CostCoefficients c{0.1, 0.0, 2.0, 0.0, 1};
  EXPECT_GT(c.predict_ms(1, 10, 0), 0.0);
  EXPECT_LT(c.predict_ms(10, 10, 0), c.predict_ms(11, 10, 0));
}

TEST(SchedulerPlan, CrossoverSolvesEqualCostAndIsNeverNegative) {
  // CPU 0.1 ms + 10 us/run, GPU 5 ms + 0.1 us/run: n* = 4.9 / 0.0099 = 494.9 runs.
  const double n = sched::crossover_runs({0.1, 1e-2}, {5.0, 1e-4});
  EXPECT_NEAR(n, 4.9 / 9.9e-3, 1e-9);
  EXPECT_NEAR(LinearCost({0.1, 1e-2}).predict_ms(495), LinearCost({5.0, 1e-4}).predict_ms(495), 1e-3);
  // The plan agrees with the crossover on either side of it.
  EXPECT_EQ(sched::plan(cpu_and_gpu, Strategy::automatic(), request(480)).backend, "cpu");
  EXPECT_EQ(sched::plan(cpu_and_gpu, Strategy::automatic(), request(510)).backend, "gpu:0");
  // A GPU cheaper to start and faster per run wins from the first run: 0, not a negative size.
  EXPECT_EQ(sched::crossover_runs({0.6, 1e-3}, {0.2, 1e-5}), 0.0);
  // A GPU with no better throughput never wins large batches.
  EXPECT_TRUE(std::isinf(sched::crossover_runs({0.1, 1e-5}, {5.0, 1e-4})));
}

TEST(CostModelCache, PathFollowsTheEnvironment) {
  ::setenv("BATCHODE_CACHE_DIR", "/tmp/bc", 1);
  EXPECT_EQ(CostModel::default_cache_path(), "/tmp/bc/cost_model.txt");
  ::unsetenv("BATCHODE_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(CostModel::default_cache_path(), "/tmp/xdg/batchode/cost_model.txt");
  ::unsetenv("XDG_CACHE_HOME");
}

// A cache that cannot be written (its directory is a file) or an empty BATCHODE_CACHE_DIR never
// fails anything: calibrations are kept in memory for the process and the solve goes on.
TEST(CostModelCache, UnwritableCacheKeepsCalibrationsInMemory) {
  const std::string dir = ::testing::TempDir() + "batchode_cost_model_unwritable";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string not_a_dir = dir + "/a_file";
  { std::ofstream(not_a_dir) << "not a directory\n"; }
  CostModel model(not_a_dir + "/cost_model.txt");
  const std::string key = cost_key("Lorenz", Method::dopri5, true, "cpu x4");
  const CostCoefficients c{2.0, 3.0, 5.0, 0.5, 1};
  EXPECT_FALSE(model.store(key, c)) << "the file cannot be written";
  const auto kept = model.find(key);
  ASSERT_TRUE(kept.has_value()) << "an unwritten calibration is kept for this process";
  EXPECT_DOUBLE_EQ(kept->ns_per_run_step, 5.0);
  const auto refined = model.refine(key, 10000, 100, 8, 42.04, false, 0.5);
  ASSERT_TRUE(refined.has_value());
  EXPECT_EQ(model.find(key)->observations, 2u);
  EXPECT_FALSE(std::filesystem::exists(not_a_dir + "/cost_model.txt"));

  const char* saved = std::getenv("BATCHODE_CACHE_DIR");
  const std::string saved_value = saved ? saved : "";
  ::setenv("BATCHODE_CACHE_DIR", "", 1);
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(CostModel::default_cache_path(), "/tmp/xdg/batchode/cost_model.txt") << "empty means unset";
  ::unsetenv("XDG_CACHE_HOME");
  if (saved) {
    ::setenv("BATCHODE_CACHE_DIR", saved_value.c_str(), 1);
  } else {
    ::unsetenv("BATCHODE_CACHE_DIR");
  }
  std::filesystem::remove_all(dir);
}

TEST(Telemetry, EmptyAndEventsWithoutDurations) {
  ExecutionTelemetry t;
  ExecutionSummary s = t.summary();
  EXPECT_EQ(s.parts, 0u);
  EXPECT_FALSE(s.mean_abs_error_percent.has_value());
  std::ostringstream out;
  t.print_debug_summary(out);
  EXPECT_NE(out.str().find("no executions recorded"), std::string::npos);
  EXPECT_NE(t.to_json().find("\"events\":[]"), std::string::npos);
  t.begin_solve();
  t.record({0, 1.0, "cpu", "gpu_unavailable", 0, 10, std::nullopt, std::nullopt});
  s = t.summary();
  EXPECT_EQ(s.runs, 10u);
  EXPECT_EQ(s.total_ms, 0.0);
  ASSERT_EQ(s.backends.size(), 1u);
  EXPECT_EQ(s.backends[0].time_percent, 0.0);
  EXPECT_DOUBLE_EQ(s.backends[0].runs_percent, 100.0);
  EXPECT_NE(t.to_json().find("\"actual_ms\":null"), std::string::npos);
}

TEST(Telemetry, SummaryArithmetic) {
  ExecutionTelemetry t;
  t.begin_solve();
  t.record({0, 0.0, "gpu:0", "cost_model", 0, 750, 30.0, 25.0});   // error 20%
  t.record({0, 0.0, "cpu", "cost_model", 750, 250, 60.0, 75.0});   // error 20%
  t.begin_solve();
  t.record({0, 0.0, "cpu", "gpu_unavailable", 0, 1000, std::nullopt, 100.0});
  const ExecutionSummary s = t.summary();
  EXPECT_EQ(s.solves, 2u);
  EXPECT_EQ(s.parts, 3u);
  EXPECT_EQ(s.runs, 2000u);
  EXPECT_DOUBLE_EQ(s.total_ms, 200.0);
  EXPECT_EQ(s.predicted_parts, 2u);
  EXPECT_NEAR(*s.mean_abs_error_percent, 20.0, 1e-12);
  ASSERT_EQ(s.backends.size(), 2u);
  EXPECT_EQ(s.backends[0].backend, "cpu");
  EXPECT_EQ(s.backends[0].runs, 1250u);
  EXPECT_DOUBLE_EQ(s.backends[0].runs_percent, 62.5);
  EXPECT_DOUBLE_EQ(s.backends[0].time_percent, 87.5);
  EXPECT_DOUBLE_EQ(s.backends[1].time_percent, 12.5);
  EXPECT_NEAR(s.backends[0].mean_abs_error_percent, 20.0, 1e-12);
  EXPECT_EQ(t.events()[2].solve, 1u);
  std::ostringstream out;
  t.print_debug_summary(out);
  EXPECT_NE(out.str().find("gpu_unavailable x1"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("cost_model x2"), std::string::npos) << out.str();
}

SolveOptions lorenz_options() {
  SolveOptions o;
  o.t_end = 1.0;
  o.rtol = o.atol = 1e-8;
  o.save_every = 0.25;
  o.verbosity = Verbosity::none;
  return o;
}

template <class T>
Batch<T> lorenz_sweep(std::size_t runs) {
  GridBuilder<T> grid({T(1), T(0), T(0)}, {T(10), T(28), T(8.0 / 3)});
  grid.param(1, linspace<T>(0.0, 21.0, runs));
  return grid.build(GridKind::verbatim);
}

TEST(SolverScheduling, CpuOnlyBuildRecordsGpuUnavailableEverywhere) {
  ASSERT_FALSE(gpu_path_compiled) << "this test's unit is compiled by the plain C++ compiler";
  std::ostringstream log_out;
  TimeLogger logger(&log_out, Verbosity::normal);
  register_solver_events(logger);
  const Batch<double> batch = lorenz_sweep<double>(64);
  SolveOptions o = lorenz_options();
  o.verbosity = Verbosity::debug;
  Solver<batchode::testing::Lorenz, double> solver(batchode::testing::Lorenz{}, o, logger);
  ::testing::internal::CaptureStderr();
  const SolveResult<double> res = solver.solve(batch);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(res.execution().size(), 1u);
  EXPECT_EQ(res.execution()[0].backend, BackendId::cpu());
  EXPECT_EQ(res.execution()[0].reason, Reason::gpu_unavailable);
  EXPECT_FALSE(res.execution()[0].predicted_ms.has_value()) << "no cost model without a GPU";
  // The CPU part's instruction set for blocks of runs: this CPU's widest (or off as asked, below).
  EXPECT_EQ(res.execution()[0].instruction_set, cpu::simd_set_name(cpu::simd_set()));
  EXPECT_NE(err.find("gpu_unavailable"), std::string::npos) << "debug summary names the reason: " << err;
  ASSERT_EQ(solver.telemetry().events().size(), 1u);
  EXPECT_EQ(solver.telemetry().events()[0].reason, "gpu_unavailable");
  EXPECT_EQ(solver.telemetry().events()[0].runs, 64u);
  const auto parts = logger.occurrences(events::execution_part);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].metadata.find("reason")->as_string(), "gpu_unavailable");
  EXPECT_NE(logger.to_json().find("execution_part"), std::string::npos);

  o.backend = Backend::cpu;
  Solver<batchode::testing::Lorenz, double> forced(batchode::testing::Lorenz{}, o, logger);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(forced.solve(batch).execution()[0].reason, Reason::user_preference);
  ::testing::internal::GetCapturedStderr();
  batchode::jit::testing::ScopedEnv off("BATCHODE_CPU_SIMD", "off");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(forced.solve(batch).execution()[0].instruction_set, "off");
  ::testing::internal::GetCapturedStderr();
}

template <class T>
class CoExecution : public ::testing::Test {};
TYPED_TEST_SUITE_P(CoExecution);
TYPED_TEST_P(CoExecution, SplitIntoPartsEqualsOneSolve) {
  using T = TypeParam;
  const Batch<T> batch = lorenz_sweep<T>(1001);
  SolveOptions o = lorenz_options();
  o.backend = Backend::cpu;
  if (std::is_same_v<T, float>) o.rtol = o.atol = 1e-5;
  const SolveResult<T> whole = solve_ivp(batchode::testing::Lorenz{}, batch, o);
  Solver<batchode::testing::Lorenz, T> split(batchode::testing::Lorenz{}, o);
  split.force_parts({{BackendId::cpu(), Reason::user_preference, 0, 300, std::nullopt},
                     {BackendId::cpu(), Reason::user_preference, 300, 700, std::nullopt},
                     {BackendId::cpu(), Reason::user_preference, 1000, 1, std::nullopt}});
  const SolveResult<T> parts = split.solve(batch);
  ASSERT_EQ(parts.execution().size(), 3u);
  EXPECT_EQ(parts.execution()[1].first_run, 300u);
  EXPECT_EQ(parts.execution()[1].runs, 700u);
  // Same CPU code on disjoint rows: bit-identical.
  batchode::testing::expect_runs_agree(parts, whole, 0.0, "3 concurrent CPU parts");
  split.force_parts({{BackendId::cpu(), Reason::user_preference, 0, 10, std::nullopt}});
  EXPECT_THROW(split.solve(batch), InvalidInput);
}
REGISTER_TYPED_TEST_SUITE_P(CoExecution, SplitIntoPartsEqualsOneSolve);
using Precisions = ::testing::Types<float, double>;
INSTANTIATE_TYPED_TEST_SUITE_P(Cpu, CoExecution, Precisions);

}  // namespace
