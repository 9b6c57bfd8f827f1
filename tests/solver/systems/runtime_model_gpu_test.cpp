// Models defined at run time on the GPU (issue 16): the TOML model's generated system, compiled by
// NVRTC / hipRTC with the core's batch kernel, gives bit for bit the numbers of the same system
// compiled in by nvcc / hipcc (one kernel text, the same arithmetic: neither compiler uses fast
// math, both contract into FMA), run by run, float and double, with and without a series; agrees
// with the runtime model's own CPU path within gpu_compare.hpp's bounds; solves the stiff Robertson
// problem with rodas4 through the generated Jacobian as the CPU path does; the automatic backend may
// pick the GPU for it; a second model object loads the kernels from the on-disk cache, timed as
// model_cache_hit instead of model_compile; events from the model's [events] equal the twin's kernel's;
// large models written out state by state split their runs over lanes (rhs_component) with the bits
// of one thread per run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "batchode/batchode.hpp"
#include "batchode/models/model.hpp"
#include "bruss_model.hpp"
#include "forced_decay_reference.hpp"
#include "gpu_compare.hpp"
#include "pollu_model.hpp"
#include "require_gpu.hpp"
#include "statistics_compare.hpp"
#include "runtime_model_systems.hpp"
#include "summary_reference.hpp"

namespace {

using batchode::Backend;
using batchode::Method;
using batchode::RuntimeModel;
using batchode::RuntimeModelOptions;
using batchode::SolveOptions;
using batchode::SolveResult;

using batchode::testing::kLorenzToml;
using batchode::testing::lorenz96_toml;
using LorenzCompiledIn = batchode::testing::LorenzModelCompiledIn;

batchode::models::Model parse(const std::string& toml) { return batchode::testing::parse_model_text(toml); }

class RuntimeModelGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (std::filesystem::temp_directory_path() / "batchode-rtm-gpu-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    cache_ = dir;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(cache_, ec);
  }
  RuntimeModelOptions options() const {
    RuntimeModelOptions o;
    o.cache_directory = (cache_ / "cache").string();
    return o;
  }
  std::filesystem::path cache_;
};

template <class T>
SolveOptions lorenz_options(Method method, bool series) {
  SolveOptions o;
  o.method = method;
  o.t_end = 1.0;
  o.verbosity = batchode::Verbosity::none;
  o.rtol = o.atol = sizeof(T) == 4 ? 1e-5 : 1e-8;
  if (!batchode::method_info(method).adaptive) o.dt = 1e-3;
  if (series) o.save_every = 0.1;
  o.outputs.counters = true;
  return o;
}

template <class T>
void lorenz_sweep(std::size_t runs, std::vector<T>& y0, std::vector<T>& params) {
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {T(1), T(1) + T(r % 97) / T(100), T(1)});
    params.push_back(T(21) * T(r) / T(runs));
  }
}

/// Every state of every run (final and saved), the statuses and the accepted steps: the same bits.
template <class T>
void expect_bitwise_equal(const SolveResult<T>& a, const SolveResult<T>& b) {
  ASSERT_EQ(a.n_runs(), b.n_runs());
  ASSERT_EQ(a.n_states(), b.n_states());
  ASSERT_EQ(a.n_saves(), b.n_saves());
  const std::size_t n = a.n_states();
  std::size_t differing = 0;
  for (std::size_t r = 0; r < a.n_runs(); ++r) {
    std::size_t state = n;  // the first final state that differs
    for (std::size_t s = n; s-- > 0;) state = a.final_state(r, s) == b.final_state(r, s) ? state : s;
    bool same = a.status(r) == b.status(r) && a.counters(r).accepted_steps == b.counters(r).accepted_steps &&
                state == n;
    for (std::size_t k = 0; k < a.n_saves(); ++k) {
      for (std::size_t s = 0; s < n; ++s) same = same && a.state_at(r, k, s) == b.state_at(r, k, s);
    }
    if (!same && ++differing <= 3) {
      ADD_FAILURE() << "run " << r << " differs: steps " << a.counters(r).accepted_steps << " vs "
                    << b.counters(r).accepted_steps << ", final state " << state << ": "
                    << (state < n ? a.final_state(r, state) : T(0)) << " vs "
                    << (state < n ? b.final_state(r, state) : T(0));
    }
  }
  EXPECT_EQ(differing, 0u) << "runs differing bit for bit";
}

template <class T>
void check_lorenz(const batchode::models::Model& model, const RuntimeModelOptions& opt, Method method,
                  bool series) {
  SCOPED_TRACE(std::string(batchode::to_string(method)) + (sizeof(T) == 4 ? " float" : " double") +
               (series ? " series" : ""));
  constexpr std::size_t runs = 20000;
  std::vector<T> y0, params;
  lorenz_sweep<T>(runs, y0, params);
  RuntimeModel<T> runtime(model, opt);
  SolveOptions o = lorenz_options<T>(method, series);
  o.backend = Backend::gpu;
  const SolveResult<T> gpu = batchode::solve_ivp(runtime, y0, params, o);
  ASSERT_TRUE(gpu.execution().at(0).backend.is_gpu());
  ASSERT_TRUE(gpu.all_succeeded());
  const SolveResult<T> compiled_in = batchode::solve_ivp(LorenzCompiledIn{}, y0, params, o);
  expect_bitwise_equal(gpu, compiled_in);
  o.backend = Backend::cpu;
  const SolveResult<T> cpu = batchode::solve_ivp(runtime, y0, params, o);
  std::size_t steps = 1000;
  batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(method, o.rtol, steps),
                                       "runtime model, GPU vs CPU");
}

