// Ordering a GPU chunk's runs by their inputs (SolveOptions::run_order, arrays/run_order.hpp) changes
// which thread integrates which run and nothing else: on a shuffled uneven sweep (Lorenz, rho over
// [0, 100], dopri5; Robertson, k3 over 1e2 .. 1e9, rodas4), every final state, saved point, status
// and counter is bitwise the same with the order on and off (Lorenz in both precisions, Robertson
// in double), over several chunks; the order is timed (run_ordering: its plan once, then each
// chunk's order kernel with its GPU time) and made only where it should be: not with
// RunOrder::off, not for fixed-step methods, not where no input varies, not for a sweep already in
// its own order.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../stiff/stiff_systems.hpp"
#include "require_gpu.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;

using Robertson = batchode::testing::RobertsonWithJacobian;

template <class T>
std::vector<T> shuffled(std::vector<T> v, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

template <class T>
Batch<T> uneven_lorenz(std::size_t runs) {
  Batch<T> b;
  b.n_runs = runs;
  const std::vector<T> rho = shuffled(linspace<T>(0.0, 100.0, runs), 1);
  for (std::size_t r = 0; r < runs; ++r) {
    b.y0.insert(b.y0.end(), {T(1), T(0), T(0)});
    b.params.insert(b.params.end(), {T(10), rho[r], T(8.0 / 3)});
  }
  return b;
}

template <class T>
Batch<T> uneven_robertson(std::size_t runs) {
  Batch<T> b;
  b.n_runs = runs;
  std::vector<T> k3(runs);
  for (std::size_t r = 0; r < runs; ++r) k3[r] = static_cast<T>(std::pow(10.0, 2.0 + 7.0 * r / (runs - 1.0)));
  k3 = shuffled(k3, 2);
  for (std::size_t r = 0; r < runs; ++r) {
    b.y0.insert(b.y0.end(), {T(1), T(0), T(0)});
    b.params.insert(b.params.end(), {T(0.04), T(3e7), k3[r]});
  }
  return b;
}

template <class V>
void expect_bitwise_equal(const V* got, const V* want, std::size_t n, const std::string& what) {
  std::size_t differing = 0, first = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(V)) != 0) {
      if (first == n) first = i;
      ++differing;
    }
  }
  EXPECT_EQ(differing, 0u) << what << ": " << differing << " of " << n << " values differ, first at "
                           << first;
}

template <class T>
void expect_identical(SolveResult<T>& ordered, SolveResult<T>& unordered, const std::string& what) {
  ASSERT_EQ(ordered.n_runs(), unordered.n_runs());
  ASSERT_EQ(ordered.n_saves(), unordered.n_saves());
  const std::size_t runs = ordered.n_runs(), n = ordered.n_states();
  expect_bitwise_equal(ordered.final_state_data(), unordered.final_state_data(), runs * n,
                       what + ": final states");
  expect_bitwise_equal(ordered.series_data(), unordered.series_data(), runs * ordered.n_saves() * n,
                       what + ": series");
  expect_bitwise_equal(ordered.status_data(), unordered.status_data(), runs, what + ": statuses");
  expect_bitwise_equal(ordered.counters_data(), unordered.counters_data(), runs, what + ": counters");
}

SolveOptions gpu_options(Method m, double t_end, double tol, RunOrder order) {
  SolveOptions o;
  o.method = m;
  o.t_end = t_end;
  o.rtol = o.atol = tol;
  o.backend = Backend::gpu;
  o.gpu.chunks = 3;
  o.outputs.counters = true;
  o.run_order = order;
  return o;
}

