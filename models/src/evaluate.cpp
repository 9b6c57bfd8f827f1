// models/: the reference interpreter (evaluate.hpp): a recursive walk over the trees. Every rule
// mirrors what codegen.cpp prints and kernels/core/model_math.hpp computes for T = double, so the two agree
// bit for bit on the same machine.
#include "batchode/models/evaluate.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace batchode::models {

namespace {

class Interpreter {
 public:
  Interpreter(const Model& m, double t, const double* y, const double* p, const double* u)
      : m_(m), t_(t), y_(y), p_(p), u_(u) {
    if (u == nullptr && !m.drivers().empty()) {
      throw std::logic_error("models::evaluate: model '" + m.name() + "' reads drivers; give their values u");
    }
    const std::vector<Auxiliary>& aux = m.equations().auxiliaries;
    aux_.reserve(aux.size());
    for (const Auxiliary& a : aux) aux_.push_back(number(*a.value));  // each uses earlier ones only
  }

  /// For trees that read parameters, constants and numbers only (an event's times): no state, t, driver
  /// or auxiliary to give.
  Interpreter(const Model& m, const double* p) : m_(m), t_(0), y_(nullptr), p_(p), u_(nullptr) {}

  const std::vector<double>& auxiliaries() const { return aux_; }

  /// The auxiliaries' derivatives in variable v (a state, or t for v == n_states), for the
  /// aux_derivative nodes of that variable's derivative trees.
  void set_variable(std::size_t v) {
    const std::vector<std::vector<ExprPtr>>& d = m_.derivatives().auxiliaries;
    daux_.assign(d.size(), 0.0);
    for (std::size_t k = 0; k < d.size(); ++k) daux_[k] = number(*d[k][v]);
  }

  double number(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::number:
        return e.value;
      case ExprKind::state:
        return y_[e.index];
      case ExprKind::parameter:
        return p_[e.index];
      case ExprKind::constant:
        return m_.constants()[e.index].value;
      case ExprKind::auxiliary:
        return aux_[e.index];
      case ExprKind::aux_derivative:
        return daux_[e.index];
      case ExprKind::time:
        return t_;
      case ExprKind::driver:
        return u_[e.index];
      case ExprKind::negate:
        return -number(*e.args[0]);
      case ExprKind::add:
        return number(*e.args[0]) + number(*e.args[1]);
      case ExprKind::subtract:
        return number(*e.args[0]) - number(*e.args[1]);
      case ExprKind::multiply:
        return number(*e.args[0]) * number(*e.args[1]);
      case ExprKind::divide:
        return number(*e.args[0]) / number(*e.args[1]);
      case ExprKind::power:
        if (const std::optional<int> n = small_integer_exponent(*e.args[1])) {
          return integer_power(number(*e.args[0]), *n);
        }
        return std::pow(number(*e.args[0]), number(*e.args[1]));
      case ExprKind::call:
        return call(e);
      case ExprKind::ifelse:
        return truth(*e.args[0]) ? number(*e.args[1]) : number(*e.args[2]);
      default:
        return truth(e) ? 1.0 : 0.0;  // never: conditions only appear as ifelse's first operand
    }
  }

 private:
  double call(const Expr& e) const {
    const double a = number(*e.args[0]);
    switch (e.function) {
      case Function::exp:
        return std::exp(a);
      case Function::log:
        return std::log(a);
      case Function::sqrt:
        return std::sqrt(a);
      case Function::sin:
        return std::sin(a);
      case Function::cos:
        return std::cos(a);
      case Function::tan:
        return std::tan(a);
      case Function::asin:
        return std::asin(a);
      case Function::acos:
        return std::acos(a);
      case Function::atan:
        return std::atan(a);
      case Function::atan2:
        return std::atan2(a, number(*e.args[1]));
      case Function::sinh:
        return std::sinh(a);
      case Function::cosh:
        return std::cosh(a);
      case Function::tanh:
        return std::tanh(a);
      case Function::abs:
        return std::fabs(a);
      case Function::min: {
        const double b = number(*e.args[1]);
        return b < a ? b : a;
      }
      case Function::max: {
        const double b = number(*e.args[1]);
        return a < b ? b : a;
      }
      case Function::floor:
        return std::floor(a);
    }
    return 0;  // unreachable: every function is handled above
  }

