// checks/: the rules a driver's samples and settings must meet (issue 11), written once for the two
// layers that take them: the model loader (models/model_toml.cpp) refuses a [drivers] table that
// breaks one at the key or the sample at fault (file:line:col), and the fit
// (solver/src/setup/driver_inputs.cpp) refuses a DriverSpec by its name; so `batchode check` catches what a
// solve would, in the same words. What depends on the solve (its span, t0 as the first sample's time, the
// runs of per-run samples) is the fit's alone. The loader sits below solver/, so the rules sit lower still,
// here.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "batchode/checks/fits_precision.hpp"

namespace batchode::checks {

/// How a cubic spline ends (scipy's CubicSpline bc_type; CuBIE's boundary_condition).
enum class SplineEnd {
  natural,     ///< second derivative 0 at both ends
  clamped,     ///< first derivative 0 at both ends
  periodic,    ///< first and second derivatives equal at both ends (the first and last sample must be equal)
  not_a_knot,  ///< third derivative continuous at the second and the second-to-last knot
};

/// "natural", "clamped", "periodic", "not-a-knot": the names a model file and Python write.
inline const char* spline_end_name(SplineEnd end) {
  switch (end) {
    case SplineEnd::natural:
      return "natural";
    case SplineEnd::clamped:
      return "clamped";
    case SplineEnd::periodic:
      return "periodic";
    case SplineEnd::not_a_knot:
      return "not-a-knot";
  }
  return "unknown";
}

/// The end called `name` (spline_end_name's, or "not_a_knot"), or nothing.
inline std::optional<SplineEnd> find_spline_end(const std::string& name) {
  for (SplineEnd end : {SplineEnd::natural, SplineEnd::clamped, SplineEnd::periodic, SplineEnd::not_a_knot}) {
    if (name == spline_end_name(end)) return end;
  }
  if (name == "not_a_knot") return SplineEnd::not_a_knot;
  return std::nullopt;
}

/// Why `name` is no spline end: "end = 'bogus' is not one of natural, clamped, periodic, not-a-knot".
inline std::string spline_end_problem(const std::string& name) {
  return "end = '" + name + "' is not one of natural, clamped, periodic, not-a-knot";
}

/// A driver's samples and settings, as a model file's table and a DriverSpec both hold them.
struct DriverSamples {
  const std::vector<double>& values;  ///< n_samples, or n_runs x n_samples (run-major)
  std::size_t n_samples;              ///< samples per run (values.size() for one set)
  const std::vector<double>& times;   ///< empty with dt
  std::optional<double> dt;
  int order;
  SplineEnd end;
};

/// A broken rule: the key at fault ("values", "times", "dt", "order"; empty: the driver as a whole),
/// the entry of it (values' and times' index, flat over the runs' sets) when one entry is, and the
/// message without the driver's name, which each caller writes its own way ("driver 'u': " in a model
/// file, "drivers['u']: " for a solve's).
struct DriverProblem {
  std::string key;
  std::optional<std::size_t> index;
  std::string message;
};

namespace detail {
/// "[k]" for one set of samples, "[run][sample]" for one per run.
inline std::string sample_index(std::size_t k, std::size_t n_samples, std::size_t n_values) {
  if (n_samples == 0 || n_values <= n_samples) return "[" + std::to_string(k) + "]";
  return "[" + std::to_string(k / n_samples) + "][" + std::to_string(k % n_samples) + "]";
}
}  // namespace detail

/// The first rule `s` breaks, or nothing: an order other than 1 or 3; fewer samples than the order
/// and ends need; values that are not whole runs of n_samples; a sample that is not finite; both or
/// neither of dt and times; dt not positive and finite; times not one per sample, not finite, or not
/// increasing; samples spanning no finite interval; periodic ends whose first and last samples differ.
inline std::optional<DriverProblem> driver_problem(const DriverSamples& s) {
  using detail::sample_index;
  const std::size_t n = s.n_samples;
  if (s.order != 1 && s.order != 3) {
    return DriverProblem{
        "order", {}, "order = " + std::to_string(s.order) + " is not 1 (linear) or 3 (cubic spline)"};
  }
  const std::size_t fewest =
      s.order == 1 ? 2 : (s.end == SplineEnd::natural || s.end == SplineEnd::clamped ? 3 : 4);
  if (n < fewest) {
    return DriverProblem{
        "values",
        {},
        "values has " + std::to_string(n) + (n == 1 ? " sample; " : " samples; ") +
            (s.order == 1 ? std::string("linear interpolation")
                          : "a cubic spline with " + std::string(spline_end_name(s.end)) + " ends") +
            " needs at least " + std::to_string(fewest)};
  }
  if (s.values.size() % n != 0 || s.values.empty()) {
    return DriverProblem{"values",
                         {},
                         "values has " + std::to_string(s.values.size()) +
                             " numbers, not a whole number of runs of n_samples = " + std::to_string(n)};
  }
  for (std::size_t k = 0; k < s.values.size(); ++k) {
    if (std::isfinite(s.values[k])) continue;
    return DriverProblem{"values", k,
                         "values" + sample_index(k, n, s.values.size()) + " = " + shortest_text(s.values[k]) +
                             " is not finite"};
  }
  if (s.dt && !s.times.empty()) {
    return DriverProblem{"dt", {}, "both dt and times are set: give one (uniform samples, or their times)"};
  }
  if (s.dt) {
    const double dt = *s.dt;
    if (!std::isfinite(dt) || !(dt > 0)) {
      return DriverProblem{"dt", {}, "dt = " + shortest_text(dt) + " is not positive and finite"};
    }
    if (!std::isfinite(static_cast<double>(n - 1) * dt)) {
      return DriverProblem{
          "dt",
          {},
          "dt = " + shortest_text(dt) + " over " + std::to_string(n) + " samples spans no finite interval"};
    }
  } else {
    if (s.times.empty()) return DriverProblem{"", {}, "give the samples' times or dt (neither is set)"};
    if (s.times.size() != n) {
      return DriverProblem{"times",
                           {},
                           "times has " + std::to_string(s.times.size()) + " entries for " +
                               std::to_string(n) + " samples: one time per sample"};
    }
    // The text only for the entry at fault: a driver may hold millions of samples.
    const auto entry = [&](std::size_t k) {
      return "times[" + std::to_string(k) + "] = " + shortest_text(s.times[k]);
    };
    for (std::size_t k = 0; k < n; ++k) {
      if (!std::isfinite(s.times[k])) return DriverProblem{"times", k, entry(k) + " is not finite"};
      if (k > 0 && !(s.times[k] > s.times[k - 1])) {
        return DriverProblem{"times", k,
                             entry(k) + " is not after " + entry(k - 1) + ": times must increase"};
      }
    }
    if (!std::isfinite(s.times[n - 1] - s.times[0])) {
      return DriverProblem{"times", n - 1,
                           "times span [" + shortest_text(s.times[0]) + ", " + shortest_text(s.times[n - 1]) +
                               "], not a finite interval"};
    }
  }
  if (s.order == 3 && s.end == SplineEnd::periodic) {
    for (std::size_t first = 0; first < s.values.size(); first += n) {
      const std::size_t last = first + n - 1;
      if (s.values[first] == s.values[last]) continue;
      return DriverProblem{
          "values", last,
          "values" + sample_index(last, n, s.values.size()) + " = " + shortest_text(s.values[last]) +
              " is not values" + sample_index(first, n, s.values.size()) + " = " +
              shortest_text(s.values[first]) + ": periodic ends need the first and last samples equal"};
    }
  }
  return std::nullopt;
}

}  // namespace batchode::checks
