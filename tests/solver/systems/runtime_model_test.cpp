// Models defined at run time (issue 16) on the CPU: a TOML model compiled by the host compiler gives
// the same numbers, run by run and bit for bit, as the same system compiled in (both run the CPU
// path's one per-run loop with the same arithmetic); stiff methods use the generated symbolic
// Jacobian; the on-disk cache is hit on a second model object and verified; a terminal event from the
// model's [events] stops runs at exact times; and the compile phases are timed by name. Cache problems
// (an entry the cache cannot store, a tampered precompiled prelude, a folder others can write) are
// said on stderr whatever the verbosity and never fail the solve; a stop request ends a compile in
// progress. Each test compiles into its own fresh cache folder, so it measures a cold compile once.
// Beside it: runtime_model_methods_test (every method, the prelude, events bit for bit, a 1000-state
// model: the long compiles) and runtime_model_backend_test (a GPU request, which depends on the build).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../../jit/jit_test_support.hpp"  // ScopedEnv
#include "../../stiff/stiff_systems.hpp"   // RobertsonDae
#include "batchode/batchode.hpp"
#include "batchode/jit/jit_error.hpp"
#include "batchode/models/model.hpp"
#include "bruss_model.hpp"
#include "forced_decay_reference.hpp"
#include "pollu_model.hpp"
#include "runtime_model_fixture.hpp"
#include "runtime_model_systems.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode::testing::runtime_model_fixture;

template <class T>
void expect_same_as_compiled_in(const batchode::models::Model& model, Method method,
                                const RuntimeModelOptions& opt, bool with_series) {
  RuntimeModel<T> runtime(model, opt);
  const std::size_t runs = 37;
  std::vector<T> y0, params;
  lorenz_batch(runs, y0, params);
  batchode::SolveOptions o = cpu_options<T>(method);
  if (with_series) o.save_every = 0.25;
  const batchode::SolveResult<T> a = batchode::solve_ivp(runtime, y0, params, o);
  const batchode::SolveResult<T> b = batchode::solve_ivp(LorenzCompiledIn{}, y0, params, o);
  ASSERT_EQ(a.n_runs(), runs);
  for (std::size_t r = 0; r < runs; ++r) {
    ASSERT_EQ(a.status(r), b.status(r)) << "run " << r;
    for (std::size_t s = 0; s < 3; ++s) EXPECT_EQ(a.final_state(r, s), b.final_state(r, s)) << "run " << r;
    EXPECT_EQ(a.counters(r).accepted_steps, b.counters(r).accepted_steps) << "run " << r;
    EXPECT_EQ(a.counters(r).rhs_evaluations, b.counters(r).rhs_evaluations) << "run " << r;
    for (std::size_t k = 0; k < a.n_saves(); ++k) {
      for (std::size_t s = 0; s < 3; ++s) EXPECT_EQ(a.state_at(r, k, s), b.state_at(r, k, s));
    }
  }
  EXPECT_GT(a.final_state(5, 0), T(-100));  // a real solution, not an untouched array
}

TEST_F(RuntimeModelTest, LorenzEqualsTheCompiledInSystemBitForBit) {
  const batchode::models::Model model = parse(kLorenzToml);
  expect_same_as_compiled_in<double>(model, Method::dopri5, options(), false);
  expect_same_as_compiled_in<double>(model, Method::rk4, options(), true);
  expect_same_as_compiled_in<float>(model, Method::tsit5, options(), false);
  // The model (simd_runs) runs in blocks of runs in SIMD lanes, with a series or without, the
  // compiled-in system a run at a time (backends/cpu/run_blocks.hpp).
  expect_same_as_compiled_in<double>(model, Method::rk4, options(), false);
  expect_same_as_compiled_in<float>(model, Method::dopri5, options(), false);
  expect_same_as_compiled_in<double>(model, Method::dopri5, options(), true);
}

/// A 3-state model's solve in blocks of runs against the same solve with the blocks off
/// (BATCHODE_CPU_SIMD=off, read by the model's own code when it solves): every run's status, stop time,
/// final state, counters and series bit for bit. Returns the solve in blocks.
batchode::SolveResult<double> expect_blocks_give_each_run_its_own_numbers(RuntimeModel<double>& runtime,
                                                                          const std::vector<double>& y0,
                                                                          const std::vector<double>& k,
                                                                          const batchode::SolveOptions& o) {
  batchode::SolveResult<double> blocks = batchode::solve_ivp(runtime, y0, k, o);
  const batchode::SolveResult<double> alone = [&] {
    const batchode::jit::testing::ScopedEnv off("BATCHODE_CPU_SIMD", "off");
    return batchode::solve_ivp(runtime, y0, k, o);
  }();
  EXPECT_TRUE(alone.all_succeeded());
  for (std::size_t r = 0; r < alone.n_runs(); ++r) {
    EXPECT_EQ(blocks.status(r), alone.status(r)) << "run " << r;
    EXPECT_EQ(blocks.stop_time(r), alone.stop_time(r)) << "run " << r;
    for (std::size_t s = 0; s < 3; ++s)
      EXPECT_EQ(blocks.final_state(r, s), alone.final_state(r, s)) << "run " << r;
    EXPECT_EQ(blocks.counters(r).accepted_steps, alone.counters(r).accepted_steps) << "run " << r;
    EXPECT_EQ(blocks.counters(r).rejected_steps, alone.counters(r).rejected_steps) << "run " << r;
    EXPECT_EQ(blocks.counters(r).rhs_evaluations, alone.counters(r).rhs_evaluations) << "run " << r;
  }
  EXPECT_EQ(blocks.series().size(), alone.series().size());
  for (std::size_t i = 0; i < std::min(blocks.series().size(), alone.series().size()); ++i)
    EXPECT_EQ(blocks.series()[i], alone.series()[i]) << "series value " << i;
  return blocks;
}

