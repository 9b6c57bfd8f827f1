// backends/cpu/: the boundary between the library and a model compiled at run time into a shared
// object (solver/systems/runtime_model.hpp). The object exports four C functions; the library calls them from
// its worker threads: each worker has the object make its stepper once, then integrates one range of
// runs at a time with it. Both sides are compiled from these headers, and the object reports the sizes
// of what crosses, which the loader compares with its own before the first call, so an object built
// against other headers is refused instead of misread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "batchode/arrays/result_view.hpp"
#include "batchode/kernels/core/run_settings.hpp"

namespace batchode::cpu {

/// Bumped whenever RangeCall, RuntimeAbi or the meaning of the entry points change.
// 7: each run's stop time (ResultView::stop_time), the stop request inside a run (RunSettings::stop)
// and a worker's stepper made once on the heap (batchode_new_stepper).
// 8: ResultView::series_moments (a series reduced on the GPU), which the entry refuses.
inline constexpr std::uint32_t runtime_abi_version = 8;

/// Names of the entry points in the shared object.
inline constexpr const char* runtime_abi_symbol = "batchode_runtime_abi";
inline constexpr const char* runtime_range_symbol = "batchode_integrate_range";
inline constexpr const char* runtime_new_stepper_symbol = "batchode_new_stepper";
inline constexpr const char* runtime_delete_stepper_symbol = "batchode_delete_stepper";

/// What one call integrates: runs [begin, end) of the batch into the same rows of *result.
template <class T>
struct RangeCall {
  const T* y0;      ///< the whole batch, n_runs x n_states
  const T* params;  ///< the whole batch, n_runs x n_params (nullptr when n_params == 0)
  std::size_t begin, end;
  const RunSettings<T>* settings;
  const ResultView<T>* result;
  void* stepper;  ///< the calling worker's, from batchode_new_stepper: reused across its calls
  char* error;  ///< where a failure's message goes (NUL-terminated, truncated to error_size)
  std::size_t error_size;
};

/// What the object was built for and with.
struct RuntimeAbi {
  std::uint32_t version;
  std::uint32_t value_bytes;  ///< sizeof(T): 4 or 8
  std::uint32_t method;       ///< static_cast of batchode::Method
  std::uint32_t n_states, n_params, n_events, n_observables;
  std::uint32_t settings_bytes, view_bytes, call_bytes, status_bytes, counters_bytes;
};

/// `batchode_runtime_abi`: fills *abi. `batchode_integrate_range`: 0 on success; otherwise the
/// message is in call->error. `batchode_new_stepper`: a stepper on the heap (nullptr when it cannot be
/// made), which `batchode_delete_stepper` frees.
using RuntimeAbiFunction = void (*)(RuntimeAbi* abi);
template <class T>
using RangeFunction = int (*)(const RangeCall<T>* call);
using NewStepperFunction = void* (*)();
using DeleteStepperFunction = void (*)(void* stepper);

/// The sizes this side of the boundary expects for precision T.
template <class T>
RuntimeAbi expected_runtime_abi(std::uint32_t method, std::uint32_t n_states, std::uint32_t n_params,
                                std::uint32_t n_events, std::uint32_t n_observables) {
  return RuntimeAbi{runtime_abi_version,
                    static_cast<std::uint32_t>(sizeof(T)),
                    method,
                    n_states,
                    n_params,
                    n_events,
                    n_observables,
                    static_cast<std::uint32_t>(sizeof(RunSettings<T>)),
                    static_cast<std::uint32_t>(sizeof(ResultView<T>)),
                    static_cast<std::uint32_t>(sizeof(RangeCall<T>)),
                    static_cast<std::uint32_t>(sizeof(Status)),
                    static_cast<std::uint32_t>(sizeof(RunCounters))};
}

}  // namespace batchode::cpu
