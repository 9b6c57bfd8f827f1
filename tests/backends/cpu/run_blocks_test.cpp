// The CPU's blocks of runs in SIMD lanes (backends/cpu/run_blocks.hpp, issue 48): a system that takes
// packs (simd_runs) gives every run the numbers the same system gives it a run at a time, bit for bit
// (final state, status, stop time, counters, series and observables), for every explicit method and the
// Rosenbrock methods (on a sparse LU that takes packs, as a model's generated one does), both
// precisions and every instruction set this CPU has, with saves landed on, saved every m fixed steps
// and interpolated; runs that fail or end early inside a block keep their own status and unsaved
// points; a run's numbers do not depend on which runs share its block; summaries are each run's own;
// per-run save times and BATCHODE_CPU_SIMD=off run a run at a time; a bad BATCHODE_CPU_SIMD is named.
#include "batchode/backends/cpu/run_blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <batchode/batchode.hpp>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../../jit/jit_test_support.hpp"  // ScopedEnv
#include "test_systems.hpp"

namespace {

using batchode::Method;
using batchode::jit::testing::ScopedEnv;

/// Calls of a system's call operator with a pack of runs (how a test sees that blocks ran).
std::atomic<long> pack_calls{0};

/// A system of test_systems.hpp taking packs, counting the calls that do.
template <class System>
struct InLanes : System {
  static constexpr bool simd_runs = true;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    if constexpr (batchode::kernels::is_run_pack<T>::value)
      pack_calls.fetch_add(1, std::memory_order_relaxed);
    System::operator()(t, y, p, dydt);
  }
};
using LorenzInLanes = InLanes<batchode::testing::Lorenz>;
/// The damped oscillator, with its energy as an observable.
using DampedInLanes = InLanes<batchode::testing::DampedOscillator>;

/// y' = k y^2 - y sin(y) (math functions lane by lane): y0 = 1 blows up before t = 1 where k is large
/// enough, so some runs of a block fail while the others finish. p = {k}.
struct BlowUp {
  static constexpr std::size_t n_states = 1;
  static constexpr std::size_t n_params = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    using std::sin;
    dydt[0] = p[0] * y[0] * y[0] - y[0] * sin(y[0]);
  }
};
struct BlowUpInLanes : BlowUp {
  static constexpr bool simd_runs = true;
};

