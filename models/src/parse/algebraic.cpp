// models/src/parse/: the residual lines' checks and the matching of residuals to algebraic variables
// (algebraic.hpp). The matching is Kuhn's augmenting paths, O(K * nonzeros of dg/dz): K is a model's
// handful of algebraic variables, and the search runs once per parse.
#include "algebraic.hpp"

#include <functional>
#include <utility>
#include <vector>

namespace batchode::models {

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
  return text;
}

std::vector<std::string> names_of_algebraic(const ModelDescription& d) {
  std::vector<std::string> names;
  for (const NamedValue& z : d.algebraic) names.push_back(z.name);
  return names;
}

std::string count(std::size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

SourceLocation algebraic_location(const ModelDescription& d, const std::string& key) {
  const auto it = d.locations.find(key);
  return it != d.locations.end() ? it->second : equations_location(d, 1, 1);
}

std::string lines_of(const std::vector<std::size_t>& residuals, const ParsedEquations& equations,
                     std::size_t n_diff) {
  std::vector<std::string> lines;
  for (std::size_t r : residuals) lines.push_back(std::to_string(equations.rhs_where[n_diff + r].line));
  return (residuals.size() == 1 ? "line " : "lines ") + joined(lines);
}

constexpr const char* kIndexOne =
    " (the algebraic equations must determine every algebraic variable: index 1)";

}  // namespace

void check_residual_line(const ModelDescription& d, const Token& lhs, const SourceLocation& line_start,
                         std::size_t before) {
  const SourceLocation at = column_location(line_start, lhs.column);
  if (lhs.value != 0) {
    throw ModelError(at,
                     "expected a statement 'd<state> = expression', 'name = expression' or "
                     "'0 = expression', found '" +
                         lhs.text +
                         "' (the left side of an algebraic equation is the literal 0: the algebraic "
                         "variables make its right side zero)");
  }
  if (d.algebraic.empty()) {
    throw ModelError(at,
                     "`0 = ...` is an algebraic equation, but the model has no algebraic variables: "
                     "declare the one it determines under [algebraic] (name = initial guess)");
  }
  if (before == d.algebraic.size()) {
    throw ModelError(at, "one `0 =` equation too many: the model has " +
                             count(d.algebraic.size(), "algebraic variable") + " (" +
                             joined(names_of_algebraic(d)) + ") and needs exactly one `0 =` equation each");
  }
}

void check_residual_count(const ModelDescription& d, std::size_t residuals) {
  if (residuals >= d.algebraic.size()) return;
  throw ModelError(algebraic_location(d, "algebraic"),
                   "the model has " + count(d.algebraic.size(), "algebraic variable") + " (" +
                       joined(names_of_algebraic(d)) + ") but " + count(residuals, "`0 =` equation") +
                       ": write one line `0 = <expr>` per algebraic variable");
}

ModelError algebraic_with_d_equation(const SourceLocation& where, const std::string& name) {
  return ModelError(where, name + " is algebraic: it has no d equation; write `0 = ...` (a residual that " +
                               name + " makes zero), or declare " + name + " under [states]");
}

void match_algebraic_rows(const ModelDescription& d, ParsedEquations& equations, Derivatives& derivatives) {
  const std::size_t n_diff = d.states.size(), n_alg = d.algebraic.size(), n = n_diff + n_alg;
  if (n_alg == 0) return;
  auto depends = [&](std::size_t r, std::size_t k) {  // residual r (as written) on variable k
    return !is_zero(*derivatives.jacobian[(n_diff + r) * n + n_diff + k]);
  };
  // residuals[k]: the residuals that depend on variable k, its own written row first, so that the
  // written order survives wherever it is already a matching.
  std::vector<std::vector<std::size_t>> residuals(n_alg);
  for (std::size_t k = 0; k < n_alg; ++k) {
    if (depends(k, k)) residuals[k].push_back(k);
    for (std::size_t r = 0; r < n_alg; ++r) {
      if (r != k && depends(r, k)) residuals[k].push_back(r);
    }
  }
  std::vector<std::size_t> variable_of(n_alg, kNone), residual_of(n_alg, kNone);
  std::vector<char> visited;
  // An augmenting path from variable k: a free residual, or one whose variable can move to another.
  std::function<bool(std::size_t)> augment = [&](std::size_t k) {
    for (std::size_t r : residuals[k]) {
      if (visited[r]) continue;
      visited[r] = 1;
      if (variable_of[r] == kNone || augment(variable_of[r])) {
        variable_of[r] = k;
        residual_of[k] = r;
        return true;
      }
    }
    return false;
  };
  std::vector<std::size_t> unmatched;
  for (std::size_t k = 0; k < n_alg; ++k) {
    visited.assign(n_alg, 0);
    if (!augment(k)) unmatched.push_back(k);
  }
  if (!unmatched.empty()) {
    // The variables no residual depends on; else the first unmatched one's Hall set: the variables its
    // failed search reached, fewer residuals than variables.
    std::vector<std::string> names;
    std::string reason;
    for (std::size_t k : unmatched) {
      if (residuals[k].empty()) names.push_back(d.algebraic[k].name);
    }
    std::size_t first = unmatched.front();
    if (!names.empty()) {
      for (std::size_t k : unmatched) {
        if (residuals[k].empty()) {
          first = k;
          break;
        }
      }
      reason = names.size() == 1 ? "no `0 =` equation depends on it" : "no `0 =` equation depends on them";
    } else {
      visited.assign(n_alg, 0);
      augment(first);
      std::vector<std::size_t> reached;
      names.push_back(d.algebraic[first].name);
      for (std::size_t r = 0; r < n_alg; ++r) {
        if (!visited[r]) continue;
        reached.push_back(r);
        names.push_back(d.algebraic[variable_of[r]].name);
      }
      reason = "only " + count(reached.size(), "`0 =` equation") + " (" +
               lines_of(reached, equations, n_diff) + (reached.size() == 1 ? ") depends" : ") depend") +
               " on them";
    }
    std::vector<std::size_t> unused;  // residuals on no algebraic variable: constraints of a higher index
    for (std::size_t r = 0; r < n_alg; ++r) {
      bool any = false;
      for (std::size_t k = 0; k < n_alg; ++k) any = any || depends(r, k);
      if (!any) unused.push_back(r);
    }
    if (!unused.empty()) {
      reason += std::string(unused.size() == 1 ? "; the `0 =` equation on " : "; the `0 =` equations on ") +
                lines_of(unused, equations, n_diff) + (unused.size() == 1 ? " depends" : " depend") +
                " on no algebraic variable (a constraint on the states alone is of index 2 or more)";
    }
    throw ModelError(algebraic_location(d, "algebraic." + d.algebraic[first].name),
                     std::string(names.size() == 1 ? "algebraic variable " : "algebraic variables ") +
                         joined(names) + ": " + reason + kIndexOne);
  }
  // Row n_diff + k: the residual matched to variable k.
  const std::vector<ExprPtr> rhs = equations.rhs, jacobian = derivatives.jacobian, time = derivatives.time;
  const std::vector<SourceLocation> rhs_where = equations.rhs_where;
  for (std::size_t k = 0; k < n_alg; ++k) {
    const std::size_t from = n_diff + residual_of[k], to = n_diff + k;
    equations.rhs[to] = rhs[from];
    equations.rhs_where[to] = rhs_where[from];
    derivatives.time[to] = time[from];
    for (std::size_t j = 0; j < n; ++j) derivatives.jacobian[to * n + j] = jacobian[from * n + j];
  }
}

}  // namespace batchode::models
