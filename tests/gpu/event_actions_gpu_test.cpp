// Events that change the state (issue 49) on the device: the GPU's runs against the CPU's, run by run,
// float and double, and against the closed forms: 10^5 integrate-and-fire neurons (every spike time,
// each run its own period; warps whose runs spike at different times) and a sweep of bouncing balls
// whose restitutions end some runs as Zeno within t_end and not others (statuses and stop times agree);
// events at given times: a one-compartment model dosed at each run's own times (every dose recorded at
// its time, the state before it, the final state, against the CPU and the closed form); assignments to a
// run's parameters (a rate switched at a given time and at a crossing: each run its own copy).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "event_action_systems.hpp"
#include "gpu_compare.hpp"
#include "require_gpu.hpp"

namespace {

using namespace batchode;
using batchode::testing::BouncingBall;
using batchode::testing::Dosing;
using batchode::testing::LeakyIntegrateAndFire;
using batchode::testing::SwitchedDecay;

template <class T>
class EventActionsGpuVsCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(EventActionsGpuVsCpu, Precisions);

TYPED_TEST(EventActionsGpuVsCpu, IntegrateAndFireSpikesOfEveryRun) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  constexpr bool single = std::is_same_v<T, float>;
  // Inputs whose spikes all lie at least 1e-3 from t_end = 100: one within rounding of the end is
  // fired by one arithmetic and not the other (a different count and final state, both right).
  std::vector<T> current;
  for (std::size_t i = 0; current.size() < 100000; ++i) {
    const T input = T(1.1 + 1.9 * double(i) / 100500.0);
    const double period = batchode::testing::lif_period(double(input));
    if (std::fabs(100.0 - period * std::round(100.0 / period)) > 1e-3) current.push_back(input);
  }
  const std::size_t runs = current.size();
  std::vector<T> y0(runs, T(0));
  for (Method m : {Method::dopri5, Method::rodas5p}) {
    SolveOptions o;
    o.method = m;
    o.t_end = 100;
    o.rtol = o.atol = single ? 1e-5 : 1e-9;
    o.verbosity = Verbosity::none;
    o.events = {{"spike", EventDirection::rising, EventAction::record, 8}};
    // Float's default event tolerance at t = 100 is 1.2e-3 (100 ulps): each reset would move the later
    // spikes by up to that, and the GPU's and the CPU's by different amounts. 2e-5 is near float's
    // resolution of t there (1.2e-5).
    if (single) o.event_tolerance = 2e-5;
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(LeakyIntegrateAndFire{}, y0, current, o);
    o.backend = Backend::gpu;
    const SolveResult<T> gpu = solve_ivp(LeakyIntegrateAndFire{}, y0, current, o);
    ASSERT_EQ(gpu.execution().at(0).backend, BackendId::gpu(0));
    batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 100),
                                         to_string(m));
    std::size_t off = 0;
    for (std::size_t i = 0; i < runs; ++i) {
      const double period = batchode::testing::lif_period(double(current[i]));
      ASSERT_EQ(gpu.status(i), Status::success);
      if (gpu.event_count(i, 0) != cpu.event_count(i, 0)) ++off;
      for (std::size_t k = 0; k < 8 && double(k + 1) * period < 100.0; ++k) {
        if (std::fabs(double(gpu.event_time(i, 0, k)) - double(k + 1) * period) > (single ? 2e-3 : 1e-6))
          ++off;
      }
    }
    EXPECT_EQ(off, 0u) << to_string(m)
                       << ": runs whose spikes are not at their period or not the CPU's count";
  }
}

