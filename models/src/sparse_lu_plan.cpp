// models/: plan_sparse_lu (sparse_lu_plan.hpp): Markowitz's order on W's pattern by the elimination game,
// then the slots and the updates of the row-by-row factorisation in that order.
#include "batchode/models/sparse_lu_plan.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "batchode/checks/invalid_input.hpp"

namespace batchode::models {

namespace {

/// The pivot order and the filled pattern (in state indices), by the elimination game: the pattern of
/// the reduced matrix as rows and columns of active states, the Markowitz counts kept as they change.
struct Ordering {
  std::vector<std::size_t> order;
  std::vector<std::vector<char>> filled;  // [i][j]: W's nonzero or fill, state indices
};

/// Nothing once its eliminations pass `budget` multiply-adds (a dense pattern's game costs n^3 / 3).
std::optional<Ordering> markowitz_order(std::size_t n, std::vector<std::vector<char>> pattern,
                                        std::size_t budget) {
  std::size_t operations = 0;
  std::vector<char> active(n, 1);
  // Off-diagonal nonzeros of each active row and column, within the active states.
  std::vector<std::size_t> row_count(n, 0), column_count(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j && pattern[i][j]) ++row_count[i], ++column_count[j];
    }
  }
  Ordering result;
  for (std::size_t step = 0; step < n; ++step) {
    std::size_t best = n;
    for (std::size_t v = 0; v < n; ++v) {
      if (!active[v]) continue;
      if (best == n) {
        best = v;
        continue;
      }
      const std::size_t m = row_count[v] * column_count[v], mb = row_count[best] * column_count[best];
      const std::size_t s = row_count[v] + column_count[v], sb = row_count[best] + column_count[best];
      if (m < mb || (m == mb && s < sb)) best = v;
    }
    const std::size_t v = best;
    operations += column_count[v] * (1 + row_count[v]);  // the rows below scaled and updated
    if (operations > budget) return std::nullopt;
    result.order.push_back(v);
    active[v] = 0;
    std::vector<std::size_t> rows, columns;  // active i with (i, v); active j with (v, j)
    for (std::size_t i = 0; i < n; ++i) {
      if (active[i] && pattern[i][v]) rows.push_back(i), --row_count[i];
      if (active[i] && pattern[v][i]) columns.push_back(i), --column_count[i];
    }
    for (std::size_t i : rows) {
      for (std::size_t j : columns) {
        if (i != j && !pattern[i][j]) {
          pattern[i][j] = 1;
          ++row_count[i], ++column_count[j];
        }
      }
    }
  }
  result.filled = std::move(pattern);
  return result;
}

}  // namespace

std::size_t SparseLuPlan::slot(std::size_t row, std::size_t column) const {
  const auto begin = slots.begin() + static_cast<std::ptrdiff_t>(row_begin[row]);
  const auto end = slots.begin() + static_cast<std::ptrdiff_t>(row_begin[row + 1]);
  const auto at = std::lower_bound(begin, end, std::make_pair(row, column));
  return at != end && at->second == column ? static_cast<std::size_t>(at - slots.begin()) : npos;
}

std::size_t SparseLuPlan::factor_operations() const {
  std::size_t count = 0;
  for (const std::vector<Elimination>& row : eliminations) {
    for (const Elimination& e : row) count += 1 + e.updates.size();
  }
  return count + n;  // and each pivot's reciprocal
}

std::size_t SparseLuPlan::solve_operations() const { return slots.size(); }

std::optional<SparseLuPlan> plan_sparse_lu(std::size_t n,
                                           const std::vector<std::pair<std::size_t, std::size_t>>& nonzeros,
                                           std::size_t max_factor_operations) {
  std::vector<std::vector<char>> pattern(n, std::vector<char>(n, 0));
  for (const auto& [i, j] : nonzeros) {
    if (i >= n || j >= n) {
      throw InvalidInput("plan_sparse_lu: entry (" + std::to_string(i) + ", " + std::to_string(j) +
                         ") is outside the " + std::to_string(n) + " x " + std::to_string(n) + " matrix");
    }
    pattern[i][j] = 1;
  }
  for (std::size_t i = 0; i < n; ++i) pattern[i][i] = 1;
  const std::vector<std::vector<char>> given = pattern;
  std::optional<Ordering> found = markowitz_order(n, std::move(pattern), max_factor_operations);
  if (!found) return std::nullopt;
  Ordering& ordering = *found;

  SparseLuPlan plan;
  plan.n = n;
  plan.order = ordering.order;
  plan.position.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) plan.position[plan.order[k]] = k;
  plan.row_begin.push_back(0);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t state = plan.order[k];
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t column_state = plan.order[c];
      if (!ordering.filled[state][column_state]) continue;
      if (c == k) plan.diagonal.push_back(plan.slots.size());
      if (!given[state][column_state]) ++plan.fill;
      plan.slots.emplace_back(k, c);
    }
    plan.row_begin.push_back(plan.slots.size());
  }
  plan.eliminations.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t s = plan.row_begin[i]; s < plan.row_begin[i + 1] && plan.slots[s].second < i; ++s) {
      const std::size_t k = plan.slots[s].second;
      Elimination e{s, plan.diagonal[k], {}};
      for (std::size_t u = plan.diagonal[k] + 1; u < plan.row_begin[k + 1]; ++u) {
        // The elimination game filled (i, j) for every (k, j) of row k: the slot exists.
        e.updates.emplace_back(plan.slot(i, plan.slots[u].second), u);
      }
      plan.eliminations[i].push_back(std::move(e));
    }
  }
  return plan;
}

