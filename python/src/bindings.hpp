// python/: the parts of the extension module batchode._batchode, one function per file that adds its
// classes and functions to the module (module.cpp calls them in order: errors first, since the others
// translate C++ exceptions into the Python types errors.cpp registers).
#pragma once

#include <pybind11/pybind11.h>

namespace batchode::python {

void bind_errors(pybind11::module_& m);   // errors.cpp: exception types and translation
void bind_models(pybind11::module_& m);   // model_bindings.cpp: Model, load_model, from_toml
void bind_solvers(pybind11::module_& m);  // solve_bindings.cpp: Solver32/64, build_grid, results
void bind_timing(pybind11::module_& m);   // timing_bindings.cpp: the default TimeLogger
void bind_distributed(pybind11::module_& m);  // distributed_bindings.cpp: Collective, for mpi4py

/// Writes what the TimeLogger printed from threads without the GIL (timing_bindings.cpp) to Python's
/// sys.stderr. The caller holds the GIL.
void flush_python_output();

}  // namespace batchode::python