TEST_F(RuntimeModelGpuTest, LorenzEqualsTheCompiledInKernelBitForBit) {
  BATCHODE_REQUIRE_GPU();
  const batchode::models::Model model = parse(kLorenzToml);
  check_lorenz<double>(model, options(), Method::dopri5, false);
  check_lorenz<double>(model, options(), Method::rk4, true);
  check_lorenz<float>(model, options(), Method::tsit5, false);
  check_lorenz<float>(model, options(), Method::rk4, true);
}

// Robertson's stiff chemistry: rodas4 on the GPU through the generated Jacobian, against the same
// model on the CPU, run by run; mass (x + y + z = 1) conserved.
TEST_F(RuntimeModelGpuTest, StiffRobertsonWithTheGeneratedJacobianAgreesWithTheCpu) {
  BATCHODE_REQUIRE_GPU();
  const batchode::models::Model model = parse(R"(name = "robertson"
equations = """
dx = -0.04 * x + k3 * y * z
dy = 0.04 * x - k3 * y * z - 3e7 * y * y
dz = 3e7 * y * y
"""
[states]
x = 1.0
y = 0.0
z = 0.0
[parameters]
k3 = 1e4
)");
  RuntimeModel<double> runtime(model, options());
  const std::size_t runs = 2000;
  std::vector<double> y0, k3;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {1.0, 0.0, 0.0});
    k3.push_back(std::pow(10.0, 2.0 + 4.0 * double(r) / double(runs)));
  }
  for (Method m : {Method::rodas4, Method::ros3p}) {
    SCOPED_TRACE(batchode::to_string(m));
    SolveOptions o;
    o.method = m;
    o.t_end = 40;
    o.rtol = 1e-6;
    o.atol = 1e-10;
    o.verbosity = batchode::Verbosity::none;
    o.outputs.counters = true;
    o.backend = Backend::gpu;
    const SolveResult<double> gpu = batchode::solve_ivp(runtime, y0, k3, o);
    ASSERT_TRUE(gpu.execution().at(0).backend.is_gpu());
    o.backend = Backend::cpu;
    const SolveResult<double> cpu = batchode::solve_ivp(runtime, y0, k3, o);
    ASSERT_TRUE(cpu.all_succeeded());
    batchode::testing::expect_runs_agree(gpu, cpu, 200.0 * o.rtol, "robertson GPU vs CPU");
    for (std::size_t r = 0; r < runs; r += 97) {
      EXPECT_NEAR(gpu.final_state(r, 0) + gpu.final_state(r, 1) + gpu.final_state(r, 2), 1.0, 1e-6)
          << "run " << r;
    }
  }
}

TEST_F(RuntimeModelGpuTest, ASecondModelObjectLoadsTheKernelsFromTheCache) {
  BATCHODE_REQUIRE_GPU();
  const batchode::models::Model model = parse(kLorenzToml);
  std::vector<double> y0, params;
  lorenz_sweep<double>(1000, y0, params);
  SolveOptions o = lorenz_options<double>(Method::dopri5, false);
  o.backend = Backend::gpu;
  batchode::TimeLogger first_log(nullptr, batchode::Verbosity::normal),
      second_log(nullptr, batchode::Verbosity::normal);
  // The final-state kernel alone: one program (the run order's kernel would be a second).
  const auto final_state =
      batchode::RuntimeKernelChoice::only(batchode::kernels::ChunkKernel::final_state, 0, false);
  RuntimeModel<double> first(model, options(), first_log);
  (void)first.gpu_kernels(Method::dopri5, 0, first_log, final_state);
  EXPECT_EQ(first_log.stats(batchode::events::model_compile).count, 1u);
  RuntimeModel<double> second(model, options(), second_log);
  (void)second.gpu_kernels(Method::dopri5, 0, second_log, final_state);
  EXPECT_EQ(second_log.stats(batchode::events::model_compile).count, 0u)
      << "the second object compiled again";
  EXPECT_EQ(second_log.stats(batchode::events::model_cache_hit).count, 1u);
  const SolveResult<double> a = batchode::solve_ivp(first, y0, params, o);
  const SolveResult<double> b = batchode::solve_ivp(second, y0, params, o);
  expect_bitwise_equal(a, b);
}

