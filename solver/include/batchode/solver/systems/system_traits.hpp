// solver/systems/: what the solver's stages ask of a system, for both kinds it solves: a compiled-in System
// (sizes as static constants, the right-hand side a template the backends instantiate) and a
// RuntimeModel (sizes known at run time, the right-hand side in a shared object compiled when first
// needed). The stages ask through these functions only, so neither kind needs an #if or a branch.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/backends/cpu/cpu_backend.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/kernels/loop/events.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/kernels/outputs/observables.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "batchode/solver/systems/system_key.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode::detail {

template <class S>
struct is_runtime_model : std::false_type {};
template <class T>
struct is_runtime_model<RuntimeModel<T>> : std::true_type {};
template <class S>
inline constexpr bool is_runtime_model_v = is_runtime_model<S>::value;

template <class System>
std::size_t n_states_of(const System& system) {
  if constexpr (is_runtime_model_v<System>) {
    return system.n_states();
  } else {
    (void)system;
    return System::n_states;
  }
}

template <class System>
std::size_t n_params_of(const System& system) {
  if constexpr (is_runtime_model_v<System>) {
    return system.n_params();
  } else {
    (void)system;
    return System::n_params;
  }
}

/// Event functions of the system (kernels/loop/events.hpp; a runtime model's [events]).
template <class System>
std::size_t n_events_of(const System& system) {
  if constexpr (is_runtime_model_v<System>) {
    return system.n_events();
  } else {
    (void)system;
    return n_events_v<System>;
  }
}

/// The system's algebraic states, its last ones (kernels/core/system.hpp's n_algebraic; a runtime
/// model's [algebraic] variables): 0 for an ODE.
template <class System>
std::size_t n_algebraic_of(const System& system) {
  if constexpr (is_runtime_model_v<System>) {
    return system.n_algebraic();
  } else {
    (void)system;
    return n_algebraic_v<System>;
  }
}

/// The names of the system's states (what summaries are chosen by): a runtime model's; a compiled-in
/// system's static `state_names` (an array of n_states strings) when it has one, else "y<s>" (the
/// CSV's columns). The names are members of the System concept, detected in kernels/core/system.hpp
/// (has_state_names_v, has_observable_names_v, has_driver_names_v: port:: can ask whether S::x[0]
/// exists); the std::string work on them stays here.
template <class System>
std::vector<std::string> state_names_of(const System& system) {
  if constexpr (is_runtime_model_v<System>) {
    return system.state_names();
  } else {
    (void)system;
    std::vector<std::string> names(System::n_states);
    for (std::size_t s = 0; s < names.size(); ++s) {
      if constexpr (has_state_names_v<System>) {
        names[s] = System::state_names[s];
      } else {
        names[s] = "y" + std::to_string(s);
      }
    }
    return names;
  }
}

/// The names of the system's observables (kernels/outputs/observables.hpp), which a result keeps beside their
/// values: a runtime model's (its `observables` list); a compiled-in system's static
/// `observable_names` (an array of n_observables strings) when it has one, else "observable<o>".
template <class System>
std::vector<std::string> observable_names_of(const System& system) {
  if constexpr (is_runtime_model_v<System>) {
    return system.observable_names();
  } else {
    (void)system;
    std::vector<std::string> names(n_observables_v<System>);
    for (std::size_t o = 0; o < names.size(); ++o) {  // (names.size(): no comparison with a constant 0)
      if constexpr (has_observable_names_v<System>) {
        names[o] = System::observable_names[o];
      } else {
        names[o] = "observable" + std::to_string(o);
      }
    }
    return names;
  }
}

/// The names of the drivers the system reads (kernels/outputs/driven_system.hpp), which SolveOptions::drivers
/// are matched by: a compiled-in system's static `driver_names` (n_drivers strings) when it has one,
/// else empty (the specs are taken in the system's order); a runtime model's [drivers].
template <class System>
std::vector<std::string> driver_names_of(const System& system) {
  (void)system;
  std::vector<std::string> names;
  if constexpr (is_runtime_model_v<System>) {
    names = system.driver_names();
  } else if constexpr (has_driver_names_v<System>) {
    for (std::size_t d = 0; d < n_drivers_v<System>; ++d) names.emplace_back(System::driver_names[d]);
  }
  return names;
}

/// The number of drivers the system reads.
template <class System>
std::size_t n_drivers_of(const System& system) {
  (void)system;
  if constexpr (is_runtime_model_v<System>) {
    return system.n_drivers();
  } else {
    return n_drivers_v<System>;
  }
}

/// A solve's drivers: `given`, and for a runtime model the drivers its file gives samples for that
/// `given` does not name.
template <class System>
std::vector<DriverSpec> drivers_for_solve(const System& system, std::vector<DriverSpec> given) {
  (void)system;
  if constexpr (is_runtime_model_v<System>) {
    for (DriverSpec& spec : system.driver_specs()) {
      const bool named = std::any_of(given.begin(), given.end(), [&](const DriverSpec& g) { return g.name == spec.name; });
      if (!named) given.push_back(std::move(spec));
    }
  }
  return given;
}