TYPED_TEST(EventActionsGpuVsCpu, BouncingBallsSomeEndingAsZeno) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  const std::size_t runs = 4096;
  std::vector<T> y0, e;
  for (std::size_t i = 0; i < runs; ++i) {
    y0.insert(y0.end(), {T(batchode::testing::h0), T(0)});
    e.push_back(T(0.3 + 0.6 * double(i) / double(runs - 1)));  // T* from 2.6 to 27: t_end 10 splits them
  }
  for (Method m : {Method::dopri5, Method::rk4}) {
    SolveOptions o;
    o.method = m;
    o.t_end = 10;
    if (m == Method::rk4) o.dt = 1e-3;
    o.rtol = o.atol = std::is_same_v<T, float> ? 1e-5 : 1e-10;
    o.verbosity = Verbosity::none;
    o.save_every = 0.5;
    o.events = {{"bounce", EventDirection::falling, EventAction::record, 16}};
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(BouncingBall{}, y0, e, o);
    o.backend = Backend::gpu;
    const SolveResult<T> gpu = solve_ivp(BouncingBall{}, y0, e, o);
    std::size_t zeno = 0, status_off = 0, first_off = 0;
    for (std::size_t i = 0; i < runs; ++i) {
      if (cpu.status(i) == Status::zeno_events) ++zeno;
      if (gpu.status(i) != cpu.status(i)) ++status_off;
      if (std::fabs(double(gpu.event_time(i, 0, 0)) - batchode::testing::bounce_time(double(e[i]), 0)) >
          1e-4) {
        ++first_off;
      }
    }
    if (m == Method::dopri5) EXPECT_GT(zeno, runs / 4) << "T* < 10 for e below about 0.63";
    // The accumulation point is where rounding decides: a run or two may end otherwise on one side.
    EXPECT_LE(status_off, runs / 100) << to_string(m);
    EXPECT_EQ(first_off, 0u) << to_string(m);
    std::size_t both_success = 0;
    for (std::size_t i = 0; i < runs; ++i)
      both_success += cpu.status(i) == Status::success && gpu.status(i) == Status::success;
    EXPECT_GT(both_success, runs / 4) << to_string(m);
  }
}

// 32768 runs, each dosed every tau from t_first (tau from 20 to 28, t_first from 0, a dose at t0, to 12)
// and eliminating at its own k: warps whose runs land on different times. Times within rounding of the
// CPU's (the device fuses t_first + i tau into one multiply-add), states within the methods' agreement.
// t_end = 199.99 is 0.01 or more from every run's doses (t_first + k tau with tau = 20 + m / 12): a dose
// within rounding of t_end is put at t_end, where it acts, by one arithmetic and just past it by the
// other (both right, but not the same run).
TYPED_TEST(EventActionsGpuVsCpu, DosesAtEveryRunsOwnTimes) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  constexpr bool single = std::is_same_v<T, float>;
  const std::size_t runs = 32768;
  std::vector<T> y0(runs, T(0)), p;
  for (std::size_t i = 0; i < runs; ++i) {
    const double u = double(i) / double(runs - 1);
    p.insert(p.end(),
             {T(0.03 + 0.05 * u), T(1), T(20.0 + 8.0 * double((i * 7) % 97) / 96.0), T(double(i % 13))});
  }
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    SolveOptions o;
    o.method = m;
    o.t_end = 199.99;
    if (m == Method::rk4) o.dt = 0.01;
    o.rtol = o.atol = single ? 1e-5 : 1e-9;
    o.verbosity = Verbosity::none;
    o.outputs.counters = true;  // (fixed steps: the same count, expect_runs_agree)
    o.events = {{"low", EventDirection::falling, EventAction::record, 10},
                {"dose", EventDirection::both, EventAction::record, 12},
                {"sample", EventDirection::both, EventAction::record, 40}};
    if (single) o.event_tolerance = 2e-5;
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(Dosing{}, y0, p, o);
    o.backend = Backend::gpu;
    const SolveResult<T> gpu = solve_ivp(Dosing{}, y0, p, o);
    ASSERT_EQ(gpu.execution().at(0).backend, BackendId::gpu(0));
    batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 20000),
                                         to_string(m));
    std::size_t count_off = 0, time_off = 0, state_off = 0, near_the_end = 0;
    const double eps = double(std::numeric_limits<T>::epsilon());
    for (std::size_t i = 0; i < runs; ++i) {
      ASSERT_EQ(gpu.status(i), Status::success) << to_string(m) << " run " << i;
      const double params[4] = {double(p[4 * i]), double(p[4 * i + 1]), double(p[4 * i + 2]),
                                double(p[4 * i + 3])};
      std::uint32_t doses = 0;
      while (params[3] + double(doses) * params[2] <= o.t_end) ++doses;
      for (std::uint32_t k : {doses - 1, doses})
        near_the_end += std::fabs(params[3] + k * params[2] - o.t_end) < 1e-3;
      if (gpu.event_count(i, 1) != doses || cpu.event_count(i, 1) != doses) {
        ++count_off;
        continue;
      }
      for (std::uint32_t k = 0; k < doses && k < 12; ++k) {
        const double t_dose = params[3] + double(k) * params[2];
        if (std::fabs(double(gpu.event_time(i, 1, k)) - double(cpu.event_time(i, 1, k))) > 4 * eps * 200 ||
            std::fabs(double(gpu.event_time(i, 1, k)) - t_dose) > 4 * eps * 200) {
          ++time_off;
        }
        const double before = batchode::testing::dosed_amount(0.0, params, t_dose, false);
        if (std::fabs(double(gpu.event_state(i, 1, k, 0)) - before) > (single ? 1e-3 : 1e-6)) ++state_off;
      }
      const double end = batchode::testing::dosed_amount(0.0, params, o.t_end, true);
      if (std::fabs(double(gpu.final_state(i, 0)) - end) > (single ? 1e-3 : 1e-6)) ++state_off;
    }
    ASSERT_EQ(near_the_end, 0u) << "the test's t_end within rounding of a dose";
    EXPECT_EQ(count_off, 0u) << to_string(m) << ": runs without every dose up to t_end";
    EXPECT_EQ(time_off, 0u) << to_string(m) << ": doses not at their times";
    EXPECT_EQ(state_off, 0u) << to_string(m) << ": states off the closed form";
  }
}