/// Robertson's chemistry (k3 swept) with a sparse LU of its own, written as models/'s code generator
/// writes one (kernels/linalg/sparse_lu.hpp: J's 7 nonzeros, W's 9 slots in the order y1, y2, y3, no
/// pivoting, each pivot tested by pivot_lost): what a model written as equations gives a Rosenbrock
/// method. p = {k3}.
struct SparseRobertson {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 1;
  static constexpr std::size_t jacobian_nonzeros = 7;
  static constexpr std::size_t sparse_lu_size = 9;
  // The Rosenbrock tables only: every method's code for every instruction set took this file 40 s more.
  static constexpr Method compiled_methods[] = {Method::ros3p, Method::rodas4, Method::rodas5p,
                                                Method::rodas4p2};
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = T(-0.04) * y[0] + T(1e4) * y[1] * y[2];
    dydt[1] = T(0.04) * y[0] - T(1e4) * y[1] * y[2] - p[0] * y[1] * y[1];
    dydt[2] = p[0] * y[1] * y[1];
  }
  template <class T>
  void sparse_jacobian(T, const T* y, const T* p, T* Js) const {
    Js[0] = T(-0.04), Js[1] = T(1e4) * y[2], Js[2] = T(1e4) * y[1];
    Js[3] = T(0.04), Js[4] = T(-1e4) * y[2] - T(2) * p[0] * y[1], Js[5] = T(-1e4) * y[1];
    Js[6] = T(2) * p[0] * y[1];
  }
  template <class T>
  void time_derivative(T, const T*, const T*, T* f_t) const {
    f_t[0] = f_t[1] = f_t[2] = T(0);
  }
  template <class T>
  batchode::kernels::PivotsKept<T> sparse_lu_factor(T diag, const T* Js, T* W) const {
    namespace kl = batchode::kernels;
    kl::PivotsKept<T> kept(true);
    T terms;
    W[0] = diag - Js[0], W[1] = -Js[1], W[2] = -Js[2];
    W[3] = -Js[3], W[4] = diag - Js[4], W[5] = -Js[5];
    W[6] = T(0), W[7] = -Js[6], W[8] = diag;
    terms = kl::magnitude(Js[0]);
    if (kl::pivot_lost(W[0], terms, kept)) return false;
    W[0] = T(1) / W[0];
    W[3] *= W[0];
    {
      const T x = W[3] * W[1];
      W[4] -= x;
      terms = kl::magnitude(Js[4]) + kl::magnitude(x);
    }
    W[5] -= W[3] * W[2];
    if (kl::pivot_lost(W[4], terms, kept)) return false;
    W[4] = T(1) / W[4];
    W[7] *= W[4];
    {
      const T x = W[7] * W[5];
      W[8] -= x;
      terms = kl::magnitude(x);
    }
    if (kl::pivot_lost(W[8], terms, kept)) return false;
    W[8] = T(1) / W[8];
    return kept;
  }
  template <class T>
  void sparse_lu_solve(const T* W, T* b) const {
    b[1] -= W[3] * b[0];
    b[2] -= W[7] * b[1];
    b[2] *= W[8];
    b[1] -= W[5] * b[2];
    b[1] *= W[4];
    b[0] -= W[1] * b[1];
    b[0] -= W[2] * b[2];
    b[0] *= W[0];
  }
};
/// The same taking packs, linearisation and LU included.
struct SparseRobertsonInLanes : InLanes<SparseRobertson> {
  static constexpr bool simd_linearization = true;
};

batchode::SolveOptions options(Method method) {
  batchode::SolveOptions o;
  o.method = method;
  o.backend = batchode::Backend::cpu;
  o.cpu_threads = 1;
  o.t_end = 2.0;
  o.verbosity = batchode::Verbosity::none;
  if (!batchode::method_info(method).adaptive) o.dt = 1e-3;
  o.rtol = o.atol = 1e-7;
  o.outputs.counters = true;
  return o;
}

/// A Lorenz batch whose runs take different step counts: rho from 5 to 45.
template <class T>
void lorenz_batch(std::size_t runs, std::vector<T>& y0, std::vector<T>& params) {
  y0.clear();
  params.clear();
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {T(1), T(1) + T(0.01) * T(r % 7), T(1)});
    params.insert(params.end(), {T(10), T(5) + T(40) * T(r) / T(runs), T(8.0 / 3.0)});
  }
}

/// A damped oscillator batch: frequencies 1 .. 1 + 0.1 runs, damping 0.05, v0 in 0 .. 0.4.
void damped_batch(std::size_t runs, std::vector<double>& y0, std::vector<double>& params) {
  y0.clear();
  params.clear();
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {1.0, 0.1 * double(r % 5)});
    params.insert(params.end(), {1.0 + 0.1 * double(r), 0.05});
  }
}

/// A BlowUp batch, y0 = 1: every third run (k = 3) blows up before t = 1, the others (k = 0.2) finish.
void blow_up_batch(std::size_t runs, std::vector<double>& y0, std::vector<double>& k) {
  y0.assign(runs, 1.0);
  k.resize(runs);
  for (std::size_t r = 0; r < runs; ++r) k[r] = r % 3 == 0 ? 3.0 : 0.2;
}

