// Failing runs: every run keeps its row, ends with the status that says why, leaves NaN where it
// never got to, and does not disturb its neighbours. Counters are checked against what the methods
// must have done.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "test_systems.hpp"

namespace {

using batchode::Method;
using batchode::Status;
using batchode::testing::BlowUp;
using batchode::testing::Oscillator;

template <class T>
class Statuses : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Statuses, Precisions);

batchode::SolveOptions cpu_options() {
  batchode::SolveOptions opt;
  opt.outputs.counters = true;  // read below (counters are off by default)
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  return opt;
}

// y' = p y^2, y(0) = 1: y(t) = 1 / (1 - p t), which blows up at t = 1/p. With p = 0.05, 0.15, ...,
// 2.95 and t_end = 1, the 10 runs with p < 1 reach t_end (y(1) <= 20) and the 20 with p > 1 blow
// up inside the span, none closer than 5% to t_end.
constexpr std::size_t kRuns = 30;
template <class T>
std::vector<T> blow_up_rates() {
  std::vector<T> p(kRuns);
  for (std::size_t i = 0; i < kRuns; ++i) p[i] = static_cast<T>(0.05 + 0.1 * double(i));
  return p;
}

// Checks what every blow-up solve must satisfy whatever the method: a row per run, success exactly
// for p < 1 with y(1) = 1 / (1 - p), one of `failures` for the others, saves before the blow-up
// close to the exact solution, and NaN from the first save after the failure on (the failure comes
// at most one save interval, 0.1, after the singularity at 1/p).
template <class T>
void check_blow_up(const batchode::SolveResult<T>& res, const std::vector<T>& p, std::vector<Status> failures,
                   double rel_tol) {
  ASSERT_EQ(res.n_runs(), kRuns);
  ASSERT_EQ(res.statuses().size(), kRuns);
  ASSERT_EQ(res.counters().size(), kRuns);
  for (std::size_t r = 0; r < kRuns; ++r) {
    const double rate = double(p[r]);
    const bool blows_up = rate > 1;
    if (blows_up) {
      EXPECT_NE(std::find(failures.begin(), failures.end(), res.status(r)), failures.end())
          << "p=" << rate << ": " << to_string(res.status(r));
    } else {
      EXPECT_EQ(res.status(r), Status::success) << "p=" << rate;
      EXPECT_NEAR(res.final_state(r, 0), 1 / (1 - rate), rel_tol / (1 - rate)) << "p=" << rate;
    }
    bool failed = false;
    for (std::size_t k = 0; k < res.n_saves(); ++k) {
      const double t = double(res.times()[k]);
      const double y = double(res.state_at(r, k, 0));
      if (t * rate <= 0.95 + 1e-9) {  // y <= 20: reached for sure before the failure
        EXPECT_NEAR(y, 1 / (1 - rate * t), rel_tol / (1 - rate * t)) << "p=" << rate << " t=" << t;
      }
      if (std::isnan(y) && !failed) {
        failed = true;
        EXPECT_TRUE(blows_up) << "p=" << rate << " t=" << t;
        EXPECT_GT(t, 1 / rate) << "p=" << rate << ": NaN before the singularity";
        EXPECT_LE(t, 1 / rate + 0.1 + 1e-6) << "p=" << rate << ": failure noticed late";
      }
      if (failed) {
        EXPECT_TRUE(std::isnan(y)) << "p=" << rate << " t=" << t << ": a save after the failure";
      }
    }
    EXPECT_EQ(failed, blows_up) << "p=" << rate << ": a failed run never reaches the save at t_end";
  }
}

