// Batches built by GridBuilder (verbatim and combinatorial, by index and by name), and the promise
// that a run's result depends on nothing but the run: not on its batch, not on the Solver's earlier
// solves, not on the number of CPU threads.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <vector>

#include "test_systems.hpp"

namespace {

using batchode::GridKind;
using batchode::testing::Lorenz;

template <class T>
class Grid : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Grid, Precisions);

template <class T>
batchode::GridBuilder<T> lorenz_grid() {
  batchode::GridBuilder<T> g({T(1), T(0), T(0)}, {T(10), T(28), T(8.0 / 3)});
  g.names({"x", "y", "z"}, {"sigma", "rho", "beta"});
  return g;
}

TYPED_TEST(Grid, VerbatimTakesTheIthValueOfEveryAxis) {
  using T = TypeParam;
  const auto b = lorenz_grid<T>().param("rho", {T(1), T(2), T(3)}).state(1, {T(4), T(5), T(6)}).build(GridKind::verbatim);
  ASSERT_EQ(b.n_runs, 3u);
  ASSERT_EQ(b.y0.size(), 9u);
  ASSERT_EQ(b.params.size(), 9u);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(b.y0[r * 3 + 0], T(1));  // defaults kept
    EXPECT_EQ(b.y0[r * 3 + 1], T(4 + r));
    EXPECT_EQ(b.y0[r * 3 + 2], T(0));
    EXPECT_EQ(b.params[r * 3 + 0], T(10));
    EXPECT_EQ(b.params[r * 3 + 1], T(1 + r));
    EXPECT_EQ(b.params[r * 3 + 2], T(8.0 / 3));
  }
  // No axes: one run of the defaults.
  const auto single = lorenz_grid<T>().build(GridKind::verbatim);
  EXPECT_EQ(single.n_runs, 1u);
  EXPECT_EQ(single.params, (std::vector<T>{T(10), T(28), T(8.0 / 3)}));
}

TYPED_TEST(Grid, CombinatorialIsTheProductWithTheFirstAxisSlowest) {
  using T = TypeParam;
  // Axes in this order: rho (3 values), z (2 values), sigma (2 values).
  const std::vector<T> rho = {T(5), T(15), T(25)}, z = {T(-1), T(1)}, sigma = {T(7), T(9)};
  const auto b = lorenz_grid<T>().param("rho", rho).state("z", z).param(0, sigma).build(GridKind::combinatorial);
  ASSERT_EQ(b.n_runs, 12u);
  ASSERT_EQ(b.y0.size(), 36u);
  std::size_t r = 0;
  for (T rv : rho) {
    for (T zv : z) {
      for (T sv : sigma) {
        EXPECT_EQ(b.params[r * 3 + 1], rv) << r;
        EXPECT_EQ(b.y0[r * 3 + 2], zv) << r;
        EXPECT_EQ(b.params[r * 3 + 0], sv) << r;
        EXPECT_EQ(b.y0[r * 3 + 0], T(1)) << r;
        EXPECT_EQ(b.y0[r * 3 + 1], T(0)) << r;
        EXPECT_EQ(b.params[r * 3 + 2], T(8.0 / 3)) << r;
        ++r;
      }
    }
  }
  // By index and by name build the same batch.
  const auto by_index = lorenz_grid<T>().param(1, rho).state(2, z).param("sigma", sigma).build(GridKind::combinatorial);
  EXPECT_EQ(by_index.y0, b.y0);
  EXPECT_EQ(by_index.params, b.params);
}

batchode::SolveOptions cpu_options() {
  batchode::SolveOptions opt;
  opt.outputs.counters = true;  // read below (counters are off by default)
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  opt.t_end = 3.0;
  opt.save_every = 0.5;
  return opt;
}