template <class T>
void expect_same_runs(const batchode::SolveResult<T>& a, const batchode::SolveResult<T>& b) {
  ASSERT_EQ(a.n_runs(), b.n_runs());
  for (std::size_t r = 0; r < a.n_runs(); ++r) {
    ASSERT_EQ(a.status(r), b.status(r)) << "run " << r;
    for (std::size_t s = 0; s < a.n_states(); ++s) {
      const T x = a.final_state(r, s), y = b.final_state(r, s);
      ASSERT_EQ(std::memcmp(&x, &y, sizeof(T)), 0)
          << "run " << r << " state " << s << ": " << x << " against " << y;
    }
    ASSERT_EQ(a.stop_time(r), b.stop_time(r)) << "run " << r;
    ASSERT_EQ(a.counters(r).accepted_steps, b.counters(r).accepted_steps) << "run " << r;
    ASSERT_EQ(a.counters(r).rejected_steps, b.counters(r).rejected_steps) << "run " << r;
    ASSERT_EQ(a.counters(r).rhs_evaluations, b.counters(r).rhs_evaluations) << "run " << r;
  }
  // The series and observables byte for byte: the unsaved points' NaN too.
  const auto same_bytes = [](const auto& x, const auto& y, const char* what) {
    ASSERT_EQ(x.size(), y.size()) << what;
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(std::memcmp(&x[i], &y[i], sizeof(T)), 0)
          << what << " value " << i << ": " << x[i] << " against " << y[i];
    }
  };
  same_bytes(a.series(), b.series(), "series");
  same_bytes(a.observables(), b.observables(), "observables");
  same_bytes(a.summaries(), b.summaries(), "summaries");
}

/// The instruction sets this CPU runs, narrowest first.
std::vector<std::string> simd_sets() {
  std::vector<std::string> sets;
  const batchode::cpu::SimdSet widest = batchode::cpu::simd_set();
  for (auto set :
       {batchode::cpu::SimdSet::baseline, batchode::cpu::SimdSet::avx2, batchode::cpu::SimdSet::avx512}) {
    if (set <= widest) sets.push_back(batchode::cpu::simd_set_name(set));
  }
  return sets;
}

template <class T>
void expect_every_method_in_lanes() {
  const std::size_t runs = 2 * 32 + 7;  // whole blocks and runs left over, at every width
  std::vector<T> y0, params;
  lorenz_batch(runs, y0, params);
  for (Method method :
       {Method::euler, Method::rk4, Method::bogacki_shampine32, Method::cash_karp54, Method::dopri5,
        Method::tsit5, Method::fehlberg78, Method::vern7, Method::vern9, Method::dop853}) {
    SCOPED_TRACE(std::string(batchode::to_string(method)) + (sizeof(T) == 4 ? " float" : " double"));
    batchode::SolveOptions o = options(method);
    if (sizeof(T) == 4) o.rtol = o.atol = 1e-5;
    const auto alone = batchode::solve_ivp(batchode::testing::Lorenz{}, y0, params, o);
    EXPECT_TRUE(alone.all_succeeded());
    for (const std::string& set : simd_sets()) {
      SCOPED_TRACE(set);
      ScopedEnv simd("BATCHODE_CPU_SIMD", set);
      pack_calls = 0;
      expect_same_runs(batchode::solve_ivp(LorenzInLanes{}, y0, params, o), alone);
      EXPECT_GT(pack_calls.load(), 0) << "no block ran";
    }
  }
}

TEST(RunBlocks, EveryExplicitMethodGivesEachRunItsOwnNumbersInDouble) {
  expect_every_method_in_lanes<double>();
}
TEST(RunBlocks, EveryExplicitMethodGivesEachRunItsOwnNumbersInFloat) {
  expect_every_method_in_lanes<float>();
}

// The first step's estimate (dt unset) is each run's own too; a tight tolerance rejects steps.
TEST(RunBlocks, FirstStepsAndRejectedStepsAreEachRunsOwn) {
  std::vector<double> y0, params;
  lorenz_batch(40, y0, params);
  batchode::SolveOptions o = options(Method::dopri5);
  ASSERT_FALSE(o.dt.has_value());
  o.rtol = 1e-10;
  o.atol = 1e-12;
  const auto alone = batchode::solve_ivp(batchode::testing::Lorenz{}, y0, params, o);
  std::uint32_t rejected = 0;
  for (std::size_t r = 0; r < alone.n_runs(); ++r) rejected += alone.counters(r).rejected_steps;
  EXPECT_GT(rejected, 0u) << "no run rejected a step: the test does not test rejections";
  expect_same_runs(batchode::solve_ivp(LorenzInLanes{}, y0, params, o), alone);
}