/// Solves `batch` with the order on and off into fresh loggers; checks the results are identical
/// and that the order was made and timed once per chunk where `expect_ordered`.
template <class System, class T>
void check_order_changes_nothing(const System& sys, const Batch<T>& batch, SolveOptions o,
                                 bool expect_ordered, const std::string& what) {
  TimeLogger on_log(nullptr, Verbosity::normal), off_log(nullptr, Verbosity::normal);
  o.run_order = RunOrder::automatic;
  SolveResult<T> on = solve_ivp(sys, batch, o, on_log);
  o.run_order = RunOrder::off;
  SolveResult<T> off = solve_ivp(sys, batch, o, off_log);
  expect_identical(on, off, what);
  EXPECT_EQ(on.execution().at(0).backend, BackendId::gpu(0)) << what;
  EXPECT_EQ(off_log.stats(events::run_ordering).count, 0u) << what;
  // One occurrence plans the order (its metadata says what it decided); one per chunk launches the
  // order kernel (with its GPU time) when it said to order.
  const std::vector<Occurrence> ordering = on_log.occurrences(events::run_ordering);
  ASSERT_EQ(ordering.size(), expect_ordered ? 4u : 1u) << what;
  const Metadata& plan = ordering[0].metadata;
  ASSERT_NE(plan.find("ordered"), nullptr) << what;
  EXPECT_EQ(plan.find("ordered")->as_int(), expect_ordered ? 1 : 0) << what;
  EXPECT_EQ(plan.find(keys::gpu_time_ms), nullptr) << what << ": the plan is host work";
  if (!expect_ordered) return;
  EXPECT_EQ(plan.find("varying_inputs")->as_int(), 1) << what;
  for (std::size_t c = 1; c < ordering.size(); ++c) {
    const Metadata& m = ordering[c].metadata;
    ASSERT_NE(m.find(keys::chunk_index), nullptr) << what;
    EXPECT_EQ(m.find(keys::chunk_index)->as_int(), static_cast<std::int64_t>(c - 1)) << what;
    ASSERT_NE(m.find(keys::gpu_time_ms), nullptr) << what << ": the order kernel's GPU time";
    EXPECT_GT(m.find(keys::gpu_time_ms)->as_double(), 0.0) << what;
  }
}

template <class T>
class RunOrderGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RunOrderGpu, Precisions);

TYPED_TEST(RunOrderGpu, UnevenLorenzSweepIsBitwiseTheSameOrderedOrNot) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const Batch<T> batch = uneven_lorenz<T>(20000);
  SolveOptions o =
      gpu_options(Method::dopri5, 1.0, std::is_same_v<T, float> ? 1e-5 : 1e-8, RunOrder::automatic);
  check_order_changes_nothing(Lorenz{}, batch, o, true, "dopri5, final states");
  o.save_every = 0.05;  // the series is written at each thread's run's own rows
  check_order_changes_nothing(Lorenz{}, batch, o, true, "dopri5, series");
  o.method = Method::tsit5;
  o.save_every.reset();
  o.max_steps = 40;  // many runs fail: their statuses and counters are the same too
  check_order_changes_nothing(Lorenz{}, batch, o, true, "tsit5, max_steps reached");
}

// In double only: each system and precision a test solves compiles every method's kernels, and the
// order's effect does not depend on the precision (the Lorenz test above covers both).
TEST(RunOrderGpu, UnevenStiffSweepIsBitwiseTheSameOrderedOrNot) {
  BATCHODE_REQUIRE_GPU();
  const Batch<double> batch = uneven_robertson<double>(6000);
  const SolveOptions o = gpu_options(Method::rodas4, 40.0, 1e-7, RunOrder::automatic);
  check_order_changes_nothing(Robertson{}, batch, o, true, "rodas4");
}

TEST(RunOrderGpu, FixedStepsConstantInputsAndSweepsInOrderAreNotOrdered) {
  BATCHODE_REQUIRE_GPU();
  const Batch<double> batch = uneven_lorenz<double>(5000);
  SolveOptions o = gpu_options(Method::rk4, 1.0, 1e-6, RunOrder::automatic);
  o.dt = 1e-3;
  TimeLogger log(nullptr, Verbosity::normal);
  (void)solve_ivp(Lorenz{}, batch, o, log);
  EXPECT_EQ(log.stats(events::run_ordering).count, 0u) << "fixed steps cost the same in every run";

  Batch<double> same = batch;
  for (std::size_t r = 0; r < same.n_runs; ++r) same.params[3 * r + 1] = 28.0;
  check_order_changes_nothing(Lorenz{}, same, gpu_options(Method::dopri5, 1.0, 1e-8, RunOrder::automatic),
                              false, "no input varies");
  Batch<double> in_order = batch;
  for (std::size_t r = 0; r < in_order.n_runs; ++r)
    in_order.params[3 * r + 1] = 100.0 * r / (in_order.n_runs - 1.0);
  check_order_changes_nothing(Lorenz{}, in_order, gpu_options(Method::dopri5, 1.0, 1e-8, RunOrder::automatic),
                              false, "a sweep in its own order");
}

