// solver/: the user-facing batch solve (solve_ivp, Solver, options, results, grids) and the
// per-run integration logic shared by the CPU (Boost.Odeint) and GPU (kernels/) paths.
// This file: the names of the integration methods and what each one promises.
#pragma once

#include "batchode/kernels/annotations.hpp"

#if !BATCHODE_RTC
#include <string>
#include <string_view>
#endif

namespace batchode {

/// An integration method. Fixed-step: euler, rk4. Adaptive (embedded error estimate): the rest.
enum class Method {
  euler,
  rk4,
  bogacki_shampine32,
  cash_karp54,
  dopri5,
  tsit5,
  fehlberg78,
  // Stiff (linearly implicit, Jacobian per step): see solver/rosenbrock_tableaux.hpp.
  ros3p,        ///< Lang & Verwer's ROS3P, order 3, error by step doubling, GPU and CPU
  rodas4,       ///< Hairer & Wanner's RODAS4, order 4(3), GPU and CPU
  rosenbrock4,  ///< Boost.Odeint's rosenbrock4 (with RODAS4's d4 corrected), order 4(3), CPU only
};

/// What a method is: its order and whether it controls its step size.
struct MethodInfo {
  Method method;
  const char* name;
  int order;        ///< order of the propagated solution
  int error_order;  ///< order of the embedded estimate (0 for fixed-step methods)
  int stages;       ///< right-hand-side evaluations per step (FSAL methods reuse the last)
  bool adaptive;
  bool fsal;  ///< first stage of a step is the last stage of the previous one
};

#if !BATCHODE_RTC  // host code (solver/src/options.cpp); runtime compilers have no std::string
/// Properties of `m`. Throws std::invalid_argument for a value outside the enum.
const MethodInfo& method_info(Method m);

/// The method's name as written in code ("dopri5", ...).
std::string to_string(Method m);

/// Parses a method name; throws std::invalid_argument listing the valid names.
Method parse_method(std::string_view name);
#endif

/// Every explicit method, in enum order (for tests and command-line tools); stiff_methods has the rest.
constexpr Method all_methods[] = {Method::euler,  Method::rk4,   Method::bogacki_shampine32,
                                  Method::cash_karp54, Method::dopri5, Method::tsit5,
                                  Method::fehlberg78};

/// The stiff (Rosenbrock) methods. They need a Jacobian: the system's `jacobian` member or, without
/// one, forward-mode automatic differentiation through its templated call operator.
constexpr Method stiff_methods[] = {Method::ros3p, Method::rodas4, Method::rosenbrock4};

/// True for the methods only the CPU path runs (rosenbrock4).
constexpr bool cpu_only(Method m) { return m == Method::rosenbrock4; }

}  // namespace batchode