// Runs that blow up end with their own status and time while the others of their block go on; a
// method of fixed steps ends them at t_end as non-finite, the adaptive one as the controller finds.
TEST(RunBlocks, RunsThatFailInsideABlockKeepTheirOwnStatus) {
  const std::size_t runs = 48;
  std::vector<double> y0(runs, 1.0), k(runs);
  for (std::size_t r = 0; r < runs; ++r)
    k[r] = r % 3 == 0 ? 3.0 : 0.2;  // 1 / (k - ~0.84): blow-up by t ~ 0.5
  for (Method method : {Method::rk4, Method::dopri5}) {
    SCOPED_TRACE(batchode::to_string(method));
    batchode::SolveOptions o = options(method);
    o.t_end = 1.0;
    if (method == Method::rk4) o.dt = 1e-2;
    const auto alone = batchode::solve_ivp(BlowUp{}, y0, k, o);
    EXPECT_FALSE(alone.all_succeeded());
    EXPECT_EQ(alone.status(1), batchode::Status::success);
    EXPECT_NE(alone.status(0), batchode::Status::success);
    expect_same_runs(batchode::solve_ivp(BlowUpInLanes{}, y0, k, o), alone);
  }
}

// max_steps ends each run of a block where it ends the run alone (adaptive steps: the solver refuses
// fixed steps that cannot reach t_end).
TEST(RunBlocks, MaxStepsEndsEachRunWhereItWouldAlone) {
  std::vector<double> y0, params;
  lorenz_batch(32, y0, params);
  batchode::SolveOptions o = options(Method::dopri5);
  o.max_steps = 150;
  const auto alone = batchode::solve_ivp(batchode::testing::Lorenz{}, y0, params, o);
  EXPECT_EQ(alone.status(31), batchode::Status::max_steps_reached);
  EXPECT_EQ(alone.status(0), batchode::Status::success);
  expect_same_runs(batchode::solve_ivp(LorenzInLanes{}, y0, params, o), alone);
}

// A run's numbers do not depend on its neighbours: the batch shuffled gives each run the same bits.
TEST(RunBlocks, ShufflingTheBatchChangesNoRunsNumbers) {
  const std::size_t runs = 67;
  std::vector<double> y0, params;
  lorenz_batch(runs, y0, params);
  std::vector<std::size_t> order(runs);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  std::vector<double> y0_shuffled, params_shuffled;
  for (std::size_t r : order) {
    y0_shuffled.insert(y0_shuffled.end(), y0.begin() + 3 * r, y0.begin() + 3 * r + 3);
    params_shuffled.insert(params_shuffled.end(), params.begin() + 3 * r, params.begin() + 3 * r + 3);
  }
  const batchode::SolveOptions o = options(Method::dopri5);
  const auto a = batchode::solve_ivp(LorenzInLanes{}, y0, params, o);
  const auto b = batchode::solve_ivp(LorenzInLanes{}, y0_shuffled, params_shuffled, o);
  for (std::size_t i = 0; i < runs; ++i) {
    for (std::size_t s = 0; s < 3; ++s)
      ASSERT_EQ(b.final_state(i, s), a.final_state(order[i], s)) << "run " << order[i];
    ASSERT_EQ(b.counters(i).accepted_steps, a.counters(order[i]).accepted_steps);
  }
}

