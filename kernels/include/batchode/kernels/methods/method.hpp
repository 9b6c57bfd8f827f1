// kernels/methods/: the names of the integration methods and the shape of what is known about each one.
// The facts themselves are derived from each method's tableau in method_registry.hpp, the one place
// that lists the methods; this header stays light so the tableaux can name their Method.
#pragma once

#include "batchode/kernels/core/annotations.hpp"

#if !BATCHODE_RTC
#include <string>
#include <string_view>
#endif

namespace batchode {

/// An integration method. Fixed-step: euler, rk4. Adaptive (embedded error estimate): the rest.
/// Values are never reordered: a new method is appended (compiled models and caches name methods by
/// value).
enum class Method {
  euler,
  rk4,
  bogacki_shampine32,
  cash_karp54,
  dopri5,
  tsit5,
  fehlberg78,
  // Stiff (linearly implicit, Jacobian per step): see kernels/methods/rosenbrock_tableaux.hpp.
  ros3p,        ///< Lang & Verwer's ROS3P, order 3, error by step doubling, GPU and CPU
  rodas4,       ///< Hairer & Wanner's RODAS4, order 4(3), GPU and CPU
  rosenbrock4,  ///< Boost.Odeint's rosenbrock4 (with RODAS4's d4 corrected), order 4(3), CPU only
  rodas5p,      ///< Steinebach's RODAS5P, order 5(4), GPU and CPU
  // High-order explicit pairs (after the stiff methods: the enum's values are kept as they were).
  vern7,  ///< Verner's 7(6), 10 stages
  vern9,  ///< Verner's 9(8), 16 stages
  // Implicit (ESDIRK: a simplified Newton iteration per stage): see kernels/methods/esdirk_tableaux.hpp.
  kvaerno5,  ///< Kvaerno's ESDIRK 5(4), 7 stages, GPU and CPU
  dop853,    ///< Hairer's DOP853, order 8 with 5(3) estimates, 12 stages + FSAL
  radau5,    ///< Radau IIA of order 5 (Hairer's RADAU5), 3 implicit stages, GPU and CPU
  kvaerno3,  ///< Kvaerno's ESDIRK 3(2), 4 stages, GPU and CPU
  kencarp4,  ///< Kennedy & Carpenter's ESDIRK 4(3) (KenCarp4's implicit table), 6 stages, GPU and CPU
  rodas4p2,  ///< Steinebach's RODAS4P2, order 4(3), GPU and CPU
};

/// What a method is and where it runs. One per method in method_registry (method_registry.hpp), each
/// read off the method's tableau, so the CPU path, the GPU path, validation and documentation agree.
struct MethodInfo {
  Method method;
  const char* name;
  int order;        ///< order of the propagated solution
  int error_order;  ///< order of the error estimate (0 for fixed-step methods)
  int stages;       ///< stages per step (Rosenbrock: linear solves; ESDIRK: implicit stages but the first;
                    ///< Radau IIA: the implicit stages solved together)
  bool adaptive;
  bool fsal;  ///< first stage of a step is the last stage of the previous one
  bool stiff;  ///< linearly implicit (Rosenbrock) or implicit (ESDIRK, Radau IIA): needs the Jacobian
  bool gpu;    ///< has a GPU kernel (false: CPU only)
  bool dae;    ///< solves systems with algebraic states (semi-explicit index-1 DAEs): rodas4, rodas5p, radau5
};

#if !BATCHODE_RTC  // host code (solver/src/setup/options.cpp); runtime compilers have no std::string
/// Properties of `m` (method_registry). Throws InvalidInput for a value outside the enum.
const MethodInfo& method_info(Method m);

/// The method's name as written in code ("dopri5", ...).
std::string to_string(Method m);

/// Why a CPU-only method (cpu_only: rosenbrock4) cannot run on a GPU, naming the method that does the
/// same there. Never substituted for it: their step-size choices differ, so would their numbers.
std::string cpu_only_reason(Method m);

/// Parses a method name; throws std::invalid_argument listing the valid names.
Method parse_method(std::string_view name);
#endif

}  // namespace batchode
