// Events at given times (a system's time_events and event_time: issue 49), on the CPU path and the kernel
// body the GPU runs, against the closed form of a one-compartment model dosed every tau: the steps land on
// every dose (its time exact), the state before each dose, the samples recorded every 5 (one meeting a
// dose records the state before it), crossings located between doses, the final state after them; in
// every loop (adaptive, fixed by segments, fixed with interpolated saves); a dose at t0, after the save
// there; a terminal event at a given time, there or at t0; assignments to a run's parameters (a rate
// switched at a given time and at a crossing).
#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "event_action_systems.hpp"
#include "kernel_body_on_host.hpp"
#include "oscillator_batch.hpp"  // quiet_cpu_options

namespace {

using namespace batchode;
using batchode::testing::dosed_amount;
using batchode::testing::Dosing;
using batchode::testing::run_kernel_body_on_host;
using batchode::testing::switched_decay;
using batchode::testing::SwitchedDecay;

constexpr double t_end = 200.0;

/// `runs` runs of Dosing from A = 0: k from 0.03 to 0.08 (the slower ones cross `low` after their first
/// dose only), D = 1, tau = 24, the first dose at t_first; with `odd_times`, every other run doses every
/// 24.3 from t_first + 0.1 instead (each run its own times; times whose distance from a step's start is
/// not a round multiple of the step: t + ((t_dose - t) / h) h need not be t_dose, so only a step that
/// lands on the dose records it at its exact time).
Batch<double> dosing_batch(std::size_t runs, double t_first, bool odd_times = false) {
  std::vector<double> params;
  for (std::size_t r = 0; r < runs; ++r) {
    const double k = 0.03 + 0.05 * double(r) / double(runs - 1);
    const bool odd = odd_times && r % 2 == 1;
    params.insert(params.end(), {k, 1.0, odd ? 24.3 : 24.0, odd ? t_first + 0.1 : t_first});
  }
  return Batch<double>{std::vector<double>(runs, 0.0), params, runs};
}

SolveOptions dosing_options(Method m) {
  SolveOptions o = batchode::testing::quiet_cpu_options(m, t_end);
  o.rtol = o.atol = 1e-11;
  if (m == Method::rk4) o.dt = 0.01;
  o.events = {{"low", EventDirection::falling, EventAction::record, 10},
              {"dose", EventDirection::both, EventAction::record, 10},
              {"sample", EventDirection::both, EventAction::record, 40}};
  return o;
}

/// The times A falls through Dosing::low before t_end: in each span between doses, if it starts above.
std::vector<double> low_crossings(const double* p) {
  std::vector<double> times;
  for (int i = 0;; ++i) {
    const double ti = p[3] + i * p[2];
    if (ti > t_end) break;
    const double crossing = ti + std::log(dosed_amount(0.0, p, ti, true) / Dosing::low) / p[0];
    if (crossing < std::min(ti + p[2], t_end)) times.push_back(crossing);
  }
  return times;
}

/// Every record of run r against the closed form: the doses at t_first + i tau exactly (the state before
/// each; 9 of 8 + 24 i, the last at t_end), 40 samples at 5 (i + 1) exactly (at 80 and 200 the state
/// before the dose there), the crossings of `low`, and the final state after every dose up to t_end.
void expect_dosing_run(const SolveResult<double>& r, std::size_t run, const double* p,
                       const std::string& what) {
  ASSERT_EQ(r.status(run), Status::success) << what;
  EXPECT_EQ(r.stop_time(run), t_end) << what;
  std::uint32_t doses = 0;
  while (p[3] + double(doses) * p[2] <= t_end) ++doses;
  ASSERT_EQ(r.event_count(run, 1), doses) << what;
  for (std::size_t i = 0; i < doses; ++i) {
    const double ti = p[3] + double(i) * p[2];
    EXPECT_EQ(r.event_time(run, 1, i), ti) << what << " dose " << i;
    EXPECT_NEAR(r.event_state(run, 1, i, 0), dosed_amount(0.0, p, ti, false), 1e-8) << what << " dose " << i;
  }
  ASSERT_EQ(r.event_count(run, 2), 40u) << what;
  for (std::size_t i = 0; i < 40; ++i) {
    const double ts = 5.0 * double(i + 1);
    EXPECT_EQ(r.event_time(run, 2, i), ts) << what << " sample " << i;
    EXPECT_NEAR(r.event_state(run, 2, i, 0), dosed_amount(0.0, p, ts, false), 1e-8)
        << what << " sample " << i;
  }
  const std::vector<double> low = low_crossings(p);
  ASSERT_EQ(r.event_count(run, 0), low.size()) << what;
  for (std::size_t i = 0; i < low.size(); ++i) {
    EXPECT_NEAR(r.event_time(run, 0, i), low[i], 1e-7) << what << " crossing " << i;
  }
  EXPECT_NEAR(r.final_state(run, 0), dosed_amount(0.0, p, t_end, true), 1e-8)
      << what << " (after the last dose)";
}

/// Fixed steps that land on every dose and sample (integrate_fixed: segments between stops, each of
/// ceil(span / dt - 0.01) steps): how many a run of Dosing takes.
std::uint32_t landed_fixed_steps(const double* p, double dt) {
  std::vector<double> stops{t_end};
  for (int i = 0; p[3] + i * p[2] <= t_end; ++i) stops.push_back(p[3] + i * p[2]);
  for (int i = 1; 5.0 * i <= t_end; ++i) stops.push_back(5.0 * i);
  std::sort(stops.begin(), stops.end());
  std::uint32_t steps = 0;
  double t = 0.0;
  for (double stop : stops) {
    if (stop <= t) continue;
    steps += stop - t <= dt ? 1u : static_cast<std::uint32_t>(std::ceil((stop - t) / dt - 0.01));
    t = stop;
  }
  return steps;
}

TEST(TimeEvents, DosesLandExactlyAndTheStateIsThePiecewiseExponential) {
  const Batch<double> batch = dosing_batch(16, 8.0, true);
  for (Method m : {Method::dopri5, Method::tsit5, Method::rodas4, Method::rk4}) {
    const SolveOptions o = dosing_options(m);
    for (int path = 0; path < 2; ++path) {
      const auto r = path == 0 ? solve_ivp(Dosing{}, batch, o) : run_kernel_body_on_host(Dosing{}, batch, o);
      for (std::size_t run = 0; run < batch.n_runs; ++run) {
        const std::string what = to_string(m) + (path ? " (kernel body)" : " (cpu)");
        expect_dosing_run(r, run, &batch.params[run * 4], what);
        if (m == Method::rk4) {  // the steps land on every time (interpolating them would not be seen above)
          EXPECT_EQ(r.counters(run).accepted_steps, landed_fixed_steps(&batch.params[run * 4], *o.dt))
              << what;
        }
      }
    }
  }
}

// Saves every 10, landed and interpolated (rk4's third loop, fixed steps with interpolated saves, goes on
// dt apart from each dose): a save at a dose's time keeps the state before it (80, 200), the others see
// the doses before them.
TEST(TimeEvents, SavesBetweenDosesFollowTheClosedForm) {
  const Batch<double> batch = dosing_batch(4, 8.0, true);
  for (Method m : {Method::dopri5, Method::rk4}) {
    for (SaveMode mode : {SaveMode::land, SaveMode::interpolate}) {
      SolveOptions o = dosing_options(m);
      o.save_every = 10.0;
      o.save_mode = mode;
      const std::string what = to_string(m) + (mode == SaveMode::land ? " landed" : " interpolated");
      const auto r = solve_ivp(Dosing{}, batch, o);
      for (std::size_t run = 0; run < batch.n_runs; ++run) {
        const double* p = &batch.params[run * 4];
        expect_dosing_run(r, run, p, what);
        for (std::size_t k = 0; k <= 20; ++k) {
          // Hermite (rk4) and dopri5's own dense output between doses: fourth order at most.
          const double tol = mode == SaveMode::land ? 1e-8 : 1e-6;
          EXPECT_NEAR(r.state_at(run, k, 0), dosed_amount(0.0, p, 10.0 * double(k), false), tol)
              << what << " save " << k;
        }
      }
    }
  }
}

// A first dose at t0: the save at t0 keeps the state before it, the dose is recorded there with it, and
// the run goes on from the dosed state.
TEST(TimeEvents, ADoseAtT0ActsAfterTheSaveThere) {
  const Batch<double> batch = dosing_batch(3, 0.0);
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    SolveOptions o = dosing_options(m);
    o.save_at = {0.0, 12.0};
    o.save_mode = SaveMode::land;
    const auto r = solve_ivp(Dosing{}, batch, o);
    for (std::size_t run = 0; run < batch.n_runs; ++run) {
      const double* p = &batch.params[run * 4];
      ASSERT_EQ(r.status(run), Status::success) << to_string(m);
      EXPECT_EQ(r.state_at(run, 0, 0), 0.0) << to_string(m) << ": the save at t0, before the dose";
      EXPECT_NEAR(r.state_at(run, 1, 0), dosed_amount(0.0, p, 12.0, false), 1e-8) << to_string(m);
      ASSERT_EQ(r.event_count(run, 1), 9u) << to_string(m);  // 0, 24, ..., 192
      EXPECT_EQ(r.event_time(run, 1, 0), 0.0);
      EXPECT_EQ(r.event_state(run, 1, 0, 0), 0.0);
      EXPECT_NEAR(r.final_state(run, 0), dosed_amount(0.0, p, t_end, true), 1e-8) << to_string(m);
    }
  }
}