  bool truth(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::less:
        return number(*e.args[0]) < number(*e.args[1]);
      case ExprKind::greater:
        return number(*e.args[0]) > number(*e.args[1]);
      case ExprKind::less_equal:
        return number(*e.args[0]) <= number(*e.args[1]);
      case ExprKind::greater_equal:
        return number(*e.args[0]) >= number(*e.args[1]);
      case ExprKind::equal:
        return number(*e.args[0]) == number(*e.args[1]);
      case ExprKind::not_equal:
        return number(*e.args[0]) != number(*e.args[1]);
      case ExprKind::logical_and:
        return truth(*e.args[0]) && truth(*e.args[1]);
      case ExprKind::logical_or:
        return truth(*e.args[0]) || truth(*e.args[1]);
      case ExprKind::logical_not:
        return !truth(*e.args[0]);
      default:
        return number(e) != 0;  // never: the parser admits only conditions here
    }
  }

  const Model& m_;
  double t_;
  const double* y_;
  const double* p_;
  const double* u_;
  std::vector<double> aux_, daux_;
};

}  // namespace

void evaluate_rhs(const Model& model, double t, const double* y, const double* p, double* dydt, const double* u) {
  const Interpreter in(model, t, y, p, u);
  for (std::size_t i = 0; i < model.n_states(); ++i) dydt[i] = in.number(*model.equations().rhs[i]);
}

void evaluate_jacobian(const Model& model, double t, const double* y, const double* p, double* J,
                       double* f_t, const double* u) {
  if (f_t != nullptr && !model.drivers().empty()) {
    throw std::logic_error("models::evaluate_jacobian: model '" + model.name() +
                           "' reads drivers, whose slopes in t no tree holds: no symbolic df/dt");
  }
  Interpreter in(model, t, y, p, u);
  const std::size_t n = model.n_states();
  const Derivatives& d = model.derivatives();
  if (J != nullptr) {
    for (std::size_t j = 0; j < n; ++j) {
      in.set_variable(j);
      for (std::size_t i = 0; i < n; ++i) J[i * n + j] = in.number(*d.jacobian[i * n + j]);
    }
  }
  if (f_t != nullptr) {
    in.set_variable(n);
    for (std::size_t i = 0; i < n; ++i) f_t[i] = in.number(*d.time[i]);
  }
}

void evaluate_events(const Model& model, double t, const double* y, const double* p, double* g, const double* u) {
  const Interpreter in(model, t, y, p, u);
  for (std::size_t e = 0; e < model.equations().events.size(); ++e) {
    if (const ExprPtr& g_e = model.equations().events[e]) g[e] = in.number(*g_e);  // (null: at given times)
  }
}

double evaluate_fixed(const Model& model, const Expr& expression, const double* p) {
  return Interpreter(model, p).number(expression);
}

double evaluate_event_time(const Model& model, std::size_t event, std::uint32_t i, const double* p) {
  const std::vector<EventTimes>& all = model.equations().event_times;
  if (event >= all.size()) {
    throw std::out_of_range("models::evaluate_event_time: model '" + model.name() + "' has " +
                            std::to_string(all.size()) + " events, not an event " + std::to_string(event));
  }
  const EventTimes& times = all[event];
  const double never = std::numeric_limits<double>::infinity();
  const Interpreter in(model, p);
  if (!times.at.empty()) return i < times.at.size() ? in.number(*times.at[i]) : never;
  if (!times.every) return never;  // a zero crossing
  const double start = in.number(*times.start);
  const double every = in.number(*times.every);
  if (i > 0 && !(every > 0)) return never;  // a period that is not > 0 (or NaN) at run time: start only
  return start + static_cast<double>(i) * every;
}

void apply_event_assignments(const Model& model, std::size_t event, double t, double* y, double* p,
                             const double* u) {
  const std::vector<std::vector<EventAssignment>>& all = model.equations().event_assignments;
  if (event >= all.size()) {
    throw std::out_of_range("models::apply_event_assignments: model '" + model.name() + "' has " +
                            std::to_string(all.size()) + " events, not an event " + std::to_string(event));
  }
  if (all[event].empty()) return;
  std::vector<double> values;
  {
    const Interpreter in(model, t, y, p, u);  // reads y and p: every value before any store
    for (const EventAssignment& a : all[event]) values.push_back(in.number(*a.value));
  }
  for (std::size_t k = 0; k < values.size(); ++k) {
    const EventAssignment& a = all[event][k];
    (a.parameter ? p : y)[a.index] = values[k];
  }
}

void evaluate_auxiliaries(const Model& model, double t, const double* y, const double* p, double* values,
                          const double* u) {
  const Interpreter in(model, t, y, p, u);
  for (std::size_t k = 0; k < in.auxiliaries().size(); ++k) values[k] = in.auxiliaries()[k];
}

}  // namespace batchode::models
