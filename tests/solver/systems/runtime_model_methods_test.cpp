// Models defined at run time on the CPU, the tests that compile a model for many methods or compile a
// large one: every method on a problem with an exact solution, the precompiled prelude changing no
// number, events from the model bit for bit equal to the compiled-in twin's, and a dense 1000-state
// model on a worker-sized stack. The host compiler builds a model per method here (100-145 s a test
// under the sanitizers, 2 cores), so they run in the build without sanitizers only
// (tests/solver/systems/CMakeLists.txt); runtime_model_test has the same load path, events included.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "batchode/batchode.hpp"
#include "batchode/models/model.hpp"
#include "bounded_stack.hpp"
#include "large_linear_systems.hpp"
#include "runtime_model_fixture.hpp"
#include "runtime_model_systems.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode::testing::runtime_model_fixture;

// y' = -k y (exact: exp(-k t)) with every method; the stiff ones through the symbolic Jacobian.
TEST_F(RuntimeModelTest, EveryMethodSolvesExponentialDecay) {
  const batchode::models::Model model = parse(decay_toml());
  RuntimeModel<double> runtime(model, options());
  const std::vector<double> y0{1.0, 1.0, 1.0}, k{0.5, 1.0, 3.0};
  for (const batchode::MethodInfo& info : batchode::method_registry) {
    SCOPED_TRACE(info.name);
    batchode::SolveOptions o = cpu_options<double>(info.method);
    if (!info.adaptive) o.dt = 1e-3;
    const batchode::SolveResult<double> r = batchode::solve_ivp(runtime, y0, k, o);
    for (std::size_t i = 0; i < k.size(); ++i) {
      ASSERT_EQ(r.status(i), batchode::Status::success);
      const double exact = std::exp(-k[i] * 2.0);
      // Fixed steps of 1e-3: euler's global error is about t k^2 e^{-kt} h / 2, under 2% here. The
      // others: a small multiple of the local tolerance atol + rtol |y| (atol dominates at k = 3).
      const double bound = info.method == Method::euler ? 2e-2 * exact : 50.0 * (o.atol + o.rtol * exact);
      EXPECT_NEAR(r.final_state(i, 0), exact, bound) << "k " << k[i];
    }
  }
}

// Events from the model's [events] table (issue 12): the runtime model's records, counts, statuses
// and final states equal, bit for bit, those of the compiled-in twin given the same specs; with
// interpolated saves too. Some runs stop at z = 30 (terminal), the others record x's zeros.
template <class T>
void expect_events_as_compiled_in(const RuntimeModel<T>& runtime, Method method, bool save_at) {
  SCOPED_TRACE(std::string(batchode::to_string(method)) + (sizeof(T) == 4 ? " float" : " double"));
  const std::size_t runs = 37;
  std::vector<T> y0, params;
  lorenz_batch(runs, y0, params);
  batchode::SolveOptions o = cpu_options<T>(method);
  if (save_at) o.save_at = {0.1, 0.5, 1.0, 1.5, 1.9};
  const batchode::SolveResult<T> a = batchode::solve_ivp(runtime, y0, params, o);
  o.events = batchode::testing::LorenzEventsCompiledIn::specs();
  const batchode::SolveResult<T> b = batchode::solve_ivp(batchode::testing::LorenzEventsCompiledIn{}, y0, params, o);
  ASSERT_EQ(a.event_names(), (std::vector<std::string>{"x_zero", "z_high"}));
  ASSERT_EQ(a.event_slots(), 4u);
  EXPECT_TRUE(a.event_terminal(1));
  std::size_t stopped = 0, crossings = 0;
  for (std::size_t r = 0; r < runs; ++r) {
    ASSERT_EQ(a.status(r), b.status(r)) << "run " << r;
    stopped += a.status(r) == batchode::Status::stopped_by_event;
    EXPECT_EQ(a.stopping_event(r), a.status(r) == batchode::Status::stopped_by_event ? 1u : 2u) << "run " << r;
    for (std::size_t s = 0; s < 3; ++s) EXPECT_EQ(a.final_state(r, s), b.final_state(r, s)) << "run " << r;
    for (std::size_t e = 0; e < 2; ++e) {
      ASSERT_EQ(a.event_count(r, e), b.event_count(r, e)) << "run " << r << " event " << e;
      crossings += a.event_count(r, e);
      for (std::size_t k = 0; k < 4; ++k) {
        const T ta = a.event_time(r, e, k), tb = b.event_time(r, e, k);
        EXPECT_TRUE(ta == tb || (std::isnan(ta) && std::isnan(tb))) << "run " << r << " event " << e << " " << ta << " vs " << tb;
      }
    }
    for (std::size_t k = 0; k < a.n_saves(); ++k) {
      const T sa = a.state_at(r, k, 0), sb = b.state_at(r, k, 0);
      EXPECT_TRUE(sa == sb || (std::isnan(sa) && std::isnan(sb))) << "run " << r << " save " << k;
    }
  }
  // Both kinds happen in this sweep: runs with large rho reach z = 30 within t = 2, the rest do not.
  EXPECT_GT(stopped, 0u);
  EXPECT_LT(stopped, runs);
  EXPECT_GT(crossings, stopped);
}