// A solve compiles the one batch kernel it launches, and the run order's kernel (its own program, the
// same for every model) only where it orders runs (adaptive methods, when the order may pay: the
// calibrator decides, so at most once here): rk4 keeping the final state compiles its final-state
// kernel; dopri5 saving a series its series kernel; dopri5 keeping the final state its final-state
// kernel; each again, nothing. The numbers are the compiled-in kernel's, bit for bit.
TEST_F(RuntimeModelGpuTest, ASolveCompilesOnlyTheKernelsItLaunches) {
  BATCHODE_REQUIRE_GPU();
  std::vector<double> y0, params;
  lorenz_sweep<double>(1000, y0, params);
  batchode::TimeLogger log(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double> runtime(parse(kLorenzToml), options(), log);
  std::size_t seen = 0, run_order_compiles = 0;
  auto solve_compiling = [&](Method method, bool series, const std::string& expected) {
    SCOPED_TRACE(batchode::to_string(method) + (series ? " with a series" : " final state"));
    SolveOptions o = lorenz_options<double>(method, series);
    o.backend = Backend::gpu;
    o.verbosity = batchode::Verbosity::normal;  // the solve's events recorded (in `log`, printed nowhere)
    const SolveResult<double> r = batchode::solve_ivp(runtime, y0, params, o, log);
    ASSERT_TRUE(r.execution().at(0).backend.is_gpu());
    expect_bitwise_equal(r, batchode::solve_ivp(LorenzCompiledIn{}, y0, params, o));
    std::vector<std::string> batch_kernels;  // the programs this solve compiled, but the run order's
    const std::vector<batchode::Occurrence> compiles = log.occurrences(batchode::events::model_compile);
    for (; seen < compiles.size(); ++seen) {
      const auto* target = compiles[seen].metadata.find("target");
      if (target == nullptr || target->as_string() != "gpu") continue;  // the run order's CPU probe's
      const auto* label = compiles[seen].metadata.find("kernels");
      ASSERT_NE(label, nullptr);
      if (label->as_string() == "run order, double") {
        ++run_order_compiles;
      } else {
        batch_kernels.push_back(label->as_string());
      }
    }
    EXPECT_EQ(batch_kernels,
              expected.empty() ? std::vector<std::string>{} : std::vector<std::string>{expected});
    EXPECT_LE(run_order_compiles, 1u);
  };
  solve_compiling(Method::rk4, false, "rk4, double, final state");
  solve_compiling(Method::dopri5, true, "dopri5, double, series");
  solve_compiling(Method::dopri5, false, "dopri5, double, final state");
  solve_compiling(Method::rk4, false, "");
  solve_compiling(Method::dopri5, true, "");
}

/// That `log` saw no compile of CPU code: every model_compile was for the GPU, and no prelude was built.
void expect_no_cpu_compile(const batchode::TimeLogger& log) {
  for (const batchode::Occurrence& c : log.occurrences(batchode::events::model_compile)) {
    const auto* target = c.metadata.find("target");
    ASSERT_NE(target, nullptr);
    EXPECT_EQ(target->as_string(), "gpu");
  }
  EXPECT_EQ(log.stats(batchode::events::model_prelude_compile).count, 0u);
}

// Backend::gpu: a new model's solve waits for no host compiler. Its run-order probe (16 runs on a CPU
// thread beside the GPU) is skipped while the model's CPU code is not compiled, and runs once it is.
TEST_F(RuntimeModelGpuTest, AGpuSolveOfANewModelCompilesNoCpuCode) {
  BATCHODE_REQUIRE_GPU();
  std::vector<double> y0, params;
  lorenz_sweep<double>(1000, y0, params);
  batchode::TimeLogger log(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double> runtime(parse(kLorenzToml), options(), log);
  SolveOptions o = lorenz_options<double>(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.verbosity = batchode::Verbosity::normal;
  auto probes = [&] { return log.occurrences(batchode::events::run_order_probe); };
  const SolveResult<double> r = batchode::solve_ivp(runtime, y0, params, o, log);
  ASSERT_TRUE(r.execution().at(0).backend.is_gpu());
  expect_bitwise_equal(r, batchode::solve_ivp(LorenzCompiledIn{}, y0, params, o));
  expect_no_cpu_compile(log);
  ASSERT_EQ(probes().size(), 1u);
  const auto* skipped = probes().back().metadata.find("skipped");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(skipped->as_int(), 1);

  runtime.prepare(Method::dopri5, log);  // the CPU code now exists: the next solve's probe runs
  batchode::Solver<RuntimeModel<double>, double> solver(runtime, o, log);
  (void)solver.solve(y0, params);
  ASSERT_EQ(probes().size(), 2u);
  EXPECT_EQ(probes().back().metadata.find("skipped")->as_int(), 0);  // (it may end before a first run)
}

// A sweep in its own order keeps it, so a solve of it compiles no run-order kernel; the same runs
// shuffled are ordered on the device (the kernel compiled then) and each keeps its own numbers.
TEST_F(RuntimeModelGpuTest, ASweepInInputOrderCompilesNoRunOrderKernel) {
  BATCHODE_REQUIRE_GPU();
  const std::size_t runs = 4096;
  std::vector<double> y0, params;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {1.0, 1.0, 1.0});
    params.push_back(60.0 * static_cast<double>(r) / static_cast<double>(runs));  // uneven cost: rho 0-60
  }
  batchode::TimeLogger log(nullptr, batchode::Verbosity::normal);
  RuntimeModel<double> runtime(parse(kLorenzToml), options(), log);
  SolveOptions o = lorenz_options<double>(Method::dopri5, false);
  o.backend = Backend::gpu;
  o.verbosity = batchode::Verbosity::normal;
  auto run_order_compiles = [&] {
    std::size_t n = 0;
    for (const batchode::Occurrence& c : log.occurrences(batchode::events::model_compile)) {
      const auto* label = c.metadata.find("kernels");
      n += label != nullptr && label->as_string() == "run order, double";
    }
    return n;
  };
  const SolveResult<double> in_order = batchode::solve_ivp(runtime, y0, params, o, log);
  ASSERT_TRUE(in_order.all_succeeded());
  EXPECT_EQ(run_order_compiles(), 0u);

  std::vector<std::size_t> from(runs);
  for (std::size_t r = 0; r < runs; ++r) from[r] = (r * 2654435761u) % runs;  // a permutation: odd multiplier
  std::vector<double> y0_shuffled, params_shuffled;
  for (std::size_t r = 0; r < runs; ++r) {
    y0_shuffled.insert(y0_shuffled.end(), y0.begin() + 3 * from[r], y0.begin() + 3 * from[r] + 3);
    params_shuffled.push_back(params[from[r]]);
  }
  const SolveResult<double> shuffled = batchode::solve_ivp(runtime, y0_shuffled, params_shuffled, o, log);
  ASSERT_TRUE(shuffled.all_succeeded());
  EXPECT_EQ(run_order_compiles(), 1u);
  std::size_t differing = 0;
  for (std::size_t r = 0; r < runs; ++r) {
    for (std::size_t s = 0; s < 3; ++s)
      differing += shuffled.final_state(r, s) != in_order.final_state(from[r], s);
  }
  EXPECT_EQ(differing, 0u);
}

// Unless forced, the planner may now choose the GPU for a runtime model: a large sweep does not end
// up on the CPU for want of a GPU path (reason gpu_unavailable).
TEST_F(RuntimeModelGpuTest, AutomaticBackendIsOfferedTheGpu) {
  BATCHODE_REQUIRE_GPU();
  RuntimeModel<double> runtime(parse(kLorenzToml), options());
  std::vector<double> y0, params;
  lorenz_sweep<double>(200000, y0, params);
  SolveOptions o = lorenz_options<double>(Method::dopri5, false);
  batchode::TimeLogger log(nullptr, batchode::Verbosity::normal);
  o.verbosity = batchode::Verbosity::normal;
  const SolveResult<double> r = batchode::solve_ivp(runtime, y0, params, o, log);
  ASSERT_TRUE(r.all_succeeded());
  for (const auto& part : r.execution()) {
    EXPECT_NE(part.reason, batchode::sched::Reason::gpu_unavailable) << batchode::to_string(part.backend);
  }
  // Not costed while the model's CPU code is not compiled: the GPUs as available, no host compiler.
  EXPECT_EQ(r.execution().at(0).reason, batchode::sched::Reason::gpu_available);
  EXPECT_NE(r.execution().at(0).detail.find("CPU code is not compiled"), std::string::npos)
      << r.execution().at(0).detail;
  expect_no_cpu_compile(log);
  // Once it is, the cost model decides (the GPU, for 200000 runs).
  runtime.prepare(Method::dopri5);
  const SolveResult<double> costed = batchode::solve_ivp(runtime, y0, params, o);
  ASSERT_TRUE(costed.all_succeeded());
  EXPECT_EQ(costed.execution().at(0).reason, batchode::sched::Reason::cost_model);
  EXPECT_TRUE(costed.execution().at(0).backend.is_gpu());
}

// Events from the model's [events] (issue 12) on the GPU: records, counts, statuses and final states
// bit for bit those of the compiled-in twin's kernel given the same specs (one kernel text); some
// runs stop at z = 30, the others record x's zeros.
TEST_F(RuntimeModelGpuTest, EventsFromTheModelEqualTheCompiledInKernelBitForBit) {
  BATCHODE_REQUIRE_GPU();
  using Twin = batchode::testing::LorenzEventsCompiledIn;
  RuntimeModel<double> runtime(parse(batchode::testing::lorenz_events_toml()), options());
  constexpr std::size_t runs = 4096;
  std::vector<double> y0, rho;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {1.0, 1.0 + double(r % 97) / 100.0, 1.0});
    rho.push_back(40.0 * double(r) / double(runs));
  }
  SolveOptions o = lorenz_options<double>(Method::dopri5, false);
  o.t_end = 2.0;
  o.backend = Backend::gpu;
  const SolveResult<double> a = batchode::solve_ivp(runtime, y0, rho, o);
  ASSERT_TRUE(a.execution().at(0).backend.is_gpu());
  o.events = Twin::specs();
  const SolveResult<double> b = batchode::solve_ivp(Twin{}, y0, rho, o);
  std::size_t differing = 0, stopped = 0;
  auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  for (std::size_t r = 0; r < runs; ++r) {
    bool equal = a.status(r) == b.status(r);
    stopped += a.status(r) == batchode::Status::stopped_by_event;
    for (std::size_t s = 0; s < 3; ++s) equal = equal && a.final_state(r, s) == b.final_state(r, s);
    for (std::size_t e = 0; e < 2; ++e) {
      equal = equal && a.event_count(r, e) == b.event_count(r, e);
      for (std::size_t k = 0; k < 4; ++k) {
        equal = equal && same(a.event_time(r, e, k), b.event_time(r, e, k)) &&
                same(a.event_state(r, e, k, 2), b.event_state(r, e, k, 2));
      }
    }
    if (!equal && ++differing <= 3) ADD_FAILURE() << "run " << r << " differs";
  }
  EXPECT_EQ(differing, 0u);
  EXPECT_GT(stopped, runs / 8);
  EXPECT_LT(stopped, runs);
}

