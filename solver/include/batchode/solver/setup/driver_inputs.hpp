// solver/setup/: driver inputs (issue 11) as the user gives them (samples, uniform or at given times, one
// set for the batch or one per run) and their fit into the polynomial pieces the integrator evaluates
// (kernels/core/drivers.hpp): linear, or a cubic spline with natural, clamped, periodic or not-a-knot ends.
// The fit is made once per solve, in double, on the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batchode/checks/driver_rules.hpp"
#include "batchode/kernels/core/drivers.hpp"

namespace batchode {

/// How a cubic spline ends: natural, clamped, periodic, not_a_knot (checks/driver_rules.hpp, where the
/// rules a driver's samples follow are shared with the model loader).
using SplineEnd = checks::SplineEnd;

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
  /// Adaptive steps end on the samples' times (a linear driver's slope jumps there, a cubic spline's
  /// third derivative; a step across misjudges its error: 1000x the tolerance at rtol 1e-11). false:
  /// steps may straddle them (fewer steps for a smooth signal sampled finer than the steps need; the
  /// error may then exceed the tolerance where it is tight).
  bool land = true;
};

/// A driver fitted: the pieces of each of its sets (kernels/core/drivers.hpp's layout, in double).
struct FittedDriver {
  std::string name;
  std::size_t n_sets = 1;    ///< 1 (shared) or n_runs
  std::size_t n_pieces = 0;  ///< n_samples - 1
  int order = 1;
  bool wrap = false;
  bool land = true;
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
    d.land = land ? 1u : 0u;
    return d;
  }
};

/// Fits `spec` for a solve over [t0, t_end]. Throws InvalidInput naming the driver and the problem: a
/// name that is not an identifier, whatever checks::driver_problem refuses (a sample that is not
/// finite, by index and run; too few samples for the order and ends; times not increasing or not
/// finite; both or neither of times and dt; periodic ends whose first and last samples differ; an
/// order other than 1 or 3; values that are not whole rows of n_samples), a t_first that is not
/// finite, a span that does not cover [t0, t_end] without wrap.
FittedDriver fit_driver(const DriverSpec& spec, double t0, double t_end);

/// The drivers a system reads, fitted for a solve over [t0, t_end], in the system's order: `specs`
/// matched to `names` (the system's driver_names; empty: taken in order, n_drivers of them). Throws
/// InvalidInput naming the problem: a count that differs from the system's, a name the system does
/// not read or one given twice, a driver missing, per-run drivers with different numbers of runs, and
/// whatever fit_driver refuses.
std::vector<FittedDriver> fit_drivers(const std::vector<DriverSpec>& specs, const std::vector<std::string>& names,
                                      std::size_t n_drivers, double t0, double t_end);

/// The per-run sets of fitted drivers: the runs of the batch their per-run samples are for, or 1 when
/// every driver is shared.
std::size_t driver_sets(const std::vector<FittedDriver>& fitted);

/// Throws InvalidInput when per-run drivers (driver_sets(fitted) > 1) are not for a batch of `runs`.
void check_driver_sets(const std::vector<FittedDriver>& fitted, std::size_t runs);

/// A solve's drivers in precision T: the pieces RunSettings::drivers points to on the CPU, over
/// coefficients and knots this table owns (a GPU uploads copies: backends/gpu/chunk_pipeline.hpp).
template <class T>
class DriverTable {
 public:
  explicit DriverTable(std::vector<FittedDriver> fitted) : fitted_(std::move(fitted)) {
    sets_ = driver_sets(fitted_);
    coefficients_.resize(fitted_.size());
    knots_.resize(fitted_.size());
    for (std::size_t d = 0; d < fitted_.size(); ++d) {
      const FittedDriver& f = fitted_[d];
      coefficients_[d].assign(f.coefficients.begin(), f.coefficients.end());
      knots_[d].assign(f.knots.begin(), f.knots.end());
      DriverPieces<T> p;
      p.coefficients = coefficients_[d].data();
      p.knots = knots_[d].empty() ? nullptr : knots_[d].data();
      p.t_first = static_cast<T>(f.t_first);
      p.dt = static_cast<T>(f.dt);
      p.span = static_cast<T>(f.span);
      p.n_pieces = static_cast<std::uint32_t>(f.n_pieces);
      p.order = static_cast<std::uint32_t>(f.order);
      p.wrap = f.wrap ? 1u : 0u;
      p.n_sets = f.n_sets;
      p.land = f.land ? 1u : 0u;
      pieces_.push_back(p);
    }
  }
  DriverTable(const DriverTable&) = delete;  // pieces_ point into this table's vectors
  DriverTable& operator=(const DriverTable&) = delete;

  std::size_t size() const noexcept { return pieces_.size(); }
  const DriverPieces<T>* pieces() const noexcept { return pieces_.data(); }
  /// Per-run sets (the batch's runs), or 1 when every driver is shared.
  std::size_t sets() const noexcept { return sets_; }
  /// Driver d's coefficients (all its sets) and knots (empty: uniform), in T.
  const std::vector<T>& coefficients(std::size_t d) const { return coefficients_[d]; }
  const std::vector<T>& knots(std::size_t d) const { return knots_[d]; }
  const std::vector<FittedDriver>& fitted() const noexcept { return fitted_; }

 private:
  std::vector<FittedDriver> fitted_;
  std::size_t sets_ = 1;
  std::vector<std::vector<T>> coefficients_, knots_;
  std::vector<DriverPieces<T>> pieces_;
};

/// "natural", "clamped", "periodic", "not-a-knot"; parse_spline_end also takes "not_a_knot" and
/// throws InvalidInput naming the choices.
std::string to_string(SplineEnd end);
SplineEnd parse_spline_end(const std::string& name);

}  // namespace batchode
