// backends/gpu/: the text a runtime compiler (NVRTC, hipRTC) is given to build the batch kernels of a
// system known only at run time: the core's batch kernel (kernels/launch/batch_kernel.hpp, found through
// -I<kernels include dir>), the system's source, checks that fail to compile with a clear message, and
// the instantiations of kernels::integrate_chunk for one method and precision that a solve needs (final
// state only, with a series, with summaries of exactly the kinds it keeps: RuntimeKernelChoice), with
// their name expressions so the compiler gives their lowered names; and, apart (it does not depend on
// the system), the run order's kernel (kernels/launch/run_order_kernels.hpp) in one precision.
// The same arithmetic as a compiled-in system: nvcc/hipcc and NVRTC/hipRTC compile one source.
// Host code, plain strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/kernels/launch/lane_group.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/kernels/outputs/summaries.hpp"

namespace batchode {

/// The source-code name of method `m`'s tableau, e.g. "batchode::tableau::Rk4". Throws
/// std::invalid_argument for a value outside the enum.
inline std::string tableau_type_name(Method m) {
  switch (m) {
#define BATCHODE_TABLEAU_NAME(method, Tab) \
  case Method::method:                     \
    return "batchode::tableau::" #Tab;
    BATCHODE_METHOD_REGISTRY(BATCHODE_TABLEAU_NAME)
#undef BATCHODE_TABLEAU_NAME
  }
  throw std::invalid_argument("tableau_type_name: method " + std::to_string(static_cast<int>(m)) +
                              " is not one of batchode's methods");
}

/// "float" or "double": precision T as a runtime-compiled source names it.
template <class T>
constexpr const char* precision_type_name() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "batchode solves in float or double");
  return std::is_same_v<T, float> ? "float" : "double";
}

/// The name expression of kernels::integrate_chunk<tableau of `method`, save_series, system,
/// precision, summary_kinds> (0: no summaries), as given to the runtime compiler and as its lowered
/// name is asked for. Every argument spelled, the defaulted one too: hipRTC finds a kernel by its
/// demangled name, which spells it ("..., 0u>").
inline std::string integrate_chunk_expression(Method method, bool save_series, const std::string& system,
                                              const std::string& precision, std::uint32_t summary_kinds = 0) {
  return "batchode::kernels::integrate_chunk<" + tableau_type_name(method) + ", " +
         (save_series ? "true" : "false") + ", " + system + ", " + precision + ", " +
         std::to_string(summary_kinds) + "u>";
}

/// The name expression of kernels::integrate_chunk_in_lane_groups<tableau of `method`, system, precision,
/// lanes> (kernels/launch/lane_group_kernel.hpp), spelled as integrate_chunk_expression's (lanes as the
/// demangled name writes a size_t: "8ul").
inline std::string lane_group_chunk_expression(Method method, const std::string& system,
                                               const std::string& precision, std::size_t lanes) {
  return "batchode::kernels::integrate_chunk_in_lane_groups<" + tableau_type_name(method) + ", " + system +
         ", " + precision + ", " + std::to_string(lanes) + "ul>";
}

/// The lanes per run of the final-state kernel of a model compiled at run time: kernels::lanes_per_run's
/// rule (lanes_for_size) for a method that splits over lanes (kernels::splits_over_lanes_v: explicit GPU
/// methods but dop853) where the model's source gives rhs_component
/// (models/codegen.hpp writes it only for models without events or drivers), else 1. The program
/// checks that the device code's lanes_per_run agrees (runtime_kernel_program).
inline std::size_t runtime_lanes_per_run(Method method, std::size_t n_states, std::size_t value_bytes,
                                         bool has_rhs_component) {
  if (!has_rhs_component || !is_known_method(method)) return 1;
  return tableau::dispatch(method, [&](auto tag) -> std::size_t {
    using Tab = typename decltype(tag)::type;
    if constexpr (kernels::splits_over_lanes_v<Tab>) {
      return kernels::lanes_for_size(n_states, static_cast<std::size_t>(Tab::stages), value_bytes);
    } else {
      return 1;
    }
  });
}

/// A program for a runtime compiler and the name expressions of its kernels.
struct RuntimeKernelProgram {
  std::string source;
  /// The kernels it builds, in this order, each where chosen: final state only (save_series false),
  /// with a series, the run order's kernel, with summaries. All chosen: [0] to [3] (load_runtime_kernels
  /// reads the lowered names in the same order).
  std::vector<std::string> name_expressions;
};

