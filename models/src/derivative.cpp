// models/: the derivative pass and its simplification (derivative.hpp). Every rule differentiates
// each operand once, so a derivative is at most quadratic in the size of its expression. The rules
// for abs, min and max take the branch kernels/core/dual.hpp takes, so the symbolic Jacobian equals forward
// AD through the generated code (to rounding).
#include "batchode/models/derivative.hpp"

#include <cmath>
#include <optional>
#include <utility>

namespace batchode::models {

namespace {

bool is_number(const Expr& e) { return e.kind == ExprKind::number; }
bool is_number(const Expr& e, double v) { return e.kind == ExprKind::number && e.value == v; }
bool negative_number(const Expr& e) { return e.kind == ExprKind::number && e.value < 0; }

/// A literal result, when it is finite (a generated literal must be a valid C++ number).
std::optional<ExprPtr> folded(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  return make_number(v);
}

ExprPtr node(ExprKind kind, std::vector<ExprPtr> args) { return make_node(kind, std::move(args)); }
ExprPtr call(Function f, std::vector<ExprPtr> args) { return make_call(f, std::move(args)); }
ExprPtr number(double v) {
  // Zero is by far the most frequent derivative: one shared node (trees are immutable).
  static const ExprPtr zero = make_number(0.0);
  return v == 0 && !std::signbit(v) ? zero : make_number(v);
}

/// The variables (states 0..n_states-1, t = n_states) e depends on, through earlier auxiliaries too.
std::vector<char> dependencies(const Expr& e, std::size_t n_states,
                               const std::vector<std::vector<char>>& aux) {
  std::vector<char> deps(n_states + 1, 0);
  std::vector<const Expr*> pending = {&e};
  while (!pending.empty()) {
    const Expr* x = pending.back();
    pending.pop_back();
    if (x->kind == ExprKind::state) deps[x->index] = 1;
    if (x->kind == ExprKind::time || x->kind == ExprKind::driver) deps[n_states] = 1;
    if (x->kind == ExprKind::auxiliary) {
      for (std::size_t v = 0; v <= n_states; ++v) deps[v] = deps[v] || aux[x->index][v];
    }
    for (const ExprPtr& a : x->args) pending.push_back(a.get());
  }
  return deps;
}
ExprPtr square(const ExprPtr& a) { return simplify_power(a, number(2)); }

class Differentiator {
 public:
  Differentiator(std::size_t variable, std::size_t n_states, const std::vector<std::vector<ExprPtr>>& aux)
      : variable_(variable), n_states_(n_states), aux_(aux) {}

  ExprPtr d(const ExprPtr& e) const {
    const Expr& x = *e;
    switch (x.kind) {
      case ExprKind::number:
      case ExprKind::parameter:
      case ExprKind::constant:
        return number(0);
      case ExprKind::state:
        return number(x.index == variable_ ? 1 : 0);
      case ExprKind::time:
        return number(variable_ == n_states_ ? 1 : 0);
      case ExprKind::driver:
        // A driver is a function of t alone: 0 in every state. Its slope in t is the fitted pieces',
        // which no tree holds: a model with drivers gets no symbolic df/dt (codegen.hpp), and this
        // tree is never used.
        return number(0);
      case ExprKind::auxiliary: {
        const ExprPtr& da = aux_[x.index][variable_];
        if (is_number(*da)) return da;
        return make_aux_derivative(x.index, variable_);
      }
      case ExprKind::aux_derivative:
        return number(0);  // never differentiated twice (no second derivatives)
      case ExprKind::negate:
        return simplify_negate(d(x.args[0]));
      case ExprKind::add:
        return simplify_add(d(x.args[0]), d(x.args[1]));
      case ExprKind::subtract:
        return simplify_subtract(d(x.args[0]), d(x.args[1]));
      case ExprKind::multiply: {
        const ExprPtr &a = x.args[0], &b = x.args[1];
        return simplify_add(simplify_multiply(d(a), b), simplify_multiply(a, d(b)));
      }
      case ExprKind::divide: {
        const ExprPtr &a = x.args[0], &b = x.args[1];
        const ExprPtr da = d(a), db = d(b);
        if (is_zero(*db)) return simplify_divide(da, b);
        if (is_zero(*da)) return simplify_negate(simplify_divide(simplify_multiply(a, db), square(b)));
        return simplify_divide(simplify_subtract(simplify_multiply(da, b), simplify_multiply(a, db)),
                               square(b));
      }
      case ExprKind::power:
        return power(e);
      case ExprKind::call:
        return function(e);
      case ExprKind::ifelse:
        return simplify_ifelse(x.args[0], d(x.args[1]), d(x.args[2]));
      default:
        return number(0);  // conditions: not differentiated (they only choose a branch)
    }
  }

