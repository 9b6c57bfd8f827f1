// tests/models: the symbolic sparse LU's plan (models/sparse_lu_plan.hpp). Markowitz's order leaves an arrow
// matrix without fill where the natural order fills it all; the plan's updates, carried out on numbers
// as the generated code does, solve W x = b as a dense LU with partial pivoting does, for random
// patterns (so no fill-in is missing from the slots); the operation counts and the choice of layout; the
// planning budget; and an entry outside the matrix is refused by name.
#include "batchode/models/sparse_lu_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/kernels/linalg/lu.hpp"
#include "batchode/kernels/linalg/sparse_lu.hpp"
#include "batchode/models/model.hpp"
#include "pollu_model.hpp"

namespace {

using namespace batchode::models;
using Pattern = std::vector<std::pair<std::size_t, std::size_t>>;
constexpr std::size_t kPadded = 24;  // the random patterns' largest size

/// W = diag I - J factorised by the plan's updates, as codegen.cpp writes them (slots hold multipliers,
/// U and the pivots' reciprocals); false for a pivot batchode::kernels::usable_pivot refuses.
bool factor(const SparseLuPlan& plan, const Pattern& pattern, const std::vector<double>& J, double diag,
            std::vector<double>& W) {
  W.assign(plan.slots.size(), 0.0);
  std::vector<double> terms(plan.n, std::fabs(diag));
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    const auto [i, j] = pattern[k];
    W[plan.slot(plan.position[i], plan.position[j])] -= J[k];
    if (i == j) terms[plan.position[i]] += std::fabs(J[k]);
  }
  for (std::size_t k = 0; k < plan.n; ++k) W[plan.diagonal[k]] += diag;
  for (std::size_t i = 0; i < plan.n; ++i) {
    for (const Elimination& e : plan.eliminations[i]) {
      W[e.multiplier] *= W[e.pivot];
      for (const auto& [target, from] : e.updates) {
        const double x = W[e.multiplier] * W[from];
        W[target] -= x;
        if (target == plan.diagonal[i]) terms[i] += std::fabs(x);
      }
    }
    if (!batchode::kernels::usable_pivot(W[plan.diagonal[i]], terms[i])) return false;
    W[plan.diagonal[i]] = 1.0 / W[plan.diagonal[i]];
  }
  return true;
}

/// b := W^-1 b with the factors, forward then back, at the pivots' states (codegen.cpp's solve).
void solve(const SparseLuPlan& plan, const std::vector<double>& W, std::vector<double>& b) {
  for (std::size_t i = 0; i < plan.n; ++i) {
    for (std::size_t s = plan.row_begin[i]; s < plan.diagonal[i]; ++s) {
      b[plan.order[i]] -= W[s] * b[plan.order[plan.slots[s].second]];
    }
  }
  for (std::size_t i = plan.n; i-- > 0;) {
    for (std::size_t s = plan.diagonal[i] + 1; s < plan.row_begin[i + 1]; ++s) {
      b[plan.order[i]] -= W[s] * b[plan.order[plan.slots[s].second]];
    }
    b[plan.order[i]] *= W[plan.diagonal[i]];
  }
}

TEST(SparseLu, MarkowitzOrderLeavesAnArrowMatrixWithoutFill) {
  // State 0 couples to every other and every other to it: eliminated first, it would fill the whole
  // matrix; the Markowitz order takes it last and no slot is fill.
  constexpr std::size_t n = 8;
  Pattern arrow;
  for (std::size_t i = 1; i < n; ++i) arrow.insert(arrow.end(), {{0, i}, {i, 0}});
  const SparseLuPlan plan = *plan_sparse_lu(n, arrow);
  EXPECT_GE(plan.position[0], n - 2) << "last but one: 0 and 7 tie once 0 has one neighbour left";
  EXPECT_EQ(plan.fill, 0u);
  EXPECT_EQ(plan.slots.size(), n + arrow.size());
  for (std::size_t s = 0; s < n; ++s) EXPECT_EQ(plan.order[plan.position[s]], s);
  // The same pattern costs n^3 / 3 dense and a few operations per row sparse.
  const LinearSolveCosts costs = linear_solve_costs(n, n - 1, n - 1, plan);
  EXPECT_EQ(costs.band, 0u);  // no band narrower than the matrix
  EXPECT_EQ(costs.sparse, plan.factor_operations() + plan.solve_operations());
  EXPECT_EQ(plan.factor_operations(), (n - 1) * 2 + n);  // row 0's 7 eliminations of one update, 8 pivots
  EXPECT_EQ(cheapest_linear_solver(costs), LinearSolver::sparse);
}

