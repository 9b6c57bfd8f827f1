// Events (issue 12): zero crossings of a system's event functions, located on the step's dense output
// and recorded (first K per run) or ending the run. Checked against closed forms: the oscillator's
// zeros at known times, in each direction; a decay crossing 1/2 at ln 2 / k, terminal, at a different
// time in every run of one batch; against the kernel body the GPU runs; and bad specs.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "kernel_body_on_host.hpp"
#include "oscillator_batch.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::DecayHalf;
using batchode::testing::OscillatorEvents;
using batchode::testing::run_kernel_body_on_host;

constexpr double pi = 3.14159265358979323846;

constexpr auto oscillators = batchode::testing::oscillator_batch;

/// Tight tolerances: the crossings are checked to 1e-7.
SolveOptions options(Method m, double t_end) {
  SolveOptions o = batchode::testing::quiet_cpu_options(m, t_end);
  o.rtol = o.atol = 1e-10;
  return o;
}

// Zeros of x = cos(w t) at (k + 1/2) pi / w: the first 5 of each run stored, all counted; the
// state there has x = 0 and v = -+w. Also on the kernel body (the GPU's stepper), and with rk4's
// fixed steps (Hermite interpolant) and rodas4's.
TEST(Events, RecordedCrossingsAreTheOscillatorsZeros) {
  const Batch<double> batch = oscillators(12, 0.7, 3.0);
  for (Method m : {Method::dopri5, Method::tsit5, Method::rk4, Method::rodas4}) {
    SolveOptions o = options(m, 10.0);
    if (m == Method::rk4) o.dt = 1e-3;
    o.events = {{"x_zero", EventDirection::both, EventAction::record, 5}, {"v_zero", EventDirection::both,
                                                                           EventAction::record, 3}};
    o.event_tolerance = 1e-12;
    for (int path = 0; path < 2; ++path) {
      const auto r = path == 0 ? solve_ivp(OscillatorEvents{}, batch, o) : run_kernel_body_on_host(OscillatorEvents{}, batch, o);
      const std::string what = to_string(m) + (path ? " (kernel body)" : " (cpu)");
      ASSERT_EQ(r.n_events(), 2u);
      EXPECT_EQ(r.event_names()[1], "v_zero");
      EXPECT_EQ(r.event_index("x_zero"), 0u);
      for (std::size_t i = 0; i < batch.n_runs; ++i) {
        const double w = batch.params[i];
        ASSERT_EQ(r.status(i), Status::success) << what;
        const std::uint32_t zeros = static_cast<std::uint32_t>(std::floor(10.0 * w / pi - 0.5)) + 1;
        EXPECT_EQ(r.event_count(i, 0), zeros) << what << " run " << i;
        for (std::size_t j = 0; j < 5; ++j) {
          if (j >= zeros) {
            EXPECT_TRUE(std::isnan(r.event_time(i, 0, j))) << what;
            continue;
          }
          const double exact = (j + 0.5) * pi / w;
          EXPECT_NEAR(r.event_time(i, 0, j), exact, 1e-7) << what << " run " << i << " zero " << j;
          EXPECT_NEAR(r.event_state(i, 0, j, 0), 0.0, 1e-7) << what;
          EXPECT_NEAR(r.event_state(i, 0, j, 1), (j % 2 == 0 ? -w : w), 1e-6) << what;
        }
        // v = 0 at k pi / w, k >= 1 (v starts at 0: no crossing at t0).
        for (std::size_t j = 0; j < 3 && double(j + 1) * pi / w < 10.0; ++j) {
          EXPECT_NEAR(r.event_time(i, 1, j), (j + 1) * pi / w, 1e-7) << what << " run " << i;
        }
      }
    }
  }
}

// Directions: x falls through 0 at even k, rises at odd k.
TEST(Events, DirectionsAreRespected) {
  const Batch<double> batch = oscillators(4, 1.0, 2.0);
  SolveOptions o = options(Method::dopri5, 10.0);
  o.events = {{"x_falls", EventDirection::falling, EventAction::record, 4},
              {"v", EventDirection::rising, EventAction::record, 4}};
  const auto r = solve_ivp(OscillatorEvents{}, batch, o);
  for (std::size_t i = 0; i < batch.n_runs; ++i) {
    const double w = batch.params[i];
    for (std::size_t j = 0; j < 2; ++j) {
      EXPECT_NEAR(r.event_time(i, 0, j), (2 * j + 0.5) * pi / w, 1e-6) << "run " << i;  // k = 0, 2
      EXPECT_LT(r.event_state(i, 0, j, 1), 0.0);                                        // falling
      EXPECT_NEAR(r.event_time(i, 1, j), (2 * j + 1) * pi / w, 1e-6) << "run " << i;    // v rises at odd k
    }
  }
}