/// The Lorenz model with one observable, xy = x * y.
std::string lorenz_toml_observing_xy() {
  std::string toml = kLorenzToml;
  const std::string equations = "equations = \"\"\"\n";
  toml.replace(toml.find(equations), equations.size(), equations + "xy = x * y\n");
  return "observables = [\"xy\"]\n" + toml;
}

// Observables from the model's list, by the runtime compiler's kernel: each the product of the saved
// state bit for bit (one multiplication of the values saved beside it), and the CPU path's run by run.
TEST_F(RuntimeModelGpuTest, ObservablesFromTheModelAreThoseOfTheSavedStates) {
  BATCHODE_REQUIRE_GPU();
  RuntimeModel<double> runtime(parse(lorenz_toml_observing_xy()), options());
  ASSERT_EQ(runtime.observable_names(), std::vector<std::string>{"xy"});
  std::vector<double> y0, params;
  lorenz_sweep<double>(4096, y0, params);
  for (Method m : {Method::dopri5, Method::rodas4}) {
    SolveOptions o = lorenz_options<double>(m, true);
    o.save_mode = batchode::SaveMode::interpolate;
    o.backend = Backend::gpu;
    const SolveResult<double> gpu = batchode::solve_ivp(runtime, y0, params, o);
    ASSERT_TRUE(gpu.execution().at(0).backend.is_gpu());
    ASSERT_TRUE(gpu.all_succeeded());
    ASSERT_EQ(gpu.observables().size(), 4096 * gpu.n_saves());
    o.backend = Backend::cpu;
    const SolveResult<double> cpu = batchode::solve_ivp(runtime, y0, params, o);
    double worst = 0;
    for (std::size_t r = 0; r < 4096; ++r) {
      for (std::size_t k = 0; k < gpu.n_saves(); ++k) {
        ASSERT_EQ(gpu.observable_at(r, k, 0), gpu.state_at(r, k, 0) * gpu.state_at(r, k, 1)) << r << " " << k;
        const double c = cpu.observable_at(r, k, 0);
        worst = std::max(worst, std::fabs(gpu.observable_at(r, k, 0) - c) / std::max(1.0, std::fabs(c)));
      }
    }
    // x y is of order |y|^2: a few times the states' bound, and the interpolants' own difference.
    EXPECT_LT(worst, 4 * batchode::testing::agreement_bound<double>(m, o.rtol, 1000) + 1e-6)
        << batchode::to_string(m);
  }
}