TEST(SparseLu, PlannedUpdatesSolveAsTheDenseLuOnRandomPatterns) {
  std::mt19937_64 rng(46);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::size_t checked = 0, with_fill = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 2 + trial % 23;
    const double density = 0.05 + 0.3 * double(trial % 5) / 4.0;
    std::set<std::pair<std::size_t, std::size_t>> entries;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        if (std::uniform_real_distribution<double>(0, 1)(rng) < density) entries.insert({i, j});
      }
    }
    const Pattern pattern(entries.begin(), entries.end());
    const SparseLuPlan plan = *plan_sparse_lu(n, pattern);
    with_fill += plan.fill > 0;
    std::vector<double> J(pattern.size()), dense(n * n, 0.0), b(n), x(n);
    for (double& v : J) v = value(rng);
    for (double& v : b) v = value(rng);
    // diag > 0 as 1 / (gamma h), not dominant: a J row sums up to 8 (a fixed order's pivots may then
    // grow their rows, which partial pivoting avoids; with diag near 0 one of these patterns lost 1e-10
    // of backward accuracy, trial 43 of this seed).
    const double diag = 3.5 + 1.5 * value(rng);
    for (std::size_t k = 0; k < pattern.size(); ++k) dense[pattern[k].first * n + pattern[k].second] -= J[k];
    for (std::size_t i = 0; i < n; ++i) dense[i * n + i] += diag;
    std::vector<double> W;
    ASSERT_TRUE(factor(plan, pattern, J, diag, W)) << "trial " << trial;
    x = b;
    solve(plan, W, x);
    // The residual of the dense matrix, and the answer of kernels/linalg/lu.hpp's partial-pivoting LU
    // (on the matrix padded with the identity to its compile-time size).
    std::vector<double> lu(kPadded * kPadded, 0.0), y(kPadded, 0.0);
    for (std::size_t i = 0; i < kPadded; ++i) lu[i * kPadded + i] = 1.0;
    for (std::size_t i = 0; i < n; ++i) {
      y[i] = b[i];
      for (std::size_t j = 0; j < n; ++j) lu[i * kPadded + j] = dense[i * n + j];
    }
    int piv[kPadded];
    ASSERT_TRUE(batchode::kernels::lu_factor<kPadded>(lu.data(), piv));
    batchode::kernels::lu_solve<kPadded>(lu.data(), piv, y.data());
    double largest = 0;
    for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(y[i]));
    for (std::size_t i = 0; i < n; ++i) {
      // Backward stable: the residual within rounding of the terms of W x (64 n eps of them).
      double r = b[i], terms = std::fabs(b[i]);
      for (std::size_t j = 0; j < n; ++j) {
        r -= dense[i * n + j] * x[j];
        terms += std::fabs(dense[i * n + j] * x[j]);
      }
      EXPECT_LE(std::fabs(r), 64.0 * double(n) * 2.2e-16 * terms) << "trial " << trial << " row " << i;
      EXPECT_NEAR(x[i], y[i], 1e-9 * largest) << "trial " << trial << " state " << i;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 60u);
  EXPECT_GT(with_fill, 10u) << "the patterns should need fill-in";
}