/// Which kernels a runtime program builds. A solve launches one batch kernel (chunk_kernel_for: with
/// summaries when it keeps them, else with a series when it saves, else final state only) and the run
/// order's kernel when it orders runs on the device; each kernel is a whole compile through ptxas or
/// the AMD back end (the series kernel was half of a 128-state model's 35 s), so a solve asks for its
/// own: RuntimeKernelChoice::only. The default builds all but the summary kernel.
struct RuntimeKernelChoice {
  bool final_state = true;
  /// The final-state kernel's threads per run: 1, or each run split over that many lanes
  /// (integrate_chunk_in_lane_groups; runtime_lanes_per_run gives the number).
  std::size_t lanes_per_run = 1;
  bool series = true;
  std::uint32_t summary_kinds = 0;  ///< SummaryKind bits of the summary kernel (0: no summary kernel)
  bool order = true;                ///< kernels::run_order_segments<precision>
  /// kernels::series_moments<precision> (a solve reducing its series on the device), always in a module
  /// of its own (series_moments_program): not among a batch program's kernels, not counted.
  bool moments = false;

  /// Just `kernel` (built for `summary_kinds` when it is the summary kernel), with the run order's
  /// kernel if `order`.
  static RuntimeKernelChoice only(kernels::ChunkKernel kernel, std::uint32_t summary_kinds, bool order) {
    RuntimeKernelChoice c;
    c.final_state = kernel == kernels::ChunkKernel::final_state;
    c.series = kernel == kernels::ChunkKernel::series;
    c.summary_kinds = kernel == kernels::ChunkKernel::summaries ? summary_kinds : 0;
    c.order = order;
    return c;
  }
  /// Every kernel of today's default and the summary kernel of `summary_kinds` (0: none).
  static RuntimeKernelChoice all(std::uint32_t summary_kinds = 0) {
    RuntimeKernelChoice c;
    c.summary_kinds = summary_kinds;
    return c;
  }
  /// The number of kernels chosen: the name expressions of its program.
  std::size_t count() const noexcept {
    return std::size_t{final_state} + std::size_t{series} + std::size_t{order} +
           std::size_t{summary_kinds != 0};
  }
  bool operator<(const RuntimeKernelChoice& o) const noexcept {
    return std::tie(final_state, lanes_per_run, series, summary_kinds, order) <
           std::tie(o.final_state, o.lanes_per_run, o.series, o.summary_kinds, o.order);
  }
};

namespace detail {

inline void check_runtime_precision(const std::string& precision) {
  if (precision != "float" && precision != "double") {
    throw std::invalid_argument("runtime_kernel_program: precision '" + precision +
                                "' is not float or double");
  }
}

/// The run order's kernel instantiated in `precision`, appended to `program`.
inline void add_run_order_kernel(RuntimeKernelProgram& program, const std::string& precision) {
  const std::string order = std::string("batchode::kernels::run_order_segments<") + precision + ">";
  program.source +=
      "template __global__ void " + order + "(batchode::kernels::RunOrderJob<" + precision + ">);\n";
  program.name_expressions.push_back(order);
}

}  // namespace detail

