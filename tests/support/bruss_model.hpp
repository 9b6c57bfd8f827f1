// The 1-D Brusselator with diffusion (Hairer & Wanner II, IV.1, BRUSS; benchmarks/large_systems.sh),
// compiled in and as model text, for the tests of large stiff systems: N = 2 M states u_1, v_1, ...,
// u_M, v_M on a grid of M points, alpha = 1/50, u = 1 and v = 3 at both ends, p = {A}. Stiff as M^2.
// Its Jacobian is a band of 2 sub- and 2 superdiagonals (kernels/linalg/band.hpp), which the compiled-in
// system declares when Banded (else the Rosenbrock methods take the dense path) and the generated code
// finds in its symbolic Jacobian.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "batchode/kernels/core/annotations.hpp"

namespace batchode::testing {

template <std::size_t M, bool Banded = true>
struct Bruss {
  static constexpr std::size_t n_states = 2 * M;
  static constexpr std::size_t n_params = 1;
  static constexpr std::size_t jacobian_lower_bandwidth = Banded ? 2 : 2 * M - 1;
  static constexpr std::size_t jacobian_upper_bandwidth = Banded ? 2 : 2 * M - 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    const T c = T(double((M + 1) * (M + 1)) / 50.0);
    for (std::size_t i = 0; i < M; ++i) {
      const T u = y[2 * i], v = y[2 * i + 1];
      const T ul = i == 0 ? T(1.0) : y[2 * i - 2], vl = i == 0 ? T(3.0) : y[2 * i - 1];
      const T ur = i + 1 == M ? T(1.0) : y[2 * i + 2], vr = i + 1 == M ? T(3.0) : y[2 * i + 3];
      f[2 * i] = p[0] + u * u * v - T(4.0) * u + c * (ul - T(2.0) * u + ur);
      f[2 * i + 1] = T(3.0) * u - u * u * v + c * (vl - T(2.0) * v + vr);
    }
  }
};

/// BRUSS's initial state on m points: u_i = 1 + sin(2 pi i / (m + 1)), v_i = 3.
inline std::vector<double> bruss_initial_state(std::size_t m) {
  std::vector<double> y(2 * m);
  for (std::size_t i = 0; i < m; ++i) {
    y[2 * i] = 1 + std::sin(2 * 3.14159265358979 * double(i + 1) / double(m + 1));
    y[2 * i + 1] = 3.0;
  }
  return y;
}

/// BRUSS on m points as model text (the compiled-in Bruss's equations; the initial state above).
inline std::string bruss_toml(std::size_t m) {
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return std::string(text);
  };
  const std::string c = number(double((m + 1) * (m + 1)) / 50.0);
  const std::vector<double> y0 = bruss_initial_state(m);
  std::string eq, states;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::string k = std::to_string(i), u = "u" + k, v = "v" + k;
    const std::string ul = i == 1 ? "1.0" : "u" + std::to_string(i - 1), ur = i == m ? "1.0" : "u" + std::to_string(i + 1);
    const std::string vl = i == 1 ? "3.0" : "v" + std::to_string(i - 1), vr = i == m ? "3.0" : "v" + std::to_string(i + 1);
    eq += "d" + u + " = A + " + u + " * " + u + " * " + v + " - 4.0 * " + u + " + " + c + " * (" + ul + " - 2.0 * " +
          u + " + " + ur + ")\n";
    eq += "d" + v + " = 3.0 * " + u + " - " + u + " * " + u + " * " + v + " + " + c + " * (" + vl + " - 2.0 * " + v +
          " + " + vr + ")\n";
    states += u + " = " + number(y0[2 * (i - 1)]) + "\n" + v + " = 3.0\n";
  }
  return "name = \"bruss\"\nequations = \"\"\"\n" + eq + "\"\"\"\n[states]\n" + states + "[parameters]\nA = 1.0\n";
}

}  // namespace batchode::testing
