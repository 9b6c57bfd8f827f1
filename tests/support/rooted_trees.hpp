// The order conditions of Runge-Kutta and Rosenbrock methods, one per rooted tree (Butcher; Hairer,
// Norsett & Wanner I, II.2; Hairer & Wanner II, IV.7), for the tableau tests: every tree up to an order
// is generated, so a table of order 9 is checked as fully as one of order 3.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace batchode::testing {

using TreeMatrix = std::vector<std::vector<double>>;

/// A rooted tree: its subtrees under the root (none: a single node).
struct RootedTree {
  std::vector<RootedTree> children;

  int order() const {
    int n = 1;
    for (const RootedTree& c : children) n += c.order();
    return n;
  }
  /// gamma(t) of Butcher's theory: the order times the children's densities.
  double density() const {
    double d = order();
    for (const RootedTree& c : children) d *= c.density();
    return d;
  }
};

/// Every rooted tree of orders 1 .. max_order, indexed by order (1, 1, 2, 4, 9, 20, 48, 115, 286, 719
/// of them): a tree of order n is a multiset of smaller trees whose orders sum to n - 1, each listed
/// once through nondecreasing indices into the list of all smaller trees.
inline std::vector<std::vector<RootedTree>> rooted_trees(int max_order) {
  std::vector<std::vector<RootedTree>> by_order(static_cast<std::size_t>(max_order) + 1);
  by_order[1].push_back(RootedTree{});
  std::vector<const RootedTree*> smaller;
  std::vector<RootedTree> children;
  for (int n = 2; n <= max_order; ++n) {
    smaller.clear();
    for (int k = 1; k < n; ++k) {
      for (const RootedTree& t : by_order[k]) smaller.push_back(&t);
    }
    auto extend = [&](auto&& self, std::size_t first, int left) -> void {
      if (left == 0) {
        by_order[n].push_back(RootedTree{children});
        return;
      }
      for (std::size_t i = first; i < smaller.size(); ++i) {
        if (smaller[i]->order() > left) continue;
        children.push_back(*smaller[i]);
        self(self, i, left - smaller[i]->order());
        children.pop_back();
      }
    };
    extend(extend, 0, n - 1);
  }
  return by_order;
}

/// The residuals sum_i w_i Phi_i(t) - 1 / gamma(t) of every tree of orders 1 .. max_order, grouped by
/// order. Phi of a node reaches each child through `several` when it has two or more children and
/// through `one` when it has one: an explicit Runge-Kutta method passes A for both; a Rosenbrock method
/// (in its original variables) alpha for several and beta = alpha + Gamma, the diagonal gamma
/// included, for one, which folds Hairer & Wanner's Table 7.1 polynomials in gamma into the weights.
inline std::vector<std::vector<double>> order_residuals(const TreeMatrix& several, const TreeMatrix& one,
                                                        const std::vector<double>& w, int max_order) {
  const std::size_t n = w.size();
  auto times = [&](const TreeMatrix& M, const std::vector<double>& v) {
    std::vector<double> r(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) r[i] += M[i][j] * v[j];
    }
    return r;
  };
  auto phi = [&](auto&& self, const RootedTree& t) -> std::vector<double> {
    if (t.children.empty()) return std::vector<double>(n, 1.0);
    if (t.children.size() == 1) return times(one, self(self, t.children[0]));
    std::vector<double> r(n, 1.0);
    for (const RootedTree& c : t.children) {
      const std::vector<double> x = times(several, self(self, c));
      for (std::size_t i = 0; i < n; ++i) r[i] *= x[i];
    }
    return r;
  };
  std::vector<std::vector<double>> residuals;
  const std::vector<std::vector<RootedTree>> trees = rooted_trees(max_order);
  for (int p = 1; p <= max_order; ++p) {
    std::vector<double> r;
    for (const RootedTree& t : trees[p]) {
      const std::vector<double> v = phi(phi, t);
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += w[i] * v[i];
      r.push_back(s - 1.0 / t.density());
    }
    residuals.push_back(r);
  }
  return residuals;
}

/// The largest residual of order_residuals' over the trees of orders first .. last.
inline double worst_residual(const std::vector<std::vector<double>>& residuals, int first, int last) {
  double worst = 0;
  for (int p = first; p <= last; ++p) {
    for (double x : residuals[static_cast<std::size_t>(p) - 1]) worst = std::max(worst, std::fabs(x));
  }
  return worst;
}

}  // namespace batchode::testing
