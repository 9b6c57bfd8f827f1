// models/: the expression tree every later stage reads: the parser (parser.cpp) builds it, the
// derivative pass (derivative.cpp) builds more of it, and the code generator (codegen.cpp) and the
// reference interpreter (evaluate.cpp) walk it with the same semantics. Nodes are immutable and
// shared (std::shared_ptr<const Expr>), so a Model is cheap to copy and derivatives reuse subtrees.
// Also the model language's fixed vocabulary: its functions, their arities and its reserved words.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace batchode::models {

/// What a node is. Arithmetic nodes have a number value; conditions (comparisons and the logic on
/// them) have a truth value and appear only as the first operand of `ifelse`.
enum class ExprKind : unsigned char {
  number,          ///< a literal: value
  state,           ///< y[index]
  parameter,       ///< p[index]
  constant,        ///< the constant `index` (compiled in)
  auxiliary,       ///< the auxiliary `index`, defined by an earlier statement
  aux_derivative,  ///< d(auxiliary index)/d(variable): only in derivative trees
  time,            ///< t
  driver,          ///< u[index]: a driver's value at t (kernels/outputs/driven_system.hpp)
  negate,          ///< -args[0]
  add,             ///< args[0] + args[1]
  subtract,        ///< args[0] - args[1]
  multiply,        ///< args[0] * args[1]
  divide,          ///< args[0] / args[1]
  power,           ///< args[0] ^ args[1] (also written ** or pow(a, b))
  call,            ///< function(args...)
  ifelse,          ///< args[0] (a condition) ? args[1] : args[2]
  less,            ///< conditions from here on
  greater,
  less_equal,
  greater_equal,
  equal,
  not_equal,
  logical_and,
  logical_or,
  logical_not,
};

/// The functions of the model language other than pow and ifelse (which have node kinds of their own).
enum class Function : unsigned char {
  exp,
  log,
  sqrt,
  sin,
  cos,
  tan,
  asin,
  acos,
  atan,
  atan2,
  sinh,
  cosh,
  tanh,
  abs,
  min,
  max,
  floor,
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// One node. Which members mean something depends on `kind` (see ExprKind).
struct Expr {
  ExprKind kind = ExprKind::number;
  double value = 0;                   ///< number
  std::size_t index = 0;              ///< state, parameter, constant, auxiliary, aux_derivative: which one
  std::size_t variable = 0;           ///< aux_derivative: the state it is taken in, n_states for t
  Function function = Function::exp;  ///< call
  std::vector<ExprPtr> args;          ///< operands, in order
};

/// True for the kinds that yield a truth value (comparisons, and, or, not).
bool is_condition(ExprKind kind);

/// A function's name as written and in generated code, and its number of arguments.
const char* function_name(Function f);
std::size_t function_arity(Function f);
/// The function called `name`, if the language has one (pow and ifelse are not in this list).
std::optional<Function> find_function(std::string_view name);

/// Every name a model may not declare: t, the function names (pow and ifelse included), and, or, not.
const std::vector<std::string>& reserved_words();
bool is_reserved_word(std::string_view name);

/// The exponent of a power node when it is a small integer written as a number, possibly negated
/// (x^2, x^-1, pow(x, 3.0)): -2..4. Code generation writes these as products (model_math::ipow) and the
/// interpreter evaluates them the same way, so both give identical results.
std::optional<int> small_integer_exponent(const Expr& exponent);
/// x^n for such an n, computed exactly as model_math::ipow<n> does (x*x, (x*x)*x, (x*x)*(x*x), 1/x, 1/(x*x)).
double integer_power(double x, int n);

// Node constructors (no simplification; derivative.hpp has the simplifying ones).
ExprPtr make_number(double value);
ExprPtr make_symbol(ExprKind kind, std::size_t index);
ExprPtr make_time();
ExprPtr make_aux_derivative(std::size_t aux, std::size_t variable);
ExprPtr make_node(ExprKind kind, std::vector<ExprPtr> args);
ExprPtr make_call(Function f, std::vector<ExprPtr> args);

/// True when the trees are structurally the same (same kinds, values, indices and operands).
bool same_tree(const Expr& a, const Expr& b);

}  // namespace batchode::models
