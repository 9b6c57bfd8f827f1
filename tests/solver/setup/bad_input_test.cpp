// Every bad input is refused before any work, with an exception whose message names the problem
// (the field, the run, the sizes): what a user reads first when a sweep script goes wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "test_systems.hpp"

namespace {

using ::testing::HasSubstr;
using batchode::InvalidInput;
using batchode::Method;
using batchode::testing::Lorenz;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

batchode::SolveOptions good_options() {
  batchode::SolveOptions opt;
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  return opt;
}

// Three Lorenz runs that solve fine with good_options().
const std::vector<double> kY0 = {1, 0, 0, 1, 1, 1, 2, 0, 1};
const std::vector<double> kParams = {10, 28, 8.0 / 3, 10, 20, 8.0 / 3, 10, 10, 8.0 / 3};

// Runs `f` and expects exception E with every one of `parts` in its message.
template <class E>
void expect_throw(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << *parts.begin() << "'";
  } catch (const E& e) {
    for (const std::string& part : parts) EXPECT_THAT(e.what(), HasSubstr(part));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

void solve(const std::vector<double>& y0, const std::vector<double>& params,
           const batchode::SolveOptions& opt = good_options()) {
  (void)batchode::solve_ivp(Lorenz{}, y0, params, opt);
}

// Solving with options modified by `change` must fail naming `parts`.
void expect_bad_option(const std::function<void(batchode::SolveOptions&)>& change,
                       std::initializer_list<std::string> parts) {
  batchode::SolveOptions opt = good_options();
  change(opt);
  expect_throw<InvalidInput>([&] { solve(kY0, kParams, opt); }, parts);
}

TEST(BadInput, TheGoodInputSolves) {
  // The baseline every test below perturbs: without it, a throw could come from elsewhere.
  const auto res = batchode::solve_ivp(Lorenz{}, kY0, kParams, good_options());
  EXPECT_TRUE(res.all_succeeded());
}

TEST(BadInput, BatchShapes) {
  expect_throw<InvalidInput>([] { solve({1, 0, 0, 1}, kParams); }, {"4 values", "not a multiple of n_states = 3"});
  expect_throw<InvalidInput>([] { solve(kY0, {10, 28, 8.0 / 3}); }, {"parameters", "expected", "9", "got 3"});
  expect_throw<InvalidInput>([] { solve({}, {}); }, {"empty batch"});
  batchode::Solver<Lorenz> solver(Lorenz{}, good_options());
  expect_throw<InvalidInput>([&] { (void)solver.solve(kY0.data(), kParams.data(), 0); }, {"empty batch"});
  expect_throw<InvalidInput>([&] { (void)solver.solve(kY0.data(), nullptr, 3); }, {"parameters", "null"});
}

TEST(BadInput, PointerFormRefusesANullInitialValueArray) {
  batchode::Solver<Lorenz> solver(Lorenz{}, good_options());
  expect_throw<InvalidInput>([&] { (void)solver.solve(nullptr, kParams.data(), 3); },
                             {"initial values", "null"});
}

// Thread counts are a request, never an error: more threads than runs or cores run the same batch
// with one worker per run at most, and give the results of one thread bit for bit.
TEST(BadInput, ThreadCountsAboveTheRunsAndTheCoresSolve) {
  EXPECT_EQ(batchode::cpu::worker_count(1000, 3), 3u);
  EXPECT_EQ(batchode::cpu::worker_count(1000, 0), 1u);
  EXPECT_GE(batchode::cpu::worker_count(0, 100), 1u);
  batchode::SolveOptions opt = good_options();
  opt.cpu_threads = 1;
  const auto one = batchode::solve_ivp(Lorenz{}, kY0, kParams, opt);
  opt.cpu_threads = 1000;
  const auto many = batchode::solve_ivp(Lorenz{}, kY0, kParams, opt);
  EXPECT_TRUE(many.all_succeeded());
  EXPECT_EQ(many.final_state(), one.final_state());
}

TEST(BadInput, NonFiniteValuesNameTheRun) {
  for (double bad : {kNaN, kInf, -kInf}) {
    std::vector<double> y0 = kY0;
    y0[2 * 3 + 1] = bad;  // run 2, state 1
    expect_throw<InvalidInput>([&] { solve(y0, kParams); }, {"initial value", "run 2", "index 1", "finite"});
  }
  std::vector<double> params = kParams;
  params[1 * 3 + 2] = kNaN;  // run 1, parameter 2
  expect_throw<InvalidInput>([&] { solve(kY0, params); }, {"parameter", "run 1", "index 2", "finite"});
}

TEST(BadInput, TimeSpanAndSteps) {
  expect_bad_option([](auto& o) { o.t_end = -1; }, {"t_end", "after t0"});
  expect_bad_option([](auto& o) { o.t_end = o.t0; }, {"t_end", "after t0"});
  expect_bad_option([](auto& o) { o.t0 = kNaN; }, {"t0", "finite"});
  expect_bad_option([](auto& o) { o.t_end = kInf; }, {"t_end", "finite"});
  expect_bad_option([](auto& o) { o.dt = 0.0; }, {"dt", "positive"});
  expect_bad_option([](auto& o) { o.dt = -1e-3; }, {"dt", "positive"});
  expect_bad_option([](auto& o) { o.dt = kNaN; }, {"dt", "positive and finite"});
  expect_bad_option([](auto& o) { o.rtol = 0; }, {"rtol"});
  expect_bad_option([](auto& o) { o.atol = -1e-6; }, {"atol"});
  expect_bad_option([](auto& o) { o.rtol = kNaN; }, {"rtol"});
  expect_bad_option([](auto& o) { o.save_every = 0.0; }, {"save_every"});
  expect_bad_option([](auto& o) { o.save_every = -0.1; }, {"save_every"});
  expect_bad_option([](auto& o) { o.max_steps = 0; }, {"max_steps"});
}

TEST(BadInput, Methods) {
  expect_bad_option([](auto& o) { o.method = static_cast<Method>(99); }, {"unknown method", "99"});
  expect_bad_option([](auto& o) { o.method = Method::rk4; }, {"rk4", "fixed step", "dt must be set"});
  expect_bad_option([](auto& o) { o.method = Method::euler; }, {"euler", "dt must be set"});
  expect_throw<std::invalid_argument>([] { (void)batchode::parse_method("rk45"); },
                                      {"'rk45'", "euler", "rk4", "bogacki_shampine32", "cash_karp54", "dopri5",
                                       "tsit5", "fehlberg78"});
  EXPECT_EQ(batchode::parse_method("tsit5"), Method::tsit5);
}

TEST(BadInput, StepControl) {
  expect_bad_option([](auto& o) { o.step_control.safety = 0; }, {"step_control.safety"});
  expect_bad_option([](auto& o) { o.step_control.safety = 1.5; }, {"step_control.safety", "<= 1"});
  expect_bad_option([](auto& o) { o.step_control.min_factor = 1.0; }, {"min_factor < 1 < max_factor"});
  expect_bad_option([](auto& o) { o.step_control.max_factor = 0.9; }, {"min_factor < 1 < max_factor"});
  expect_bad_option([](auto& o) { o.step_control.min_factor = -0.2; }, {"step_control.min_factor"});
  expect_bad_option([](auto& o) { o.step_control.ki = 0; }, {"ki > 0"});
  expect_bad_option([](auto& o) { o.step_control.kp = -0.1; }, {"kp >= 0"});
  expect_bad_option([](auto& o) { o.step_control.dt_min = -1; }, {"dt_min"});
  expect_bad_option([](auto& o) { o.step_control.dt_min = kNaN; }, {"dt_min"});
  expect_bad_option([](auto& o) { o.step_control.dt_max = 0; }, {"dt_max"});
  expect_bad_option(
      [](auto& o) {
        o.step_control.dt_min = 0.1;
        o.step_control.dt_max = 0.01;
      },
      {"dt_max", "above dt_min"});
}

TEST(BadInput, GpuSettings) {
  expect_bad_option([](auto& o) { o.gpu.memory_fraction = 1.5; }, {"memory_fraction", "(0, 1]"});
  expect_bad_option([](auto& o) { o.gpu.memory_fraction = 0; }, {"memory_fraction"});
  expect_bad_option([](auto& o) { o.gpu.block_size = 100; }, {"block_size", "multiple of 32"});
  expect_bad_option([](auto& o) { o.gpu.device = -1; }, {"gpu.device"});
  expect_bad_option([](auto& o) { o.backend = static_cast<batchode::Backend>(7); }, {"unknown backend"});
  expect_bad_option([](auto& o) { o.run_order = static_cast<batchode::RunOrder>(5); },
                    {"SolveOptions.run_order", "unknown value"});
}

// This test file is compiled by the plain C++ compiler, so the GPU path is absent from it whatever
// the build: Backend::gpu must refuse and say why (the reason found first: no GPU backend in the
// build, no usable device, or this translation unit not GPU-compiled), while automatic falls back
// to the CPU.
TEST(BadInput, GpuBackendWithoutGpuPath) {
  ASSERT_FALSE(batchode::gpu_path_compiled);
  batchode::SolveOptions opt = good_options();
  opt.backend = batchode::Backend::gpu;
  const batchode::gpu::Discovery& found = batchode::gpu::discover();
  const std::string why = !found.available ? found.reason : "not compiled by the GPU compiler";
  ASSERT_FALSE(why.empty()) << "discovery found no device but gives no reason";
  if (std::string(batchode::gpu::compiled_backend()) == "off") {
    EXPECT_THAT(why, HasSubstr("BATCHODE_GPU=off"));
  }
  expect_throw<batchode::GpuUnavailable>([&] { solve(kY0, kParams, opt); }, {"Backend::gpu requested", why});
  opt.backend = batchode::Backend::automatic;
  const auto res = batchode::solve_ivp(Lorenz{}, kY0, kParams, opt);
  EXPECT_TRUE(res.all_succeeded());
  ASSERT_EQ(res.execution().size(), 1u);
  EXPECT_EQ(res.execution()[0].backend, batchode::BackendId::cpu());
  EXPECT_EQ(res.execution()[0].reason, batchode::sched::Reason::gpu_unavailable);
}

TEST(BadInput, GridBuilder) {
  using Grid = batchode::GridBuilder<double>;
  auto named = [] {
    Grid g({1, 0, 0}, {10, 28, 8.0 / 3});
    g.names({"x", "y", "z"}, {"sigma", "rho", "beta"});
    return g;
  };
  expect_throw<InvalidInput>([&] { named().param("gamma", {1, 2}); }, {"unknown parameter name 'gamma'"});
  expect_throw<InvalidInput>([&] { named().state("w", {1, 2}); }, {"unknown state name 'w'"});
  expect_throw<InvalidInput>([] { Grid({1, 0, 0}, {10, 28, 3}).param("rho", {1}); }, {"call names() first"});
  expect_throw<InvalidInput>([&] { named().param("rho", {}); }, {"'rho'", "no values"});
  expect_throw<InvalidInput>([&] { named().param("rho", {1, 2, 3}).state("x", {1, 2}).build(batchode::GridKind::verbatim); },
                             {"verbatim grid", "'x' has 2 values", "'rho' has 3"});
  expect_throw<InvalidInput>([&] { named().param("rho", {1, 2}).param(1, {3, 4}); }, {"'rho'", "given twice"});
  expect_throw<InvalidInput>([] { Grid({1, 0, 0}, {10, 28, 3}).state(3, {1}); }, {"state index 3", "out of range"});
  expect_throw<InvalidInput>([&] { named().state("x", {1, kNaN}); }, {"'x'", "not finite"});
  expect_throw<InvalidInput>([] { Grid({}, {}); }, {"default state is empty"});
  expect_throw<InvalidInput>([] { Grid({1, 0, 0}, {10, 28, 3}).names({"x"}, {"a", "b", "c"}); },
                             {"1 state", "3 states"});
}

}  // namespace