 private:
  ExprPtr power(const ExprPtr& e) const {
    const ExprPtr &a = e->args[0], &b = e->args[1];
    const ExprPtr da = d(a), db = d(b);
    if (is_zero(*db)) {
      if (is_zero(*da)) return number(0);
      // b a^(b-1) da; a literal exponent stays literal (x^2 -> 2 x, x^-1 -> -1 x^-2).
      std::optional<double> literal;
      if (is_number(*b)) literal = b->value;
      if (b->kind == ExprKind::negate && is_number(*b->args[0])) literal = -b->args[0]->value;
      if (literal) {
        const double n = *literal;
        return simplify_multiply(simplify_multiply(number(n), simplify_power(a, number(n - 1))), da);
      }
      return simplify_multiply(simplify_multiply(b, simplify_power(a, simplify_subtract(b, number(1)))), da);
    }
    const ExprPtr log_a = call(Function::log, {a});
    if (is_zero(*da)) return simplify_multiply(simplify_multiply(e, log_a), db);
    // a^b (b' log a + b a' / a)
    return simplify_multiply(
        e, simplify_add(simplify_multiply(db, log_a), simplify_divide(simplify_multiply(b, da), a)));
  }

  ExprPtr function(const ExprPtr& e) const {
    const std::vector<ExprPtr>& args = e->args;
    const ExprPtr& a = args[0];
    switch (e->function) {
      case Function::floor:
        return number(0);  // piecewise constant
      case Function::atan2: {
        // atan2(y, x): (x y' - y x') / (x^2 + y^2)
        const ExprPtr &y = args[0], &x = args[1];
        const ExprPtr dy = d(y), dx = d(x);
        if (is_zero(*dy) && is_zero(*dx)) return number(0);
        return simplify_divide(simplify_subtract(simplify_multiply(x, dy), simplify_multiply(y, dx)),
                               simplify_add(square(x), square(y)));
      }
      case Function::min:
      case Function::max: {
        // min: b where b < a, else a; max: b where a < b, else a (kernels/core/model_math.hpp).
        const ExprPtr &p = args[0], &q = args[1];
        const ExprPtr condition =
            e->function == Function::min ? node(ExprKind::less, {q, p}) : node(ExprKind::less, {p, q});
        return simplify_ifelse(condition, d(q), d(p));
      }
      default:
        break;
    }
    const ExprPtr da = d(a);
    if (is_zero(*da)) return number(0);
    switch (e->function) {
      case Function::exp:
        return simplify_multiply(e, da);
      case Function::log:
        return simplify_divide(da, a);
      case Function::sqrt:
        return simplify_divide(da, simplify_multiply(number(2), e));
      case Function::sin:
        return simplify_multiply(call(Function::cos, {a}), da);
      case Function::cos:
        return simplify_negate(simplify_multiply(call(Function::sin, {a}), da));
      case Function::tan:
        return simplify_multiply(simplify_add(number(1), square(e)), da);
      case Function::asin:
        return simplify_divide(da, call(Function::sqrt, {simplify_subtract(number(1), square(a))}));
      case Function::acos:
        return simplify_negate(
            simplify_divide(da, call(Function::sqrt, {simplify_subtract(number(1), square(a))})));
      case Function::atan:
        return simplify_divide(da, simplify_add(number(1), square(a)));
      case Function::sinh:
        return simplify_multiply(call(Function::cosh, {a}), da);
      case Function::cosh:
        return simplify_multiply(call(Function::sinh, {a}), da);
      case Function::tanh:
        return simplify_multiply(simplify_subtract(number(1), square(e)), da);
      case Function::abs:
        // As Dual's fabs: -a' where a < 0, else a'.
        return simplify_ifelse(node(ExprKind::less, {a, number(0)}), simplify_negate(da), da);
      default:
        return number(0);  // handled above
    }
  }