// A terminal event ends every run at its own time ln 2 / k: status stopped_by_event, the final state
// the state there (1/2 to the tolerance, on the crossed side), later saves NaN, all_succeeded() true.
TEST(Events, TerminalEventsStopEachRunAtItsOwnTime) {
  Batch<double> batch;
  batch.n_runs = 16;
  for (double k : linspace<double>(0.5, 4.0, batch.n_runs)) {
    batch.y0.push_back(1.0);
    batch.params.push_back(k);
  }
  for (Method m : {Method::dopri5, Method::bogacki_shampine32, Method::rk4, Method::rodas4}) {
    SolveOptions o = options(m, 5.0);
    if (m == Method::rk4) o.dt = 1e-3;
    o.save_every = 0.5;
    o.events = {{"half", EventDirection::falling, EventAction::terminal, 1}};
    for (int path = 0; path < 2; ++path) {
      const auto r = path == 0 ? solve_ivp(DecayHalf{}, batch, o) : run_kernel_body_on_host(DecayHalf{}, batch, o);
      const std::string what = to_string(m) + (path ? " (kernel body)" : " (cpu)");
      EXPECT_TRUE(r.all_succeeded()) << what;
      for (std::size_t i = 0; i < batch.n_runs; ++i) {
        const double t_half = std::log(2.0) / batch.params[i];
        ASSERT_EQ(r.status(i), Status::stopped_by_event) << what << " run " << i;
        EXPECT_EQ(r.event_count(i, 0), 1u);
        EXPECT_NEAR(r.event_time(i, 0, 0), t_half, 1e-8) << what << " run " << i;
        EXPECT_EQ(r.stop_time(i), r.event_time(i, 0, 0)) << what << ": the run stopped at its event";
        EXPECT_NEAR(r.final_state(i, 0), 0.5, 1e-8) << what;
        EXPECT_LE(r.final_state(i, 0), 0.5 + 1e-12) << what;
        EXPECT_EQ(r.final_state(i, 0), r.event_state(i, 0, 0, 0)) << what;
        for (std::size_t k = 0; k < r.n_saves(); ++k) {
          const double t = r.times()[k];
          if (t <= t_half - 1e-9) {
            EXPECT_NEAR(r.state_at(i, k, 0), std::exp(-batch.params[i] * t), 1e-7) << what;
          } else if (t > t_half + 1e-9) {
            EXPECT_TRUE(std::isnan(r.state_at(i, k, 0))) << what << " run " << i << " save " << k;
          }
        }
      }
    }
  }
}

// With interpolated saves, the saves up to a terminal event are made, the rest are NaN.
TEST(Events, InterpolatedSavesStopAtATerminalEvent) {
  Batch<double> batch;
  batch.n_runs = 1;
  batch.y0 = {1.0};
  batch.params = {1.0};
  SolveOptions o = options(Method::dopri5, 5.0);
  o.save_at = {0.1, 0.5, 0.69, 0.7, 2.0};
  o.events = {{"half", EventDirection::both, EventAction::terminal, 1}};
  const auto r = solve_ivp(DecayHalf{}, batch, o);
  ASSERT_EQ(r.status(0), Status::stopped_by_event);
  EXPECT_NEAR(r.state_at(0, 2, 0), std::exp(-0.69), 1e-8);
  EXPECT_TRUE(std::isnan(r.state_at(0, 3, 0)));  // 0.7 > ln 2
  EXPECT_TRUE(std::isnan(r.state_at(0, 4, 0)));
}

// A system with events and no specs: each recorded once, both ways, named event<e>.
TEST(Events, DefaultSpecsRecordTheFirstCrossing) {
  const Batch<double> batch = oscillators(2, 1.0, 2.0);
  SolveOptions o = options(Method::dopri5, 3.0);
  const auto r = solve_ivp(OscillatorEvents{}, batch, o);
  ASSERT_EQ(r.n_events(), 2u);
  EXPECT_EQ(r.event_names()[0], "event0");
  EXPECT_EQ(r.event_slots(), 1u);
  EXPECT_NEAR(r.event_time(1, 0, 0), 0.5 * pi / 2.0, 1e-7);
  EXPECT_EQ(r.event_count(1, 0), 2u);  // x = cos(2t) crosses 0 twice before t = 3
  EXPECT_THROW(r.event_time(0, 2, 0), std::out_of_range);
  EXPECT_THROW(r.event_index("nope"), std::out_of_range);
}

void expect_refused(const SolveOptions& o, const std::string& words) {
  try {
    Solver<OscillatorEvents, double> solver(OscillatorEvents{}, o);
    ADD_FAILURE() << "accepted; expected an error with '" << words << "'";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

// Event records count in the result's size before anything is allocated: 10^6 runs keeping 2^20
// crossings of two functions (48 TB) are refused by name, not by the allocator.
TEST(Events, RecordsThatCannotFitAreRefusedBeforeAllocating) {
  SolveOptions o = options(Method::dopri5, 1.0);
  o.events = {{"x", EventDirection::both, EventAction::record, 1u << 20}, {}};
  Solver<OscillatorEvents, double> solver(OscillatorEvents{}, o);
  const std::size_t runs = 1'000'000;
  const std::vector<double> y0(2 * runs, 1.0), p(runs, 1.0);
  try {
    (void)solver.solve(y0, p);
    ADD_FAILURE() << "accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("outputs need"), std::string::npos) << e.what();
  }
}

TEST(Events, BadSpecsAreNamedErrors) {
  SolveOptions o = options(Method::dopri5, 1.0);
  o.events = {{"a", EventDirection::both, EventAction::record, 0}, {}};
  expect_refused(o, "SolveOptions.events[0].max must be at least 1");
  o.events = {{}};
  expect_refused(o, "SolveOptions.events has 1 entries, but the system has 2 event functions");
  o.events = {{"x"}, {"x"}};
  expect_refused(o, "events[0] and events[1] are both named 'x'");
  // Names become file names and HDF5 groups: a path or a comma is refused.
  o.events = {{"../x"}, {"y"}};
  expect_refused(o, "SolveOptions.events[0].name '../x' is not a name");
  o.events = {{"x"}, {"a,b"}};
  expect_refused(o, "SolveOptions.events[1].name 'a,b' is not a name");
  o.events = {{}, {}};
  o.event_tolerance = -1.0;
  expect_refused(o, "event_tolerance");
  SolveOptions plain = options(Method::dopri5, 1.0);
  plain.events = {{}};
  try {
    Solver<batchode::testing::Oscillator, double> solver(batchode::testing::Oscillator{}, plain);
    ADD_FAILURE() << "events for a system without event functions were accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("the system has 0 event functions"), std::string::npos) << e.what();
  }
}

}  // namespace