LinearSolveCosts linear_solve_costs(std::size_t n, std::size_t lower, std::size_t upper,
                                    const std::optional<SparseLuPlan>& plan) {
  LinearSolveCosts costs;
  // lu.hpp: column k scales n - k - 1 multipliers and updates (n - k - 1)^2 entries; a solve n^2.
  for (std::size_t k = 0; k < n; ++k) costs.dense += (n - k - 1) * (n - k);
  costs.dense += n * n;
  // band_lu.hpp: column k scales up to L multipliers and updates L (L + U) entries; a solve N L + N (L + U +
  // 1).
  if (2 * lower + upper + 1 < n) costs.band = n * lower * (1 + lower + upper) + n * (2 * lower + upper + 1);
  costs.sparse = plan ? plan->factor_operations() + plan->solve_operations() : SparseLuPlan::npos;
  return costs;
}

const char* to_string(LinearSolver layout) {
  switch (layout) {
    case LinearSolver::dense:
      return "dense";
    case LinearSolver::band:
      return "band";
    case LinearSolver::sparse:
      return "sparse";
    default:
      return "automatic";
  }
}

LinearSolver cheapest_linear_solver(const LinearSolveCosts& costs) {
  const bool band = costs.band > 0;
  if (costs.sparse < costs.dense && (!band || costs.sparse < costs.band)) return LinearSolver::sparse;
  if (band && costs.band <= costs.dense) return LinearSolver::band;
  return LinearSolver::dense;
}

LinearSolveChoice choose_linear_solve(std::size_t n,
                                      const std::vector<std::pair<std::size_t, std::size_t>>& nonzeros,
                                      LinearSolver requested, const std::string& model) {
  LinearSolveChoice choice;
  for (const auto& [i, j] : nonzeros) {
    choice.lower = std::max(choice.lower, i > j ? i - j : 0);
    choice.upper = std::max(choice.upper, j > i ? j - i : 0);
  }
  // Planning stops once the sparse LU could no longer be the cheapest (automatic), or never (asked).
  // A Jacobian with no nonzero at all (W = diag I) keeps the dense path: nothing to store sparsely.
  const LinearSolveCosts without = linear_solve_costs(n, choice.lower, choice.upper, std::nullopt);
  if (!nonzeros.empty() && (requested == LinearSolver::automatic || requested == LinearSolver::sparse)) {
    choice.plan =
        plan_sparse_lu(n, nonzeros, requested == LinearSolver::sparse ? SparseLuPlan::npos : without.dense);
  }
  choice.costs = linear_solve_costs(n, choice.lower, choice.upper, choice.plan);
  choice.layout = requested == LinearSolver::automatic ? cheapest_linear_solver(choice.costs) : requested;
  if (choice.layout == LinearSolver::band && choice.costs.band == 0) {
    throw InvalidInput("linear_solver band: the Jacobian of model '" + model + "' has " +
                       std::to_string(choice.lower) + " sub- and " + std::to_string(choice.upper) +
                       " superdiagonals, too wide a band for " + std::to_string(n) +
                       " states (2 L + U + 1 must be below the state count); use automatic, dense or sparse");
  }
  if (choice.layout == LinearSolver::sparse && !choice.plan) {
    throw InvalidInput("linear_solver sparse: the Jacobian of model '" + model +
                       "' has no structural nonzero (no equation reads a state); use automatic or dense");
  }
  if (choice.layout != LinearSolver::sparse) choice.plan.reset();
  return choice;
}

}  // namespace batchode::models