  std::size_t variable_, n_states_;
  const std::vector<std::vector<ExprPtr>>& aux_;
};

}  // namespace

bool is_zero(const Expr& e) { return is_number(e, 0.0); }
bool is_one(const Expr& e) { return is_number(e, 1.0); }

ExprPtr simplify_negate(const ExprPtr& a) {
  if (is_number(*a)) return number(-a->value);
  if (a->kind == ExprKind::negate) return a->args[0];
  return node(ExprKind::negate, {a});
}

ExprPtr simplify_add(const ExprPtr& a, const ExprPtr& b) {
  if (is_zero(*a)) return b;
  if (is_zero(*b)) return a;
  if (is_number(*a) && is_number(*b)) {
    if (auto f = folded(a->value + b->value)) return *f;
  }
  if (b->kind == ExprKind::negate) return simplify_subtract(a, b->args[0]);
  if (a->kind == ExprKind::negate) return simplify_subtract(b, a->args[0]);
  return node(ExprKind::add, {a, b});
}

ExprPtr simplify_subtract(const ExprPtr& a, const ExprPtr& b) {
  if (is_zero(*b)) return a;
  if (is_zero(*a)) return simplify_negate(b);
  if (is_number(*a) && is_number(*b)) {
    if (auto f = folded(a->value - b->value)) return *f;
  }
  if (b->kind == ExprKind::negate) return simplify_add(a, b->args[0]);
  return node(ExprKind::subtract, {a, b});
}

ExprPtr simplify_multiply(const ExprPtr& a, const ExprPtr& b) {
  if (is_zero(*a) || is_zero(*b)) return number(0);
  if (is_one(*a)) return b;
  if (is_one(*b)) return a;
  if (is_number(*a, -1.0)) return simplify_negate(b);
  if (is_number(*b, -1.0)) return simplify_negate(a);
  if (is_number(*a) && is_number(*b)) {
    if (auto f = folded(a->value * b->value)) return *f;
  }
  // Signs move out (exact): -(x) * y = -(x * y), (-2) * y = -(2 * y); a sum then absorbs them.
  if (a->kind == ExprKind::negate) return simplify_negate(simplify_multiply(a->args[0], b));
  if (b->kind == ExprKind::negate) return simplify_negate(simplify_multiply(a, b->args[0]));
  if (negative_number(*a)) return simplify_negate(simplify_multiply(number(-a->value), b));
  if (negative_number(*b)) return simplify_negate(simplify_multiply(a, number(-b->value)));
  return node(ExprKind::multiply, {a, b});
}

ExprPtr simplify_divide(const ExprPtr& a, const ExprPtr& b) {
  if (is_zero(*a)) return number(0);
  if (is_one(*b)) return a;
  if (is_number(*b, -1.0)) return simplify_negate(a);
  if (is_number(*a) && is_number(*b) && b->value != 0) {
    if (auto f = folded(a->value / b->value)) return *f;
  }
  if (a->kind == ExprKind::negate) return simplify_negate(simplify_divide(a->args[0], b));
  if (b->kind == ExprKind::negate) return simplify_negate(simplify_divide(a, b->args[0]));
  if (negative_number(*a)) return simplify_negate(simplify_divide(number(-a->value), b));
  if (negative_number(*b)) return simplify_negate(simplify_divide(a, number(-b->value)));
  return node(ExprKind::divide, {a, b});
}

ExprPtr simplify_power(const ExprPtr& a, const ExprPtr& b) {
  if (is_one(*b)) return a;
  if (is_zero(*b)) return number(1);
  if (is_number(*a)) {
    if (const std::optional<int> n = small_integer_exponent(*b)) {
      if (auto f = folded(integer_power(a->value, *n))) return *f;
    }
  }
  return node(ExprKind::power, {a, b});
}

ExprPtr simplify_ifelse(const ExprPtr& condition, const ExprPtr& a, const ExprPtr& b) {
  if (same_tree(*a, *b)) return a;
  return node(ExprKind::ifelse, {condition, a, b});
}

ExprPtr differentiate(const ExprPtr& e, std::size_t variable, std::size_t n_states,
                      const std::vector<std::vector<ExprPtr>>& aux_derivatives) {
  return Differentiator(variable, n_states, aux_derivatives).d(e);
}

Derivatives differentiate_model(const ParsedEquations& equations, std::size_t n_states) {
  // Only the variables an expression depends on are differentiated in: a large sparse model costs its
  // nonzeros, not n_states^2 walks of every equation.
  Derivatives out;
  const std::size_t n_vars = n_states + 1;
  std::vector<std::vector<char>> aux_deps;
  out.auxiliaries.reserve(equations.auxiliaries.size());
  for (const Auxiliary& aux : equations.auxiliaries) {
    aux_deps.push_back(dependencies(*aux.value, n_states, aux_deps));
    std::vector<ExprPtr> row(n_vars, number(0));
    for (std::size_t v = 0; v < n_vars; ++v) {
      if (aux_deps.back()[v]) row[v] = differentiate(aux.value, v, n_states, out.auxiliaries);
    }
    out.auxiliaries.push_back(std::move(row));
  }
  out.jacobian.assign(n_states * n_states, number(0));
  out.time.assign(n_states, number(0));
  for (std::size_t i = 0; i < n_states; ++i) {
    const std::vector<char> deps = dependencies(*equations.rhs[i], n_states, aux_deps);
    for (std::size_t j = 0; j < n_states; ++j) {
      if (deps[j])
        out.jacobian[i * n_states + j] = differentiate(equations.rhs[i], j, n_states, out.auxiliaries);
    }
    if (deps[n_states]) out.time[i] = differentiate(equations.rhs[i], n_states, n_states, out.auxiliaries);
  }
  return out;
}

}  // namespace batchode::models
