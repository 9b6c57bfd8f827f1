// solver/scheduling/: where a solve's parts run. It gathers what the scheduler needs (scheduler.hpp) and lets
// it decide: forced parts as given; Backend::cpu and Backend::gpu as the user asked (GpuUnavailable
// when no GPU can run Backend::gpu); Backend::automatic on the CPU when no GPU is usable (reason
// gpu_unavailable, with a one-line notice), else by the costs the calibrator predicts for the CPU
// and every visible GPU (a GPU this Solver has not run on yet is charged its buffer setup).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/backends/cpu/cpu_backend.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/solver/scheduling/calibrator.hpp"
#include "batchode/solver/scheduling/scheduler.hpp"
#include "batchode/solver/scheduling/solve_context.hpp"
#include "batchode/solver/setup/backend_id.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/systems/gpu_path.hpp"
#include "batchode/solver/systems/system_traits.hpp"

namespace batchode::detail {

/// Why no GPU can run a solve of System in T with these options, or empty when one can.
template <class System, class T>
std::string gpu_unavailable_reason(const System& system, const SolveOptions& options) {
  // rosenbrock4; a model defined at run time
  std::string method_reason = gpu_unavailable_for_system<System, T>(system, options.method);
  if (!method_reason.empty()) return method_reason;
  const gpu::Discovery& found = gpu::discover();
  if (!found.available) return found.reason;
  // A runtime model's kernels are compiled at run time: its runner is host code, in every unit.
  if (!gpu_path_compiled && !is_runtime_model_v<System>) {
    return std::string("this translation unit was not compiled by the GPU compiler (build backend '") +
           gpu::compiled_backend() + "'; use batchode_target_gpu() on the target)";
  }
  if (options.gpu.device >= static_cast<int>(found.devices.size())) {
    return "device " + std::to_string(options.gpu.device) + " requested but only " +
           std::to_string(found.devices.size()) + " found";
  }
  return {};
}

/// The CPU's name in cost-model keys: "cpu x<threads>", its worker threads for a large batch.
inline std::string cpu_cost_name(const SolveOptions& options) {
  return "cpu x" + std::to_string(cpu::worker_count(options.cpu_threads, 1u << 20));
}

/// The CPU's capabilities (it can run every method in both precisions).
inline sched::BackendCapabilities cpu_capabilities(int device_count) {
  sched::BackendCapabilities cpu;
  cpu.id = BackendId::cpu();
  cpu.device_count = device_count;
  return cpu;
}

/// The decision for one solve of `runs` runs saving `saves` points each. Throws GpuUnavailable when
/// Backend::gpu cannot run, InvalidInput when forced parts do not cover the batch (or a probed run
/// holds a non-finite value).
template <class System, class T>
sched::Selection plan_parts(const SolveContext<System, T>& ctx, Calibrator<System, T>& calibrator,
                            const std::vector<sched::Part>& forced_parts, const T* y0, const T* params,
                            std::size_t runs, std::size_t saves) {
  const SolveOptions& options = ctx.options;
  if (!forced_parts.empty()) return sched::forced(forced_parts, runs);
  const arrays::RunFootprint footprint = ctx.run_footprint(saves);
  sched::Request req;
  req.runs = runs;
  req.method = options.method;
  req.is_double = std::is_same_v<T, double>;
  req.device_bytes_per_run = footprint.device_bytes_per_run;
  // Backend::cpu asks nothing of the GPU runtime (discovery initialises it).
  if (options.backend == Backend::cpu) return sched::plan({cpu_capabilities(0)}, sched::strategy_for(options), req);

  const std::string unavailable = gpu_unavailable_reason<System, T>(ctx.system, options);
  if (!unavailable.empty()) {
    if (options.backend == Backend::gpu) throw GpuUnavailable("Backend::gpu requested, but " + unavailable);
    ctx.notice("no usable GPU (" + unavailable + "); running on the CPU");
    req.no_gpu_detail = unavailable;
    return sched::plan({cpu_capabilities(0)}, sched::Strategy::automatic(), req);
  }

  const gpu::Discovery& found = gpu::discover();
  const int device_count = static_cast<int>(found.devices.size());
  if (options.backend == Backend::gpu) {
    sched::BackendCapabilities g;
    g.id = BackendId::gpu(options.gpu.device);
    g.device_count = device_count;
    return sched::plan({cpu_capabilities(device_count), g}, sched::strategy_for(options), req);
  }

  // Backend::automatic: every visible GPU whose memory the runtime can report, with its cost. The costs
  // start from a probe of the batch's runs on the CPU, so a runtime model whose CPU code is not compiled
  // (nor in the cache) is not costed: its solve goes to the GPUs as available, rather than wait seconds
  // for the host compiler (and, the first time, its prelude) to decide that the GPU is faster.
  const bool costed = cpu_code_ready(ctx.system, options.method, ctx.logger);
  if (!costed) {
    req.no_cost_detail =
        "the model's CPU code is not compiled (a solve on the CPU, or RuntimeModel::prepare, compiles it)";
  }
  const double steps = costed ? calibrator.probe_steps(ctx, y0, params, runs) : 0.0;
  auto cost_for = [&](BackendId id, const std::string& device_name) -> std::optional<sched::LinearCost> {
    if (!costed) return std::nullopt;
    const bool first_use = id.is_gpu() && !ctx.gpus.has(id.device);
    return calibrator.cost(ctx, id, device_name, first_use, y0, params, runs, steps, saves);
  };
  std::vector<sched::BackendCapabilities> caps{cpu_capabilities(device_count)};
  caps[0].cost = cost_for(BackendId::cpu(), cpu_cost_name(options));
  for (const gpu::DeviceInfo& d : found.devices) {
    if (!options.gpu.devices.empty() &&
        std::find(options.gpu.devices.begin(), options.gpu.devices.end(), d.index) == options.gpu.devices.end()) {
      continue;  // not one of the GPUs this solve may use
    }
    sched::BackendCapabilities g;
    g.id = BackendId::gpu(d.index);
    g.device_count = device_count;
    std::size_t free_bytes = d.free_memory, total_bytes = d.total_memory;
    try {
      gpu::memory_info(d.index, free_bytes, total_bytes);
    } catch (const GpuError&) {
      continue;  // a device the runtime cannot query cannot run a part either
    }
    g.memory_bytes = options.gpu.memory_bytes > 0
                         ? options.gpu.memory_bytes
                         : static_cast<std::size_t>(options.gpu.memory_fraction * static_cast<double>(free_bytes));
    if (g.memory_bytes >= footprint.device_bytes_per_run) g.cost = cost_for(g.id, d.name);
    caps.push_back(g);
  }
  return sched::plan(caps, sched::Strategy::automatic(), req);
}

/// The predicted wall time (ms) of solving this batch where `ctx.options` would run it, from the
/// measured cost model (calibrating first when it has no entry): the plan's slowest part under
/// Backend::automatic, the CPU's cost under Backend::cpu or when no GPU is usable, the GPU's under
/// Backend::gpu. What a distributed solve sizes each process's share by (a rank with a GPU predicts
/// less per run than one without). Throws GpuUnavailable when Backend::gpu cannot run.
template <class System, class T>
double predict_solve_ms(const SolveContext<System, T>& ctx, Calibrator<System, T>& calibrator, const T* y0,
                        const T* params, std::size_t runs, std::size_t saves) {
  const SolveOptions& options = ctx.options;
  if (options.backend != Backend::cpu) {
    const std::string unavailable = gpu_unavailable_reason<System, T>(ctx.system, options);
    if (!unavailable.empty() && options.backend == Backend::gpu) {
      throw GpuUnavailable("Backend::gpu requested, but " + unavailable);
    }
    if (unavailable.empty() && options.backend == Backend::automatic) {
      const sched::Selection selection = plan_parts(ctx, calibrator, {}, y0, params, runs, saves);
      if (selection.predicted_ms) return *selection.predicted_ms;
    }
  }
  // Backend::gpu (usable: checked above), else the CPU: Backend::cpu, or automatic without a GPU.
  const double steps = calibrator.probe_steps(ctx, y0, params, runs);
  const BackendId id = options.backend == Backend::gpu ? BackendId::gpu(options.gpu.device) : BackendId::cpu();
  std::string device_name = cpu_cost_name(options);
  if (id.is_gpu()) {
    for (const gpu::DeviceInfo& d : gpu::discover().devices) {
      if (d.index == id.device) device_name = d.name;
    }
  }
  const bool first_use = id.is_gpu() && !ctx.gpus.has(id.device);
  return calibrator.cost(ctx, id, device_name, first_use, y0, params, runs, steps, saves).predict_ms(runs);
}

}  // namespace batchode::detail