// Every explicit method saves each run's own series in blocks: adaptive steps landed on save times
// (save_every, save_at landed), fixed steps saving every m steps (save_every a whole number of dt),
// both interpolating by the method's own dense output or the Hermite cubic (save_at), each point the one
// the run saves alone. Fixed steps that land on other save times (save_every not a whole number of dt,
// save_at landed) run a run at a time, with the same numbers.
TEST(RunBlocks, EveryMethodSavesEachRunsOwnSeries) {
  const std::size_t runs = 2 * 32 + 7;
  std::vector<double> y0, params;
  lorenz_batch(runs, y0, params);
  const std::vector<double> times = {0.0, 0.0999, 0.3, 0.7, 1.234, 1.5};
  for (Method method :
       {Method::euler, Method::rk4, Method::bogacki_shampine32, Method::cash_karp54, Method::dopri5,
        Method::tsit5, Method::fehlberg78, Method::vern7, Method::vern9, Method::dop853}) {
    for (int saves = 0; saves < 5; ++saves) {
      batchode::SolveOptions o = options(method);
      o.t_end = 1.5;
      if (saves == 0) o.save_every = 0.25;
      if (saves == 1) o.save_every = 0.3001;
      if (saves >= 2) o.save_at = times;
      if (saves == 3) o.save_mode = batchode::SaveMode::interpolate;
      if (saves == 4) o.save_mode = batchode::SaveMode::land;
      SCOPED_TRACE(std::string(batchode::to_string(method)) + ", saves " + std::to_string(saves));
      const auto alone = batchode::solve_ivp(batchode::testing::Lorenz{}, y0, params, o);
      ASSERT_TRUE(alone.all_succeeded());
      pack_calls = 0;
      expect_same_runs(batchode::solve_ivp(LorenzInLanes{}, y0, params, o), alone);
      const bool fixed_segments = !batchode::method_info(method).adaptive && (saves == 1 || saves == 4);
      if (fixed_segments) {
        EXPECT_EQ(pack_calls.load(), 0) << "fixed steps landing on save times ran in blocks";
      } else {
        EXPECT_GT(pack_calls.load(), 0) << "no block ran";
      }
    }
  }
}

// Saves in float, on every instruction set: the same points as a run at a time.
TEST(RunBlocks, SavesInFloatOnEveryInstructionSet) {
  std::vector<float> y0, params;
  lorenz_batch(2 * 32 + 7, y0, params);
  for (Method method : {Method::rk4, Method::dopri5, Method::tsit5, Method::cash_karp54}) {
    batchode::SolveOptions o = options(method);
    o.rtol = o.atol = 1e-5;
    o.save_at = {0.0, 0.05, 0.5, 1.25, 2.0};
    o.save_mode = batchode::SaveMode::interpolate;
    const auto alone = batchode::solve_ivp(batchode::testing::Lorenz{}, y0, params, o);
    for (const std::string& set : simd_sets()) {
      SCOPED_TRACE(std::string(batchode::to_string(method)) + ", " + set);
      ScopedEnv simd("BATCHODE_CPU_SIMD", set);
      expect_same_runs(batchode::solve_ivp(LorenzInLanes{}, y0, params, o), alone);
    }
  }
}

// A system's observables, and a chosen few of the variables, are saved by each lane into its run's row.
TEST(RunBlocks, ObservablesAndChosenVariablesAreEachRunsOwn) {
  std::vector<double> y0, params;
  damped_batch(40, y0, params);
  for (Method method : {Method::rk4, Method::dopri5}) {
    for (bool chosen : {false, true}) {
      SCOPED_TRACE(std::string(batchode::to_string(method)) +
                   (chosen ? ", v and energy" : ", every variable"));
      batchode::SolveOptions o = options(method);
      o.save_every = 0.1;
      if (chosen) o.save_variables = {"v", "energy"};
      const auto alone = batchode::solve_ivp(batchode::testing::DampedOscillator{}, y0, params, o);
      ASSERT_EQ(alone.n_observables(), 1u);
      pack_calls = 0;
      expect_same_runs(batchode::solve_ivp(DampedInLanes{}, y0, params, o), alone);
      EXPECT_GT(pack_calls.load(), 0) << "no block ran";
    }
  }
}

