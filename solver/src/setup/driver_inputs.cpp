// solver/setup/: driver_inputs.hpp's checks of the samples a user gives and their fit into polynomial pieces.
#include "batchode/solver/setup/driver_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "batchode/checks/driver_rules.hpp"
#include "batchode/checks/identifier.hpp"
#include "batchode/checks/invalid_input.hpp"

namespace batchode {

namespace {

/// Solves the tridiagonal system lower[i] x[i-1] + diag[i] x[i] + upper[i] x[i+1] = rhs[i] (Thomas'
/// algorithm; the spline systems here are diagonally dominant, so no pivoting is needed). In place:
/// rhs becomes x.
void solve_tridiagonal(std::vector<double> lower, std::vector<double> diag, const std::vector<double>& upper,
                       std::vector<double>& rhs) {
  const std::size_t n = diag.size();
  for (std::size_t i = 1; i < n; ++i) {
    const double w = lower[i] / diag[i - 1];
    diag[i] -= w * upper[i - 1];
    rhs[i] -= w * rhs[i - 1];
  }
  rhs[n - 1] /= diag[n - 1];
  for (std::size_t i = n - 1; i-- > 0;) rhs[i] = (rhs[i] - upper[i] * rhs[i + 1]) / diag[i];
}

/// The cyclic system (lower[0] couples x[0] to x[n-1], upper[n-1] x[n-1] to x[0]) by Sherman and
/// Morrison: two tridiagonal solves.
void solve_cyclic(std::vector<double> lower, std::vector<double> diag, std::vector<double> upper,
                  std::vector<double>& rhs) {
  const std::size_t n = diag.size();
  const double alpha = upper[n - 1], beta = lower[0];
  const double gamma = -diag[0];
  diag[0] -= gamma;
  diag[n - 1] -= alpha * beta / gamma;
  lower[0] = 0;
  upper[n - 1] = 0;
  std::vector<double> u(n, 0.0);
  u[0] = gamma;
  u[n - 1] = alpha;
  solve_tridiagonal(lower, diag, upper, rhs);
  solve_tridiagonal(lower, diag, upper, u);
  const double factor = (rhs[0] + beta * rhs[n - 1] / gamma) / (1 + u[0] + beta * u[n - 1] / gamma);
  for (std::size_t i = 0; i < n; ++i) rhs[i] -= factor * u[i];
}

/// The second derivatives M_0 .. M_n of the cubic spline through (x_i, y_i) with the given ends.
std::vector<double> second_derivatives(const std::vector<double>& x, const double* y, SplineEnd end) {
  const std::size_t n = x.size() - 1;  // pieces
  std::vector<double> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = x[i + 1] - x[i];
  auto slope = [&](std::size_t i) { return (y[i + 1] - y[i]) / h[i]; };
  std::vector<double> m(n + 1, 0.0);
  if (end == SplineEnd::natural || end == SplineEnd::not_a_knot) {
    // Unknowns M_1 .. M_{n-1}: h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (s_i - s_{i-1}).
    const std::size_t k = n - 1;
    std::vector<double> lower(k), diag(k), upper(k), rhs(k);
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t i = j + 1;
      lower[j] = h[i - 1];
      diag[j] = 2 * (h[i - 1] + h[i]);
      upper[j] = h[i];
      rhs[j] = 6 * (slope(i) - slope(i - 1));
    }
    if (end == SplineEnd::not_a_knot) {
      // M_0 = ((h_0 + h_1) M_1 - h_0 M_2) / h_1 and its mirror at the end, put into the first and
      // last equations (a continuous third derivative at x_1 and x_{n-1}; n >= 3: checks::driver_problem).
      diag[0] += h[0] * (h[0] + h[1]) / h[1];
      upper[0] -= h[0] * h[0] / h[1];
      diag[k - 1] += h[n - 1] * (h[n - 1] + h[n - 2]) / h[n - 2];
      lower[k - 1] -= h[n - 1] * h[n - 1] / h[n - 2];
    }
    solve_tridiagonal(lower, diag, upper, rhs);
    for (std::size_t j = 0; j < k; ++j) m[j + 1] = rhs[j];
    if (end == SplineEnd::not_a_knot) {
      m[0] = ((h[0] + h[1]) * m[1] - h[0] * m[2]) / h[1];
      m[n] = ((h[n - 1] + h[n - 2]) * m[n - 1] - h[n - 1] * m[n - 2]) / h[n - 2];
    }
  } else if (end == SplineEnd::clamped) {
    // Unknowns M_0 .. M_n, with the first derivative 0 at both ends.
    std::vector<double> lower(n + 1), diag(n + 1), upper(n + 1), rhs(n + 1);
    diag[0] = 2 * h[0];
    upper[0] = h[0];
    rhs[0] = 6 * slope(0);
    for (std::size_t i = 1; i < n; ++i) {
      lower[i] = h[i - 1];
      diag[i] = 2 * (h[i - 1] + h[i]);
      upper[i] = h[i];
      rhs[i] = 6 * (slope(i) - slope(i - 1));
    }
    lower[n] = h[n - 1];
    diag[n] = 2 * h[n - 1];
    rhs[n] = -6 * slope(n - 1);
    solve_tridiagonal(lower, diag, upper, rhs);
    m = rhs;
  } else {
    // Periodic: unknowns M_0 .. M_{n-1}, M_n = M_0; equation 0 wraps to the last piece.
    std::vector<double> lower(n), diag(n), upper(n), rhs(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t before = i == 0 ? n - 1 : i - 1;
      lower[i] = h[before];
      diag[i] = 2 * (h[before] + h[i]);
      upper[i] = h[i];
      rhs[i] = 6 * (slope(i) - slope(before));
    }
    solve_cyclic(lower, diag, upper, rhs);
    for (std::size_t i = 0; i < n; ++i) m[i] = rhs[i];
    m[n] = m[0];
  }
  return m;
}

}  // namespace