// 65536 runs whose rate k (0.1 to 1) triples at t = 5 and halves where x falls through 0.1, before or
// after the switch: GPU = CPU run by run and the closed form.
TYPED_TEST(EventActionsGpuVsCpu, ParameterAssignmentsSwitchEachRunsRate) {
  BATCHODE_REQUIRE_GPU();
  using T = TypeParam;
  constexpr bool single = std::is_same_v<T, float>;
  const std::size_t runs = 65536;
  std::vector<T> y0(runs, T(1)), k(runs);
  for (std::size_t i = 0; i < runs; ++i) k[i] = T(0.1 + 0.9 * double(i) / double(runs - 1));
  // (rk4 in double only: in float the crossing's time, where fixed steps start again, may round to either
  // side of a step count's boundary, and the GPU's run take one step more than the CPU's: both right.)
  std::vector<Method> methods{Method::dopri5, Method::rodas4};
  if (!single) methods.push_back(Method::rk4);
  for (Method m : methods) {
    SolveOptions o;
    o.method = m;
    o.t_end = 12;
    if (m == Method::rk4) o.dt = 1e-3;
    o.rtol = o.atol = single ? 1e-6 : 1e-10;
    o.verbosity = Verbosity::none;
    o.outputs.counters = true;
    o.events = {{"switch", EventDirection::both, EventAction::record, 1},
                {"low", EventDirection::falling, EventAction::record, 1}};
    if (single) o.event_tolerance = 1e-5;
    o.backend = Backend::cpu;
    const SolveResult<T> cpu = solve_ivp(SwitchedDecay{}, y0, k, o);
    o.backend = Backend::gpu;
    const SolveResult<T> gpu = solve_ivp(SwitchedDecay{}, y0, k, o);
    ASSERT_EQ(gpu.execution().at(0).backend, BackendId::gpu(0));
    batchode::testing::expect_runs_agree(gpu, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 12000),
                                         to_string(m));
    std::size_t off = 0;
    for (std::size_t i = 0; i < runs; ++i) {
      const double exact = batchode::testing::switched_decay(double(k[i]), 12.0);
      if (!(std::fabs(double(gpu.final_state(i, 0)) - exact) <= (single ? 1e-5 : 1e-8))) ++off;
    }
    EXPECT_EQ(off, 0u) << to_string(m) << ": runs off the closed form";
  }
}

}  // namespace