// Every math function of the model language on packs of runs (kernels/core/model_math.hpp, lane by
// lane): a model that compares nothing runs in blocks, and each run's numbers are the ones it gets
// with the blocks off (BATCHODE_CPU_SIMD=off, read by the model's own code when it solves), bit for bit.
TEST_F(RuntimeModelTest, EveryMathFunctionInBlocksOfRunsGivesEachRunItsOwnNumbers) {
  const std::string toml = R"(name = "every_math_function"
equations = """
q = exp(-x^2) + log(1 + y^2) + sqrt(2 + sin(x))
r = tan(0.3*x) + asin(0.5*tanh(y)) + acos(0.25*cos(z)) + atan(x*y) + atan2(y, 1 + x^2)
dx = 0.1 * (sinh(0.1*x) * cosh(0.2*y) + abs(x - y) + min(x, z) - max(y, z) + floor(t) + pow(x^2 + 1, y/3) - 2**-x) - x
dy = 0.1 * q + y^-2 + z^4/(1 + x^2) - k * y
dz = 0.1 * (q * r / (1 + z^2) - k * t * sin(t)) - z
"""
[states]
x = 0.5
y = 1.5
z = -0.3
[parameters]
k = 2
)";
  RuntimeModel<double> runtime(parse(toml), options());
  const std::size_t runs = 37;
  std::vector<double> y0, k;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {0.5 + 0.01 * double(r), 1.5, -0.3});
    k.push_back(1.0 + 0.1 * double(r));
  }
  for (Method method : {Method::rk4, Method::dopri5}) {
    SCOPED_TRACE(batchode::to_string(method));
    expect_blocks_give_each_run_its_own_numbers(runtime, y0, k, cpu_options<double>(method));
  }
}

// A stiff model's Rosenbrock steps in blocks of runs (its generated sparse LU and linearisation take
// packs: simd_linearization): each run's final state, status, stop time and counters are the ones it
// gets with the blocks off, bit for bit, for the doubled step (ros3p) and rodas4, and rodas4's series
// interpolated by its own dense output too.
TEST_F(RuntimeModelTest, AStiffModelsRosenbrockStepsInBlocksGiveEachRunItsOwnNumbers) {
  const std::string toml = R"(name = "robertson"
equations = """
dy1 = -0.04 * y1 + 1e4 * y2 * y3
dy2 = 0.04 * y1 - 1e4 * y2 * y3 - k3 * y2^2
dy3 = k3 * y2^2
"""
[states]
y1 = 1
y2 = 0
y3 = 0
[parameters]
k3 = 3e7
)";
  RuntimeModel<double> runtime(parse(toml), options());
  const std::size_t runs = 37;
  std::vector<double> y0, k;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {1.0, 0.0, 0.0});
    k.push_back(1e3 * std::pow(100.0, double(r) / double(runs)));
  }
  // (the other Rosenbrock tables: backends/cpu/run_blocks_test.cpp, on a hand-written sparse LU)
  for (Method method : {Method::ros3p, Method::rodas4}) {
    SCOPED_TRACE(batchode::to_string(method));
    batchode::SolveOptions o = cpu_options<double>(method);
    o.t_end = 40.0;
    o.rtol = 1e-6;
    o.atol = 1e-10;
    if (method == Method::rodas4) o.save_at = {0.0, 0.5, 3.0, 17.5, 40.0};
    const batchode::SolveResult<double> blocks =
        expect_blocks_give_each_run_its_own_numbers(runtime, y0, k, o);
    EXPECT_NEAR(blocks.final_state(0, 0) + blocks.final_state(0, 1) + blocks.final_state(0, 2), 1.0, 1e-9);
  }
}

// Drivers (issue 11): ForcedDecay written as model text, its drivers declared under [drivers] (v's
// samples in the file, u's given when solving, per run), equals the compiled-in ForcedDecay run by
// run: bit for bit with dopri5 (the same arithmetic), to rounding with rodas4 (the model's symbolic J,
// the compiled-in one's AD; f_t by AD through the drivers in both); observables too.
TEST_F(RuntimeModelTest, ADrivenModelEqualsTheCompiledInSystem) {
  const batchode::models::Model model = parse(batchode::testing::kForcedDecayToml);
  RuntimeModel<double> runtime(model, options());
  EXPECT_EQ(runtime.n_drivers(), 2u);
  EXPECT_EQ(runtime.driver_names(), (std::vector<std::string>{"u", "v"}));
  const std::size_t runs = 9;
  std::vector<double> y0, params;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.push_back(1.0 - 0.1 * double(r));
    params.insert(params.end(), {0.5 + 0.2 * double(r), 1.0 - 0.05 * double(r)});
  }
  const batchode::DriverSpec u = batchode::testing::sampled_driver(
      "u", 0.1, 31, runs, [](std::size_t r, double t) { return std::sin((1.0 + 0.1 * double(r)) * t); });
  for (Method method : {Method::dopri5, Method::rodas4}) {
    SCOPED_TRACE(batchode::to_string(method));
    batchode::SolveOptions o = cpu_options<double>(method);
    o.t_end = 3.0;
    o.save_every = 0.25;
    o.drivers = {u};
    const batchode::SolveResult<double> a = batchode::solve_ivp(runtime, y0, params, o);
    o.drivers.push_back(runtime.driver_specs().at(0));  // the file's v, for the compiled-in twin
    const batchode::SolveResult<double> b = batchode::solve_ivp(batchode::testing::ForcedDecay{}, y0, params, o);
    ASSERT_TRUE(a.all_succeeded());
    ASSERT_EQ(a.observable_names(), (std::vector<std::string>{"u_seen", "y_plus_v"}));
    const double bound = method == Method::dopri5 ? 0.0 : 1e-12;
    for (std::size_t r = 0; r < runs; ++r) {
      for (std::size_t k = 0; k < a.n_saves(); ++k) {
        EXPECT_NEAR(a.state_at(r, k, 0), b.state_at(r, k, 0), bound) << "run " << r << " save " << k;
        for (std::size_t o2 = 0; o2 < 2; ++o2) {
          EXPECT_NEAR(a.observable_at(r, k, o2), b.observable_at(r, k, o2), bound) << "run " << r << " save " << k;
        }
      }
    }
  }
}

