// The exact solution of ForcedDecay (test_systems.hpp), y' = -a y + b u(t) + v(t), for drivers u and v
// given as fitted pieces: between consecutive knots of either driver the forcing is a polynomial q of
// degree <= 3, whose particular solution is sum_j (-1)^j q^(j)(t) / a^(j+1); the homogeneous part
// e^(-a (t - s)) joins the segments. Computed in double from the fit's own coefficients (not through
// kernels/core/drivers.hpp's evaluation), so the integrator is checked against an independent closed form
// of the very inputs it was given: only its own error remains.
#pragma once

#include <batchode/solver/setup/driver_inputs.hpp>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace batchode::testing {

/// Piece s of set `set` of a fitted driver (no wrap): its knot and coefficients.
struct FittedPiece {
  double knot = 0;
  const double* c = nullptr;
  int order = 1;
  /// The j-th derivative at t (j = 0: the value).
  double derivative(int j, double t) const {
    const double x = t - knot;
    double sum = 0;
    for (int i = order; i >= j; --i) {
      double falling = 1;
      for (int k = 0; k < j; ++k) falling *= i - k;
      sum = sum * x + c[i] * falling;
    }
    return sum;
  }
};

inline FittedPiece piece_holding(const FittedDriver& f, std::size_t set, double t) {
  std::size_t s = 0;
  if (f.knots.empty()) {
    const double at = std::floor((t - f.t_first) / f.dt);
    s = at <= 0 ? 0 : std::min(static_cast<std::size_t>(at), f.n_pieces - 1);
  } else {
    const auto above = std::upper_bound(f.knots.begin(), f.knots.end(), t);
    s = above == f.knots.begin() ? 0 : std::min(static_cast<std::size_t>(above - f.knots.begin()) - 1, f.n_pieces - 1);
  }
  const std::size_t width = static_cast<std::size_t>(f.order + 1);
  const std::size_t first = f.n_sets > 1 ? set * f.n_pieces * width : 0;
  const double knot = f.knots.empty() ? std::fma(static_cast<double>(s), f.dt, f.t_first) : f.knots[s];
  return {knot, f.coefficients.data() + first + s * width, f.order};
}

inline std::vector<double> knots_of(const FittedDriver& f) {
  if (!f.knots.empty()) return f.knots;
  std::vector<double> k;
  for (std::size_t s = 0; s <= f.n_pieces; ++s) k.push_back(std::fma(static_cast<double>(s), f.dt, f.t_first));
  return k;
}

/// Driver `name` sampled every dt from 0, n_samples a run: f(r, t) for each of `runs` runs (one set per
/// run), or f(0, t) once when runs is 0 (one set for the batch).
inline DriverSpec sampled_driver(const std::string& name, double dt, std::size_t n_samples, std::size_t runs,
                                 const std::function<double(std::size_t, double)>& f) {
  DriverSpec d;
  d.name = name;
  d.dt = dt;
  for (std::size_t r = 0; r < (runs > 0 ? runs : 1); ++r) {
    for (std::size_t k = 0; k < n_samples; ++k) d.values.push_back(f(r, dt * static_cast<double>(k)));
  }
  if (runs > 0) d.n_samples = n_samples;
  return d;
}

/// v = 0.5 cos(2 t) at uneven times (given, not uniform) over [0, t_end], the same for every run.
inline DriverSpec uneven_cosine_driver(int order, double t_end) {
  DriverSpec v;
  v.name = "v";
  v.order = order;
  for (double t = 0; t < t_end; t += 0.07 + 0.05 * std::sin(7 * t)) v.times.push_back(t);
  v.times.push_back(t_end);
  for (double t : v.times) v.values.push_back(0.5 * std::cos(2 * t));
  return v;
}

/// y at each of `times` (increasing, >= t0) of y' = -a y + b u + v from y(t0) = y0, run `set`'s drivers.
inline std::vector<double> forced_decay_exact(const FittedDriver& u, const FittedDriver& v, std::size_t set, double a,
                                              double b, double y0, double t0, const std::vector<double>& times) {
  std::vector<double> breaks = {t0};
  for (const FittedDriver* f : {&u, &v}) {
    for (double k : knots_of(*f)) {
      if (k > t0 && k < times.back()) breaks.push_back(k);
    }
  }
  for (double t : times) breaks.push_back(t);
  std::sort(breaks.begin(), breaks.end());
  std::vector<double> out;
  std::size_t next = 0;
  double y = y0, at = t0;
  while (next < times.size() && times[next] <= t0) {
    out.push_back(y0);
    ++next;
  }
  for (std::size_t i = 1; i < breaks.size() && next < times.size(); ++i) {
    const double s1 = breaks[i];
    if (s1 > at) {
      const double mid = 0.5 * (at + s1);
      const FittedPiece pu = piece_holding(u, set, mid), pv = piece_holding(v, set, mid);
      auto particular = [&](double t) {
        double sum = 0, power = a, sign = 1;
        for (int j = 0; j <= 3; ++j) {
          sum += sign * (b * pu.derivative(j, t) + pv.derivative(j, t)) / power;
          power *= a;
          sign = -sign;
        }
        return sum;
      };
      y = particular(s1) + (y - particular(at)) * std::exp(-a * (s1 - at));
      at = s1;
    }
    while (next < times.size() && times[next] <= at) {
      out.push_back(y);
      ++next;
    }
  }
  return out;
}

}  // namespace batchode::testing
