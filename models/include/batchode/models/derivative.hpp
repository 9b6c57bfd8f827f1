// models/: exact symbolic derivatives of a model's equations (the Jacobian df/dy and df/dt that
// Rosenbrock methods need), and the simplification that keeps them small and sparse. Auxiliaries are
// differentiated once each (their derivatives become temporaries of the generated code), so a chain of
// auxiliaries costs a chain of temporaries, not an exponential expansion.
//
// Simplification applies to derivative trees only (the user's expressions are generated as written):
// literal arithmetic is folded (when the result is finite), neutral elements vanish (x+0, x-0, 0-x,
// 1*x, -1*x, x/1, x^1, x^0, -(-x)) and 0*x and 0/x are 0 whatever x is: a structural zero, as in
// any sparse Jacobian (it would differ only where x is infinite or NaN).
#pragma once

#include <cstddef>
#include <vector>

#include "batchode/models/expression.hpp"
#include "batchode/models/parser.hpp"

namespace batchode::models {

/// True for the literal 0 (either sign) and 1.
bool is_zero(const Expr& e);
bool is_one(const Expr& e);

// Simplifying node constructors.
ExprPtr simplify_negate(const ExprPtr& a);
ExprPtr simplify_add(const ExprPtr& a, const ExprPtr& b);
ExprPtr simplify_subtract(const ExprPtr& a, const ExprPtr& b);
ExprPtr simplify_multiply(const ExprPtr& a, const ExprPtr& b);
ExprPtr simplify_divide(const ExprPtr& a, const ExprPtr& b);
ExprPtr simplify_power(const ExprPtr& a, const ExprPtr& b);
ExprPtr simplify_ifelse(const ExprPtr& condition, const ExprPtr& a, const ExprPtr& b);

/// A model's derivatives. Variable v is state v for v < n_states, and t for v == n_states.
struct Derivatives {
  std::vector<std::vector<ExprPtr>> auxiliaries;  ///< [k][v]: d(auxiliary k)/d(variable v)
  std::vector<ExprPtr> jacobian;                  ///< [i * n_states + j]: d f_i / d y_j
  std::vector<ExprPtr> time;                      ///< [i]: d f_i / dt
};

/// d e / d(variable), simplified. A reference to auxiliary k becomes aux_derivatives[k][variable]
/// when that is a literal, else an aux_derivative node (the temporary holding it).
ExprPtr differentiate(const ExprPtr& e, std::size_t variable, std::size_t n_states,
                      const std::vector<std::vector<ExprPtr>>& aux_derivatives);

/// Every derivative of the model: auxiliaries first (in order), then the Jacobian and df/dt.
Derivatives differentiate_model(const ParsedEquations& equations, std::size_t n_states);

}  // namespace batchode::models
