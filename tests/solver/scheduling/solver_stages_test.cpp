// tests/solver/scheduling/: what the Solver's stages promise since the split of issue 19: backends named by
// a typed id that prints and parses as "cpu" / "gpu:<i>", reasons as an enum with their names,
// forced parts through the scheduler, cost-model names that tell apart systems whose typeid names
// are equal, the input scan on the worker pool, and one input_validation per solve.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <batchode/solver/setup/input_checks.hpp>
#include <batchode/solver/systems/system_key.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "system_key_units.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using ::testing::HasSubstr;

TEST(BackendId, PrintsAndParsesAsCpuAndGpuIndex) {
  EXPECT_EQ(to_string(BackendId::cpu()), "cpu");
  EXPECT_EQ(to_string(BackendId::gpu(0)), "gpu:0");
  EXPECT_EQ(to_string(BackendId::gpu(12)), "gpu:12");
  EXPECT_EQ(parse_backend("cpu"), BackendId::cpu());
  EXPECT_EQ(parse_backend("gpu:0"), BackendId::gpu(0));
  EXPECT_EQ(parse_backend("gpu:12"), BackendId::gpu(12));
  EXPECT_TRUE(parse_backend("gpu:3").is_gpu());
  EXPECT_EQ(parse_backend("gpu:3").device, 3);
  EXPECT_FALSE(parse_backend("cpu").is_gpu());
  for (const BackendId id : {BackendId::cpu(), BackendId::gpu(0), BackendId::gpu(7)}) {
    EXPECT_EQ(BackendId::parse(to_string(id)), id);
  }
  std::ostringstream out;
  out << BackendId::gpu(2);
  EXPECT_EQ(out.str(), "gpu:2");
  EXPECT_LT(BackendId::cpu(), BackendId::gpu(0));
  EXPECT_LT(BackendId::gpu(0), BackendId::gpu(1));
}