// Summaries in blocks: each lane's sink keeps its run's (LaneSink), the numbers of a run alone, bit for
// bit, with fixed steps (their samples every m steps) and adaptive ones, windows of several samples,
// an observable among the variables, a series kept at every other sample, and runs that blow up inside a
// block (their windows after it NaN).
TEST(RunBlocks, SummariesAreEachRunsOwn) {
  std::vector<double> y0, params;
  damped_batch(40, y0, params);
  for (Method method : {Method::rk4, Method::dopri5}) {
    SCOPED_TRACE(batchode::to_string(method));
    batchode::SolveOptions o = options(method);
    o.summaries.metrics = {"mean", "max", "dxdt_max", "peaks[2]"};
    o.summaries.summarise_every = 0.5;
    o.summaries.sample_summaries_every = 0.05;
    o.save_every = 0.1;
    const auto alone = batchode::solve_ivp(batchode::testing::DampedOscillator{}, y0, params, o);
    ASSERT_GT(alone.summaries().size(), 0u);
    pack_calls = 0;
    expect_same_runs(batchode::solve_ivp(DampedInLanes{}, y0, params, o), alone);
    EXPECT_GT(pack_calls.load(), 0) << "no block ran";

    std::vector<double> y1, k;
    blow_up_batch(48, y1, k);
    batchode::SolveOptions b = options(method);
    b.t_end = 1.0;
    if (method == Method::rk4) b.dt = 1e-2;
    b.summaries.metrics = {"mean", "min"};
    b.summaries.summarise_every = 0.25;
    const auto blown = batchode::solve_ivp(BlowUp{}, y1, k, b);
    ASSERT_NE(blown.status(0), batchode::Status::success);
    const std::size_t width = blown.summaries().size() / y1.size();  // run 0's row, its last window
    ASSERT_TRUE(std::isnan(blown.summaries()[width - 1])) << "the test leaves no window unwritten";
    expect_same_runs(batchode::solve_ivp(BlowUpInLanes{}, y1, k, b), blown);
  }
}

// Runs that blow up inside a block keep their own status, stop time and unsaved points (NaN) where
// they save: a fixed-step block whose state turned non-finite runs again a run at a time, an adaptive
// block's lanes end apart.
TEST(RunBlocks, RunsThatFailInsideABlockKeepTheirOwnUnsavedPoints) {
  std::vector<double> y0, k;
  blow_up_batch(48, y0, k);
  for (Method method : {Method::rk4, Method::dopri5}) {
    for (bool interpolated : {false, true}) {
      SCOPED_TRACE(std::string(batchode::to_string(method)) + (interpolated ? ", save_at" : ", save_every"));
      batchode::SolveOptions o = options(method);
      o.t_end = 1.0;
      if (method == Method::rk4) o.dt = 1e-2;
      if (interpolated) {
        o.save_at = {0.0, 0.2, 0.45, 0.9, 1.0};
      } else {
        o.save_every = 0.1;
      }
      const auto alone = batchode::solve_ivp(BlowUp{}, y0, k, o);
      ASSERT_NE(alone.status(0), batchode::Status::success);
      ASSERT_EQ(alone.status(1), batchode::Status::success);
      ASSERT_TRUE(std::isnan(alone.state_at(0, alone.n_saves() - 1, 0)))
          << "the test leaves no point unsaved";
      expect_same_runs(batchode::solve_ivp(BlowUpInLanes{}, y0, k, o), alone);
    }
  }
}

