// python/: batchode._batchode, the compiled half of the Python package. python/batchode/ holds the API
// users call (solve_ivp, Solver, Model); this module holds what must be C++: the runtime models, the
// solve with the GIL released and Ctrl-C handled, results as numpy arrays over batchode's memory.
#include <pybind11/pybind11.h>

#include "bindings.hpp"

PYBIND11_MODULE(_batchode, m) {
  m.doc() = "batchode's compiled core: runtime models, solvers and the TimeLogger (use the batchode package)";
#ifdef BATCHODE_VERSION_STRING
  m.attr("__version__") = BATCHODE_VERSION_STRING;
#endif
  batchode::python::bind_errors(m);
  batchode::python::bind_models(m);
  batchode::python::bind_distributed(m);  // before the solvers, whose solve_distributed takes one
  batchode::python::bind_solvers(m);
  batchode::python::bind_timing(m);
}
