// Per-run save times (SolveOptions::save_at_per_run, issue 12): each run saves at its own list of
// times. A run of a batch must save exactly what a solve of that run alone with its list shared
// would (same steps, same values, bit for bit), interpolated or landed, on the CPU path and on the
// GPU kernel's body in the device layout (each run's times runs fastest); the result, the writers
// and bad lists say which run's times they mean.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kernel_body_on_host.hpp"
#include "oscillator_batch.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Oscillator;
using batchode::testing::run_kernel_body_on_host;
using ::testing::HasSubstr;

constexpr auto oscillators = batchode::testing::oscillator_batch;
constexpr auto options = batchode::testing::quiet_cpu_options;

/// Run r's times: n points in [0, t_end], different in every run (shifted and stretched by r),
/// the first at t0 for even runs (the initial state) and the last at t_end for runs divisible by 3.
std::vector<double> own_times(std::size_t runs, std::size_t n, double t_end) {
  std::vector<double> t;
  for (std::size_t r = 0; r < runs; ++r) {
    const double first = r % 2 == 0 ? 0.0 : 0.013 * double(r);
    const double last = r % 3 == 0 ? t_end : t_end * (1.0 - 0.011 * double(r + 1));
    for (std::size_t k = 0; k < n; ++k) t.push_back(first + (last - first) * double(k) / double(n - 1));
  }
  return t;
}

/// Run r of `batch` alone.
template <class T>
Batch<T> one_run(const Batch<T>& batch, std::size_t r, std::size_t n_states, std::size_t n_params) {
  Batch<T> b;
  b.n_runs = 1;
  b.y0.assign(batch.y0.begin() + r * n_states, batch.y0.begin() + (r + 1) * n_states);
  b.params.assign(batch.params.begin() + r * n_params, batch.params.begin() + (r + 1) * n_params);
  return b;
}

/// `per_run` (a solve with save_at_per_run) against solve(run r alone, its times as save_at), for
/// every run: times, series, final state, status and counters, bit for bit.
template <class T, class Solve>
void expect_each_run_is_its_own_solve(const SolveResult<T>& per_run, const Batch<T>& batch, SolveOptions o,
                                      Solve&& solve, const std::string& what) {
  const std::vector<double>& times = o.save_at_per_run.times();
  const std::size_t n = o.save_at_per_run.n_saves();
  ASSERT_TRUE(per_run.times_per_run());
  ASSERT_EQ(per_run.n_saves(), n);
  o.save_at_per_run = PerRunSaveTimes();
  for (std::size_t r = 0; r < batch.n_runs; ++r) {
    o.save_at.assign(times.begin() + r * n, times.begin() + (r + 1) * n);
    const SolveResult<T> alone = solve(one_run(batch, r, 2, 1), o);
    ASSERT_EQ(per_run.status(r), Status::success) << what << " run " << r;
    ASSERT_EQ(alone.status(0), Status::success) << what << " run " << r;
    for (std::size_t k = 0; k < n; ++k) {
      ASSERT_EQ(per_run.time(r, k), alone.time(0, k)) << what << " run " << r << " save " << k;
      ASSERT_EQ(per_run.time(r, k), static_cast<T>(times[r * n + k]));
      for (std::size_t s = 0; s < 2; ++s) {
        ASSERT_EQ(per_run.state_at(r, k, s), alone.state_at(0, k, s))
            << what << " run " << r << " save " << k << " state " << s;
      }
    }
    EXPECT_EQ(per_run.final_state(r, 0), alone.final_state(0, 0)) << what << " run " << r;
    EXPECT_EQ(per_run.counters(r).accepted_steps, alone.counters(0).accepted_steps) << what << " run " << r;
    EXPECT_EQ(per_run.counters(r).rhs_evaluations, alone.counters(0).rhs_evaluations) << what << " run " << r;
  }
}

