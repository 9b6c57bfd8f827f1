// backends/gpu/: the two batch kernels of one method and precision and the run-order kernel,
// compiled at run time (gpu::RuntimeCompiler, from runtime_kernel_program's text) and loaded
// (gpu::Module): what RuntimeGpuRunner launches in place of a compiled-in integrate_chunk and
// beside it. Host code.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "batchode/gpu/module.hpp"
#include "batchode/gpu/runtime_compiler.hpp"
#include "batchode/kernels/method.hpp"

namespace batchode {

/// A loaded module's kernels::integrate_chunk<method, save_series, System, T> for both save_series.
/// Copies share the module and the record of which first loads were timed.
struct RuntimeKernels {
  std::shared_ptr<const gpu::Module> module;
  Method method = Method::dopri5;
  std::size_t value_bytes = 0;  ///< sizeof(T) of the kernels' precision
  gpu::Kernel final_state;      ///< save_series false
  gpu::Kernel series;           ///< save_series true
  gpu::Kernel order;             ///< kernels::run_order_segments<T> (kernels/run_order_kernels.hpp)

  const gpu::Kernel& kernel(bool save_series) const noexcept { return save_series ? series : final_state; }

  /// True exactly once per kernel over all copies: the caller that gets it times the kernel's first
  /// load (RuntimeGpuRunner does, as kernel_compile). A caller that timed the load itself calls this
  /// for both kernels first, so the runner does not time it again.
  bool claim_first_load(bool save_series) const noexcept {
    return !first_load_claimed->at(save_series ? 1 : 0).exchange(true, std::memory_order_acq_rel);
  }

  std::shared_ptr<std::array<std::atomic<bool>, 2>> first_load_claimed =
      std::make_shared<std::array<std::atomic<bool>, 2>>();
};

/// Loads `compiled` (RuntimeCompiler::compile of runtime_kernel_program's source and name
/// expressions for `method` in precision T, so lowered_names is {final state only, series, run
/// order}) on the current device and looks up all three. `label` names the module in errors. Throws
/// GpuError (load or lookup failed), std::invalid_argument (not three lowered names).
template <class T>
RuntimeKernels load_runtime_kernels(Method method, const gpu::CompiledKernels& compiled, std::string label) {
  if (compiled.lowered_names.size() != 3) {
    throw std::invalid_argument("load_runtime_kernels(" + label +
                                "): expected the lowered names of 3 kernels, got " +
                                std::to_string(compiled.lowered_names.size()));
  }
  RuntimeKernels k;
  k.module = std::make_shared<const gpu::Module>(compiled.image, std::move(label));
  k.method = method;
  k.value_bytes = sizeof(T);
  k.final_state = k.module->function(compiled.lowered_names[0]);
  k.series = k.module->function(compiled.lowered_names[1]);
  k.order = k.module->function(compiled.lowered_names[2]);
  return k;
}

}  // namespace batchode