std::string to_string(SplineEnd end) { return checks::spline_end_name(end); }

SplineEnd parse_spline_end(const std::string& name) {
  if (const std::optional<SplineEnd> end = checks::find_spline_end(name)) return *end;
  throw InvalidInput(checks::spline_end_problem(name));
}

FittedDriver fit_driver(const DriverSpec& spec, double t0, double t_end) {
  const std::string what = fmt::format("drivers['{}']", spec.name);
  if (!checks::is_identifier(spec.name)) {
    throw InvalidInput(fmt::format(
        "{}: '{}' is not a name (letters, digits and '_', not starting with a digit)", what, spec.name));
  }
  const std::size_t samples = spec.n_samples == 0 ? spec.values.size() : spec.n_samples;
  if (const std::optional<checks::DriverProblem> problem =
          checks::driver_problem({spec.values, samples, spec.times, spec.dt, spec.order, spec.end})) {
    throw InvalidInput(what + ": " + problem->message);
  }
  FittedDriver fit;
  fit.name = spec.name;
  fit.n_sets = spec.values.size() / samples;
  fit.n_pieces = samples - 1;
  fit.order = spec.order;
  fit.wrap = spec.wrap;
  fit.land = spec.land;
  // The knots: uniform (dt) or given.
  std::vector<double> x(samples);
  if (spec.dt) {
    fit.t_first = spec.t_first.value_or(t0);
    if (!std::isfinite(fit.t_first)) {
      throw InvalidInput(fmt::format("{}: t_first must be finite, got {}", what, fit.t_first));
    }
    fit.dt = *spec.dt;
    for (std::size_t k = 0; k < samples; ++k) x[k] = std::fma(static_cast<double>(k), fit.dt, fit.t_first);
  } else {
    x = spec.times;
    fit.t_first = x[0];
    fit.knots = x;
  }
  // The rules saw the samples' own span; t0 as the first uniform sample's time can still push the
  // last one past double's range.
  fit.span = x.back() - x.front();
  if (!std::isfinite(fit.span) || !(fit.span > 0)) {
    throw InvalidInput(fmt::format("{}: the samples span [{}, {}], not a finite interval", what, x.front(), x.back()));
  }
  if (!spec.wrap) {
    const double slack = 1e-12 * std::max({1.0, std::fabs(t0), std::fabs(t_end)});
    if (x.front() > t0 + slack || x.back() < t_end - slack) {
      throw InvalidInput(
          fmt::format("{} covers [{}, {}], shorter than the solve's span [{}, {}]: give samples "
                      "to the span's ends, or wrap a periodic signal",
                      what, x.front(), x.back(), t0, t_end));
    }
  }
  const std::size_t width = static_cast<std::size_t>(spec.order + 1);
  fit.coefficients.resize(fit.n_sets * fit.n_pieces * width);
  for (std::size_t r = 0; r < fit.n_sets; ++r) {
    const double* y = spec.values.data() + r * samples;
    double* c = fit.coefficients.data() + r * fit.n_pieces * width;
    if (spec.order == 1) {
      for (std::size_t s = 0; s < fit.n_pieces; ++s) {
        c[s * 2] = y[s];
        c[s * 2 + 1] = (y[s + 1] - y[s]) / (x[s + 1] - x[s]);
      }
      continue;
    }
    const std::vector<double> m = second_derivatives(x, y, spec.end);
    for (std::size_t s = 0; s < fit.n_pieces; ++s) {
      const double h = x[s + 1] - x[s];
      c[s * 4] = y[s];
      c[s * 4 + 1] = (y[s + 1] - y[s]) / h - h * (2 * m[s] + m[s + 1]) / 6;
      c[s * 4 + 2] = m[s] / 2;
      c[s * 4 + 3] = (m[s + 1] - m[s]) / (6 * h);
    }
  }
  return fit;
}

