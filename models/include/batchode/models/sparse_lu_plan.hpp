// models/: the symbolic sparse LU of a Rosenbrock method's W = M diag - J (diag = 1 / (gamma h)), planned
// once per model from the structural nonzeros of its symbolic Jacobian (issue 46). The pivots are W's
// diagonal, taken in an order chosen here, at code generation time, by Markowitz's rule on the pattern
// (the least (r - 1)(c - 1) first, r and c the row and column counts of the reduced matrix: the fewest
// fill-ins and operations, as the Kinetic PreProcessor orders atmospheric chemistry). Fixing the order
// lets codegen.cpp write the factorisation and the solves as straight-line code over the nonzeros and
// their fill only: no pivot search, no index arithmetic and no zero at run time. Diagonal pivots suit W:
// as h shrinks it tends to I / (gamma h), whose diagonal dominates; a pivot that is lost in rounding at a
// large step fails the step instead (kernels/linalg/sparse_lu.hpp), which the step-size control retries
// smaller. M is I for an ODE; a DAE's algebraic rows have M's 0 (no 1 / (gamma h)) and pivot on -J(i, i),
// which parse_model's matching of residuals to algebraic variables makes a structural nonzero, so W's
// pattern is still J's nonzeros and the diagonal (an index-1 dg/dz is nonsingular, but a pivot that
// vanishes in this order is only caught at run time, as above).
//
// Slots number the LU's nonzeros row by row in pivot order (row k: the k-th pivot's equation), columns
// in pivot order within a row. The factorisation (Doolittle, row by row, kernels/linalg/sparse_lu.hpp
// says what each slot holds after it):
//   for each row i, for each k < i with slot (i, k), in increasing k:
//     W(i, k) *= 1 / W(k, k);  W(i, j) -= W(i, k) W(k, j) for each j > k with slot (k, j)
//   then W(i, i) is the pivot, kept as its reciprocal.
// plan_sparse_lu lists exactly these updates (Elimination), so the generator and the tests read one plan.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace batchode::models {

/// One step of a row's elimination: W(i, k) is scaled by the k-th pivot's reciprocal, then multiplies
/// row k's upper part into row i.
struct Elimination {
  std::size_t multiplier;                                    ///< slot (i, k)
  std::size_t pivot;                                         ///< slot (k, k)
  std::vector<std::pair<std::size_t, std::size_t>> updates;  ///< (slot (i, j), slot (k, j)), j > k
};

/// The symbolic LU of an n x n pattern with every diagonal entry present.
struct SparseLuPlan {
  std::size_t n = 0;
  std::vector<std::size_t> order;     ///< order[k]: the state (row and column of W) pivoted k-th
  std::vector<std::size_t> position;  ///< position[s]: where state s is pivoted (order's inverse)
  /// The slots, in order: (row, column) in pivot positions, row by row, columns increasing.
  std::vector<std::pair<std::size_t, std::size_t>> slots;
  std::vector<std::size_t> row_begin;  ///< row k's slots: row_begin[k] .. row_begin[k + 1] - 1
  std::vector<std::size_t> diagonal;   ///< diagonal[k]: the slot of (k, k)
  /// Row k's eliminations, in order (empty for a row with nothing left of its diagonal).
  std::vector<std::vector<Elimination>> eliminations;
  std::size_t fill = 0;  ///< slots that are neither a nonzero of J nor on the diagonal

  /// Slot of (row, column) in pivot positions, or npos.
  std::size_t slot(std::size_t row, std::size_t column) const;
  /// Multiply-adds of one factorisation (scalings included) and of one solve.
  std::size_t factor_operations() const;
  std::size_t solve_operations() const;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

/// The plan for the n x n pattern of `nonzeros` ((row, column) pairs, any order, within n) and the
/// diagonal, or nothing when its factorisation would take more than max_factor_operations
/// multiply-adds (the planning stops there: a dense pattern's costs n^3 / 3). Ties of the Markowitz
/// count go to the smaller row + column count, then to the lower state index, so a pattern always gets
/// the same plan. Throws InvalidInput for an entry outside n x n.
std::optional<SparseLuPlan> plan_sparse_lu(std::size_t n,
                                           const std::vector<std::pair<std::size_t, std::size_t>>& nonzeros,
                                           std::size_t max_factor_operations = SparseLuPlan::npos);

/// How a Rosenbrock method factorises W for a model (CodegenOptions::linear_solver; automatic picks
/// by linear_solve_costs).
enum class LinearSolver { automatic, dense, band, sparse };
/// "automatic", "dense", "band", "sparse".
const char* to_string(LinearSolver layout);

/// Multiply-adds of one factorisation and one solve of W by each layout, for a pattern of n states
/// whose nonzeros lie within `lower` / `upper` diagonals of the main one. band is 0 where the band does
/// not pay (kernels/linalg/band.hpp: 2 L + U + 1 >= n). The band's and the dense counts are of the
/// partial-pivoting LUs of kernels/linalg/band_lu.hpp and lu.hpp.
struct LinearSolveCosts {
  std::size_t dense = 0, band = 0, sparse = 0;
};
/// sparse: npos without a plan.
LinearSolveCosts linear_solve_costs(std::size_t n, std::size_t lower, std::size_t upper,
                                    const std::optional<SparseLuPlan>& plan);

/// The layout automatic picks: the fewest operations, band over sparse and dense over either on a tie
/// (their partial pivoting needs no failed step).
LinearSolver cheapest_linear_solver(const LinearSolveCosts& costs);

/// The layout of a model's W, and what it was chosen from.
struct LinearSolveChoice {
  LinearSolver layout = LinearSolver::dense;  ///< dense, band or sparse (never automatic)
  std::size_t lower = 0, upper = 0;           ///< the bandwidths of the nonzeros
  LinearSolveCosts costs;
  std::optional<SparseLuPlan> plan;  ///< with sparse (and where planning was cheaper than dense)
};

/// The layout `requested` for an n-state Jacobian with `nonzeros` ((row, column), row by row), or for
/// automatic the cheapest (the sparse LU's planning stops once it could no longer be). Throws
/// InvalidInput naming `model` for band where the band is too wide to pay, and for sparse where there is
/// no nonzero at all.
LinearSolveChoice choose_linear_solve(std::size_t n,
                                      const std::vector<std::pair<std::size_t, std::size_t>>& nonzeros,
                                      LinearSolver requested, const std::string& model);

}  // namespace batchode::models