// Statistics across runs reduced on the GPU (issue 52): a solve keeping moments and no series, in 3
// chunks, reduces each chunk's states and observables on the device (the series' moments kernel, a
// module of its own); its statistics are those of the same GPU solve keeping its series (reduced on
// the host), its per-run rows that solve's, and it holds no series.
TEST_F(RuntimeModelGpuTest, StatisticsReducedOnTheGpuAreThoseOfTheKeptSeries) {
  BATCHODE_REQUIRE_GPU();
  RuntimeModel<double> runtime(parse(lorenz_toml_observing_xy()), options());
  std::vector<double> y0, params;
  lorenz_sweep<double>(5000, y0, params);
  SolveOptions o = lorenz_options<double>(Method::dopri5, true);
  o.backend = Backend::gpu;
  o.gpu.chunks = 3;
  o.statistics.metrics = {"count", "mean", "var", "std", "min", "max"};
  const SolveResult<double> kept = batchode::solve_ivp(runtime, y0, params, o);
  o.outputs.series = false;
  o.verbosity = batchode::Verbosity::normal;  // the solve's events recorded (in `log`, printed nowhere)
  batchode::TimeLogger log(nullptr, batchode::Verbosity::normal);
  const SolveResult<double> reduced = batchode::solve_ivp(runtime, y0, params, o, log);
  ASSERT_NE(kept.statistics(), nullptr);
  ASSERT_NE(reduced.statistics(), nullptr);
  EXPECT_EQ(reduced.n_saves(), 0u);
  EXPECT_TRUE(reduced.series().empty());
  EXPECT_EQ(reduced.final_state(), kept.final_state());
  EXPECT_EQ(reduced.statuses(), kept.statuses());
  EXPECT_EQ(reduced.statistics()->variables(), (std::vector<std::string>{"x", "y", "z", "xy"}));
  batchode::testing::expect_same_statistics(*reduced.statistics(), *kept.statistics(), "runtime model, dopri5");
  EXPECT_EQ(log.stats(batchode::events::ensemble_statistics).count, 3u);  // one per chunk, on the device
}

// The series' variables chosen by name (save_variables) by the runtime compiler's kernel: the chosen
// columns (y and xy) of its own full series bit for bit, the CPU path's runtime model's chosen columns
// within the bound.
TEST_F(RuntimeModelGpuTest, ChosenSeriesVariablesAreColumnsOfTheFullSeries) {
  BATCHODE_REQUIRE_GPU();
  RuntimeModel<double> runtime(parse(lorenz_toml_observing_xy()), options());
  std::vector<double> y0, params;
  lorenz_sweep<double>(4096, y0, params);
  SolveOptions o = lorenz_options<double>(Method::dopri5, true);
  o.backend = Backend::gpu;
  const SolveResult<double> full = batchode::solve_ivp(runtime, y0, params, o);
  o.save_variables = {"xy", "y"};
  const SolveResult<double> gpu = batchode::solve_ivp(runtime, y0, params, o);
  ASSERT_TRUE(gpu.execution().at(0).backend.is_gpu());
  ASSERT_TRUE(gpu.all_succeeded());
  ASSERT_EQ(gpu.series_state_names(), std::vector<std::string>{"y"});
  ASSERT_EQ(gpu.series().size(), 4096 * gpu.n_saves());
  for (std::size_t r = 0; r < 4096; ++r) {
    for (std::size_t k = 0; k < gpu.n_saves(); ++k) {
      ASSERT_EQ(gpu.state_at(r, k, 0), full.state_at(r, k, 1)) << r << " " << k;
      ASSERT_EQ(gpu.observable_at(r, k, 0), full.observable_at(r, k, 0)) << r << " " << k;
    }
  }
  o.backend = Backend::cpu;
  const SolveResult<double> cpu = batchode::solve_ivp(runtime, y0, params, o);
  const double bound = 4 * batchode::testing::agreement_bound<double>(Method::dopri5, o.rtol, 1000) + 1e-6;
  EXPECT_LT(batchode::testing::relative_difference(cpu.series(), gpu.series()), bound);
  EXPECT_LT(batchode::testing::relative_difference(cpu.observables(), gpu.observables()), bound);
}

