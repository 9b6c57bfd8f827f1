// tests/support: Lorenz-96 with n states written out as model text, state by state (the form a model
// file gives the models layer, its code generation and the runtime-model tests alike).
#pragma once

#include <string>

namespace batchode::testing {

/// Lorenz-96 with n states as model text: dx_i = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F, every x_i = 8.
inline std::string lorenz96_toml(int n) {
  std::string eq, states;
  auto x = [n](int k) { return "x" + std::to_string(((k % n) + n) % n); };
  for (int i = 0; i < n; ++i) {
    eq += "d" + x(i) + " = (" + x(i + 1) + " - " + x(i - 2) + ") * " + x(i - 1) + " - " + x(i) + " + F\n";
    states += x(i) + " = 8.0\n";
  }
  return "name = \"lorenz96\"\nequations = \"\"\"\n" + eq + "\"\"\"\n[states]\n" + states +
         "[parameters]\nF = 8.0\n";
}

}  // namespace batchode::testing
