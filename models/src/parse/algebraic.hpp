// models/src/parse/ (private): the algebraic variables of a semi-explicit index-1 DAE (model_description.hpp's
// [algebraic], one `0 = <expr>` line each): the checks of the residual lines that parser.cpp calls
// while it reads them, and the matching of residuals to variables that parse_model applies to the
// parsed rows and their derivatives.
#pragma once

#include <cstddef>
#include <string>

#include "batchode/models/derivative.hpp"
#include "batchode/models/lexer.hpp"
#include "batchode/models/model_description.hpp"
#include "batchode/models/parser.hpp"

namespace batchode::models {

/// A line `<number> = ...` whose number token is `lhs`, with `before` residual lines above it. Throws
/// ModelError at the number when it is not 0, when the model has no algebraic variables, and when the
/// line is one more residual than there are algebraic variables.
void check_residual_line(const ModelDescription& d, const Token& lhs, const SourceLocation& line_start,
                         std::size_t before);

/// After the last line: throws ModelError (at the [algebraic] table, else the equations) when there
/// are fewer residual lines (`residuals`) than algebraic variables.
void check_residual_count(const ModelDescription& d, std::size_t residuals);

/// The error for `d<name> = ...` where <name> is algebraic, at `where`.
ModelError algebraic_with_d_equation(const SourceLocation& where, const std::string& name);

/// Puts the residual that determines algebraic variable k at row n_diff + k (n_diff =
/// d.states.size()), in `equations` (rhs, rhs_where) and `derivatives` (jacobian rows, time), by a
/// maximum bipartite matching on the structural nonzeros of dg/dz: every algebraic row then has a
/// structurally nonzero diagonal, which the static diagonal pivots of the sparse LU (sparse_lu_plan.hpp)
/// and the Newton iteration on the residuals need. Keeps the written order where it already matches.
/// Throws ModelError at the [algebraic] entry of the first variable no residual can be matched to
/// (none depends on it, or those that do are all needed by other variables: not index 1).
void match_algebraic_rows(const ModelDescription& d, ParsedEquations& equations, Derivatives& derivatives);

}  // namespace batchode::models