// A terminal event at given times applies its assignments and ends the run at its first time: at 8, or
// at t0 before any step (the run's final state is then the dosed initial state).
TEST(TimeEvents, TerminalOnesEndTheRunAtTheirFirstTime) {
  for (double t_first : {8.0, 0.0}) {
    const Batch<double> batch = dosing_batch(2, t_first);
    for (Method m : {Method::dopri5, Method::rk4}) {
      SolveOptions o = dosing_options(m);
      o.events[1].action = EventAction::terminal;
      const auto r = solve_ivp(Dosing{}, batch, o);
      for (std::size_t run = 0; run < batch.n_runs; ++run) {
        const double* p = &batch.params[run * 4];
        const std::string what = to_string(m) + " first dose at " + std::to_string(t_first);
        ASSERT_EQ(r.status(run), Status::stopped_by_event) << what;
        EXPECT_EQ(r.stop_time(run), t_first) << what;
        EXPECT_EQ(r.event_count(run, 1), 1u) << what;
        EXPECT_NEAR(r.final_state(run, 0), dosed_amount(0.0, p, t_first, true), 1e-9) << what;
        EXPECT_EQ(r.event_count(run, 2), static_cast<std::uint32_t>(t_first / 5.0)) << what;
        if (t_first == 0.0) {
          EXPECT_EQ(r.counters(run).accepted_steps, 0u) << what;
        }
      }
    }
  }
}

