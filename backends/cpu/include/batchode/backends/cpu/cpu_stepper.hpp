// backends/cpu/: which stepper carries out a method's arithmetic on the CPU: Boost.Odeint's for the
// explicit tables it has, the register stepper (kernels/methods/rk_stepper.hpp) for the others, the
// core's implicit steppers for the stiff tables, odeint's rosenbrock4 for its CPU-only tag. One choice
// for a run at a time (run_range.hpp) and for a block of runs in SIMD lanes (run_blocks.hpp), so that a
// run's arithmetic is the same either way.
#pragma once

#include <type_traits>

#include "batchode/backends/cpu/odeint_steppers.hpp"
#include "batchode/backends/cpu/rosenbrock4_stepper.hpp"
#include "batchode/kernels/linalg/jacobian.hpp"
#include "batchode/kernels/methods/dense_form.hpp"
#include "batchode/kernels/methods/rk_stepper.hpp"
#include "batchode/kernels/methods/stiff_stepper.hpp"
#include "batchode/kernels/methods/tableaux.hpp"
#include "batchode/kernels/outputs/driven_system.hpp"

namespace batchode::cpu {

/// Whether explicit table Tab runs on the register stepper (kernels/methods/rk_stepper.hpp) on the CPU too:
/// a table with its own dense output in polynomial weights (tsit5), which needs every stage of the
/// step, where odeint's generic stepper keeps its stages private, and a table odeint has no stepper
/// for (has_odeint_stepper_v: vern7, vern9).
template <class Tab>
inline constexpr bool cpu_uses_register_stepper_v =
    tableau::dense_form_v<Tab> == tableau::DenseForm::weights || !has_odeint_stepper_v<Tab>;

/// The CPU stepper of method Tab: odeint's for explicit tables (the register stepper for those of
/// cpu_uses_register_stepper_v), StiffStepper (kernels/methods/stiff_stepper.hpp) for Rosenbrock and
/// ESDIRK tables, odeint's rosenbrock4 for the CPU-only tag. `available` is false for a stiff method whose
/// system cannot be linearised (integrate_batch then throws InvalidInput). System is the one integrated
/// (integrated_system_t: a system that reads drivers is run wrapped); CpuStepperFor takes the user's.
template <class Tab, class System, class T, bool Stiff = has_stiff_stepper_v<Tab>,
          bool Gpu = tableau::runs_on_gpu_v<Tab>>
struct IntegratedStepperFor {
  using type = std::conditional_t<cpu_uses_register_stepper_v<Tab>, RkStepper<Tab, T, System::n_states>,
                                  OdeintStepper<Tab, System, T>>;
  static constexpr bool available = true;
};
template <class Tab, class System, class T>
struct IntegratedStepperFor<Tab, System, T, true, true> {
  using type = StiffStepper<Tab, System, T>;
  static constexpr bool available = can_linearize_v<System, T>;
};
template <class Tab, class System, class T>
struct IntegratedStepperFor<Tab, System, T, false, false> {
  using type = OdeintRosenbrock4Stepper<System, T>;
  static constexpr bool available = can_linearize_v<System, T>;
};

/// The CPU stepper of method Tab for the user's System (see IntegratedStepperFor).
template <class Tab, class System, class T>
using CpuStepperFor = IntegratedStepperFor<Tab, integrated_system_t<System, T>, T>;

}  // namespace batchode::cpu