TEST_F(RuntimeModelTest, EventsFromTheModelEqualTheCompiledInSystemBitForBit) {
  const batchode::models::Model model = parse(batchode::testing::lorenz_events_toml());
  expect_events_as_compiled_in(RuntimeModel<double>(model, options()), Method::dopri5, true);
  expect_events_as_compiled_in(RuntimeModel<float>(model, options()), Method::rk4, false);
}

// The precompiled prelude is built once per cache folder (and compiler and headers), used by every
// later model, and changes no number: the same model compiled whole (no cache, so no prelude) gives
// the same bits.
TEST_F(RuntimeModelTest, ThePrecompiledPreludeIsBuiltOnceAndChangesNoNumber) {
  const std::filesystem::path own = cache_ / "own";
  RuntimeModelOptions o;
  o.cache_directory = own.string();
  batchode::TimeLogger first(nullptr, batchode::Verbosity::normal),
      second(nullptr, batchode::Verbosity::normal);
  const batchode::models::Model model = parse(kLorenzToml);
  RuntimeModel<double>(model, o, first).prepare(Method::dopri5, first);
  EXPECT_EQ(first.stats(batchode::events::model_prelude_compile).count, 1u);
  RuntimeModel<double> with_prelude(model, o, second);
  with_prelude.prepare(Method::rk4, second);
  EXPECT_EQ(second.stats(batchode::events::model_prelude_compile).count, 0u) << "built twice";
  EXPECT_EQ(second.stats(batchode::events::model_compile).count, 1u);
  const std::vector<batchode::Occurrence> compiles = second.occurrences(batchode::events::model_compile);
  ASSERT_EQ(compiles.size(), 1u);
  ASSERT_NE(compiles[0].metadata.find("precompiled_prelude"), nullptr);
  EXPECT_EQ(compiles[0].metadata.find("precompiled_prelude")->as_string(), "yes");

  RuntimeModelOptions whole;
  whole.use_cache = false;
  RuntimeModel<double> without_prelude(model, whole);
  std::vector<double> y0, params;
  for (int r = 0; r < 16; ++r) {
    y0.insert(y0.end(), {1.0, 1.0 + r / 10.0, 1.0});
    params.push_back(r * 2.0);
  }
  batchode::SolveOptions so = cpu_options<double>(Method::rk4);
  so.save_every = 0.5;
  const auto a = batchode::solve_ivp(with_prelude, y0, params, so);
  const auto b = batchode::solve_ivp(without_prelude, y0, params, so);
  for (std::size_t i = 0; i < 16 * 3; ++i) EXPECT_EQ(a.final_state()[i], b.final_state()[i]) << i;
  EXPECT_GT(std::abs(a.final_state()[3]), 0.0);
}

// A 1000-state model with no band (each state coupled to its mirror), its LU asked dense (automatic
// would take the sparse LU: no fill): rodas4 keeps J and its LU dense, 8 MB each in double, together
// twice a worker's 8 MiB stack, so the object makes a worker's stepper on the heap
// (batchode_new_stepper). Solved on a thread with a worker's stack, against the closed form.
TEST_F(RuntimeModelTest, ADenseThousandStateModelSolvesOnAWorkerSizedStack) {
  constexpr std::size_t n = 1000;
  constexpr double a = 1.0, b = 0.5;
  std::vector<double> y0(n);
  for (std::size_t i = 0; i < n; ++i) y0[i] = 1.0 + double(i % 7) / 7.0;
  RuntimeModelOptions dense = options();
  dense.linear_solver = batchode::models::LinearSolver::dense;
  RuntimeModel<double> runtime(parse(batchode::testing::mirrored_decay_toml(y0, a, b)), dense);
  batchode::SolveOptions o = cpu_options<double>(Method::rodas4);
  o.t_end = 1;
  o.rtol = 1e-6;
  o.atol = 1e-9;
  const auto r = batchode::testing::on_bounded_stack(
      [&] { return batchode::solve_ivp(runtime, runtime.default_y0(), runtime.default_params(), o); });
  ASSERT_EQ(r.status(0), batchode::Status::success);
  const std::vector<double> exact = batchode::testing::mirrored_decay_solution(y0, a, b, o.t_end);
  for (std::size_t i = 0; i < n; ++i) {
    // Global error: within 50 local tolerances (stiff/reference_test.cpp's factor).
    EXPECT_NEAR(r.final_state(0, i), exact[i], 50 * (o.atol + o.rtol * std::fabs(exact[i]))) << "state " << i;
  }
}

}  // namespace