std::vector<FittedDriver> fit_drivers(const std::vector<DriverSpec>& specs, const std::vector<std::string>& names,
                                      std::size_t n_drivers, double t0, double t_end) {
  // Each driver by its name where the system names them, before any count: a misspelt name is the
  // likely mistake, and "reads 1 driver but 2 were given" would hide it.
  std::string known;
  for (const std::string& name : names) known += (known.empty() ? "" : ", ") + name;
  const std::string theirs = n_drivers == 0 ? "the model reads no drivers" : "the model's drivers: " + known;
  std::vector<const DriverSpec*> ordered(n_drivers, nullptr);
  if (!names.empty() || n_drivers == 0) {
    for (const DriverSpec& spec : specs) {
      const auto at = std::find(names.begin(), names.end(), spec.name);
      if (at == names.end()) throw InvalidInput(fmt::format("no driver named '{}' ({})", spec.name, theirs));
      const auto d = static_cast<std::size_t>(at - names.begin());
      if (ordered[d] != nullptr) throw InvalidInput(fmt::format("drivers['{}'] is given twice", spec.name));
      ordered[d] = &spec;
    }
    for (std::size_t d = 0; d < n_drivers; ++d) {
      if (ordered[d] == nullptr) {
        throw InvalidInput(fmt::format("no samples for driver '{}' ({})", names[d], theirs));
      }
    }
  } else if (specs.size() != n_drivers) {  // drivers without names: taken in order
    throw InvalidInput(fmt::format("the system reads {} driver{} but SolveOptions.drivers gives {}",
                                   n_drivers, n_drivers == 1 ? "" : "s", specs.size()));
  } else {
    for (std::size_t i = 0; i < specs.size(); ++i) ordered[i] = &specs[i];
  }
  std::vector<FittedDriver> fitted;
  for (const DriverSpec* spec : ordered) fitted.push_back(fit_driver(*spec, t0, t_end));
  for (const FittedDriver& f : fitted) {
    for (const FittedDriver& g : fitted) {
      if (f.n_sets > 1 && g.n_sets > 1 && f.n_sets != g.n_sets) {
        throw InvalidInput(fmt::format("per-run drivers must be for the same runs: drivers['{}'] has {} sets of "
                                       "samples, drivers['{}'] {}",
                                       f.name, f.n_sets, g.name, g.n_sets));
      }
    }
  }
  return fitted;
}

std::size_t driver_sets(const std::vector<FittedDriver>& fitted) {
  std::size_t sets = 1;
  for (const FittedDriver& f : fitted) sets = std::max(sets, f.n_sets);
  return sets;
}

void check_driver_sets(const std::vector<FittedDriver>& fitted, std::size_t runs) {
  for (const FittedDriver& f : fitted) {
    if (f.n_sets > 1 && f.n_sets != runs) {
      throw InvalidInput(fmt::format("drivers['{}'] has samples for {} runs (one set per run) but the batch has {} "
                                     "runs",
                                     f.name, f.n_sets, runs));
    }
  }
}

}  // namespace batchode