// Bit-for-bit equality of everything a run produced.
template <class T>
void expect_same_run(const batchode::SolveResult<T>& a, std::size_t ra, const batchode::SolveResult<T>& b,
                     std::size_t rb) {
  ASSERT_EQ(a.n_saves(), b.n_saves());
  EXPECT_EQ(a.status(ra), b.status(rb));
  EXPECT_EQ(a.counters(ra).accepted_steps, b.counters(rb).accepted_steps);
  EXPECT_EQ(a.counters(ra).rejected_steps, b.counters(rb).rejected_steps);
  EXPECT_EQ(a.counters(ra).rhs_evaluations, b.counters(rb).rhs_evaluations);
  for (std::size_t s = 0; s < a.n_states(); ++s) {
    EXPECT_EQ(a.final_state(ra, s), b.final_state(rb, s)) << "state " << s;
    for (std::size_t k = 0; k < a.n_saves(); ++k) EXPECT_EQ(a.state_at(ra, k, s), b.state_at(rb, k, s));
  }
}

TYPED_TEST(Grid, GridSolveEqualsRunByRunSolves) {
  using T = TypeParam;
  const auto b = lorenz_grid<T>()
                     .param("rho", batchode::linspace<T>(5, 30, 4))
                     .state("x", {T(1), T(-2)})
                     .build(GridKind::combinatorial);
  for (batchode::Method m : {batchode::Method::dopri5, batchode::Method::tsit5}) {
    auto opt = cpu_options();
    opt.method = m;
    const auto all = batchode::solve_ivp(Lorenz{}, b, opt);
    ASSERT_EQ(all.n_runs(), 8u);
    for (std::size_t r = 0; r < b.n_runs; ++r) {
      const std::vector<T> y0(b.y0.begin() + r * 3, b.y0.begin() + r * 3 + 3);
      const std::vector<T> p(b.params.begin() + r * 3, b.params.begin() + r * 3 + 3);
      const auto one = batchode::solve_ivp(Lorenz{}, y0, p, opt);
      expect_same_run(all, r, one, 0);
    }
  }
}

TYPED_TEST(Grid, ReusedSolverGivesFreshResults) {
  using T = TypeParam;
  const auto small = lorenz_grid<T>().param("rho", batchode::linspace<T>(10, 28, 3)).build(GridKind::verbatim);
  const auto large = lorenz_grid<T>().param("rho", batchode::linspace<T>(0, 40, 17)).build(GridKind::verbatim);
  const auto opt = cpu_options();
  batchode::Solver<Lorenz, T> solver(Lorenz{}, opt);
  // Large, then small, then large again: nothing from one solve may leak into the next.
  for (const auto* batch : {&large, &small, &large}) {
    const auto reused = solver.solve(*batch);
    const auto fresh = batchode::solve_ivp(Lorenz{}, *batch, opt);
    ASSERT_EQ(reused.n_runs(), batch->n_runs);
    for (std::size_t r = 0; r < batch->n_runs; ++r) expect_same_run(reused, r, fresh, r);
  }
}

TYPED_TEST(Grid, ThreadCountDoesNotChangeResults) {
  using T = TypeParam;
  // Enough runs of uneven cost that several workers take blocks in a timing-dependent order.
  const auto b = lorenz_grid<T>()
                     .param("rho", batchode::linspace<T>(0, 60, 50))
                     .state("z", {T(0), T(20)})
                     .build(GridKind::combinatorial);
  auto opt = cpu_options();
  opt.cpu_threads = 1;
  const auto one = batchode::solve_ivp(Lorenz{}, b, opt);
  for (unsigned threads : {0u, 3u}) {  // all hardware threads; more threads than cores
    opt.cpu_threads = threads;
    const auto many = batchode::solve_ivp(Lorenz{}, b, opt);
    ASSERT_EQ(many.final_state(), one.final_state()) << threads << " threads";
    ASSERT_EQ(many.series(), one.series()) << threads << " threads";
    ASSERT_EQ(many.statuses(), one.statuses()) << threads << " threads";
    for (std::size_t r = 0; r < b.n_runs; ++r) {
      EXPECT_EQ(many.counters(r).accepted_steps, one.counters(r).accepted_steps);
      EXPECT_EQ(many.counters(r).rhs_evaluations, one.counters(r).rhs_evaluations);
    }
  }
}

}  // namespace
