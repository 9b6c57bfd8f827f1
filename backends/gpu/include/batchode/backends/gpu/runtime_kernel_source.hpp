// backends/gpu/: the text a runtime compiler (NVRTC, hipRTC) is given to build the batch kernels of a
// system known only at run time: the core's batch kernel (kernels/launch/batch_kernel.hpp, found through
// -I<kernels include dir>), the system's source, checks that fail to compile with a clear message,
// the instantiations of kernels::integrate_chunk (final state only, with a series, and, when a solve
// keeps summaries, with them: built for exactly the kinds it keeps) for one method and precision and
// the run order's kernel (kernels/launch/run_order_kernels.hpp) in that precision, with their name
// expressions so the compiler gives their lowered names.
// The same arithmetic as a compiled-in system: nvcc/hipcc and NVRTC/hipRTC compile one source.
// Host code, plain strings.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

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

/// A program for a runtime compiler and the name expressions of its kernels.
struct RuntimeKernelProgram {
  std::string source;
  /// [0]: without a series (save_series false), [1]: with one, [2]: the run order's kernel, [3] (when
  /// built for summaries): with summaries; load_runtime_kernels expects the lowered names in this order.
  std::vector<std::string> name_expressions;
};

/// The program that builds `method`'s batch kernels for the system `system_name` (an empty
/// struct, defined at namespace scope by `system_source`, which may use batchode::port and
/// BATCHODE_HOST_DEVICE) in `precision` ("float" or "double"). The program fails to compile, saying
/// why, when the type is no ODE system, is not empty (RuntimeGpuRunner passes it as a 1-byte
/// placeholder), or cannot be integrated by the method on a GPU (a stiff method needs a Jacobian).
/// With summary_kinds (SummaryKind bits, kernels/outputs/summaries.hpp) the program also holds the summary
/// kernel built for those kinds only, its accumulators in registers. Throws std::invalid_argument for
/// a CPU-only method, another precision or bits that are no summary kind.
inline RuntimeKernelProgram runtime_kernel_program(const std::string& system_source,
                                                   const std::string& system_name, Method method,
                                                   const std::string& precision,
                                                   std::uint32_t summary_kinds = 0) {
  if (!is_known_method(method) || cpu_only(method)) {
    throw std::invalid_argument("runtime_kernel_program: method " + std::to_string(static_cast<int>(method)) +
                                " has no GPU kernel");
  }
  if (precision != "float" && precision != "double") {
    throw std::invalid_argument("runtime_kernel_program: precision '" + precision +
                                "' is not float or double");
  }
  if ((summary_kinds & ~all_summary_kinds) != 0) {
    throw std::invalid_argument("runtime_kernel_program: summary kinds " + std::to_string(summary_kinds) +
                                " hold bits that are no summary kind");
  }
  const std::string tableau = tableau_type_name(method);
  RuntimeKernelProgram program;
  program.source =
      "#include \"batchode/kernels/launch/batch_kernel.hpp\"\n"
      "#include \"batchode/kernels/launch/run_order_kernels.hpp\"\n"
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
  instantiate(false, 0);
  instantiate(true, 0);
  const std::string order = std::string("batchode::kernels::run_order_segments<") + precision + ">";
  program.source +=
      "template __global__ void " + order + "(batchode::kernels::RunOrderJob<" + precision + ">);\n";
  program.name_expressions.push_back(order);
  if (summary_kinds != 0) instantiate(true, summary_kinds);
  return program;
}

}  // namespace batchode
