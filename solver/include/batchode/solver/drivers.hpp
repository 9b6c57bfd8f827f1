// solver/: driver inputs (issue 11) as the user gives them (samples, uniform or at given times, one
// set for the batch or one per run) and their fit into the polynomial pieces the integrator evaluates
// (kernels/drivers.hpp): linear, or a cubic spline with natural, clamped, periodic or not-a-knot ends.
// The fit is made once per solve, in double, on the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "batchode/kernels/drivers.hpp"

namespace batchode {

/// How a cubic spline ends (scipy's CubicSpline bc_type; CuBIE's boundary_condition).
enum class SplineEnd {
  natural,     ///< second derivative 0 at both ends
  clamped,     ///< first derivative 0 at both ends
  periodic,    ///< first and second derivatives equal at both ends (the first and last sample must be equal)
  not_a_knot,  ///< third derivative continuous at the second and the second-to-last knot
};

/// One driver input: samples of a signal, interpolated where the runs need its value.
struct DriverSpec {
  std::string name;  ///< how the system reads it (model text: the [drivers] table's names)
  /// The samples: n_samples values shared by every run, or n_runs x n_samples, run-major (each run's
  /// own), with n_samples set.
  std::vector<double> values;
  std::size_t n_samples = 0;  ///< 0: values.size() (one set for the batch)
  /// The samples' times, increasing; or empty with `dt` set: t_first + k dt.
  std::vector<double> times;
  std::optional<double> dt;
  std::optional<double> t_first;       ///< the first sample's time with dt (unset: the solve's t0)
  int order = 1;                       ///< 1: linear, 3: cubic spline
  SplineEnd end = SplineEnd::natural;  ///< (order 3)
  bool wrap = false;                   ///< periodic signal: t is taken modulo the samples' span
};

/// A driver fitted: the pieces of each of its sets (kernels/drivers.hpp's layout, in double).
struct FittedDriver {
  std::string name;
  std::size_t n_sets = 1;    ///< 1 (shared) or n_runs
  std::size_t n_pieces = 0;  ///< n_samples - 1
  int order = 1;
  bool wrap = false;
  double t_first = 0, dt = 0, span = 0;  ///< dt 0: knots given
  std::vector<double> knots;             ///< n_pieces + 1 (empty: uniform)
  /// n_sets x n_pieces x (order + 1): set r's piece s at [(r * n_pieces + s) * (order + 1)].
  std::vector<double> coefficients;
  /// Set `set`'s pieces in precision T, pointing into `coefficients_t` and `knots_t` (filled here).
  template <class T>
  DriverPieces<T> pieces(std::size_t set, std::vector<T>& coefficients_t, std::vector<T>& knots_t) const {
    const std::size_t width = n_pieces * static_cast<std::size_t>(order + 1);
    coefficients_t.assign(coefficients.begin() + static_cast<std::ptrdiff_t>(set * width),
                          coefficients.begin() + static_cast<std::ptrdiff_t>((set + 1) * width));
    knots_t.assign(knots.begin(), knots.end());
    DriverPieces<T> d;
    d.coefficients = coefficients_t.data();
    d.knots = knots_t.empty() ? nullptr : knots_t.data();
    d.t_first = static_cast<T>(t_first);
    d.dt = static_cast<T>(dt);
    d.span = static_cast<T>(span);
    d.n_pieces = static_cast<std::uint32_t>(n_pieces);
    d.order = static_cast<std::uint32_t>(order);
    d.wrap = wrap ? 1u : 0u;
    return d;
  }
};

/// Fits `spec` for a solve over [t0, t_end]. Throws InvalidInput naming the driver and the problem: a
/// name that is not an identifier, a sample that is not finite (by index, and run), too few samples
/// for the order and ends, times not increasing or not finite, both or neither of times and dt, a
/// span that does not cover [t0, t_end] without wrap, periodic ends whose first and last samples
/// differ, an order other than 1 or 3, values that are not whole rows of n_samples.
FittedDriver fit_driver(const DriverSpec& spec, double t0, double t_end);

/// "natural", "clamped", "periodic", "not-a-knot"; parse_spline_end also takes "not_a_knot" and
/// throws InvalidInput naming the choices.
std::string to_string(SplineEnd end);
SplineEnd parse_spline_end(const std::string& name);

}  // namespace batchode