TEST(BackendId, RefusesOtherTextNamingIt) {
  for (const char* bad : {"", "gpu", "gpu:", "gpu:-1", "gpu:+1", "gpu:1x", "gpu: 1", "GPU:0", "cpu ", "cpu:0",
                          "gpu:99999999999", "auto"}) {
    try {
      (void)parse_backend(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const InvalidInput& e) {
      EXPECT_THAT(e.what(), HasSubstr("'" + std::string(bad) + "'"));
      EXPECT_THAT(e.what(), HasSubstr("gpu:<device index>"));
    }
  }
}

TEST(Reason, NamesAreThoseTelemetryPrints) {
  EXPECT_STREQ(sched::to_string(sched::Reason::gpu_available), "gpu_available");
  EXPECT_STREQ(sched::to_string(sched::Reason::gpu_unavailable), "gpu_unavailable");
  EXPECT_STREQ(sched::to_string(sched::Reason::cpu_fallback), "cpu_fallback");
  EXPECT_STREQ(sched::to_string(sched::Reason::cost_model), "cost_model");
  EXPECT_STREQ(sched::to_string(sched::Reason::memory_constraint), "memory_constraint");
  EXPECT_STREQ(sched::to_string(sched::Reason::user_preference), "user_preference");
  std::ostringstream out;
  out << sched::Reason::cost_model;
  EXPECT_EQ(out.str(), "cost_model");
}

TEST(SchedulerForced, PartsAsGivenWithTheUsersReason) {
  const sched::Selection s = sched::forced({{BackendId::gpu(0), sched::Reason::cost_model, 0, 10, std::nullopt},
                                            {BackendId::cpu(), sched::Reason::cost_model, 10, 5, std::nullopt}},
                                           15);
  EXPECT_EQ(s.backend, "gpu:0+cpu");
  EXPECT_EQ(s.reason, sched::Reason::user_preference);
  ASSERT_EQ(s.parts.size(), 2u);
  for (const sched::Part& p : s.parts) EXPECT_EQ(p.reason, sched::Reason::user_preference);
  EXPECT_EQ(s.parts[1].backend, BackendId::cpu());
  EXPECT_THROW(sched::forced({{BackendId::cpu(), sched::Reason::user_preference, 1, 14, std::nullopt}}, 15),
               InvalidInput);
  EXPECT_THROW(sched::forced({{BackendId::cpu(), sched::Reason::user_preference, 0, 14, std::nullopt}}, 15),
               InvalidInput);
}

TEST(SchedulerPlan, CpuChosenForWantOfAGpuSaysWhy) {
  sched::BackendCapabilities cpu;
  cpu.id = BackendId::cpu();
  sched::Request req;
  req.runs = 10;
  req.no_gpu_detail = "no GPU runtime";
  const sched::Selection s = sched::plan({cpu}, sched::Strategy::automatic(), req);
  EXPECT_EQ(s.reason, sched::Reason::gpu_unavailable);
  EXPECT_EQ(s.detail, "no GPU runtime");
  ASSERT_EQ(s.parts.size(), 1u);
  EXPECT_EQ(s.parts[0].backend, BackendId::cpu());
}

// Two translation units' anonymous-namespace `Lorenz` share a typeid name; the cost model used to
// file both under it, so one program's calibration served the other's equations.
TEST(SystemCostName, TypesWithEqualTypeidNamesGetDifferentNames) {
  ASSERT_EQ(batchode::testing::unit_a_lorenz_typeid_name(), batchode::testing::unit_b_lorenz_typeid_name())
      << "the premise: this compiler names both types alike";
  const std::string a = batchode::testing::unit_a_lorenz_cost_name();
  const std::string b = batchode::testing::unit_b_lorenz_cost_name();
  EXPECT_NE(a, b);
  EXPECT_EQ(a, batchode::testing::unit_a_lorenz_cost_name()) << "stable within the process";
  EXPECT_THAT(a, HasSubstr(batchode::testing::unit_a_lorenz_typeid_name()));
  // The offset in the module, not the address: a program's next run files under the same name.
  EXPECT_THAT(a, HasSubstr("+0x"));
  EXPECT_NE(cost_key(a, Method::dopri5, true, "cpu x2"), cost_key(b, Method::dopri5, true, "cpu x2"));
}

struct NamedByMember {
  static constexpr const char* name = "named_by_member";
};
struct NamedByFunction {
  static const char* name() { return "named_by_function"; }
};
struct NamelessButWithMemberField {
  const char* name = "not static: ignored";
};

TEST(SystemCostName, SystemsNameUsedWhenPresent) {
  EXPECT_EQ(system_cost_name<NamedByMember>(), "named_by_member");
  EXPECT_EQ(system_cost_name<NamedByFunction>(), "named_by_function");
  EXPECT_THAT(system_cost_name<NamelessButWithMemberField>(), HasSubstr(typeid(NamelessButWithMemberField).name()));
  EXPECT_THAT(system_cost_name<NamelessButWithMemberField>(), HasSubstr("@"));
}

// The scan runs on the Solver's worker pool: split over its threads, it still reports the first
// non-finite value, wherever the parts' boundaries fall.
TEST(InputChecks, ScanOnWorkersFindsTheFirstNonFiniteValue) {
  arrays::HostWorkers workers(3);
  const std::size_t n = 5 * detail::finite_scan_grain + 17;
  std::vector<double> values(n, 1.0);
  EXPECT_EQ(detail::first_non_finite(values.data(), n, workers), n);
  values[n - 1] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(detail::first_non_finite(values.data(), n, workers), n - 1);
  values[3 * detail::finite_scan_grain + 5] = std::nan("");
  EXPECT_EQ(detail::first_non_finite(values.data(), n, workers), 3 * detail::finite_scan_grain + 5);
  values[7] = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(detail::first_non_finite(values.data(), n, workers), 7u);
  EXPECT_EQ(detail::first_non_finite(values.data(), 5, workers), 5u) << "short inputs on the calling thread";
}

SolveOptions small_options() {
  SolveOptions o;
  o.method = Method::rk4;
  o.dt = 0.05;
  o.t_end = 1.0;
  o.backend = Backend::cpu;
  o.cpu_threads = 1;
  o.verbosity = std::nullopt;  // the logger's level: normal, so every event is recorded
  return o;
}

const std::vector<double> y0{1.0, 2.0, 3.0, 4.0};
const std::vector<double> k{0.5, 1.0, 1.5, 2.0};

// Sizes and values were two input_validation events per solve (one more per part of a split).
TEST(SolveTimingEvents, OneInputValidationPerSolve) {
  TimeLogger log(nullptr, Verbosity::normal);
  (void)solve_ivp(batchode::testing::Decay{}, y0, k, small_options(), log);
  EXPECT_EQ(log.stats(events::input_validation).count, 1u);
  EXPECT_EQ(log.stats(events::solve_ivp_execution).count, 1u);

  Solver<batchode::testing::Decay, double> solver(batchode::testing::Decay{}, small_options(), log);
  (void)solver.solve(y0, k);
  EXPECT_EQ(log.stats(events::input_validation).count, 2u);
  solver.force_parts({{BackendId::cpu(), sched::Reason::user_preference, 0, 1, std::nullopt},
                      {BackendId::cpu(), sched::Reason::user_preference, 1, 2, std::nullopt},
                      {BackendId::cpu(), sched::Reason::user_preference, 3, 1, std::nullopt}});
  const SolveResult<double> split = solver.solve(y0, k);
  ASSERT_EQ(split.execution().size(), 3u);
  EXPECT_EQ(log.stats(events::input_validation).count, 3u);
  EXPECT_EQ(log.stats(events::solver_solve_execution).count, 3u);
}

// A split solve refuses a non-finite value naming its run, before any part runs.
TEST(SolveTimingEvents, SplitSolveRefusesNonFiniteValueBeforeAnyPart) {
  TimeLogger log(nullptr, Verbosity::normal);
  Solver<batchode::testing::Decay, double> solver(batchode::testing::Decay{}, small_options(), log);
  solver.force_parts({{BackendId::cpu(), sched::Reason::user_preference, 0, 2, std::nullopt},
                      {BackendId::cpu(), sched::Reason::user_preference, 2, 2, std::nullopt}});
  std::vector<double> bad = k;
  bad[3] = std::nan("");
  try {
    (void)solver.solve(y0, bad);
    ADD_FAILURE() << "a NaN parameter was accepted";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr("parameter of run 3 (index 0)"));
  }
  EXPECT_EQ(log.stats(events::cpu_integration).count, 0u);
  EXPECT_EQ(log.stats(events::input_validation).count, 1u);
}

}  // namespace
