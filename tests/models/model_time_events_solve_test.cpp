// tests/models: the example dosing.toml (events at given times: a dose every tau from t = 8) solved as a
// runtime model on the CPU, against its closed form A(t) = sum over the doses t_i <= t of D exp(-k (t -
// t_i)): each run with its own k, D and tau (so its own dose times), every dose recorded at its exact
// time (the model's start + i * tau, as the interpreter computes it) with the state before it, and the
// final state after the last. One model compiled once (no cache: nothing shared with other tests).
// Events that assign parameters: an infusion switched on and off, its closed form. And a
// solve whose span no constant time can act in is refused by name before any compile.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "batchode/batchode.hpp"
#include "batchode/models/evaluate.hpp"
#include "batchode/models/model.hpp"

namespace {

/// A(t) from A(0) = 0 for p = {k, D, tau}: the doses at 8 + i tau before t (through: and at t).
double dosed_amount(const double* p, double t, bool through) {
  double a = 0.0;
  for (int i = 0;; ++i) {
    const double ti = 8.0 + i * p[2];
    if (ti > t || (ti == t && !through)) break;
    a += p[1] * std::exp(-p[0] * (t - ti));
  }
  return a;
}

TEST(ModelTimeEventsSolve, DosingExampleMatchesItsClosedFormRunByRun) {
  const batchode::models::Model model =
      batchode::models::load_model(std::string(BATCHODE_EXAMPLE_MODELS_DIR) + "/dosing.toml");
  ASSERT_EQ(model.n_params(), 3u);  // k, D, tau
  batchode::RuntimeModelOptions compile;
  compile.use_cache = false;
  batchode::TimeLogger quiet(nullptr, batchode::Verbosity::none);
  const batchode::RuntimeModel<double> runtime(model, compile, quiet);

  // Per run: k, D, tau. tau = 7.3 puts doses off any round multiple of a step.
  const std::vector<double> params = {0.1, 100.0, 24.0, 0.3, 100.0, 24.0, 0.05, 50.0, 10.0, 0.2, 2.0, 7.3};
  const std::size_t runs = params.size() / 3;
  const std::vector<double> y0(runs, 0.0);
  batchode::SolveOptions o;
  o.method = batchode::Method::dopri5;
  o.backend = batchode::Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  o.t_end = 100.0;
  o.rtol = o.atol = 1e-11;
  const batchode::SolveResult<double> r = batchode::solve_ivp(runtime, y0, params, o);

  for (std::size_t run = 0; run < runs; ++run) {
    const double* p = &params[3 * run];
    EXPECT_EQ(r.status(run), batchode::Status::success) << "run " << run;
    std::uint32_t doses = 0;
    while (8.0 + doses * p[2] <= o.t_end) ++doses;
    ASSERT_EQ(r.event_count(run, 0), doses) << "run " << run;
    for (std::uint32_t j = 0; j < doses && j < 20; ++j) {  // max = 20 recorded
      // The step lands on the dose: its time exactly the model's.
      EXPECT_EQ(r.event_time(run, 0, j), batchode::models::evaluate_event_time(model, 0, j, p))
          << "run " << run << " dose " << j;
      EXPECT_EQ(r.event_time(run, 0, j), 8.0 + j * p[2]);
      const double before = dosed_amount(p, 8.0 + j * p[2], false);
      EXPECT_NEAR(r.event_state(run, 0, j, 0), before, 1e-9 * p[1]) << "run " << run << " dose " << j;
    }
    EXPECT_NEAR(r.final_state(run, 0), dosed_amount(p, o.t_end, true), 1e-9 * p[1]) << "run " << run;
  }
}

// An infusion switched on at t = 10 and off at 20 by events that assign the run's parameters (rate, and
// tau, the period of a record-only tick: its next times follow the new value, from the first after 10):
// A(t) = 0 before 10, (rate / ke)(1 - e^(-ke (t - 10))) to 20, then decaying; per-run ke.
TEST(ModelTimeEventsSolve, AssignmentsToParametersSwitchAnInfusion) {
  batchode::models::ModelDescription d;
  d.name = "infusion";
  d.equations = "dA = rate - ke * A";
  d.states = {{"A", 0.0}};
  d.parameters = {{"rate", 0.0}, {"ke", 0.5}, {"tau", 4.0}};
  d.events.resize(3);
  d.events[0].name = "on";
  d.events[0].at = {"10"};
  d.events[0].assign = "rate = 5; tau = 2";
  d.events[1].name = "off";
  d.events[1].at = {"20"};
  d.events[1].assign = "rate = 0";
  d.events[2].name = "tick";
  d.events[2].every = "tau";
  d.events[2].start = "0";
  d.events[2].max = 20;
  batchode::RuntimeModelOptions compile;
  compile.use_cache = false;
  batchode::TimeLogger quiet(nullptr, batchode::Verbosity::none);
  const batchode::RuntimeModel<double> runtime(batchode::models::parse_model(d), compile, quiet);
  const std::vector<double> ke{0.2, 0.5, 1.0};
  std::vector<double> params;
  for (double k : ke) params.insert(params.end(), {0.0, k, 4.0});
  batchode::SolveOptions o;
  o.method = batchode::Method::rodas4;
  o.backend = batchode::Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  o.t_end = 30.0;
  o.rtol = o.atol = 1e-10;
  o.save_at = {5.0, 15.0, 25.0};
  const batchode::SolveResult<double> r =
      batchode::solve_ivp(runtime, std::vector<double>(ke.size(), 0.0), params, o);
  const std::vector<double> ticks{0, 4, 8, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
  for (std::size_t run = 0; run < ke.size(); ++run) {
    const double k = ke[run], plateau = 5.0 / k;
    const auto exact = [&](double t) {
      if (t <= 10) return 0.0;
      if (t <= 20) return plateau * (1 - std::exp(-k * (t - 10)));
      return plateau * (1 - std::exp(-k * 10)) * std::exp(-k * (t - 20));
    };
    ASSERT_EQ(r.status(run), batchode::Status::success);
    for (std::size_t s = 0; s < 3; ++s) {
      EXPECT_NEAR(r.state_at(run, s, 0), exact(o.save_at[s]), 1e-7 * plateau)
          << "run " << run << " save " << s;
    }
    EXPECT_NEAR(r.final_state(run, 0), exact(30.0), 1e-7 * plateau) << "run " << run;
    ASSERT_EQ(r.event_count(run, 2), ticks.size()) << "run " << run;
    for (std::size_t j = 0; j < ticks.size(); ++j)
      EXPECT_EQ(r.event_time(run, 2, j), ticks[j]) << "tick " << j;
    EXPECT_EQ(params[3 * run], 0.0) << "the batch's parameters as given";
  }
}

// Constant times a solve over [t0, t_end] cannot act on are refused when the Solver is made (no
// compile): one before t0 (it would be passed over: a dose silently not given), or all after t_end. A
// schedule running on past t_end, or times read from parameters, are not.
TEST(ModelTimeEventsSolve, ConstantTimesOutsideTheSpanAreRefusedByName) {
  batchode::models::ModelDescription d;
  d.name = "scheduled";
  d.equations = "dx = -x";
  d.states = {{"x", 1.0}};
  d.parameters = {{"t1", 3.0}};
  d.events.push_back({});
  d.events.back().name = "dose";
  d.events.back().at = {"2", "5", "9"};
  d.events.back().assign = "x = x + 1";
  d.events.push_back({});
  d.events.back().name = "per_run";
  d.events.back().at = {"t1"};
  batchode::RuntimeModelOptions compile;
  compile.use_cache = false;
  batchode::TimeLogger quiet(nullptr, batchode::Verbosity::none);
  const batchode::RuntimeModel<double> runtime(batchode::models::parse_model(d), compile, quiet);
  batchode::SolveOptions o;
  o.method = batchode::Method::dopri5;
  o.backend = batchode::Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  const auto refused = [&](double t0, double t_end) -> std::string {
    o.t0 = t0;
    o.t_end = t_end;
    try {
      batchode::Solver<batchode::RuntimeModel<double>, double> solver(runtime, o, quiet);
    } catch (const batchode::InvalidInput& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refused(0.0, 4.0), "") << "a schedule past t_end";
  EXPECT_EQ(refused(2.0, 20.0), "") << "the first time at t0 acts there";
  const std::string before = refused(3.0, 20.0);
  EXPECT_NE(before.find("event 'dose' has a time 2 before the solve's t0 = 3"), std::string::npos) << before;
  const std::string after = refused(-10.0, 1.0);
  EXPECT_NE(after.find("every time of event 'dose' lies after the solve's t_end = 1 (the first is 2)"),
            std::string::npos)
      << after;
}

}  // namespace