// A terminal event in the model text stops each run where the exact solution crosses it:
// y = exp(-k t) reaches 1/2 at ln 2 / k; the status and stopping_event say which event ended it.
TEST_F(RuntimeModelTest, ATerminalEventFromTheModelStopsRunsAtTheExactTime) {
  const batchode::models::Model model = parse(decay_toml() + R"([events]
half = { expr = "y - 0.5", direction = "falling", action = "terminal" }
)");
  RuntimeModel<double> runtime(model, options());
  const std::vector<double> y0{1.0, 1.0, 1.0, 1.0}, k{0.5, 1.0, 2.0, 0.1};
  batchode::SolveOptions o = cpu_options<double>(Method::dopri5);
  o.event_tolerance = 1e-10;
  const batchode::SolveResult<double> r = batchode::solve_ivp(runtime, y0, k, o);
  for (std::size_t i = 0; i < k.size(); ++i) {
    const double t_half = std::log(2.0) / k[i];
    if (t_half > o.t_end) {  // k = 0.1: ln 2 / k = 6.9, beyond the span
      EXPECT_EQ(r.status(i), batchode::Status::success);
      EXPECT_EQ(r.event_count(i, 0), 0u);
      EXPECT_EQ(r.stopping_event(i), 1u);
      continue;
    }
    EXPECT_EQ(r.status(i), batchode::Status::stopped_by_event) << "k " << k[i];
    EXPECT_EQ(r.stopping_event(i), 0u);
    // The root to 1e-10 on the dense output, whose own error is near rtol 1e-8 in y.
    EXPECT_NEAR(r.event_time(i, 0, 0), t_half, 1e-7) << "k " << k[i];
    EXPECT_NEAR(r.final_state(i, 0), 0.5, 1e-7);
  }
}

// A stiff linear pair with eigenvalues -1 and -1000 and a time-dependent forcing (so df/dt matters):
// rodas4 with the generated Jacobian and df/dt meets the exact solution.
TEST_F(RuntimeModelTest, StiffMethodsUseTheSymbolicJacobian) {
  const batchode::models::Model model = parse(R"(name = "stiff_pair"
equations = """
# u' = -1000 (u - cos t) - sin t has u = cos t once the transient is gone; v' = -v + u - cos t.
du = -lambda * (u - cos(t)) - sin(t)
dv = -v + u - cos(t)
"""
[states]
u = 1.0
v = 1.0
[parameters]
lambda = 1000.0
)");
  RuntimeModel<double> runtime(model, options());
  for (Method method : {Method::rodas4, Method::ros3p, Method::rosenbrock4}) {
    SCOPED_TRACE(batchode::to_string(method));
    batchode::SolveOptions o = cpu_options<double>(method);
    const batchode::SolveResult<double> r =
        batchode::solve_ivp(runtime, std::vector<double>{1.0, 1.0}, std::vector<double>{1000.0}, o);
    ASSERT_EQ(r.status(0), batchode::Status::success);
    EXPECT_NEAR(r.final_state(0, 0), std::cos(2.0), 1e-6);
    EXPECT_NEAR(r.final_state(0, 1), std::exp(-2.0), 1e-6);
    EXPECT_LT(r.counters(0).accepted_steps, 2000u);  // an explicit method would need ~2000 / 2.8 * 1000
  }
}

// The threads per run of a GPU solve's final-state kernel, decided on the host without compiling:
// several lanes only for explicit methods of models whose components are a few formulas over their
// index (rhs_component), where one thread's registers would not hold a run (64 states in double);
// one for the Rosenbrock methods, for float at 64 states (448 words), and for POLLU's distinct
// equations.
TEST_F(RuntimeModelTest, LanesPerRunOfAGpuSolveFollowTheModelAndTheMethod) {
  const RuntimeModel<double> ring(parse(batchode::testing::lorenz96_toml(64)), options());
  EXPECT_EQ(ring.gpu_lanes_per_run(Method::dopri5), 16u);
  EXPECT_EQ(ring.gpu_lanes_per_run(Method::rk4), 8u);
  EXPECT_EQ(ring.gpu_lanes_per_run(Method::rodas4), 1u);
  EXPECT_EQ(RuntimeModel<float>(parse(batchode::testing::lorenz96_toml(64)), options())
                .gpu_lanes_per_run(Method::rk4),
            1u);
  const RuntimeModel<double> pollu(batchode::models::load_model(batchode::testing::pollu_model_path()),
                                   options());
  EXPECT_EQ(pollu.gpu_lanes_per_run(Method::vern9), 1u);
  const RuntimeModel<double> small(parse(kLorenzToml), options());
  EXPECT_EQ(small.gpu_lanes_per_run(Method::dopri5), 1u);
}