// dopri5: as y -> infinity the controller shrinks h like the distance to the singularity. Two
// endings are right: step_size_underflow when a rejected step's retry falls below the rounding floor
// 16 eps t, non_finite_state when the state or error estimate overflows. Which one comes first
// depends on the precision and tolerance (see AcceptedStepsBelowTheFloorEndTheRun).
TYPED_TEST(Statuses, BlowUpUnderAdaptiveStepsFails) {
  using T = TypeParam;
  const auto p = blow_up_rates<T>();
  const std::vector<T> y0(kRuns, T(1));
  auto opt = cpu_options();
  opt.rtol = opt.atol = std::is_same_v<T, float> ? 1e-5 : 1e-9;
  opt.save_every = 0.1;
  const auto res = batchode::solve_ivp(BlowUp{}, y0, p, opt);
  // Global relative error up to y = 20 near the singularity: ~1e3 x rtol (the error is amplified
  // by dy/dy0 = y^2, up to 400), below 1e-5 in double and 3e-2 in float.
  check_blow_up(res, p, {Status::step_size_underflow, Status::non_finite_state},
                std::is_same_v<T, float> ? 3e-2 : 1e-5);
  EXPECT_EQ(res.count(Status::success), 10u);
  for (std::size_t r = 0; r < kRuns; ++r) {
    // The stop time: t_end exactly for a run that reached it; for one that blew up, where the steps
    // gave out, at the singularity 1/p to within the last steps (1e-3 of it), never past it.
    const double rate = double(p[r]), t_stop = double(res.stop_time(r));
    if (rate < 1) {
      EXPECT_EQ(t_stop, 1.0) << "p=" << rate;
    } else {
      EXPECT_LE(t_stop, 1 / rate * (1 + 1e-6)) << "p=" << rate;
      EXPECT_GT(t_stop, 1 / rate * (1 - 1e-3)) << "p=" << rate;
    }
    const auto& c = res.counters(r);
    const std::uint64_t attempts = c.accepted_steps + c.rejected_steps;
    EXPECT_LE(attempts, opt.max_steps);
    // dopri5 has 7 stages, the first reused (FSAL): 6 evaluations per attempt, plus f(t0, y0) and
    // the first-step estimate; at most 7 per attempt for a stepper without FSAL.
    EXPECT_GE(c.rhs_evaluations, 6 * attempts) << r;
    EXPECT_LE(c.rhs_evaluations, 7 * attempts + 2) << r;
    if (double(p[r]) > 1) {
      // The failed run's final state is its last one, near the singularity: large (or inf).
      EXPECT_GT(double(res.final_state(r, 0)), 1e4) << "p=" << double(p[r]);
    }
  }
}

// rk4 with a fixed step cannot shrink it: past the singularity the iterates (all positive and
// growing like y^5 per step) overflow, and the runs end non_finite_state.
TYPED_TEST(Statuses, BlowUpUnderFixedStepsEndsNonFinite) {
  using T = TypeParam;
  const auto p = blow_up_rates<T>();
  const std::vector<T> y0(kRuns, T(1));
  auto opt = cpu_options();
  opt.method = Method::rk4;
  opt.dt = 1e-3;
  opt.save_every = 0.1;
  const auto res = batchode::solve_ivp(BlowUp{}, y0, p, opt);
  // rk4 at h = 1e-3: global error C h^4 y^... stays below 1e-6 relative for y <= 20 in double;
  // float rounding over 1000 steps adds ~1e3 eps ~ 1e-4 relative, amplified near y = 20.
  check_blow_up(res, p, {Status::non_finite_state}, std::is_same_v<T, float> ? 3e-2 : 1e-6);
  for (std::size_t r = 0; r < kRuns; ++r) {
    // Seen non-finite at the first save after the overflow: the stop time is that save's, after the
    // singularity by at most a save interval; t_end exactly for the others.
    const double rate = double(p[r]), t_stop = double(res.stop_time(r));
    if (rate < 1) {
      EXPECT_EQ(t_stop, 1.0) << "p=" << rate;
    } else {
      EXPECT_GT(t_stop, 1 / rate) << "p=" << rate;
      EXPECT_LE(t_stop, 1 / rate + *opt.save_every + 1e-6) << "p=" << rate;
      EXPECT_NEAR(t_stop / *opt.save_every, std::round(t_stop / *opt.save_every), 1e-4) << "p=" << rate << ": a save";
    }
    const auto& c = res.counters(r);
    EXPECT_EQ(c.rejected_steps, 0u) << "fixed steps are never rejected";
    // rk4: 4 evaluations per step, plus f(t0, y0).
    EXPECT_GE(c.rhs_evaluations, 3u * c.accepted_steps);
    EXPECT_LE(c.rhs_evaluations, 4u * c.accepted_steps + 1);
    if (double(p[r]) > 1) {
      // Fixed-step runs check their state at stops (save times, t_end), off the hot loop: the run
      // fails at the first save after the overflow, within one save interval of the singularity.
      EXPECT_LE(c.accepted_steps * 1e-3, 1 / double(p[r]) + *opt.save_every + 1e-9) << "p=" << double(p[r]);
    } else {
      EXPECT_EQ(c.accepted_steps, 1000u);
    }
  }
}

