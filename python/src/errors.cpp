// python/: batchode's C++ exceptions as Python exceptions, with batchode's own messages:
//   InvalidInput (bad sizes, NaN, options)      -> ValueError
//   models::ModelError (bad model text)         -> batchode.ModelError (a ValueError) with .source,
//                                                  .line, .column and .message
//   GpuUnavailable (backend="gpu", none usable) -> batchode.GpuUnavailable (a RuntimeError)
//   GpuError (a GPU failure with no fallback)   -> batchode.GpuError (a RuntimeError)
//   jit::JitError, RuntimeCompileError          -> batchode.CompileError (a RuntimeError)
//   SolveInterrupted                            -> KeyboardInterrupt (a stop not asked by Ctrl-C
//                                                  arrives here only from C++ code setting the flag)
// A message names what the user wrote: the SolveOptions fields Python calls by another name are
// given Python's keyword (python_keywords).
#include <pybind11/pybind11.h>

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include "batchode/arrays/stop_request.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/gpu/gpu_error.hpp"
#include "batchode/gpu/runtime_compiler.hpp"
#include "batchode/jit/jit_error.hpp"
#include "batchode/models/model_error.hpp"
#include "batchode/solver/systems/gpu_path.hpp"
#include "bindings.hpp"

namespace py = pybind11;

namespace batchode::python {

namespace {

/// SolveOptions fields that solve_ivp's keywords name otherwise, as C++'s messages write them.
constexpr std::pair<std::string_view, std::string_view> python_keywords[] = {
    {"SolveOptions.step_control.dt_max", "max_step"},
};

/// `message` with C++'s field names replaced by Python's keywords.
std::string in_python_words(std::string message) {
  for (const auto& [field, keyword] : python_keywords) {
    for (std::size_t at = message.find(field); at != std::string::npos;
         at = message.find(field, at + keyword.size())) {
      message.replace(at, field.size(), keyword);
    }
  }
  return message;
}

}  // namespace

void bind_errors(py::module_& m) {
  // Plain Python classes (not py::exception<>), so ModelError can carry attributes set per instance.
  py::object builtins = py::module_::import("builtins");
  py::object type = builtins.attr("type");
  py::dict model_error_body;
  model_error_body["__doc__"] =
      "Bad model text or description: .source (file or '<string>'), .line and .column (1-based; 0 when "
      "unknown) and .message (without the place); str() is 'source:line:column: message'.";
  model_error_body["__module__"] = "batchode";
  m.attr("ModelError") = type("ModelError", py::make_tuple(builtins.attr("ValueError")), model_error_body);
  auto runtime_error_class = [&](const char* name, const char* doc) {
    py::dict body;
    body["__doc__"] = doc;
    body["__module__"] = "batchode";
    m.attr(name) = type(name, py::make_tuple(builtins.attr("RuntimeError")), body);
  };
  runtime_error_class("GpuUnavailable",
                      "backend='gpu' asked for a GPU and none can run the solve; the message says why.");
  runtime_error_class("GpuError", "A GPU failed during a solve that could not fall back to the CPU.");
  runtime_error_class("CompileError",
                      "A model's generated code failed to compile (host compiler, NVRTC or hipRTC); the "
                      "message carries the compiler's log.");

  // The translator sees every C++ exception that reaches any pybind11 module, so the module is looked
  // up only for batchode's own (not captured: the module object outlives every translation).
  py::register_exception_translator([](std::exception_ptr error) {
    if (!error) return;
    auto raise = [](const char* name, const char* message) {
      PyErr_SetString(py::module_::import("batchode._batchode").attr(name).ptr(), message);
    };
    try {
      std::rethrow_exception(error);
    } catch (const models::ModelError& e) {
      py::object model_error = py::module_::import("batchode._batchode").attr("ModelError");
      py::object instance = model_error(e.what());
      instance.attr("source") = e.where().source;
      instance.attr("line") = e.where().line;
      instance.attr("column") = e.where().column;
      instance.attr("message") = e.message();
      PyErr_SetObject(model_error.ptr(), instance.ptr());
    } catch (const InvalidInput& e) {
      PyErr_SetString(PyExc_ValueError, in_python_words(e.what()).c_str());
    } catch (const GpuUnavailable& e) {
      raise("GpuUnavailable", e.what());
    } catch (const GpuError& e) {
      raise("GpuError", e.what());
    } catch (const jit::JitError& e) {
      raise("CompileError", e.what());
    } catch (const gpu::RuntimeCompileError& e) {
      raise("CompileError", e.what());
    } catch (const SolveInterrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });
}

}  // namespace batchode::python