// Drivers by the runtime compiler's kernel (issue 11): the model's [drivers] (u per run, given when
// solving; v's samples from the file), 4096 runs in 3 chunks, dopri5 and rodas4 (the model's symbolic
// J, f_t by AD through the drivers): GPU against the CPU run by run, and the closed form of the fitted
// inputs; the observables the drivers' values the kernel read.
TEST_F(RuntimeModelGpuTest, ADrivenModelsKernelEqualsTheCpuAndTheClosedForm) {
  BATCHODE_REQUIRE_GPU();
  RuntimeModel<double> runtime(parse(batchode::testing::kForcedDecayToml), options());
  const std::size_t runs = 4096;
  std::vector<double> y0, params;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.push_back(1.0 - 0.0002 * double(r));
    params.insert(params.end(), {0.5 + 0.0003 * double(r), 1.0});
  }
  const batchode::DriverSpec u = batchode::testing::sampled_driver(
      "u", 0.1, 31, runs, [](std::size_t r, double t) { return std::cos((0.5 + 0.0005 * double(r)) * t); });
  for (Method m : {Method::dopri5, Method::rodas4}) {
    SCOPED_TRACE(batchode::to_string(m));
    SolveOptions o = lorenz_options<double>(m, false);
    o.t_end = 3.0;
    o.save_every = 0.25;
    o.gpu.chunks = 3;
    o.drivers = {u};
    o.backend = Backend::gpu;
    const SolveResult<double> gpu = batchode::solve_ivp(runtime, y0, params, o);
    ASSERT_TRUE(gpu.execution().at(0).backend.is_gpu());
    ASSERT_TRUE(gpu.all_succeeded());
    o.backend = Backend::cpu;
    const SolveResult<double> cpu = batchode::solve_ivp(runtime, y0, params, o);
    const double bound = batchode::testing::agreement_bound<double>(m, o.rtol, 3000);
    batchode::testing::expect_runs_agree(gpu, cpu, bound, "driven runtime model, GPU vs CPU");
    EXPECT_LT(batchode::testing::relative_difference(gpu.observables(), cpu.observables()), 2 * bound);
    const std::vector<batchode::FittedDriver> fit =
        batchode::fit_drivers({u, runtime.driver_specs().at(0)}, runtime.driver_names(), 2, 0.0, 3.0);
    double worst = 0;
    for (std::size_t r = 0; r < runs; r += 7) {
      std::vector<double> times;
      for (std::size_t k = 0; k < gpu.n_saves(); ++k) times.push_back(gpu.time(r, k));
      const std::vector<double> exact = batchode::testing::forced_decay_exact(
          fit[0], fit[1], r, params[2 * r], params[2 * r + 1], y0[r], 0.0, times);
      for (std::size_t k = 0; k < gpu.n_saves(); ++k)
        worst = std::max(worst, std::fabs(gpu.state_at(r, k, 0) - exact[k]));
    }
    EXPECT_LT(worst, 1e-6);
    std::printf("[ driven model ] %s GPU vs CPU within %.2g, vs the closed form %.2g\n",
                batchode::to_string(m).c_str(), bound, worst);
  }
}

// Summaries by the runtime compiler's kernel (issue 11): every metric of the states and the model's
// observable, each that of the samples it saved (the series at every sample), and the CPU path's
// values run by run.
TEST_F(RuntimeModelGpuTest, SummariesFromTheRuntimeKernelAreThoseOfTheSamples) {
  BATCHODE_REQUIRE_GPU();
  RuntimeModel<double> runtime(parse(lorenz_toml_observing_xy()), options());
  std::vector<double> y0, params;
  lorenz_sweep<double>(2048, y0, params);
  SolveOptions o = lorenz_options<double>(Method::dopri5, false);
  o.summaries.metrics = batchode::testing::every_metric;
  o.summaries.summarise_every = 0.25;
  o.summaries.sample_summaries_every = 0.01;
  o.save_every = 0.01;
  o.gpu.chunks = 2;
  o.backend = Backend::gpu;
  const SolveResult<double> gpu = batchode::solve_ivp(runtime, y0, params, o);
  ASSERT_TRUE(gpu.execution().at(0).backend.is_gpu());
  ASSERT_EQ(gpu.summary_variables(), (std::vector<std::string>{"x", "y", "z", "xy"}));
  batchode::testing::expect_metrics_of_the_series(gpu, "runtime gpu");
  o.backend = Backend::cpu;
  const SolveResult<double> cpu = batchode::solve_ivp(runtime, y0, params, o);
  double worst = 0;
  for (const char* name : {"mean", "rms", "extrema"}) {
    const std::vector<double> a = cpu.summary(name), b = gpu.summary(name);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      worst = std::max(worst, std::fabs(b[k] - a[k]) / std::max(1.0, std::fabs(a[k])));
    }
  }
  EXPECT_LT(worst, 4 * batchode::testing::agreement_bound<double>(Method::dopri5, o.rtol, 1000));
  // A solve keeping a few kinds loads a kernel built for exactly them (its accumulators in registers,
  // kernels/outputs/summaries.hpp): the metrics of its samples, and the every-kind kernel's means.
  o.backend = Backend::gpu;
  o.summaries.metrics = {"mean", "max", "peaks[3]"};
  const SolveResult<double> few = batchode::solve_ivp(runtime, y0, params, o);
  ASSERT_TRUE(few.execution().at(0).backend.is_gpu());
  batchode::testing::expect_metrics_of_the_series(few, "runtime gpu, a kernel for 3 kinds");
  const std::vector<double> a = gpu.summary("mean"), b = few.summary("mean");
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k)
    EXPECT_NEAR(b[k], a[k], 1e-13 * std::max(1.0, std::fabs(a[k]))) << k;
}

