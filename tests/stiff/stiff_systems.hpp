// Stiff test problems shared by the CPU and GPU stiff tests (host+device functors), with analytic
// Jacobians in separate types (…WithJacobian) so the same problem runs with AD or with J by hand.
#pragma once

#include <cmath>
#include <cstddef>

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "bruss_model.hpp"

namespace batchode::testing {

/// Robertson's chemical kinetics; p = {k1, k2, k3} (0.04, 3e7, 1e4), y0 = (1, 0, 0).
struct Robertson {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 3;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    const T r1 = p[0] * y[0], r2 = p[1] * y[1] * y[1], r3 = p[2] * y[1] * y[2];
    dydt[0] = -r1 + r3;
    dydt[1] = r1 - r2 - r3;
    dydt[2] = r2;
  }
};
struct RobertsonWithJacobian : Robertson {
  template <class T>
  BATCHODE_HOST_DEVICE void jacobian(T, const T* y, const T* p, T* J) const {
    J[0] = -p[0], J[1] = p[2] * y[2], J[2] = p[2] * y[1];
    J[3] = p[0], J[4] = -2 * p[1] * y[1] - p[2] * y[2], J[5] = -p[2] * y[1];
    J[6] = 0, J[7] = 2 * p[1] * y[1], J[8] = 0;
  }
};

/// Robertson as a semi-explicit index-1 DAE: y3 algebraic, 0 = y1 + y2 + y3 - 1 (the ODE's conservation
/// law), so its solution is Robertson's; p = {k1, k2, k3}. Built for the methods that solve DAEs.
struct RobertsonDae {
  static constexpr std::size_t n_states = 3, n_params = 3, n_algebraic = 1;
  static constexpr Method compiled_methods[] = {Method::rodas4, Method::rodas5p, Method::radau5,
                                                Method::rodas4p2};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* out) const {
    const T r1 = p[0] * y[0], r2 = p[1] * y[1] * y[1], r3 = p[2] * y[1] * y[2];
    out[0] = -r1 + r3;
    out[1] = r1 - r2 - r3;
    out[2] = y[0] + y[1] + y[2] - T(1);
  }
};

/// HIRES (Schaefer 1975; Bari test set): 8 states, no parameters.
struct Hires {
  static constexpr std::size_t n_states = 8;
  static constexpr std::size_t n_params = 0;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T*, T* f) const {
    f[0] = -1.71 * y[0] + 0.43 * y[1] + 8.32 * y[2] + 0.0007;
    f[1] = 1.71 * y[0] - 8.75 * y[1];
    f[2] = -10.03 * y[2] + 0.43 * y[3] + 0.035 * y[4];
    f[3] = 8.32 * y[1] + 1.71 * y[2] - 1.12 * y[3];
    f[4] = -1.745 * y[4] + 0.43 * y[5] + 0.43 * y[6];
    f[5] = -280 * y[5] * y[7] + 0.69 * y[3] + 1.71 * y[4] - 0.43 * y[5] + 0.69 * y[6];
    f[6] = 280 * y[5] * y[7] - 1.81 * y[6];
    f[7] = -280 * y[5] * y[7] + 1.81 * y[6];
  }
};
struct HiresWithJacobian : Hires {
  template <class T>
  BATCHODE_HOST_DEVICE void jacobian(T, const T* y, const T*, T* J) const {
    for (int i = 0; i < 64; ++i) J[i] = 0;
    J[0] = -1.71, J[1] = 0.43, J[2] = 8.32;
    J[8] = 1.71, J[9] = -8.75;
    J[18] = -10.03, J[19] = 0.43, J[20] = 0.035;
    J[25] = 8.32, J[26] = 1.71, J[27] = -1.12;
    J[36] = -1.745, J[37] = 0.43, J[38] = 0.43;
    J[43] = 0.69, J[44] = 1.71, J[45] = -280 * y[7] - 0.43, J[46] = 0.69, J[47] = -280 * y[5];
    J[53] = 280 * y[7], J[54] = -1.81, J[55] = 280 * y[5];
    J[61] = -280 * y[7], J[62] = 1.81, J[63] = -280 * y[5];
  }
};

/// Van der Pol in the Bari test set's scaling: y1' = y2, y2' = ((1 - y1^2) y2 - y1) / eps, p = {eps};
/// eps = 1e-6 is mu = 1000 with time in units of mu (t = 2 here is t = 2000 unscaled, y2 = mu x').
struct VanDerPolScaled {
  static constexpr std::size_t n_states = 2;
  static constexpr std::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = y[1];
    f[1] = ((1 - y[0] * y[0]) * y[1] - y[0]) / p[0];
  }
};
struct VanDerPolScaledWithJacobian : VanDerPolScaled {
  template <class T>
  BATCHODE_HOST_DEVICE void jacobian(T, const T* y, const T* p, T* J) const {
    J[0] = 0, J[1] = 1;
    J[2] = (-2 * y[0] * y[1] - 1) / p[0], J[3] = (1 - y[0] * y[0]) / p[0];
  }
};

/// Non-autonomous and nonlinear, exercising every AD rule: f depends on t through sin/exp, on y
/// through exp, log, sqrt, pow, tanh, cos, fabs and a division. p = {a}.
struct AdWorkout {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* f) const {
    using std::cos, std::exp, std::fabs, std::log, std::pow, std::sin, std::sqrt, std::tanh;
    f[0] = p[0] * exp(-y[0] * y[1]) + sin(t) * y[2];
    f[1] = log(1 + y[0] * y[0]) * sqrt(y[2] * y[2] + 1) - pow(y[1], T(3)) / (2 + cos(y[2]));
    f[2] = tanh(y[0] - y[2]) * fabs(y[1]) + exp(T(0.1) * t) - 1 / (3 + y[0] * y[0]);
  }
};

}  // namespace batchode::testing

#include <vector>

namespace batchode::testing {

/// Robertson with k3 swept log-uniformly over [1e2, 1e6] (the published k3 = 1e4 in the middle):
/// y0 = (1, 0, 0) and p = (0.04, 3e7, k3) per run, run-major.
template <class T>
void robertson_k3_sweep(std::size_t runs, std::vector<T>& y0, std::vector<T>& p) {
  y0.assign(3 * runs, T(0));
  p.resize(3 * runs);
  for (std::size_t r = 0; r < runs; ++r) {
    y0[3 * r] = T(1);
    const double x = runs > 1 ? double(r) / double(runs - 1) : 0.5;
    p[3 * r] = T(0.04);
    p[3 * r + 1] = T(3e7);
    p[3 * r + 2] = T(std::pow(10.0, 2.0 + 4.0 * x));
  }
}

}  // namespace batchode::testing
