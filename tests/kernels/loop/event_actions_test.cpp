// Events that change the state (a system's event_assignments and event_assign: issue 49), on the CPU
// path and the kernel body the GPU runs, against closed forms: a bouncing ball (bounce times and the
// heights reached are geometric series: 20 bounces within the tolerance, then the Zeno end named at the
// accumulation time), a leaky integrate-and-fire neuron with constant input (spikes every
// tau ln(I R / (I R - theta)), a different period in every run of one batch), a terminal event whose
// assignments give the final state, and a save at a spike's time keeping the value before the reset.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "event_action_systems.hpp"
#include "kernel_body_on_host.hpp"
#include "oscillator_batch.hpp"  // quiet_cpu_options

namespace {

using namespace batchode;
using batchode::testing::run_kernel_body_on_host;

using batchode::testing::bounce_time;
using batchode::testing::BouncingBall;
using batchode::testing::g;
using batchode::testing::h0;
using batchode::testing::LeakyIntegrateAndFire;
using batchode::testing::lif_period;

SolveOptions ball_options(Method m, double t_end) {
  SolveOptions o = batchode::testing::quiet_cpu_options(m, t_end);
  o.rtol = o.atol = 1e-10;
  o.events = {{"bounce", EventDirection::falling, EventAction::record, 40}};
  if (m == Method::rk4) o.dt = 1e-3;
  return o;
}

// 20 bounces at their times (and the speed before each, e^k v1 down) for e = 0.8, and those of
// e = 0.85 in the same batch up to then, by adaptive and fixed steps (rk4's 1e-3 is shorter than
// every flight here), on the CPU path and the kernel body.
TEST(EventActions, ABouncingBallsBouncesAreAGeometricSeries) {
  const std::vector<double> e{0.8, 0.85};
  const double t_end = 0.5 * (bounce_time(0.8, 19) + bounce_time(0.8, 20));
  const double t1 = std::sqrt(2 * h0 / g), v1 = g * t1;
  for (Method m : {Method::dopri5, Method::tsit5, Method::rk4, Method::rodas4}) {
    const SolveOptions o = ball_options(m, t_end);
    for (int path = 0; path < 2; ++path) {
      const Batch<double> batch{{h0, 0.0, h0, 0.0}, e, 2};
      const auto r =
          path == 0 ? solve_ivp(BouncingBall{}, batch, o) : run_kernel_body_on_host(BouncingBall{}, batch, o);
      const std::string what = to_string(m) + (path ? " (kernel body)" : " (cpu)");
      for (std::size_t run = 0; run < 2; ++run) {
        ASSERT_EQ(r.status(run), Status::success) << what;
        int bounces = 0;
        while (bounce_time(e[run], bounces) < t_end) ++bounces;
        ASSERT_EQ(r.event_count(run, 0), std::uint32_t(bounces)) << what << " e " << e[run];
        if (run == 0) {
          EXPECT_EQ(bounces, 20);
        }
        for (int k = 0; k < bounces; ++k) {
          EXPECT_NEAR(r.event_time(run, 0, k), bounce_time(e[run], k), 1e-8) << what << " bounce " << k;
          EXPECT_NEAR(r.event_state(run, 0, k, 1), -v1 * std::pow(e[run], k), 1e-7)
              << what << " bounce " << k;
        }
      }
    }
  }
}

/// The ball's height at t: a parabola from each bounce (and from the drop before the first).
double ball_height(double e, double t) {
  const double t1 = std::sqrt(2 * h0 / g), v1 = g * t1;
  if (t <= t1) return h0 - 0.5 * g * t * t;
  int k = 0;
  while (bounce_time(e, k + 1) <= t) ++k;
  const double s = t - bounce_time(e, k), up = v1 * std::pow(e, k + 1);
  return up * s - 0.5 * g * s * s;
}

// The series between restarts, saved every 0.25 by landed and by interpolated saves, for fixed and
// adaptive steps (each loop restarts in its own way), against the piecewise parabola.
TEST(EventActions, SavesBetweenBouncesFollowTheParabolas) {
  const double e = 0.8;
  for (Method m : {Method::rk4, Method::dopri5}) {
    for (SaveMode mode : {SaveMode::land, SaveMode::interpolate}) {
      SolveOptions o = ball_options(m, 10.0);
      o.save_every = 0.25;
      o.save_mode = mode;
      const SolveResult<double> r =
          solve_ivp(BouncingBall{}, std::vector<double>{h0, 0.0}, std::vector<double>{e}, o);
      ASSERT_EQ(r.status(0), Status::success) << to_string(m);
      ASSERT_EQ(r.n_saves(), 41u);
      for (std::size_t k = 0; k < r.n_saves(); ++k) {
        EXPECT_NEAR(r.state_at(0, k, 0), ball_height(e, r.time(0, k)), 1e-7)
            << to_string(m) << (mode == SaveMode::land ? " landed" : " interpolated") << " t "
            << r.time(0, k);
      }
    }
  }
}

// Past the accumulation time T* the bounces have piled up: the run ends with zeno_events near T*, not
// tunnelling through the floor, and not running to t_end. Its 40 recorded bounces are the series'.
TEST(EventActions, AccumulatingBouncesEndTheRunAsZeno) {
  const double e = 0.8;
  const double t_star = bounce_time(e, 100000);
  const SolveResult<double> r = solve_ivp(BouncingBall{}, std::vector<double>{h0, 0.0},
                                          std::vector<double>{e}, ball_options(Method::dopri5, 20.0));
  EXPECT_EQ(r.status(0), Status::zeno_events) << to_string(r.status(0));
  EXPECT_NEAR(r.stop_time(0), t_star, 1e-6);
  EXPECT_GT(r.event_count(0, 0), 40u);
  EXPECT_NEAR(r.final_state(0, 0), 0.0, 1e-6);  // on the floor
  for (int k = 0; k < 40; ++k) EXPECT_NEAR(r.event_time(0, 0, k), bounce_time(e, k), 1e-7) << "bounce " << k;
  EXPECT_EQ(to_string(Status::zeno_events), "zeno_events");
}

// 1000 neurons with inputs I in [1.1, 3]: every run's first 10 spikes at k times its own period.
TEST(EventActions, IntegrateAndFireSpikesAtItsPeriod) {
  const std::size_t runs = 1000;
  std::vector<double> y0(runs, 0.0), current(runs);
  for (std::size_t i = 0; i < runs; ++i) current[i] = 1.1 + 1.9 * double(i) / double(runs - 1);
  for (Method m : {Method::dopri5, Method::rodas5p}) {
    SolveOptions o = batchode::testing::quiet_cpu_options(m, 150.0);
    o.rtol = o.atol = 1e-10;
    o.events = {{"spike", EventDirection::rising, EventAction::record, 10}};
    const SolveResult<double> r = solve_ivp(LeakyIntegrateAndFire{}, y0, current, o);
    for (std::size_t i = 0; i < runs; ++i) {
      ASSERT_EQ(r.status(i), Status::success) << to_string(m) << " run " << i;
      const double period = lif_period(current[i]);
      EXPECT_EQ(r.event_count(i, 0), static_cast<std::uint32_t>(std::floor(150.0 / period)))
          << to_string(m) << " run " << i;
      for (std::size_t k = 0; k < 10 && (k + 1) * period < 150.0; ++k) {
        EXPECT_NEAR(r.event_time(i, 0, k), double(k + 1) * period, 1e-7) << to_string(m) << " run " << i;
        EXPECT_NEAR(r.event_state(i, 0, k, 0), 1.0, 1e-7) << "recorded before the reset";
      }
      const double since = 150.0 - std::floor(150.0 / period) * period;  // v from 0 since the last spike
      EXPECT_NEAR(r.final_state(i, 0), current[i] * (1 - std::exp(-since / 10.0)), 1e-7) << to_string(m);
    }
  }
}

// A save at a spike's exact time keeps the value before the reset (1); the next save sees the reset.
// A terminal event with assignments applies them, then ends the run: its final state is the reset's.
TEST(EventActions, SavesAtTheEventKeepTheValueBeforeAndTerminalOnesApplyThenEnd) {
  const double current = 2.0, period = lif_period(current);
  SolveOptions o = batchode::testing::quiet_cpu_options(Method::dopri5, 2.5 * period);
  o.rtol = o.atol = 1e-12;
  o.events = {{"spike", EventDirection::rising, EventAction::record, 4}};
  o.save_at = {0.5 * period, period, 1.5 * period};
  const SolveResult<double> saved =
      solve_ivp(LeakyIntegrateAndFire{}, std::vector<double>{0.0}, std::vector<double>{current}, o);
  ASSERT_EQ(saved.status(0), Status::success);
  EXPECT_NEAR(saved.state_at(0, 1, 0), 1.0, 1e-9) << "the save at the spike: before the reset";
  EXPECT_NEAR(saved.state_at(0, 2, 0), saved.state_at(0, 0, 0), 1e-9) << "half a period after the reset";

  o.save_at.clear();
  o.events = {{"spike", EventDirection::rising, EventAction::terminal, 1}};
  const SolveResult<double> stopped =
      solve_ivp(LeakyIntegrateAndFire{}, std::vector<double>{0.0}, std::vector<double>{current}, o);
  EXPECT_EQ(stopped.status(0), Status::stopped_by_event);
  EXPECT_NEAR(stopped.stop_time(0), period, 1e-9);
  EXPECT_EQ(stopped.final_state(0, 0), 0.0) << "the terminal event's assignment applied";
  EXPECT_NEAR(stopped.event_state(0, 0, 0, 0), 1.0, 1e-9);
}

}  // namespace