// StepControl::dt_min promises that "below this a run fails with step_size_underflow", and the
// rounding floor 16 eps t plays the same role when dt_min is 0, after accepted steps too: a run whose
// accepted steps shrink geometrically (here: approaching the singularity with error ratios just below
// 1) must stop there, not go on with t frozen (t + h == t) for ~10^4 useless steps until y overflows
// (what integrate_run did when it checked the floor after rejected steps only).
TYPED_TEST(Statuses, AcceptedStepsBelowTheFloorEndTheRun) {
  using T = TypeParam;
  const auto p = blow_up_rates<T>();
  const std::vector<T> y0(kRuns, T(1));
  auto opt = cpu_options();
  opt.rtol = opt.atol = std::is_same_v<T, float> ? 1e-5 : 1e-9;
  opt.step_control.dt_min = 1e-7;
  const auto res = batchode::solve_ivp(BlowUp{}, y0, p, opt);
  for (std::size_t r = 0; r < kRuns; ++r) {
    if (double(p[r]) < 1) continue;
    EXPECT_EQ(res.status(r), Status::step_size_underflow) << "p=" << double(p[r]);
    // From h ~ 0.05 to 1e-7 at a shrink of >= min_factor 0.2 per step, with few rejections: a few
    // hundred attempts, not ten thousand.
    EXPECT_LT(res.counters(r).accepted_steps + res.counters(r).rejected_steps, 2000u) << "p=" << double(p[r]);
  }
}

// max_steps caps accepted + rejected attempts per run: a second solve capped at the median of the
// attempts of an uncapped one must stop exactly the runs that needed more, after exactly max_steps
// attempts, and give the other runs bit for bit their uncapped results.
TEST(StatusesMaxSteps, StopsExactlyTheRunsThatNeedMore) {
  const std::size_t runs = 24;
  std::vector<double> y0, w = batchode::linspace<double>(0.5, 12.0, runs);
  for (std::size_t r = 0; r < runs; ++r) y0.insert(y0.end(), {1.0, 0.0});
  for (Method m : {Method::dopri5, Method::bogacki_shampine32, Method::rk4}) {
    auto opt = cpu_options();
    opt.method = m;
    opt.t_end = 10.0;
    opt.save_every = 1.0;
    if (m == Method::rk4) {
      opt.dt = 0.01;  // same step count for every run: cap below it
    }
    const auto full = batchode::solve_ivp(Oscillator{}, y0, w, opt);
    ASSERT_TRUE(full.all_succeeded());
    std::vector<std::uint64_t> attempts(runs);
    for (std::size_t r = 0; r < runs; ++r) attempts[r] = full.counters(r).accepted_steps + full.counters(r).rejected_steps;
    std::vector<std::uint64_t> sorted = attempts;
    std::sort(sorted.begin(), sorted.end());
    if (m == Method::rk4) {
      // Fixed steps: every run needs the same 1000 steps, so a cap below that is known to fail
      // before any work and is refused (the loop's own stop at max_steps is pinned in
      // probe_regression_test.cpp, through the kernel body, which takes plans unvalidated).
      opt.max_steps = 999;
      EXPECT_THROW((void)batchode::solve_ivp(Oscillator{}, y0, w, opt), batchode::InvalidInput);
      opt.max_steps = 1000;  // exactly the 1000 steps needed
      EXPECT_TRUE(batchode::solve_ivp(Oscillator{}, y0, w, opt).all_succeeded());
      continue;
    }
    opt.max_steps = sorted[runs / 2];
    const auto capped = batchode::solve_ivp(Oscillator{}, y0, w, opt);
    std::size_t stopped = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      const auto& c = capped.counters(r);
      if (attempts[r] > opt.max_steps) {
        ++stopped;
        EXPECT_EQ(capped.status(r), Status::max_steps_reached) << to_string(m) << " run " << r;
        EXPECT_EQ(c.accepted_steps + c.rejected_steps, opt.max_steps) << to_string(m) << " run " << r;
        // Saves the run never reached are NaN; the last save is at t_end, never reached.
        EXPECT_TRUE(std::isnan(capped.state_at(r, capped.n_saves() - 1, 0)));
        EXPECT_FALSE(std::isnan(capped.state_at(r, 0, 0)));
        // The stop time is the time of the final state, x(t) = cos(w t), inside the span.
        const double t_stop = capped.stop_time(r);
        EXPECT_GT(t_stop, 0.0) << to_string(m) << " run " << r;
        EXPECT_LT(t_stop, opt.t_end) << to_string(m) << " run " << r;
        EXPECT_NEAR(capped.final_state(r, 0), std::cos(w[r] * t_stop), 1e-3) << to_string(m) << " run " << r;
      } else {
        EXPECT_EQ(capped.status(r), Status::success) << to_string(m) << " run " << r;
        EXPECT_EQ(capped.final_state(r, 0), full.final_state(r, 0)) << to_string(m) << " run " << r;
        EXPECT_EQ(capped.stop_time(r), opt.t_end) << to_string(m) << " run " << r;
        EXPECT_EQ(c.accepted_steps, full.counters(r).accepted_steps);
      }
    }
    // The cap must split the batch (else the test would check one side only).
    EXPECT_GT(stopped, 0u) << to_string(m);
    EXPECT_LT(stopped, runs) << to_string(m);
  }
}

}  // namespace
