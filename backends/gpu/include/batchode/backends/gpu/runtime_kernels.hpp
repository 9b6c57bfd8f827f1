// backends/gpu/: the batch kernels of one method and precision a solve launches and the run-order
// kernel, compiled at run time (gpu::RuntimeCompiler, from runtime_kernel_program's and
// run_order_program's text) and loaded (gpu::Module): what RuntimeGpuRunner launches in place of a
// compiled-in integrate_chunk and beside it. Host code.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "batchode/backends/gpu/runtime_kernel_source.hpp"
#include "batchode/gpu/module.hpp"
#include "batchode/gpu/runtime_compiler.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/methods/method.hpp"

namespace batchode {

/// A loaded module's kernels::integrate_chunk<method, ...> instantiations (kernels/launch/batch_kernel.hpp)
/// that it was built with (RuntimeKernelChoice): final state only, with a series, with summaries of
/// `summary_kinds`; and the run order's kernel, in that module or in one of its own (run_order_program).
/// A kernel not built is a null gpu::Kernel. Copies share the modules and the record of which first
/// loads were timed.
struct RuntimeKernels {
  std::shared_ptr<const gpu::Module> module;
  std::shared_ptr<const gpu::Module> order_module;  ///< the module `order` is in (may be `module`)
  Method method = Method::dopri5;
  std::size_t value_bytes = 0;      ///< sizeof(T) of the kernels' precision
  std::uint32_t summary_kinds = 0;  ///< the kinds the summary kernel keeps (0: no summary kernel)
  gpu::Kernel final_state;          ///< ChunkKernel::final_state
  std::size_t lanes_per_run = 1;    ///< final_state's threads per run (RuntimeKernelChoice::lanes_per_run)
  gpu::Kernel series;               ///< ChunkKernel::series
  gpu::Kernel summaries;            ///< ChunkKernel::summaries (when summary_kinds != 0)
  gpu::Kernel order;                ///< kernels::run_order_segments<T> (kernels/launch/run_order_kernels.hpp)
  /// kernels::series_moments<T> (kernels/outputs/series_moments.hpp) in a module of its own
  /// (series_moments_program), when the solve reduces its series on the device.
  std::shared_ptr<const gpu::Module> moments_module;
  gpu::Kernel moments;

  const gpu::Kernel& kernel(kernels::ChunkKernel which) const noexcept {
    return which == kernels::ChunkKernel::summaries ? summaries
           : which == kernels::ChunkKernel::series  ? series
                                                    : final_state;
  }

  /// True exactly once per kernel over all copies: the caller that gets it times the kernel's first
  /// load (RuntimeGpuRunner does, as kernel_compile). A caller that timed the load itself calls this
  /// for every kernel first, so the runner does not time it again.
  bool claim_first_load(kernels::ChunkKernel which) const noexcept {
    return !first_load_claimed->at(static_cast<std::size_t>(which)).exchange(true, std::memory_order_acq_rel);
  }

  /// Whether each ChunkKernel's first load was claimed.
  using FirstLoads = std::array<std::atomic<bool>, 3>;
  std::shared_ptr<FirstLoads> first_load_claimed = std::make_shared<FirstLoads>();
};

/// Loads `compiled` (RuntimeCompiler::compile of runtime_kernel_program's source and name expressions
/// for `method` in precision T and `choice`, so lowered_names are those of the chosen kernels in the
/// program's order) on the current device and looks them up. `label` names the module in errors.
/// Throws GpuError (load or lookup failed), std::invalid_argument (another number of lowered names).
template <class T>
RuntimeKernels load_runtime_kernels(Method method, const gpu::CompiledKernels& compiled, std::string label,
                                    const RuntimeKernelChoice& choice) {
  const std::size_t expected = choice.count();
  if (compiled.lowered_names.size() != expected) {
    throw std::invalid_argument("load_runtime_kernels(" + label + "): expected the lowered names of " +
                                std::to_string(expected) + " kernels, got " +
                                std::to_string(compiled.lowered_names.size()));
  }
  RuntimeKernels k;
  k.module = std::make_shared<const gpu::Module>(compiled.image, std::move(label));
  k.method = method;
  k.value_bytes = sizeof(T);
  k.summary_kinds = choice.summary_kinds;
  k.lanes_per_run = choice.final_state ? choice.lanes_per_run : 1;
  std::size_t next = 0;
  auto look_up = [&](bool chosen, gpu::Kernel& kernel) {
    if (chosen) kernel = k.module->function(compiled.lowered_names[next++]);
  };
  look_up(choice.final_state, k.final_state);
  look_up(choice.series, k.series);
  look_up(choice.order, k.order);
  look_up(choice.summary_kinds != 0, k.summaries);
  if (choice.order) k.order_module = k.module;
  return k;
}

/// load_runtime_kernels of a program with every kernel (runtime_kernel_program without a choice).
template <class T>
RuntimeKernels load_runtime_kernels(Method method, const gpu::CompiledKernels& compiled, std::string label,
                                    std::uint32_t summary_kinds = 0) {
  return load_runtime_kernels<T>(method, compiled, std::move(label), RuntimeKernelChoice::all(summary_kinds));
}

}  // namespace batchode