/// A solve's events when its options name none: a runtime model's own specs ([events]); a compiled-in
/// system's functions each recorded once, both ways.
template <class System>
std::vector<EventSpec> default_event_specs(const System& system) {
  if constexpr (is_runtime_model_v<System>) {
    return system.event_specs();
  } else {
    return std::vector<EventSpec>(n_events_of(system));
  }
}

/// The cost model's name of the system (system_key.hpp; a runtime model names itself by its source).
template <class System>
std::string cost_name_of(const System& system) {
  if constexpr (is_runtime_model_v<System>) {
    return system.cost_name();
  } else {
    (void)system;
    return system_cost_name<System>();
  }
}

/// Why the GPU path cannot run `method` for this system in T ("" when it may).
template <class System, class T>
std::string gpu_unavailable_for_system(const System& system, Method method) {
  if constexpr (is_runtime_model_v<System>) {
    return system.gpu_unavailable(method);
  } else {
    (void)system;
    return cpu::gpu_unavailable_for_method<System, T>(method);
  }
}

/// Refuses, before any work, a method a compiled-in system has no code for (its compiled_methods).
template <class System>
void check_method_compiled(const System& system, Method method) {
  (void)system;
  if constexpr (!is_runtime_model_v<System>) {
    if (!compiles_method<System>(method))
      throw InvalidInput(cpu::method_not_compiled_message<System>(method));
  }
}

/// Refuses, before any work, a method that cannot solve a system with algebraic states (a DAE: only
/// the methods built for a mass matrix can, kernels/methods/method_registry.hpp's solves_dae), naming
/// the algebraic states and the methods that can.
template <class System>
void check_method_solves_system(const System& system, Method method) {
  const std::size_t algebraic = n_algebraic_of(system);
  if (algebraic == 0 || solves_dae(method)) return;
  const std::vector<std::string> names = state_names_of(system);
  std::string listed;
  for (std::size_t i = names.size() - algebraic; i < names.size(); ++i)
    listed += (listed.empty() ? "" : ", ") + names[i];
  std::string able;
  for (const MethodInfo& info : method_registry) {
    if (info.dae) able += (able.empty() ? "" : ", ") + std::string(info.name);
  }
  throw InvalidInput("method " + to_string(method) + " cannot solve a system with algebraic states (" +
                     listed +
                     ": a differential-algebraic system); the methods built for a mass matrix can: " + able);
}

/// Refuses, before any work, a runtime model's events at given times that cannot act over the solve's
/// span (RuntimeModel::check_event_times). Compiled-in systems' times are the system's code: not seen.
template <class System>
void check_event_times(const System& system, const SolveOptions& o) {
  if constexpr (is_runtime_model_v<System>) {
    system.check_event_times(o.t0, o.t_end);
  } else {
    (void)system, (void)o;
  }
}

/// Refuses, before any work, a system too large for a CPU run's stack (cpu::run_stack_problem): the CPU
/// path may run under every backend (Backend::gpu's cost probe too), and no GPU holds such a run either.
template <class System, class T>
void check_run_fits_stack(const System& system, Method method) {
  std::string why;
  if constexpr (is_runtime_model_v<System>) {
    // Generated code gives J and f_t itself; a driven model's f_t is by AD in t (one direction).
    why = cpu::run_stack_problem(system.n_states(), method, sizeof(T), is_stiff(method) ? 2 * sizeof(T) : 0);
  } else {
    (void)system;
    why = cpu::run_stack_problem<System, T>(method);
  }
  if (!why.empty()) throw InvalidInput(why);
}

/// Whether integrate_on_cpu would start no compile: always for a compiled-in system; for a runtime model,
/// its CPU code of `method` is loaded or in the cache (RuntimeModel::cpu_code_ready, which loads it).
template <class System>
bool cpu_code_ready(const System& system, Method method, TimeLogger& logger) {
  if constexpr (is_runtime_model_v<System>) {
    return system.cpu_code_ready(method, logger);
  } else {
    (void)system, (void)method, (void)logger;
    return true;
  }
}

/// Integrates runs [first, first + count) on the CPU (cpu::integrate_batch); a runtime model compiles
/// `method` first if it has not yet (timed in `logger`). A set `stop` throws SolveInterrupted between
/// blocks of runs, or ends that compile.
template <class System, class T>
void integrate_on_cpu(const System& system, const T* y0, const T* params, std::size_t first,
                      std::size_t count, Method method, const RunSettings<T>& settings, unsigned threads,
                      const ResultView<T>& result, TimeLogger& logger, arrays::HostWorkers& workers,
                      const std::atomic<bool>* stop = nullptr) {
  if constexpr (is_runtime_model_v<System>) {
    cpu::integrate_batch(system.cpu_entry(method, logger, stop), y0, params, first, count, settings, threads,
                         result, logger, workers, stop);
  } else {
    cpu::integrate_batch(system, y0, params, first, count, method, settings, threads, result, logger,
                         workers, stop);
  }
}

}  // namespace batchode::detail