// On the CPU path, every method family, interpolated and landed: each run saves what it would alone,
// and the saved values are the closed form at the run's own times (to the tolerance).
TEST(SaveAtPerRun, EachRunSavesWhatItWouldAloneWithItsTimesShared) {
  const Batch<double> batch = oscillators(9, 0.5, 3.0);
  for (Method m : {Method::dopri5, Method::tsit5, Method::rk4, Method::rodas4, Method::cash_karp54}) {
    for (SaveMode mode : {SaveMode::interpolate, SaveMode::land}) {
      SolveOptions o = options(m, 4.0);
      o.rtol = o.atol = 1e-9;
      if (m == Method::rk4) o.dt = 1e-3;
      o.save_mode = mode;
      o.save_at_per_run = PerRunSaveTimes(37, own_times(batch.n_runs, 37, 4.0));
      const SolveResult<double> r = solve_ivp(Oscillator{}, batch, o);
      const std::string what = to_string(m) + (mode == SaveMode::land ? " landed" : " interpolated");
      expect_each_run_is_its_own_solve(
          r, batch, o, [](const Batch<double>& b, const SolveOptions& opt) { return solve_ivp(Oscillator{}, b, opt); },
          what);
      double worst = 0;
      for (std::size_t i = 0; i < batch.n_runs; ++i) {
        for (std::size_t k = 0; k < r.n_saves(); ++k) {
          worst = std::max(worst, std::fabs(r.state_at(i, k, 0) - std::cos(batch.params[i] * r.time(i, k))));
        }
      }
      EXPECT_LT(worst, m == Method::rodas4 ? 1e-5 : 1e-6) << what;
    }
  }
}

// Landing on each run's own times, in one batch: each run's steps end on its own list, not on anyone
// else's (two identical runs with 400 times each take different step counts).
TEST(SaveAtPerRun, LandingFollowsEachRunsOwnList) {
  const Batch<double> batch = oscillators(2, 1.0, 1.0);  // two identical runs
  SolveOptions o = options(Method::dopri5, 10.0);
  o.save_mode = SaveMode::land;
  std::vector<double> times;
  for (int k = 0; k < 400; ++k) times.push_back(0.025 * (k + 1));  // run 0: every 0.025
  for (int k = 0; k < 400; ++k) times.push_back(9.0 + 0.0025 * (k + 1));  // run 1: all in [9, 10]
  o.save_at_per_run = PerRunSaveTimes(400, times);
  const SolveResult<double> r = solve_ivp(Oscillator{}, batch, o);
  ASSERT_TRUE(r.all_succeeded());
  EXPECT_GE(r.counters(0).accepted_steps, 400u);
  EXPECT_GE(r.counters(1).accepted_steps, 400u);
  // Run 1 lands on its 400 times within [9, 10] and takes its own steps over [0, 9] too.
  EXPECT_GT(r.counters(1).accepted_steps, r.counters(0).accepted_steps);
  EXPECT_EQ(r.time(1, 0), 9.0025);
  EXPECT_NEAR(r.state_at(1, 399, 0), std::cos(10.0), 1e-5);
}

// The GPU kernel's body reads each run's times from the chunk's copy (runs fastest): run by run
// what it saves with its own times shared, bit for bit, and the CPU path's values to the tolerance.
template <class T>
class PerRunOnKernelBody : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PerRunOnKernelBody, Precisions);

TYPED_TEST(PerRunOnKernelBody, EqualsEachRunsOwnSolveAndTheCpuPath) {
  using T = TypeParam;
  const Batch<T> batch = batchode::testing::in_precision<T>(oscillators(11, 0.5, 3.0));
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-9;
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    for (SaveMode mode : {SaveMode::interpolate, SaveMode::land}) {
      SolveOptions o = options(m, 3.0);
      o.rtol = o.atol = tol;
      if (m == Method::rk4) o.dt = 0.01;
      o.save_mode = mode;
      o.save_at_per_run = PerRunSaveTimes(50, own_times(batch.n_runs, 50, 3.0));
      const std::string what = to_string(m) + (mode == SaveMode::land ? " landed" : " interpolated");
      const SolveResult<T> body = run_kernel_body_on_host(Oscillator{}, batch, o);
      expect_each_run_is_its_own_solve(
          body, batch, o,
          [](const Batch<T>& b, const SolveOptions& opt) { return run_kernel_body_on_host(Oscillator{}, b, opt); },
          what + " kernel body");
      const SolveResult<T> cpu = solve_ivp(Oscillator{}, batch, o);
      for (std::size_t r = 0; r < batch.n_runs; ++r) {
        for (std::size_t k = 0; k < cpu.n_saves(); ++k) {
          ASSERT_EQ(cpu.time(r, k), body.time(r, k));
          for (std::size_t s = 0; s < 2; ++s) {
            // Odeint's and the register stepper's dopri5 agree to the tolerance, not bitwise.
            ASSERT_NEAR(cpu.state_at(r, k, s), body.state_at(r, k, s), 150 * tol)
                << what << " run " << r << " save " << k << " state " << s;
          }
        }
      }
    }
  }
}

