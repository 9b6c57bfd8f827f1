// kernels/methods/: the stepper of a stiff table that runs on the GPU and the CPU alike: a Rosenbrock
// table's (kernels/methods/rosenbrock_stepper.hpp), an ESDIRK table's (kernels/methods/esdirk_stepper.hpp)
// or Radau IIA's (kernels/methods/radau_stepper.hpp), the Jacobian kept in the system's layout. The batch
// kernel and the CPU path choose through it.
#pragma once

#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/linalg/jacobian.hpp"
#include "batchode/kernels/methods/esdirk_stepper.hpp"
#include "batchode/kernels/methods/radau_stepper.hpp"
#include "batchode/kernels/methods/rosenbrock_stepper.hpp"

namespace batchode {

/// True for the stiff tables with a stepper of ours (StiffStepper): Rosenbrock, ESDIRK and Radau IIA.
template <class Tab>
inline constexpr bool has_stiff_stepper_v =
    tableau::is_rosenbrock_v<Tab> || tableau::is_esdirk_v<Tab> || tableau::is_radau_v<Tab>;

/// The stepper of stiff table Tab for System in precision T (has_stiff_stepper_v).
template <class Tab, class System, class T>
using StiffStepper = port::conditional_t<
    tableau::is_radau_v<Tab>, RadauStepper<T, System::n_states, kernels::RosenbrockShape<System, T>>,
    port::conditional_t<tableau::is_esdirk_v<Tab>,
                        EsdirkStepper<Tab, T, System::n_states, kernels::RosenbrockShape<System, T>>,
                        RosenbrockStepper<Tab, T, System::n_states, kernels::RosenbrockShape<System, T>>>>;

}  // namespace batchode
