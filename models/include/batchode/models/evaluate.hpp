// models/: the reference interpreter: a model's trees evaluated in double, with exactly the semantics
// of the generated code (the same order of operations, ipow for small integer powers, min, max, abs
// and ifelse as kernels/core/model_math.hpp). Tests check generated code and symbolic derivatives against
// it; the CLI uses it to evaluate a model without compiling anything.
#pragma once

#include <cstddef>

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

/// g = the event functions' values (Model::events order), as the generated events() computes them.
void evaluate_events(const Model& model, double t, const double* y, const double* p, double* g,
                     const double* u = nullptr);

/// Event `event`'s `assign` applied to y (n_states values, changed in place), as the generated
/// event_assign() does: every right side is computed from y as it was (and the auxiliaries computed from
/// it), then all are stored (simultaneous). An event without assign leaves y alone. std::out_of_range
/// when `event` is not below the number of events.
void apply_event_assignments(const Model& model, std::size_t event, double t, double* y, const double* p,
                             const double* u = nullptr);

/// The auxiliaries' values in order of definition (Model::auxiliary_names), for observables.
void evaluate_auxiliaries(const Model& model, double t, const double* y, const double* p, double* values,
                          const double* u = nullptr);

}  // namespace batchode::models