// Events that assign a run's parameters: k triples at t = 5 and halves where x falls through 0.1, each
// run from its own k, before or after the switch; the batch's parameters stay as given (each run changes
// its own copy), so a second solve gives the same numbers.
TEST(TimeEvents, AssignmentsToParametersSwitchTheRunsRate) {
  const std::vector<double> k{0.2, 0.3, 0.5, 0.8};  // 0.5 and 0.8 cross 0.1 before t = 5
  const Batch<double> batch{std::vector<double>(k.size(), 1.0), k, k.size()};
  for (Method m : {Method::dopri5, Method::rodas4, Method::rk4}) {
    SolveOptions o = batchode::testing::quiet_cpu_options(m, 12.0);
    o.rtol = o.atol = 1e-11;
    if (m == Method::rk4) o.dt = 1e-3;
    o.save_at = {2.0, 4.0, 6.0, 8.0, 10.0};
    o.events = {{"switch", EventDirection::both, EventAction::record, 1},
                {"low", EventDirection::falling, EventAction::record, 1}};
    for (int path = 0; path < 3; ++path) {
      const auto r = path == 1 ? run_kernel_body_on_host(SwitchedDecay{}, batch, o)
                               : solve_ivp(SwitchedDecay{}, batch, o);
      const std::string what = to_string(m) + (path == 1   ? " (kernel body)"
                                               : path == 2 ? " (again)"
                                                           : " (cpu)");
      for (std::size_t run = 0; run < k.size(); ++run) {
        ASSERT_EQ(r.status(run), Status::success) << what;
        EXPECT_EQ(r.event_time(run, 0, 0), 5.0) << what;
        EXPECT_NEAR(r.final_state(run, 0), switched_decay(k[run], 12.0), 1e-9) << what << " k " << k[run];
        for (std::size_t s = 0; s < 5; ++s) {
          const double t = 2.0 * double(s + 1);
          EXPECT_NEAR(r.state_at(run, s, 0), switched_decay(k[run], t), 1e-8)
              << what << " k " << k[run] << " t " << t;
        }
      }
    }
    EXPECT_EQ(batch.params, k) << "the batch's parameters as given";
  }
}

}  // namespace
