// models/src/parse/: the expression tree's helpers and the language's vocabulary (functions, arities, reserved
// words), one table shared by the parser, the derivative pass, the code generator and the interpreter.
#include "batchode/models/expression.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace batchode::models {

namespace {

struct FunctionInfo {
  Function function;
  const char* name;
  std::size_t arity;
};

constexpr FunctionInfo kFunctions[] = {
    {Function::exp, "exp", 1},     {Function::log, "log", 1},     {Function::sqrt, "sqrt", 1},
    {Function::sin, "sin", 1},     {Function::cos, "cos", 1},     {Function::tan, "tan", 1},
    {Function::asin, "asin", 1},   {Function::acos, "acos", 1},   {Function::atan, "atan", 1},
    {Function::atan2, "atan2", 2}, {Function::sinh, "sinh", 1},   {Function::cosh, "cosh", 1},
    {Function::tanh, "tanh", 1},   {Function::abs, "abs", 1},     {Function::min, "min", 2},
    {Function::max, "max", 2},     {Function::floor, "floor", 1},
};

const FunctionInfo& info(Function f) {
  for (const FunctionInfo& i : kFunctions) {
    if (i.function == f) return i;
  }
  return kFunctions[0];  // unreachable: every enumerator is in the table
}

}  // namespace

bool is_condition(ExprKind kind) {
  switch (kind) {
    case ExprKind::less:
    case ExprKind::greater:
    case ExprKind::less_equal:
    case ExprKind::greater_equal:
    case ExprKind::equal:
    case ExprKind::not_equal:
    case ExprKind::logical_and:
    case ExprKind::logical_or:
    case ExprKind::logical_not:
      return true;
    default:
      return false;
  }
}

const char* function_name(Function f) { return info(f).name; }
std::size_t function_arity(Function f) { return info(f).arity; }

std::optional<Function> find_function(std::string_view name) {
  for (const FunctionInfo& i : kFunctions) {
    if (name == i.name) return i.function;
  }
  return std::nullopt;
}

const std::vector<std::string>& reserved_words() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> w = {"t", "pow", "ifelse", "and", "or", "not"};
    for (const FunctionInfo& i : kFunctions) w.emplace_back(i.name);
    return w;
  }();
  return words;
}

bool is_reserved_word(std::string_view name) {
  const std::vector<std::string>& words = reserved_words();
  return std::find(words.begin(), words.end(), name) != words.end();
}

std::optional<int> small_integer_exponent(const Expr& exponent) {
  double v = 0;
  if (exponent.kind == ExprKind::number) {
    v = exponent.value;
  } else if (exponent.kind == ExprKind::negate && exponent.args[0]->kind == ExprKind::number) {
    v = -exponent.args[0]->value;
  } else {
    return std::nullopt;
  }
  if (!(v >= -2 && v <= 4) || v != std::floor(v)) return std::nullopt;
  return static_cast<int>(v);
}

double integer_power(double x, int n) {
  switch (n) {
    case 0:
      return 1;
    case 1:
      return x;
    case 2:
      return x * x;
    case 3:
      return x * x * x;
    case 4: {
      const double x2 = x * x;
      return x2 * x2;
    }
    case -1:
      return 1 / x;
    default:
      return 1 / (x * x);
  }
}

ExprPtr make_number(double value) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::number;
  e->value = value;
  return e;
}

ExprPtr make_symbol(ExprKind kind, std::size_t index) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->index = index;
  return e;
}

ExprPtr make_time() { return make_symbol(ExprKind::time, 0); }

ExprPtr make_aux_derivative(std::size_t aux, std::size_t variable) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::aux_derivative;
  e->index = aux;
  e->variable = variable;
  return e;
}

ExprPtr make_node(ExprKind kind, std::vector<ExprPtr> args) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->args = std::move(args);
  return e;
}

ExprPtr make_call(Function f, std::vector<ExprPtr> args) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::call;
  e->function = f;
  e->args = std::move(args);
  return e;
}

bool same_tree(const Expr& a, const Expr& b) {
  if (&a == &b) return true;
  if (a.kind != b.kind || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::number:
      // Bitwise-equal values (0.0 and -0.0 differ; NaN never occurs in a tree).
      if (!(a.value == b.value && std::signbit(a.value) == std::signbit(b.value))) return false;
      break;
    case ExprKind::state:
    case ExprKind::parameter:
    case ExprKind::constant:
    case ExprKind::auxiliary:
    case ExprKind::driver:
      if (a.index != b.index) return false;
      break;
    case ExprKind::aux_derivative:
      if (a.index != b.index || a.variable != b.variable) return false;
      break;
    case ExprKind::call:
      if (a.function != b.function) return false;
      break;
    default:
      break;
  }
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (!same_tree(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

}  // namespace batchode::models
