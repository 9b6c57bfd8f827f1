// tests/support: a linear system of any size whose Jacobian is dense for the Rosenbrock methods (no band
// narrower than N), with its solution in closed form, compiled in and as model text: the tests of large
// stiff systems on the CPU (issue 44: dense N x N matrices off the stack).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace batchode::testing {

/// N states, each coupled to its mirror: y_i' = -a y_i + b y_{N-1-i}, p = {a, b}. J is the diagonal
/// plus the antidiagonal: its band is the whole matrix, so a Rosenbrock step takes the dense path.
template <std::size_t N>
struct MirroredDecay {
  static constexpr std::size_t n_states = N;
  static constexpr std::size_t n_params = 2;
  template <class T>
  void operator()(T, const T* y, const T* p, T* f) const {
    for (std::size_t i = 0; i < N; ++i) f[i] = -p[0] * y[i] + p[1] * y[N - 1 - i];
  }
};

/// MirroredDecay's state at t from y0: each pair's sum decays at a - b, its difference at a + b.
inline std::vector<double> mirrored_decay_solution(const std::vector<double>& y0, double a, double b,
                                                   double t) {
  const std::size_t n = y0.size();
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double sum = y0[i] + y0[n - 1 - i], difference = y0[i] - y0[n - 1 - i];
    y[i] = (sum * std::exp(-(a - b) * t) + difference * std::exp(-(a + b) * t)) / 2;
  }
  return y;
}

/// MirroredDecay with n states as model text: states y1 .. yn starting at y0, parameters a and b.
inline std::string mirrored_decay_toml(const std::vector<double>& y0, double a, double b) {
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return std::string(text);
  };
  const std::size_t n = y0.size();
  std::string eq, states;
  for (std::size_t i = 1; i <= n; ++i) {
    const std::string y = "y" + std::to_string(i), mirror = "y" + std::to_string(n + 1 - i);
    eq += "d" + y + " = -a * " + y + " + b * " + mirror + "\n";
    states += y + " = " + number(y0[i - 1]) + "\n";
  }
  return "name = \"mirrored_decay\"\nequations = \"\"\"\n" + eq + "\"\"\"\n[states]\n" + states +
         "[parameters]\na = " + number(a) + "\nb = " + number(b) + "\n";
}

}  // namespace batchode::testing