// Backend::automatic (which probes a few sampled runs with the first run's times shared) and float.
TEST(SaveAtPerRun, AutomaticBackendAndFloat) {
  const Batch<float> batch = batchode::testing::in_precision<float>(oscillators(5, 1.0, 2.0));
  SolveOptions o = options(Method::tsit5, 2.0);
  o.backend = Backend::automatic;
  o.save_at_per_run = PerRunSaveTimes(3, own_times(5, 3, 2.0));
  const SolveResult<float> r = solve_ivp(Oscillator{}, batch, o);
  ASSERT_TRUE(r.all_succeeded());
  ASSERT_EQ(r.times().size(), 15u);
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(r.state_at(i, k, 0), std::cos(batch.params[i] * r.time(i, k)), 1e-4) << i << " " << k;
    }
  }
  EXPECT_THROW((void)r.time(5, 0), std::out_of_range);
  EXPECT_THROW((void)r.time(0, 3), std::out_of_range);
}

// The writers keep each run's times: NPY (n_runs, n_saves), CSV rows with the run's own t.
TEST(SaveAtPerRun, WritersKeepEachRunsTimes) {
  const Batch<double> batch = oscillators(3, 1.0, 2.0);
  SolveOptions o = options(Method::dopri5, 1.0);
  o.save_at_per_run = PerRunSaveTimes(2, {0.25, 0.5, 0.1, 0.2, 0.75, 1.0});
  const SolveResult<double> r = solve_ivp(Oscillator{}, batch, o);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "batchode_save_at_per_run_test";
  std::filesystem::create_directories(dir);
  write_npy(r, (dir / "out").string());
  std::ifstream npy(dir / "out_times.npy", std::ios::binary);
  const std::string header((std::istreambuf_iterator<char>(npy)), std::istreambuf_iterator<char>());
  EXPECT_THAT(header, HasSubstr("'shape': (3,2)"));
  write_csv(r, (dir / "out.csv").string());
  std::ifstream csv(dir / "out.csv");
  std::string line, text;
  while (std::getline(csv, line)) text += line + "\n";
  EXPECT_THAT(text, HasSubstr("\n1,0.10000000000000001,success,"));
  EXPECT_THAT(text, HasSubstr("\n2,1,success,"));
  std::filesystem::remove_all(dir);
}

void expect_refused(const SolveOptions& o, const std::string& words) {
  try {
    validate_for<float>(o);
    ADD_FAILURE() << "accepted; expected an error with '" << words << "'";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr(words));
  }
}

TEST(SaveAtPerRun, BadListsAreNamedErrors) {
  SolveOptions o = options(Method::dopri5, 1.0);
  o.save_at_per_run = PerRunSaveTimes(3, {0.1, 0.2, 0.3, 0.1, 0.5, 0.25});
  expect_refused(o, "save_at_per_run must be strictly increasing (each run's times): save_at_per_run[1][2] = 0.25 "
                    "follows save_at_per_run[1][1] = 0.5");
  o.save_at_per_run = PerRunSaveTimes(2, {0.1, 0.2, 0.3, 1.5});
  expect_refused(o, "save_at_per_run[1][1] = 1.5 is outside the span [0, 1]");
  o.save_at_per_run = PerRunSaveTimes(2, {0.1, std::nan("")});
  expect_refused(o, "save_at_per_run[0][1] = nan is not finite");
  o.save_at_per_run = PerRunSaveTimes(2, {0.1, 0.2, 0.3});
  expect_refused(o, "save_at_per_run has 3 times, not a whole number of runs of n_saves = 2");
  o.save_at_per_run = PerRunSaveTimes(0, {0.1});
  expect_refused(o, "save_at_per_run has 1 times but n_saves = 0");
  o.save_at_per_run = PerRunSaveTimes(2, {0.1, 0.2, 0.5, 0.5 + 1e-12});
  expect_refused(o, "save_at_per_run[1][0] = 0.5 and save_at_per_run[1][1] = 0.500000000001 are the same "
                    "time in float");
  o.save_at_per_run = PerRunSaveTimes(1, {0.5});
  o.save_at = {0.5};
  expect_refused(o, "save_at and save_at_per_run are both set");
  o.save_at.clear();
  o.save_every = 0.1;
  expect_refused(o, "save_every and save_at_per_run are both set");

  // A batch of another size: named with both sizes, before any work.
  SolveOptions two = options(Method::dopri5, 1.0);
  two.save_at_per_run = PerRunSaveTimes(2, {0.1, 0.2, 0.3, 0.4});
  try {
    (void)solve_ivp(Oscillator{}, oscillators(3, 1.0, 2.0), two);
    ADD_FAILURE() << "a batch of 3 runs with the times of 2 was solved";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr("save_at_per_run holds the save times of 2 runs (2 x 2 times), the batch has 3"));
  }
}

}  // namespace