/// The lanes per run the solves in `log` loaded their final-state kernels with.
std::vector<std::int64_t> loaded_lanes(const batchode::TimeLogger& log) {
  std::vector<std::int64_t> lanes;
  for (const batchode::Occurrence& k : log.occurrences(batchode::events::kernel_compile)) {
    if (const auto* l = k.metadata.find("lanes_per_run")) lanes.push_back(l->as_int());
  }
  return lanes;
}

/// `model` solved on the GPU by `method` with its runs split over lanes (rhs_component; the rule of
/// kernels/launch/lane_group.hpp gives `lanes`), with one thread per run (GpuOptions::split_runs
/// false: the same bits where `rounding` is 0, else within it), and on the CPU (within `bound`).
void expect_lanes_give_one_threads_runs(const RuntimeModel<double>& runtime, const std::vector<double>& y0,
                                        const std::vector<double>& params, SolveOptions o, std::int64_t lanes,
                                        double bound, double rounding = 0) {
  SCOPED_TRACE(batchode::to_string(o.method));
  EXPECT_EQ(runtime.gpu_lanes_per_run(o.method), static_cast<std::size_t>(lanes));
  batchode::TimeLogger log(nullptr, batchode::Verbosity::normal);
  o.backend = Backend::gpu;
  o.verbosity = batchode::Verbosity::normal;
  const SolveResult<double> split = batchode::solve_ivp(runtime, y0, params, o, log);
  ASSERT_TRUE(split.execution().at(0).backend.is_gpu());
  ASSERT_TRUE(split.all_succeeded());
  o.gpu.split_runs = false;
  const SolveResult<double> one_thread = batchode::solve_ivp(runtime, y0, params, o, log);
  EXPECT_EQ(loaded_lanes(log), (std::vector<std::int64_t>{lanes, 1}));
  if (rounding == 0) {
    expect_bitwise_equal(split, one_thread);
  } else {
    batchode::testing::expect_runs_agree(split, one_thread, rounding, "GPU in lanes vs one thread per run");
  }
  o.backend = Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  const SolveResult<double> cpu = batchode::solve_ivp(runtime, y0, params, o);
  batchode::testing::expect_runs_agree(split, cpu, bound, "GPU in lanes vs CPU");
}

// A 64-state model (Lorenz-96) compiles for the GPU in seconds and solves as the CPU path does; its
// generated rhs_component (one formula over i, offsets modulo 64) splits a run over lanes of a warp
// (dopri5 over 16, rk4 over 8, in double), which give one thread per run's bits (its components share
// no arithmetic). GPU and CPU part by rounding (the GPU fuses multiply-adds) grown over 1000 chaotic
// rk4 steps: 2e-12 relative seen on the H200.
TEST_F(RuntimeModelGpuTest, Lorenz96With64StatesSplitsOverLanesAndAgreesWithTheCpu) {
  BATCHODE_REQUIRE_GPU();
  constexpr int n = 64;
  RuntimeModel<double> runtime(parse(lorenz96_toml(n)), options());
  const std::size_t runs = 512;
  std::vector<double> y0, forcing;
  for (std::size_t r = 0; r < runs; ++r) {
    for (int i = 0; i < n; ++i) y0.push_back(8.0 + (i == 0 ? 0.01 : 0.0));
    forcing.push_back(4.0 + 4.0 * double(r) / double(runs));
  }
  const SolveOptions dopri5 = lorenz_options<double>(Method::dopri5, false);
  expect_lanes_give_one_threads_runs(runtime, y0, forcing, dopri5, 16, 200.0 * dopri5.rtol);
  expect_lanes_give_one_threads_runs(runtime, y0, forcing, lorenz_options<double>(Method::rk4, false), 8,
                                     1e-9);
}

// BRUSS's 64 states written out are six formulas over i (two interleaved species and their ends):
// lanes of a warp that hold different ones take turns. Its two species both compute u_i^2 v_i: one
// thread computes that product once for both and the GPU compiler then fuses its multiply-adds
// otherwise than for one component alone (1 ulp in some states, seen on the H200), so the lanes give
// one thread's runs within rounding, not bit for bit.
TEST_F(RuntimeModelGpuTest, ModelOfSeveralComponentShapesSplitsOverLanes) {
  BATCHODE_REQUIRE_GPU();
  constexpr std::size_t m = 32;
  RuntimeModel<double> runtime(parse(batchode::testing::bruss_toml(m)), options());
  const std::vector<double> start = batchode::testing::bruss_initial_state(m);
  const std::size_t runs = 256;
  std::vector<double> y0, a;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), start.begin(), start.end());
    a.push_back(0.5 + double(r) / double(runs));
  }
  SolveOptions o = lorenz_options<double>(Method::dopri5, false);
  o.t_end = 0.05;  // (explicit steps on a stiff problem: a short span)
  o.rtol = o.atol = 1e-6;
  expect_lanes_give_one_threads_runs(runtime, y0, a, o, 16, 200.0 * o.rtol, 1e-12);
}