TEST_F(RuntimeModelTest, ASecondModelObjectLoadsFromTheCacheWithoutCompiling) {
  const batchode::models::Model model = parse(kLorenzToml);
  batchode::TimeLogger cold(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double>(model, options(), cold).prepare(Method::dopri5, cold);
  EXPECT_EQ(cold.stats(batchode::events::model_compile).count, 1u);
  EXPECT_EQ(cold.stats(batchode::events::model_load).count, 1u);

  batchode::TimeLogger warm(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double> again(model, options(), warm);
  again.prepare(Method::dopri5, warm);
  again.prepare(Method::dopri5, warm);  // loaded already: nothing more
  EXPECT_EQ(warm.stats(batchode::events::model_compile).count, 0u);
  EXPECT_EQ(warm.stats(batchode::events::model_cache_hit).count, 1u);
  EXPECT_EQ(warm.stats(batchode::events::model_load).count, 1u);
  EXPECT_EQ(warm.stats(batchode::events::model_codegen).count, 1u);
  // Another method is another object.
  again.prepare(Method::rk4, warm);
  EXPECT_EQ(warm.stats(batchode::events::model_compile).count, 1u);
}

// The cache keeps to BATCHODE_CACHE_MAX_SIZE after each store, the least recently used entry going
// first (jit::ArtifactCache::prune): a precompiled prelude is ~300 MB, one per change of headers or
// flags, and an unbounded folder grew by gigabytes.
TEST_F(RuntimeModelTest, EachStoreKeepsTheCacheToItsSizeLimit) {
  const batchode::models::Model model = parse(kLorenzToml);
  const batchode::jit::testing::ScopedEnv limit("BATCHODE_CACHE_MAX_SIZE", std::string("1"));
  batchode::TimeLogger log(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double>(model, options(), log).prepare(Method::rk4, log);
  RuntimeModel<double>(model, options(), log).prepare(Method::dopri5, log);
  EXPECT_EQ(log.stats(batchode::events::model_compile).count, 2u);
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cache_ / "cache" / "cpu")) {
    files += entry.is_regular_file() ? 1 : 0;
  }
  EXPECT_EQ(files, 2u) << "the entry just stored and its digest, nothing else";

  batchode::TimeLogger again(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double>(model, options(), again).prepare(Method::dopri5, again);  // kept
  EXPECT_EQ(again.stats(batchode::events::model_compile).count, 0u);
  RuntimeModel<double>(model, options(), again).prepare(Method::rk4, again);  // pruned: compiled again
  EXPECT_EQ(again.stats(batchode::events::model_compile).count, 1u);
}

// What a GPU solve's run-order probe asks before it integrates on the CPU (run_order_probe.hpp): the
// answer compiles nothing; it is yes once the code is loaded, or in the cache for another object.
TEST_F(RuntimeModelTest, CpuCodeReadyCompilesNothingAndLoadsFromTheCache) {
  const batchode::models::Model model = parse(kLorenzToml);
  batchode::TimeLogger cold(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double> first(model, options(), cold);
  EXPECT_FALSE(first.cpu_code_ready(Method::dopri5, cold));
  EXPECT_EQ(cold.stats(batchode::events::model_compile).count, 0u);
  EXPECT_EQ(cold.stats(batchode::events::model_prelude_compile).count, 0u);
  EXPECT_EQ(cold.stats(batchode::events::model_load).count, 0u);
  first.prepare(Method::dopri5, cold);
  EXPECT_EQ(cold.stats(batchode::events::model_compile).count, 1u);
  EXPECT_TRUE(first.cpu_code_ready(Method::dopri5, cold));
  EXPECT_FALSE(first.cpu_code_ready(Method::rk4, cold));  // another method is another object

  batchode::TimeLogger warm(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double> again(model, options(), warm);
  EXPECT_TRUE(again.cpu_code_ready(Method::dopri5, warm));  // from the cache, loaded now
  EXPECT_EQ(warm.stats(batchode::events::model_cache_hit).count, 1u);
  EXPECT_EQ(warm.stats(batchode::events::model_load).count, 1u);
  again.prepare(Method::dopri5, warm);  // loaded already
  EXPECT_EQ(warm.stats(batchode::events::model_compile).count, 0u);
  EXPECT_EQ(warm.stats(batchode::events::model_load).count, 1u);

  // No host compiler: not ready, and no error (a GPU solve goes on without the CPU code).
  const batchode::jit::testing::ScopedEnv no_compiler("BATCHODE_CXX", std::string("/nonexistent/c++"));
  RuntimeModel<double> without(model, options(), warm);
  EXPECT_FALSE(without.cpu_code_ready(Method::rk4, warm));
  EXPECT_THROW(without.prepare(Method::rk4, warm), batchode::jit::JitError);
}

TEST_F(RuntimeModelTest, AnAlteredCacheEntryIsRebuiltNotLoaded) {
  const batchode::models::Model model = parse(kLorenzToml);
  batchode::TimeLogger log(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double>(model, options(), log).prepare(Method::rk4, log);
  // Flip one byte of every stored object: the recorded digest no longer matches.
  std::size_t altered = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(cache_ / "cache" / "cpu")) {
    if (!entry.is_regular_file() || entry.path().extension() == ".sha256") continue;
    std::FILE* f = std::fopen(entry.path().c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 100, SEEK_SET);
    const int c = std::fgetc(f);
    std::fseek(f, 100, SEEK_SET);
    std::fputc(c ^ 0xff, f);
    std::fclose(f);
    ++altered;
  }
  ASSERT_GE(altered, 1u);
  batchode::TimeLogger again(nullptr, batchode::Verbosity::normal);  // none would record nothing
  RuntimeModel<double> fresh(model, options(), again);
  fresh.prepare(Method::rk4, again);
  EXPECT_EQ(again.stats(batchode::events::model_compile).count, 1u);  // rebuilt
  batchode::SolveOptions o = cpu_options<double>(Method::rk4);
  const auto r = batchode::solve_ivp(fresh, fresh.default_y0(), fresh.default_params(), o);
  EXPECT_EQ(r.status(0), batchode::Status::success);
}

/// What prepare(method) prints on stderr (the cache's notices) at `verbosity` when it is stopped
/// before any compiler runs (so a test of what comes before a compile costs none).
std::string notices_of_a_stopped_prepare(const RuntimeModel<double>& model, batchode::Verbosity verbosity) {
  batchode::TimeLogger log(nullptr, verbosity);
  const std::atomic<bool> stop{true};
  ::testing::internal::CaptureStderr();
  bool interrupted = false;
  try {
    model.prepare(Method::euler, log, &stop);
  } catch (const batchode::SolveInterrupted&) {
    interrupted = true;
  } catch (...) {
    (void)::testing::internal::GetCapturedStderr();
    throw;
  }
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(interrupted) << "prepare() did not stop; stderr: " << said;
  return said;
}

TEST_F(RuntimeModelTest, AnUnusableCacheIsSaidWhateverTheVerbosity) {
  std::filesystem::create_directories(cache_ / "cache");
  std::filesystem::permissions(cache_ / "cache", std::filesystem::perms::all);  // 0777
  const RuntimeModel<double> model(parse(decay_toml()), options());
  const std::string said = notices_of_a_stopped_prepare(model, batchode::Verbosity::none);
  EXPECT_NE(said.find("batchode: the compiled-model cache cannot be used"), std::string::npos) << said;
  EXPECT_NE(said.find("is writable by group or others (mode 0777)"), std::string::npos) << said;
}

TEST_F(RuntimeModelTest, ATamperedPrecompiledPreludeIsRefusedWithTheNoticeOfATamperedEntry) {
  const std::filesystem::path pch = cache_ / "cache" / "pch";
  std::error_code ec;
  if (!std::filesystem::is_directory(pch, ec) || std::filesystem::is_empty(pch, ec))
    GTEST_SKIP() << "this compiler builds no precompiled prelude";
  // Each entry is a hard link to the suite's: replaced by other bytes (its recorded digest kept), the
  // suite's stays whole. (Other bytes, not one flipped byte of a copy: the prelude is 300 MB.)
  std::size_t altered = 0;
  for (const auto& entry : std::filesystem::directory_iterator(pch)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".sha256") continue;
    std::filesystem::remove(entry.path());
    std::ofstream(entry.path()) << "not the precompiled prelude";
    std::filesystem::permissions(entry.path(),
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    ++altered;
  }
  ASSERT_GE(altered, 1u);
  const RuntimeModel<double> model(parse(decay_toml()), options());
  const std::string said = notices_of_a_stopped_prepare(model, batchode::Verbosity::normal);
  EXPECT_NE(said.find("batchode: cache entry refused (the cache entry '" + pch.string()), std::string::npos)
      << said;
  EXPECT_NE(said.find("hashes to"), std::string::npos) << said;
}

TEST_F(RuntimeModelTest, ACacheEntryReplacedByAFolderIsCompiledPrivatelyWithANotice) {
  // The warm-up model's entry name in the suite's cache (its key), taken here by a folder: every entry
  // name there (a build tree's suite cache also keeps those of headers changed since).
  std::size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(suite_ / "cache" / "cpu")) {
    if (!entry.is_regular_file() || entry.path().extension() == ".sha256") continue;
    std::filesystem::create_directories(cache_ / "cache" / "cpu" / entry.path().filename());
    ++entries;
  }
  ASSERT_GE(entries, 1u);
  const batchode::models::Model model = warm_up_model();
  RuntimeModel<double> fresh(model, options());
  ::testing::internal::CaptureStderr();
  try {
    fresh.prepare(Method::euler);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a cache that cannot store an entry failed the compile: " << e.what();
  }
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("batchode: the compiled-model cache cannot store an entry"), std::string::npos) << said;
  EXPECT_NE(said.find("Is a directory); loading the model from a private folder"), std::string::npos) << said;
  const auto r = batchode::solve_ivp(fresh, fresh.default_y0(), fresh.default_params(),
                                     cpu_options<double>(Method::euler));
  EXPECT_EQ(r.status(0), batchode::Status::success);
  EXPECT_NEAR(r.final_state(0, 0), std::exp(-2.0), 1e-3);  // euler's error at dt = 1e-3
}

// SolveOptions.stop (Python's Ctrl-C) during the model's first compile: the host compiler (here a
// script that would sleep a minute) is ended with what it started, the solve throws SolveInterrupted
// at once, and no temporary folder is left.
TEST_F(RuntimeModelTest, AStopDuringTheCompileEndsItAndLeavesNoFolder) {
  const std::filesystem::path tmp = cache_ / "tmp", compiler = cache_ / "slow-c++",
                              started = cache_ / "started";
  std::filesystem::create_directory(tmp);
  std::ofstream(compiler) << "#!/bin/sh\ncase \"$1\" in --version) echo 'slow 1.0'; exit 0;; esac\n"
                          << "sleep 60 &\ntouch '" << started.string() << "'\nwait\n";
  ::chmod(compiler.c_str(), 0700);
  const batchode::jit::testing::ScopedEnv cxx("BATCHODE_CXX", compiler.string());
  const batchode::jit::testing::ScopedEnv tmpdir("TMPDIR", tmp.string());
  const RuntimeModel<double> model(parse(decay_toml()), options());
  std::atomic<bool> stop{false};
  batchode::SolveOptions o = cpu_options<double>(Method::rk4);
  o.stop = &stop;
  std::chrono::steady_clock::time_point stopped_at;
  std::thread stopper([&] {
    for (int i = 0; i < 1000 && !std::filesystem::exists(started); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stopped_at = std::chrono::steady_clock::now();
    stop.store(true);
  });
  EXPECT_THROW((void)batchode::solve_ivp(model, model.default_y0(), model.default_params(), o),
               batchode::SolveInterrupted);
  const auto returned = std::chrono::steady_clock::now();
  stopper.join();
  EXPECT_TRUE(std::filesystem::exists(started)) << "the compiler never ran";
  EXPECT_LT(std::chrono::duration<double>(returned - stopped_at).count(), 3.0);
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "a temporary folder was left in " << tmp;
}

TEST_F(RuntimeModelTest, NamesAndDefaultsComeFromTheModel) {
  RuntimeModel<float> runtime(parse(kLorenzToml), options());
  EXPECT_EQ(runtime.n_states(), 3u);
  EXPECT_EQ(runtime.n_params(), 1u);
  EXPECT_EQ(runtime.state_names(), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(runtime.parameter_names(), (std::vector<std::string>{"rho"}));
  EXPECT_EQ(runtime.default_y0(), (std::vector<float>{1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(runtime.default_params(), (std::vector<float>{28.0f}));
  EXPECT_EQ(runtime.cost_name().rfind("model:lorenz:", 0), 0u) << runtime.cost_name();
  // Grids use the model's names.
  const batchode::Batch<float> batch =
      batchode::GridBuilder<float>(runtime.default_y0(), runtime.default_params())
          .names(runtime.state_names(), runtime.parameter_names())
          .param("rho", batchode::linspace<float>(0, 30, 8))
          .build(batchode::GridKind::combinatorial);
  batchode::SolveOptions o = cpu_options<float>(Method::dopri5);
  const auto r = batchode::solve_ivp(runtime, batch, o);
  EXPECT_EQ(r.n_runs(), 8u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(r.status(i), batchode::Status::success);
}

// Issue 44: a value the model writes that float32 cannot hold became inf in the generated code or the
// default batch, and the runs ended as non_finite_state with no word of it. Refused where the model
// meets its precision, at its declaration, before anything is compiled.
TEST(RuntimeModelPrecision, AValueFloat32CannotHoldIsRefusedAtItsDeclaration) {
  batchode::TimeLogger quiet(nullptr, batchode::Verbosity::none);
  const auto refusal = [&](const std::string& tables) -> std::string {
    const batchode::models::Model model = batchode::models::parse_model(batchode::models::read_model_toml(
        "name = \"big\"\nequations = \"dx = -c * x + k\"\n" + tables, "big.toml"));
    EXPECT_NO_THROW((void)RuntimeModel<double>(model, {}, quiet));
    try {
      (void)RuntimeModel<float>(model, {}, quiet);
    } catch (const batchode::models::ModelError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal("[states]\nx = 1\n[parameters]\nk = 0\n[constants]\nc = 1e300\n"),
            "big.toml:8:1: constant c = 1e+300 does not fit float32 (largest 3.4028235e+38)");
  EXPECT_EQ(refusal("[states]\nx = -1e300\n[parameters]\nk = 0\n[constants]\nc = 1\n"),
            "big.toml:4:1: state x = -1e+300 (default initial value) does not fit float32 (largest "
            "3.4028235e+38)");
  EXPECT_EQ(refusal("[states]\nx = 1\n[parameters]\nk = 1e39\n[constants]\nc = 1\n"),
            "big.toml:6:1: parameter k = 1e+39 (default value) does not fit float32 (largest 3.4028235e+38)");
  EXPECT_EQ(refusal("[states]\nx = 1\n[parameters]\nk = 0\n[constants]\nc = 3.4028234663852886e38\n"),
            "accepted");
}

TEST_F(RuntimeModelTest, NoCompilerIsAClearError) {
  const char* saved = std::getenv("BATCHODE_CXX");
  const std::string restore = saved ? saved : "";
  ::setenv("BATCHODE_CXX", "/nonexistent/c++", 1);
  RuntimeModel<double> runtime(parse(kLorenzToml), options());
  try {
    runtime.prepare(Method::dopri5);
    ADD_FAILURE() << "expected an error naming BATCHODE_CXX";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/c++"), std::string::npos) << e.what();
  }
  if (saved) {
    ::setenv("BATCHODE_CXX", restore.c_str(), 1);
  } else {
    ::unsetenv("BATCHODE_CXX");
  }
}

// $BATCHODE_MODEL_CXXFLAGS reaches the host compiler, after batchode's own flags (scripts/test.sh sets
// -O0 for the suite: the same bits, a fraction of the compile time): a flag it refuses fails the
// compile, whose error shows it.
TEST_F(RuntimeModelTest, ModelCompilerFlagsReachTheCompiler) {
  const batchode::jit::testing::ScopedEnv flags("BATCHODE_MODEL_CXXFLAGS", std::string("-O0 -fbatchode-no-such-flag"));
  RuntimeModel<double> runtime(parse(decay_toml()), options());
  try {
    runtime.prepare(Method::euler);
    ADD_FAILURE() << "a compile with a flag the compiler refuses succeeded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("-fbatchode-no-such-flag"), std::string::npos) << e.what();
  }
}

/// The same system compiled in, with the generated code's operations in the same order.
template <std::size_t N>
struct Lorenz96CompiledIn {
  static constexpr std::size_t n_states = N;
  static constexpr std::size_t n_params = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    for (std::size_t i = 0; i < N; ++i) {
      dydt[i] = (y[(i + 1) % N] - y[(i + N - 2) % N]) * y[(i + N - 1) % N] - y[i] + p[0];
    }
  }
};

// Large systems compile in seconds and solve correctly: 32 and 64 states, bit for bit the compiled-in
// system's numbers (a chaotic system, so any difference in arithmetic would show by t = 2).
TEST_F(RuntimeModelTest, Lorenz96With32And64StatesEqualsTheCompiledInSystem) {
  auto check = [&](auto compiled_in, int n) {
    SCOPED_TRACE(std::to_string(n) + " states");
    RuntimeModel<double> runtime(parse(lorenz96_toml(n)), options());
    const std::size_t runs = 6;
    std::vector<double> y0, forcing;
    for (std::size_t r = 0; r < runs; ++r) {
      for (int i = 0; i < n; ++i) y0.push_back(8.0 + (i == 0 ? 0.01 * double(r + 1) : 0.0));
      forcing.push_back(6.0 + double(r));
    }
    const batchode::SolveOptions o = cpu_options<double>(Method::dopri5);
    const auto a = batchode::solve_ivp(runtime, y0, forcing, o);
    const auto b = batchode::solve_ivp(compiled_in, y0, forcing, o);
    ASSERT_TRUE(a.all_succeeded());
    for (std::size_t i = 0; i < runs * static_cast<std::size_t>(n); ++i) {
      ASSERT_EQ(a.final_state()[i], b.final_state()[i]) << "element " << i;
    }
    EXPECT_NE(a.final_state()[0], 8.0);
  };
  check(Lorenz96CompiledIn<32>{}, 32);
  check(Lorenz96CompiledIn<64>{}, 64);
}

// A large stiff model: BRUSS with 32 states, whose generated code declares its Jacobian's band and
// writes it symbolically (asked for: rodas4 then keeps J and its LU in band storage; automatic would
// take the sparse LU, which costs BRUSS fewer operations), against the same system compiled in, whose
// band comes from AD by column groups. The two Jacobians differ in rounding only (symbolic against
// forward AD), so the runs agree to far below the tolerance, not to the bit.
TEST_F(RuntimeModelTest, StiffBrussInBandStorageAgreesWithTheCompiledInSystem) {
  constexpr std::size_t m = 16;
  RuntimeModelOptions band = options();
  band.linear_solver = batchode::models::LinearSolver::band;
  RuntimeModel<double> runtime(parse(batchode::testing::bruss_toml(m)), band);
  const std::vector<double> start = batchode::testing::bruss_initial_state(m);
  std::vector<double> y0, a;
  for (std::size_t r = 0; r < 8; ++r) {
    y0.insert(y0.end(), start.begin(), start.end());
    a.push_back(0.9 + 0.05 * double(r));
  }
  batchode::SolveOptions o = cpu_options<double>(Method::rodas4);
  o.t_end = 1;
  const auto from_text = batchode::solve_ivp(runtime, y0, a, o);
  const auto compiled_in = batchode::solve_ivp(batchode::testing::Bruss<m>{}, y0, a, o);
  ASSERT_TRUE(from_text.all_succeeded());
  ASSERT_TRUE(compiled_in.all_succeeded());
  for (std::size_t i = 0; i < y0.size(); ++i) {
    EXPECT_NEAR(from_text.final_state()[i], compiled_in.final_state()[i], 1e-11 * std::fabs(compiled_in.final_state()[i]))
        << "element " << i;
  }
  EXPECT_GT(from_text.counters(0).accepted_steps, 10u);
}

// A real chemistry mechanism: POLLU (examples/models/pollu.toml, the IVP test set's 20 species), whose
// generated code factorises W with the sparse LU (no band; about a tenth of the dense LU's operations),
// solved by rodas4 and ros3p to t = 60 against the test set's published reference, and for other
// photolysis rates k1 beside it.
TEST_F(RuntimeModelTest, PolluWithTheSparseLuReachesThePublishedReference) {
  RuntimeModel<double> runtime(batchode::models::load_model(batchode::testing::pollu_model_path()), options());
  const std::vector<double> start = runtime.default_y0();
  std::vector<double> y0, k1;
  for (std::size_t r = 0; r < 4; ++r) {
    y0.insert(y0.end(), start.begin(), start.end());
    k1.push_back(0.35 * (1.0 + 0.5 * double(r)));  // run 0: the reference's
  }
  for (const Method method : {Method::rodas4, Method::ros3p}) {
    batchode::SolveOptions o = cpu_options<double>(method);
    o.t_end = 60;
    o.rtol = 1e-8;
    o.atol = 1e-12;
    const auto r = batchode::solve_ivp(runtime, y0, k1, o);
    ASSERT_TRUE(r.all_succeeded()) << to_string(method);
    for (std::size_t i = 0; i < 20; ++i) {
      const double want = batchode::testing::kPolluAt60[i];
      // Global error: within 50 local tolerances (stiff/reference_test.cpp's factor).
      EXPECT_NEAR(r.final_state(0, i), want, 50 * (o.atol + o.rtol * std::fabs(want)))
          << to_string(method) << " y" << i + 1;
    }
    EXPECT_NE(r.final_state(3, 0), r.final_state(0, 0)) << "k1 reaches each run";
  }
}

// A sparse LU whose repeated rows are loops (RuntimeModelOptions::sparse_lu_loops_from: the factorisation's
// default past 255 slots; sparse_lu_solve_loops_from: the solve's, never by default; both forced here) takes
// the straight-line code's steps to the bit: every final state, stop time and
// counter of BRUSS (rows that repeat: loops) by rodas4 (real W, blocks of runs in SIMD lanes) and radau5
// (complex W, a run at a time) in double, and of POLLU (few rows alike) by ros3p in float. A malformed
// $BATCHODE_SPARSE_LU_SOLVE_LOOPS_FROM is refused by name.
TEST_F(RuntimeModelTest, ASparseLuWithLoopsGivesTheStraightLineNumbers) {
  auto check = [&](const batchode::models::Model& model, auto zero, double t_end, double rtol, double atol,
                   std::vector<Method> methods) {
    using T = decltype(zero);
    RuntimeModelOptions loops_options = options();
    loops_options.sparse_lu_loops_from = 0;
    loops_options.sparse_lu_solve_loops_from = 0;
    RuntimeModelOptions lines_options = options();
    lines_options.sparse_lu_loops_from = static_cast<std::size_t>(-1);
    RuntimeModel<T> lines(model, lines_options), loops(model, loops_options);
    const std::vector<T> start = lines.default_y0();
    std::vector<T> y0, p;
    for (std::size_t r = 0; r < 40; ++r) {
      y0.insert(y0.end(), start.begin(), start.end());
      p.push_back(T(lines.default_params()[0] * (1.0 + 0.05 * double(r))));
    }
    for (const Method method : methods) {
      SCOPED_TRACE(model.name() + " " + to_string(method) + (sizeof(T) == 4 ? " float" : " double"));
      batchode::SolveOptions o = cpu_options<T>(method);
      o.t_end = t_end;
      o.rtol = rtol;
      o.atol = atol;
      const auto a = batchode::solve_ivp(lines, y0, p, o);
      const auto b = batchode::solve_ivp(loops, y0, p, o);
      ASSERT_TRUE(a.all_succeeded());
      for (std::size_t r = 0; r < p.size(); ++r) {
        for (std::size_t i = 0; i < model.n_states(); ++i) {
          ASSERT_EQ(a.final_state(r, i), b.final_state(r, i)) << r << " state " << i;
        }
        ASSERT_EQ(a.stop_time(r), b.stop_time(r));
        ASSERT_EQ(a.counters(r).accepted_steps, b.counters(r).accepted_steps);
        ASSERT_EQ(a.counters(r).rejected_steps, b.counters(r).rejected_steps);
      }
    }
  };
  // (each model, method and precision: two host compiles)
  check(parse(batchode::testing::bruss_toml(8)), 0.0, 1.0, 1e-8, 1e-8,
        {Method::rodas4, Method::radau5});
  check(batchode::models::load_model(batchode::testing::pollu_model_path()), 0.0f, 60.0, 1e-4, 1e-8,
        {Method::ros3p});
  const batchode::jit::testing::ScopedEnv malformed("BATCHODE_SPARSE_LU_SOLVE_LOOPS_FROM", std::string("many"));
  try {
    RuntimeModel<double> refused(batchode::models::load_model(batchode::testing::pollu_model_path()), options());
    ADD_FAILURE() << "BATCHODE_SPARSE_LU_SOLVE_LOOPS_FROM=many was taken";
  } catch (const batchode::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("BATCHODE_SPARSE_LU_SOLVE_LOOPS_FROM is 'many'"), std::string::npos) << e.what();
  }
}

// A differential-algebraic model file (examples/models/robertson_dae.toml: y3 algebraic, 0 = y1 + y2 + y3
// - 1) in both layouts the generated code may factorise its W = M / (gamma h) - J with (dense, sparse:
// each adds 1 / (gamma h) to the differential rows only; 3 states have no band worth keeping; the band
// layout's DAE rows are stiff_test's), from the guess y3 = 0.5, against the same DAE
// compiled in (tests/stiff/stiff_systems.hpp; AD Jacobian, dense LU): the same consistent start and the
// same solution to far below the tolerance (the Jacobians differ in rounding only).
TEST_F(RuntimeModelTest, ADaeInEveryLayoutAgreesWithTheCompiledInDae) {
  const auto model =
      batchode::models::load_model(std::string(BATCHODE_EXAMPLE_MODELS_DIR) + "/robertson_dae.toml");
  ASSERT_EQ(model.n_algebraic(), 1u);
  std::vector<double> y0, k;
  for (std::size_t r = 0; r < 4; ++r) {
    y0.insert(y0.end(), {1.0, 0.0, 0.5});
    k.insert(k.end(), {0.04, 3e7, 5e3 * double(r + 1)});
  }
  batchode::SolveOptions o = cpu_options<double>(Method::rodas5p);
  o.t_end = 40;
  o.save_every = 10;
  const auto compiled_in = batchode::solve_ivp(batchode::testing::RobertsonDae{}, y0, k, o);
  ASSERT_TRUE(compiled_in.all_succeeded());
  for (const auto layout : {batchode::models::LinearSolver::dense, batchode::models::LinearSolver::sparse}) {
    RuntimeModelOptions opt = options();
    opt.linear_solver = layout;
    RuntimeModel<double> runtime(model, opt);
    const auto from_text = batchode::solve_ivp(runtime, y0, k, o);
    ASSERT_TRUE(from_text.all_succeeded()) << int(layout);
    for (std::size_t r = 0; r < 4; ++r) {
      EXPECT_EQ(from_text.state_at(r, 0, 2), 0.0) << "the consistent y3, run " << r;
      for (std::size_t kk = 0; kk < from_text.n_saves(); ++kk) {
        for (std::size_t s = 0; s < 3; ++s) {
          const double want = compiled_in.state_at(r, kk, s);
          EXPECT_NEAR(from_text.state_at(r, kk, s), want, 1e-9 * std::fabs(want) + 1e-15)
              << "layout " << int(layout) << " run " << r << " save " << kk << " y" << s + 1;
        }
      }
    }
  }
}

}  // namespace