/// The program that builds `method`'s batch kernels that `choice` names for the system `system_name`
/// (an empty struct, defined at namespace scope by `system_source`, which may use batchode::port and
/// BATCHODE_HOST_DEVICE) in `precision` ("float" or "double"). The program fails to compile, saying
/// why, when the type is no ODE system, is not empty (RuntimeGpuRunner passes it as a 1-byte
/// placeholder), or cannot be integrated by the method on a GPU (a stiff method needs a Jacobian).
/// The summary kernel, where chosen, is built for choice.summary_kinds only (SummaryKind bits,
/// kernels/outputs/summaries.hpp), its accumulators in registers. Throws std::invalid_argument for a
/// CPU-only method, another precision, bits that are no summary kind or a choice of no kernel.
inline RuntimeKernelProgram runtime_kernel_program(const std::string& system_source,
                                                   const std::string& system_name, Method method,
                                                   const std::string& precision,
                                                   const RuntimeKernelChoice& choice) {
  if (!is_known_method(method) || cpu_only(method)) {
    throw std::invalid_argument("runtime_kernel_program: method " + std::to_string(static_cast<int>(method)) +
                                " has no GPU kernel");
  }
  detail::check_runtime_precision(precision);
  if ((choice.summary_kinds & ~all_summary_kinds) != 0) {
    throw std::invalid_argument("runtime_kernel_program: summary kinds " +
                                std::to_string(choice.summary_kinds) + " hold bits that are no summary kind");
  }
  if (choice.count() == 0) throw std::invalid_argument("runtime_kernel_program: no kernel chosen");
  const std::string tableau = tableau_type_name(method);
  RuntimeKernelProgram program;
  program.source =
      "#include \"batchode/kernels/launch/batch_kernel.hpp\"\n" +
      std::string(choice.final_state && choice.lanes_per_run > 1
                      ? "#include \"batchode/kernels/launch/lane_group_kernel.hpp\"\n"
                      : "") +
      std::string(choice.order ? "#include \"batchode/kernels/launch/run_order_kernels.hpp\"\n" : "") +
      "#include \"batchode/kernels/methods/method_registry.hpp\"\n"
      "#include \"batchode/kernels/core/system.hpp\"\n\n" +
      system_source +
      "\n\n"
      "static_assert(batchode::is_ode_system_v<" +
      system_name + ", " + precision + ">, \"" + system_name +
      " is not an ODE system (n_states, n_params, a const templated call operator)\");\n"
      "static_assert(__is_empty(" +
      system_name + "), \"" + system_name +
      " must be an empty struct: runtime-compiled kernels are launched with a 1-byte placeholder for it\");\n"
      "static_assert(batchode::kernels::StepperFor<" +
      tableau + ", batchode::integrated_system_t<" + system_name + ", " + precision + ">, " + precision +
      ">::available, \"" + system_name + " cannot be integrated by this method on a GPU\");\n";
  auto instantiate = [&](bool save_series, std::uint32_t kinds) {
    const std::string expression =
        integrate_chunk_expression(method, save_series, system_name, precision, kinds);
    program.source += "template __global__ void " + expression + "(" + system_name +
                      ", batchode::RunSettings<" + precision + ">, batchode::kernels::DeviceInputs<" +
                      precision + ">, batchode::kernels::DeviceOutputs<" + precision + ">);\n";
    program.name_expressions.push_back(expression);
  };
  if (choice.final_state && choice.lanes_per_run > 1) {
    // Several lanes per run: the device code's own rule must give the lanes the host launches for.
    const std::string expression =
        lane_group_chunk_expression(method, system_name, precision, choice.lanes_per_run);
    program.source += "static_assert(batchode::kernels::lanes_per_run<" + tableau + ", " + system_name +
                      ", " + precision + ">() == " + std::to_string(choice.lanes_per_run) + ", \"" +
                      system_name + ": the host's lanes per run are not the device code's\");\n";
    program.source += "template __global__ void " + expression + "(" + system_name +
                      ", batchode::RunSettings<" + precision + ">, batchode::kernels::DeviceInputs<" +
                      precision + ">, batchode::kernels::DeviceOutputs<" + precision + ">);\n";
    program.name_expressions.push_back(expression);
  } else if (choice.final_state) {
    instantiate(false, 0);
  }
  if (choice.series) instantiate(true, 0);
  if (choice.order) detail::add_run_order_kernel(program, precision);
  if (choice.summary_kinds != 0) instantiate(true, choice.summary_kinds);
  return program;
}

/// runtime_kernel_program with every kernel: final state only, with a series, the run order's kernel,
/// and (summary_kinds not 0) with summaries of those kinds.
inline RuntimeKernelProgram runtime_kernel_program(const std::string& system_source,
                                                   const std::string& system_name, Method method,
                                                   const std::string& precision,
                                                   std::uint32_t summary_kinds = 0) {
  return runtime_kernel_program(system_source, system_name, method, precision,
                                RuntimeKernelChoice::all(summary_kinds));
}

/// The program of the series' reduction across runs (kernels/outputs/series_moments.hpp) in
/// `precision` ("float" or "double"): one kernel, the same for every model. Throws
/// std::invalid_argument for another precision.
inline RuntimeKernelProgram series_moments_program(const std::string& precision) {
  detail::check_runtime_precision(precision);
  RuntimeKernelProgram program;
  const std::string kernel = std::string("batchode::kernels::series_moments<") + precision + ">";
  program.source = "#include \"batchode/kernels/outputs/series_moments.hpp\"\n\ntemplate __global__ void " + kernel +
                   "(batchode::kernels::SeriesMomentsJob<" + precision + ">);\n";
  program.name_expressions.push_back(kernel);
  return program;
}

/// The program of the run order's kernel alone in `precision` ("float" or "double"): it does not depend
/// on the system, so one module serves every model in that precision. Throws std::invalid_argument
/// for another precision.
inline RuntimeKernelProgram run_order_program(const std::string& precision) {
  detail::check_runtime_precision(precision);
  RuntimeKernelProgram program;
  program.source = "#include \"batchode/kernels/launch/run_order_kernels.hpp\"\n\n";
  detail::add_run_order_kernel(program, precision);
  return program;
}

}  // namespace batchode
