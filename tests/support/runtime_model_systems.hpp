// Models defined at run time and their compiled-in twins, shared by the CPU and GPU runtime-model
// tests: each C++ system repeats the generated code's arithmetic operation for operation, so the two
// must give the same bits.
#pragma once

#include <batchode/batchode.hpp>
#include <batchode/models/model.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "lorenz96_text.hpp"

namespace batchode::testing {

inline constexpr const char* kLorenzToml = R"(name = "lorenz"
equations = """
dx = sigma * (y - x)
dy = x * (rho - z) - y
dz = x * y - beta * z
"""
[states]
x = 1.0
y = 1.0
z = 1.0
[parameters]
rho = 28.0
[constants]
sigma = 10.0
beta = 2.6666666666666665
)";

/// ForcedDecay (test_systems.hpp) as model text: y' = -a y + b u + v, u given when solving, v's samples
/// in the file (a clamped cubic spline over [0, 3]), observables u and y + v.
inline constexpr const char* kForcedDecayToml = R"(name = "forced_decay"
equations = """
u_seen = u
y_plus_v = y + v
dy = -a * y + b * u + v
"""
observables = ["u_seen", "y_plus_v"]
[states]
y = 1.0
[parameters]
a = 0.5
b = 1.0
[drivers]
u = {}
v = { dt = 0.5, values = [0.0, 0.4, -0.2, 0.1, 0.3, 0.0, 0.5], order = 3, end = "clamped" }
)";

/// kLorenzToml written in C++ (host and device).
struct LorenzModelCompiledIn {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    const T sigma = T(10), beta = T(2.6666666666666665), rho = p[0];
    dydt[0] = sigma * (y[1] - y[0]);
    dydt[1] = y[0] * (rho - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - beta * y[2];
  }
};

/// kLorenzToml with two events: x's zero crossings (both ways, the first 4 recorded) and z rising
/// through 30, which ends the run.
inline std::string lorenz_events_toml() {
  return std::string(kLorenzToml) +
         "[events]\n"
         "x_zero = { expr = \"x\", max = 4 }\n"
         "z_high = { expr = \"z - 30\", direction = \"rising\", action = \"terminal\" }\n";
}

/// lorenz_events_toml() written in C++, with the event specs its [events] table gives.
struct LorenzEventsCompiledIn : LorenzModelCompiledIn {
  static constexpr std::size_t n_events = 2;
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* g) const {
    g[0] = y[0];
    g[1] = y[2] - T(30);
  }
  static std::vector<EventSpec> specs() {
    return {{"x_zero", EventDirection::both, EventAction::record, 4},
            {"z_high", EventDirection::rising, EventAction::terminal, 1}};
  }
};

/// Model text parsed and checked (ModelError on a mistake).
inline models::Model parse_model_text(const std::string& toml) {
  return models::parse_model(models::read_model_toml(toml, "test.toml"));
}

}  // namespace batchode::testing