// Save times of each run's own and BATCHODE_CPU_SIMD=off run a run at a time: the same numbers, no pack.
TEST(RunBlocks, PerRunTimesAndSimdOffRunARunAtATime) {
  std::vector<double> y0, params;
  lorenz_batch(32, y0, params);
  batchode::SolveOptions o = options(Method::dopri5);
  const auto alone = batchode::solve_ivp(batchode::testing::Lorenz{}, y0, params, o);
  {
    ScopedEnv simd("BATCHODE_CPU_SIMD", "off");
    pack_calls = 0;
    expect_same_runs(batchode::solve_ivp(LorenzInLanes{}, y0, params, o), alone);
    EXPECT_EQ(pack_calls.load(), 0);
  }
  batchode::SolveOptions per_run = o;
  std::vector<double> own_times;
  for (std::size_t r = 0; r < 32; ++r) own_times.insert(own_times.end(), {0.1 * double(r % 4), 1.0, 2.0});
  per_run.save_at_per_run = batchode::PerRunSaveTimes(3, own_times);
  pack_calls = 0;
  const auto with_own_times = batchode::solve_ivp(LorenzInLanes{}, y0, params, per_run);
  EXPECT_EQ(pack_calls.load(), 0);
  expect_same_runs(with_own_times, batchode::solve_ivp(batchode::testing::Lorenz{}, y0, params, per_run));
}

/// A Robertson batch: k3 from 1e3 to 1e5 (different steps), y0 = (1, 0, 0).
void robertson_batch(std::size_t runs, std::vector<double>& y0, std::vector<double>& k3) {
  y0.clear();
  k3.clear();
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {1.0, 0.0, 0.0});
    k3.push_back(1e3 * std::pow(100.0, double(r) / double(runs)));
  }
}

// The Rosenbrock methods in blocks, on a system whose sparse linearisation and LU take packs (a model's
// generated code): each run's numbers are its own a run at a time, bit for bit, on every instruction
// set, in float and double, with rejected steps (ros3p at this tolerance) and saves landed on or
// interpolated by the method's own dense output. ros3p's doubled step has none: its interpolated saves
// run a run at a time.
TEST(RunBlocks, RosenbrockMethodsOnASparseLuGiveEachRunItsOwnNumbers) {
  const std::size_t runs = 2 * 32 + 7;
  std::vector<double> y0, k3;
  robertson_batch(runs, y0, k3);
  const std::vector<float> y0f(y0.begin(), y0.end()), k3f(k3.begin(), k3.end());
  std::uint32_t rejected = 0;
  for (Method method : {Method::ros3p, Method::rodas4, Method::rodas5p, Method::rodas4p2}) {
    for (int saves = 0; saves < 3; ++saves) {
      batchode::SolveOptions o = options(method);
      o.t_end = 40.0;
      o.rtol = 1e-6;
      o.atol = 1e-10;
      if (saves == 1) o.save_every = 10.0;
      if (saves == 2) o.save_at = {0.0, 0.5, 3.0, 17.5, 40.0};
      SCOPED_TRACE(std::string(batchode::to_string(method)) + ", saves " + std::to_string(saves));
      const auto alone = batchode::solve_ivp(SparseRobertson{}, y0, k3, o);
      ASSERT_TRUE(alone.all_succeeded());
      for (std::size_t r = 0; r < runs; ++r) rejected += alone.counters(r).rejected_steps;
      for (const std::string& set : simd_sets()) {
        SCOPED_TRACE(set);
        ScopedEnv simd("BATCHODE_CPU_SIMD", set);
        pack_calls = 0;
        expect_same_runs(batchode::solve_ivp(SparseRobertsonInLanes{}, y0, k3, o), alone);
        if (method == Method::ros3p && saves == 2) {
          EXPECT_EQ(pack_calls.load(), 0) << "ros3p interpolated in blocks";
        } else {
          EXPECT_GT(pack_calls.load(), 0) << "no block ran";
        }
      }
      o.rtol = o.atol = 1e-4;  // float's own tolerances
      const auto alone_f = batchode::solve_ivp(SparseRobertson{}, y0f, k3f, o);
      expect_same_runs(batchode::solve_ivp(SparseRobertsonInLanes{}, y0f, k3f, o), alone_f);
    }
  }
  EXPECT_GT(rejected, 0u) << "no run rejected a step: the test does not test rejections";
}

