// backends/cpu/: included only by the source generated for a model compiled at run time
// (solver/src/systems/runtime_model.cpp writes it): defines the entry points of runtime_abi.hpp for one
// system, method and precision, around the CPU path's own per-run loop (run_range.hpp). Exceptions
// never cross the boundary: they become a message and a nonzero return (or no stepper).
//
// The generated source defines the system, then:
//   #define BATCHODE_ENTRY_SYSTEM BatchodeModel
//   #define BATCHODE_ENTRY_TABLEAU batchode::tableau::Dopri5
//   #define BATCHODE_ENTRY_VALUE double
//   #define BATCHODE_ENTRY_METHOD 4   (static_cast<uint32_t>(Method))
//   #include "batchode/backends/cpu/runtime_entry_source.inl"
#pragma once

#include <cstdio>
#include <cstring>
#include <exception>

#include "batchode/backends/cpu/run_range.hpp"
#include "batchode/backends/cpu/runtime_abi.hpp"

#if !defined(BATCHODE_ENTRY_SYSTEM) || !defined(BATCHODE_ENTRY_TABLEAU) || !defined(BATCHODE_ENTRY_VALUE) || \
    !defined(BATCHODE_ENTRY_METHOD)
#error "define BATCHODE_ENTRY_SYSTEM, _TABLEAU, _VALUE and _METHOD before including runtime_entry_source.inl"
#endif

namespace batchode::cpu::entry {
using System = BATCHODE_ENTRY_SYSTEM;
using Tab = BATCHODE_ENTRY_TABLEAU;
using Value = BATCHODE_ENTRY_VALUE;
using Select = CpuStepperFor<Tab, System, Value>;
using Stepper = typename Select::type;
static_assert(Select::available, "the generated system cannot be linearised for this method");

inline void report(const RangeCall<Value>* call, const char* message) {
  if (call->error == nullptr || call->error_size == 0) return;
  std::snprintf(call->error, call->error_size, "%s", message);
}
}  // namespace batchode::cpu::entry

extern "C" __attribute__((visibility("default"))) void batchode_runtime_abi(batchode::cpu::RuntimeAbi* abi) {
  using namespace batchode::cpu::entry;
  *abi = batchode::cpu::expected_runtime_abi<Value>(BATCHODE_ENTRY_METHOD, System::n_states, System::n_params,
                                                    batchode::n_events_v<System>, batchode::n_observables_v<System>);
}

// A worker's stepper, made once and reused across its ranges (cpu_backend.hpp's integrate_batch): on the
// heap, as a Rosenbrock stepper's N x N matrices outgrow a thread's stack.
extern "C" __attribute__((visibility("default"))) void* batchode_new_stepper() {
  try {
    return new batchode::cpu::entry::Stepper();
  } catch (...) {
    return nullptr;
  }
}

extern "C" __attribute__((visibility("default"))) void batchode_delete_stepper(void* stepper) {
  delete static_cast<batchode::cpu::entry::Stepper*>(stepper);
}

extern "C" __attribute__((visibility("default"))) int batchode_integrate_range(
    const batchode::cpu::RangeCall<BATCHODE_ENTRY_VALUE>* call) {
  using namespace batchode::cpu::entry;
  try {
    // The series (the model's states and observables, or those chosen) is written into the result:
    // it must be shaped for it.
    const batchode::ResultView<Value>& result = *call->result;
    const batchode::RunSettings<Value>& plan = *call->settings;
    if (!batchode::holds_series(result, plan, System::n_states, batchode::n_observables_v<System>)) {
      report(call, "the result is not shaped for the series the plan saves (the model's states and observables)");
      return 1;
    }
    if (result.series_moments != nullptr && result.n_saves > 0) {
      report(call, "the result's series is reduced on the GPU (series_moments): the CPU has no rows to write it to");
      return 1;
    }
    // So are the summaries, when the solve keeps them.
    if (!batchode::holds_summaries(result, plan.summary_windows, plan.summary_slots)) {
      report(call, "the result has no room for the summaries");
      return 1;
    }
    // A model that reads drivers reads the plan's, one per driver.
    if (plan.n_drivers != batchode::n_drivers_v<System> || (plan.n_drivers > 0 && plan.drivers == nullptr)) {
      report(call, "the solve's drivers are not the model's");
      return 1;
    }
    batchode::cpu::integrate_run_range<Tab>(System{}, call->y0, call->params, call->begin, call->end, plan,
                                            result, *static_cast<Stepper*>(call->stepper));
    return 0;
  } catch (const std::exception& e) {
    report(call, e.what());
  } catch (...) {
    report(call, "unknown exception in a runtime-compiled model");
  }
  return 1;
}