TEST(SparseLu, APivotLostInRoundingIsRefused) {
  // W(0, 0) = diag - J(0, 0) = 0 exactly: no pivot; a hair away, a pivot of rounding noise from the
  // update of row 1 (1 - 1 * 1 + 1e-17): refused too. Diagonal dominance: accepted.
  const Pattern pattern = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  const SparseLuPlan plan = *plan_sparse_lu(2, pattern);
  std::vector<double> W;
  EXPECT_FALSE(factor(plan, pattern, {2.0, 0.5, 0.5, 0.0}, 2.0, W));
  EXPECT_FALSE(factor(plan, pattern, {0.0, -1.0, -1.0, 1e-17}, 1.0, W));
  EXPECT_TRUE(factor(plan, pattern, {-1.0, 0.5, 0.5, -1.0}, 2.0, W));
  EXPECT_FALSE(batchode::kernels::usable_pivot(std::nan(""), 1.0));
  EXPECT_FALSE(batchode::kernels::usable_pivot(std::numeric_limits<double>::infinity(), 1.0));
  EXPECT_TRUE(batchode::kernels::usable_pivot(1e-300, 0.0));
  EXPECT_FALSE(batchode::kernels::usable_pivot(0.0f, 0.0f));
}

TEST(SparseLu, CountsAndTheChoiceOfLayout) {
  // Tridiagonal, 10 states: band L = U = 1 costs 10 * 1 * 3 + 10 * 4 = 70; the sparse LU (no fill: 28
  // slots, 9 rows of one elimination with one update, 10 reciprocals) 18 + 10 + 28 = 56; dense 420.
  constexpr std::size_t n = 10;
  Pattern tridiagonal;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) tridiagonal.emplace_back(i, i - 1);
    tridiagonal.emplace_back(i, i);
    if (i + 1 < n) tridiagonal.emplace_back(i, i + 1);
  }
  const SparseLuPlan plan = *plan_sparse_lu(n, tridiagonal);
  EXPECT_EQ(plan.fill, 0u);
  const LinearSolveCosts costs = linear_solve_costs(n, 1, 1, plan);
  EXPECT_EQ(costs.band, 70u);
  EXPECT_EQ(costs.sparse, 56u);
  EXPECT_EQ(costs.dense, 330u + 100u);  // sum (n - k - 1)(n - k) = 330, and a solve's 100
  EXPECT_EQ(cheapest_linear_solver(costs), LinearSolver::sparse);
  EXPECT_EQ(cheapest_linear_solver({100, 50, 50}), LinearSolver::band);  // ties: partial pivoting
  EXPECT_EQ(cheapest_linear_solver({50, 0, 50}), LinearSolver::dense);
  EXPECT_EQ(cheapest_linear_solver({100, 0, SparseLuPlan::npos}), LinearSolver::dense);
  // A dense pattern stops planning at its budget; an entry outside the matrix is refused.
  Pattern full;
  for (std::size_t i = 0; i < 40; ++i) {
    for (std::size_t j = 0; j < 40; ++j) full.emplace_back(i, j);
  }
  EXPECT_FALSE(plan_sparse_lu(40, full, 1000).has_value());
  EXPECT_TRUE(plan_sparse_lu(40, full).has_value());
  try {
    plan_sparse_lu(3, {{0, 3}});
    ADD_FAILURE() << "an entry outside the matrix was planned";
  } catch (const batchode::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("(0, 3) is outside the 3 x 3"), std::string::npos) << e.what();
  }
}

TEST(SparseLu, PolluTakesTheSparseLuWithLittleFill) {
  // The IVP test set's chemistry: 20 species, a Jacobian neither banded nor dense.
  const Model pollu = load_model(batchode::testing::pollu_model_path());
  const SparseLuPlan plan = *plan_sparse_lu(pollu.n_states(), pollu.jacobian_nonzeros());
  const LinearSolveCosts costs = linear_solve_costs(pollu.n_states(), 19, 19, plan);
  EXPECT_EQ(cheapest_linear_solver(costs), LinearSolver::sparse);
  EXPECT_LT(costs.sparse * 10, costs.dense) << "sparse " << costs.sparse << ", dense " << costs.dense;
  EXPECT_LT(plan.fill, 10u);
}

}  // namespace