/// y' = p y with its 1 x 1 sparse LU, which takes packs. p = {p}.
struct Growth {
  static constexpr std::size_t n_states = 1, n_params = 1, jacobian_nonzeros = 1, sparse_lu_size = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * y[0];
  }
  template <class T>
  void sparse_jacobian(T, const T*, const T* p, T* Js) const {
    Js[0] = p[0];
  }
  template <class T>
  void time_derivative(T, const T*, const T*, T* f_t) const {
    f_t[0] = T(0);
  }
  template <class T>
  batchode::kernels::PivotsKept<T> sparse_lu_factor(T diag, const T* Js, T* W) const {
    batchode::kernels::PivotsKept<T> kept(true);
    W[0] = diag - Js[0];
    if (batchode::kernels::pivot_lost(W[0], batchode::kernels::magnitude(Js[0]), kept)) return false;
    W[0] = T(1) / W[0];
    return kept;
  }
  template <class T>
  void sparse_lu_solve(const T* W, T* b) const {
    b[0] *= W[0];
  }
};

// A lane whose pivot is lost (W(0, 0) = 1 / (gamma h) - p exactly 0 at h = 2, p = 2, rodas4's gamma
// 1/4) has its attempt rejected alone: y unchanged, an infinite estimate, no stage counted; the other
// lanes' attempts are a run's own, bit for bit, and their evaluations too.
TEST(RunBlocks, ALaneThatLosesAPivotIsRejectedAlone) {
  constexpr std::size_t W = 8;
  using Pack = batchode::kernels::RunPack<double, W>;
  using Tab = batchode::tableau::Rodas4;
  using Shape = batchode::kernels::RosenbrockShape<Growth, Pack>;
  static_assert(Shape::sparse, "the pack stepper keeps the system's sparse LU");
  const double p_lanes[W] = {1.0, 2.0, 3.0, -1.0, 2.0, 0.5, 5.0, 2.0};
  Pack p, y_pack(1.0), t(0.0), h(2.0);
  for (std::size_t l = 0; l < W; ++l) p[l] = p_lanes[l];
  batchode::RosenbrockStepper<Tab, Pack, 1, Shape> block;
  batchode::Vec<Pack, 1> y{}, y_new{}, err{};
  y[0] = y_pack;
  block.reset(Growth{}, t, y, &p);
  block.step(Growth{}, t, y, &p, h, y_new, err);
  for (std::size_t l = 0; l < W; ++l) {
    SCOPED_TRACE("lane " + std::to_string(l));
    using Alone =
        batchode::RosenbrockStepper<Tab, double, 1, batchode::kernels::RosenbrockShape<Growth, double>>;
    Alone alone;
    batchode::Vec<double, 1> y1{}, y1_new{}, err1{};
    y1[0] = 1.0;
    alone.reset(Growth{}, 0.0, y1, &p_lanes[l]);
    alone.step(Growth{}, 0.0, y1, &p_lanes[l], 2.0, y1_new, err1);
    EXPECT_EQ(std::memcmp(&y_new[0][l], &y1_new[0], sizeof(double)), 0) << y_new[0][l] << " " << y1_new[0];
    EXPECT_EQ(std::memcmp(&err[0][l], &err1[0], sizeof(double)), 0) << err[0][l] << " " << err1[0];
    EXPECT_EQ(block.rhs_evaluations()[l], alone.rhs_evaluations());
    if (p_lanes[l] == 2.0) {
      EXPECT_EQ(y_new[0][l], 1.0);
      EXPECT_TRUE(std::isinf(err[0][l]));
    } else {
      EXPECT_TRUE(std::isfinite(err[0][l]));
    }
  }
}

TEST(RunBlocks, ABadInstructionSetIsNamed) {
  ScopedEnv simd("BATCHODE_CPU_SIMD", "sse9");
  std::vector<double> y0, params;
  lorenz_batch(16, y0, params);
  try {
    (void)batchode::solve_ivp(LorenzInLanes{}, y0, params, options(Method::rk4));
    FAIL() << "expected an error naming BATCHODE_CPU_SIMD";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "BATCHODE_CPU_SIMD is 'sse9': it may be auto, off, baseline, avx2 or avx512"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