/// Under Backend::gpu no cost probe runs before a solve: a Solver's first solve of a batch orders its
/// runs, and the probe run beside it (run_order_probe, 16 runs on a CPU thread) decides the next
/// solve of the same batch: an even sweep (every run the same steps) is then not ordered, an uneven
/// one still is; the results are bitwise the same whichever it was. A probe that the GPU outran is
/// stopped and decides nothing yet: the next solve resumes it, so the solve is repeated until it
/// completes.
TEST(RunOrderGpu, RepeatedSolvesUnderBackendGpuAreOrderedOnlyWhereTheProbeSaysItPays) {
  BATCHODE_REQUIRE_GPU();
  const Batch<double> uneven = uneven_lorenz<double>(20000);
  Batch<double> even = uneven;
  const std::vector<double> x0 = shuffled(linspace<double>(1.0, 1.001, even.n_runs), 3);
  for (std::size_t r = 0; r < even.n_runs; ++r) {
    even.params[3 * r + 1] = 28.0;
    even.y0[3 * r] = x0[r];  // an input varies, so the plan alone would order them
  }
  for (const bool is_even : {true, false}) {
    const std::string what = is_even ? "even sweep" : "uneven sweep";
    const Batch<double>& batch = is_even ? even : uneven;
    TimeLogger log(nullptr, Verbosity::normal);
    Solver<Lorenz, double> solver(Lorenz{}, gpu_options(Method::dopri5, 1.0, 1e-8, RunOrder::automatic), log);
    SolveResult<double> first = solver.solve(batch);
    EXPECT_EQ(log.stats(events::run_ordering).count, 4u)
        << what << ": a first solve orders (plan + 3 chunks)";
    // A probe the GPU outran is resumed by the next solve: the samples it integrated only grow.
    bool probed = false;
    std::int64_t done = 0;
    for (int attempt = 0; attempt < 16 && !probed; ++attempt) {
      const std::vector<Occurrence> probes = log.occurrences(events::run_order_probe);
      ASSERT_EQ(probes.size(), 1u) << what << ": a solve without a probe of its batch runs one";
      ASSERT_NE(probes[0].metadata.find("completed"), nullptr) << what;
      ASSERT_NE(probes[0].metadata.find("samples_done"), nullptr) << what;
      probed = probes[0].metadata.find("completed")->as_int() == 1;
      const std::int64_t now_done = probes[0].metadata.find("samples_done")->as_int();
      EXPECT_GE(now_done, done) << what << ", solve " << attempt << ": the probe resumes where it stopped";
      EXPECT_TRUE(!probed || now_done == 16) << what << ": completed after " << now_done << " samples";
      done = now_done;
      if (!probed) {
        log.reset();
        (void)solver.solve(batch);
      }
    }
    ASSERT_TRUE(probed) << what << ": the 16-run probe did not complete over 16 solves";
    log.reset();
    SolveResult<double> next = solver.solve(batch);
    EXPECT_EQ(log.stats(events::run_order_probe).count, 0u)
        << what << ": the last probe of the batch is recalled";
    const std::vector<Occurrence> parts = log.occurrences(events::execution_part);
    ASSERT_EQ(parts.size(), 1u) << what;
    const MetaValue* reason = parts[0].metadata.find("run_order");
    if (is_even) {
      EXPECT_EQ(log.stats(events::run_ordering).count, 0u) << what << ": ordering cannot pay";
      ASSERT_NE(reason, nullptr) << what;
      EXPECT_EQ(reason->as_string().rfind("not ordered: the cost probe's runs took", 0), 0u)
          << what << ": " << reason->as_string();
    } else {
      EXPECT_EQ(log.stats(events::run_ordering).count, 4u) << what << ": still ordered";
      EXPECT_EQ(reason, nullptr) << what;
    }
    expect_identical(next, first, what + ", second solve against the first");
  }
}

}  // namespace
