// models/: the reference interpreter: a model's trees evaluated in double, with exactly the semantics
// of the generated code (the same order of operations, ipow for small integer powers, min, max, abs
// and ifelse as kernels/core/model_math.hpp). Tests check generated code and symbolic derivatives against
// it; the CLI uses it to evaluate a model without compiling anything.
#pragma once

#include <cstddef>
#include <cstdint>

#include "batchode/models/model.hpp"

namespace batchode::models {

/// dydt = f(t, y, p); with algebraic variables, its last n_algebraic entries are the residuals g (zero
/// where y is consistent). y holds n_states values, p n_params (may be null when n_params is 0); u the
/// drivers' values at t (a model with drivers; std::logic_error without them).
void evaluate_rhs(const Model& model, double t, const double* y, const double* p, double* dydt,
                  const double* u = nullptr);

/// The symbolic Jacobian J = df/dy (n_states x n_states, row-major: J[i * n_states + j] = df_i/dy_j)
/// and f_t = df/dt, as the generated jacobian() and time_derivative() compute them. Either output may
/// be null to skip it. A model with drivers has no symbolic f_t (std::logic_error when asked for).
void evaluate_jacobian(const Model& model, double t, const double* y, const double* p, double* J,
                       double* f_t, const double* u = nullptr);

/// g = the event functions' values (Model::events order), as the generated events() computes them; the
/// slot of an event at given times is left alone (it has no function).
void evaluate_events(const Model& model, double t, const double* y, const double* p, double* g,
                     const double* u = nullptr);

/// Event `event`'s `assign` applied to y (n_states values) and p (n_params values: the run's own copy),
/// each changed in place where a statement assigns a state or a parameter, as the generated
/// event_assign() does: every right side is computed from y and p as they were (and the auxiliaries
/// computed from them), then all are stored (simultaneous). An event without assign leaves both alone.
/// p may be null when the model has no parameters. std::out_of_range when `event` is not below the
/// number of events.
void apply_event_assignments(const Model& model, std::size_t event, double t, double* y, double* p,
                             const double* u = nullptr);

/// Event `event`'s i-th time (i = 0, 1, ...) for the parameters p (may be null when its times read
/// none), as the generated event_time() computes it: at's i-th expression, +inf past the last; start + i
/// * every, +inf for i > 0 when every is not > 0; +inf for a zero-crossing event. std::out_of_range when
/// `event` is not below the number of events.
double evaluate_event_time(const Model& model, std::size_t event, std::uint32_t i, const double* p);

/// A tree that reads parameters, constants and numbers only (an event's times, ParsedEquations::
/// event_times), for the parameters p (may be null when it reads none).
double evaluate_fixed(const Model& model, const Expr& expression, const double* p);

/// The auxiliaries' values in order of definition (Model::auxiliary_names), for observables.
void evaluate_auxiliaries(const Model& model, double t, const double* y, const double* p, double* values,
                          const double* u = nullptr);

}  // namespace batchode::models