// A large stiff model (BRUSS, 64 states) compiles for the GPU in seconds and solves as the CPU path
// does, with each of its linear solves: the sparse LU (automatic: the fewest operations) and the band.
TEST_F(RuntimeModelGpuTest, StiffBrussWith64StatesAgreesWithTheCpuInSparseAndBandStorage) {
  BATCHODE_REQUIRE_GPU();
  constexpr std::size_t m = 32;
  const std::size_t runs = 512;
  const std::vector<double> start = batchode::testing::bruss_initial_state(m);
  std::vector<double> y0, a;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), start.begin(), start.end());
    a.push_back(0.9 + 0.2 * double(r) / double(runs));
  }
  for (const batchode::models::LinearSolver layout :
       {batchode::models::LinearSolver::automatic, batchode::models::LinearSolver::band}) {
    SCOPED_TRACE(batchode::models::to_string(layout));
    RuntimeModelOptions with = options();
    with.linear_solver = layout;
    RuntimeModel<double> runtime(parse(batchode::testing::bruss_toml(m)), with);
    SolveOptions o;
    o.method = Method::rodas4;
    o.t_end = 1;
    o.rtol = o.atol = 1e-6;
    o.verbosity = batchode::Verbosity::none;
    o.backend = Backend::gpu;
    const SolveResult<double> gpu = batchode::solve_ivp(runtime, y0, a, o);
    ASSERT_TRUE(gpu.execution().at(0).backend.is_gpu());
    o.backend = Backend::cpu;
    const SolveResult<double> cpu = batchode::solve_ivp(runtime, y0, a, o);
    ASSERT_TRUE(cpu.all_succeeded());
    batchode::testing::expect_runs_agree(gpu, cpu, 200.0 * o.rtol, "bruss GPU vs CPU");
  }
}

// POLLU (examples/models/pollu.toml, the IVP test set's chemistry; the sparse LU): on the GPU as on the
// CPU run by run, in both precisions, and run 0 (k1 = 0.35) at the test set's reference (float64); its
// LU generated with loops (RuntimeModelOptions::sparse_lu_loops_from and sparse_lu_solve_loops_from = 0)
// takes the straight-line code's steps on the GPU too, to the bit.
TEST_F(RuntimeModelGpuTest, PolluWithTheSparseLuAgreesWithTheCpuAndTheReference) {
  BATCHODE_REQUIRE_GPU();
  const batchode::models::Model model = batchode::models::load_model(batchode::testing::pollu_model_path());
  const std::size_t runs = 3000;
  auto check = [&](auto zero, double rtol, double atol) {
    using T = decltype(zero);
    RuntimeModel<T> runtime(model, options());
    const std::vector<T> start = runtime.default_y0();
    std::vector<T> y0, k1;
    for (std::size_t r = 0; r < runs; ++r) {
      y0.insert(y0.end(), start.begin(), start.end());
      k1.push_back(T(0.35 * (1.0 + double(r) / double(runs))));
    }
    for (Method m : {Method::rodas4, Method::ros3p}) {
      SCOPED_TRACE(batchode::to_string(m) + (sizeof(T) == 4 ? " float" : " double"));
      SolveOptions o;
      o.method = m;
      o.t_end = 60;
      o.rtol = rtol;
      o.atol = atol;
      o.verbosity = batchode::Verbosity::none;
      o.backend = Backend::gpu;
      const SolveResult<T> gpu = batchode::solve_ivp(runtime, y0, k1, o);
      ASSERT_TRUE(gpu.execution().at(0).backend.is_gpu());
      ASSERT_TRUE(gpu.all_succeeded());
      o.backend = Backend::cpu;
      const SolveResult<T> cpu = batchode::solve_ivp(runtime, y0, k1, o);
      ASSERT_TRUE(cpu.all_succeeded());
      batchode::testing::expect_runs_agree(gpu, cpu, 200.0 * rtol, "pollu GPU vs CPU");
      if (sizeof(T) == 8) {
        for (std::size_t i = 0; i < 20; ++i) {
          const double want = batchode::testing::kPolluAt60[i];
          EXPECT_NEAR(double(gpu.final_state(0, i)), want, 50 * (atol + rtol * std::fabs(want))) << "y" << i + 1;
        }
      }
      if (m == Method::rodas4) {
        RuntimeModelOptions loops_options = options();
        loops_options.sparse_lu_loops_from = 0;
        loops_options.sparse_lu_solve_loops_from = 0;
        RuntimeModel<T> loops(model, loops_options);
        o.backend = Backend::gpu;
        const SolveResult<T> by_loops = batchode::solve_ivp(loops, y0, k1, o);
        ASSERT_TRUE(by_loops.all_succeeded());
        for (std::size_t r = 0; r < runs; ++r) {
          for (std::size_t i = 0; i < 20; ++i) ASSERT_EQ(by_loops.final_state(r, i), gpu.final_state(r, i)) << r;
          ASSERT_EQ(by_loops.counters(r).accepted_steps, gpu.counters(r).accepted_steps) << r;
        }
      }
    }
  };
  check(0.0, 1e-8, 1e-12);
  check(0.0f, 1e-4, 1e-8);
}

}  // namespace
