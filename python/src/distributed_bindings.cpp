// python/: batchode._batchode.Collective, the distributed::Collective a Python class implements (with
// mpi4py: python/batchode/_mpi.py), so a solve over the processes of an MPI job runs batchode's one
// distributed algorithm without this module linking any MPI library. Calls come from C++ with the GIL
// released; each takes it back for the Python method.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/distributed/collective.hpp"
#include "bindings.hpp"

namespace batchode::python {

namespace py = pybind11;

namespace {

class PyCollective : public distributed::Collective {
 public:
  int rank() const override { PYBIND11_OVERRIDE_PURE(int, distributed::Collective, rank, ); }
  int size() const override { PYBIND11_OVERRIDE_PURE(int, distributed::Collective, size, ); }
  int local_rank() const override { PYBIND11_OVERRIDE_PURE(int, distributed::Collective, local_rank, ); }
  int local_size() const override { PYBIND11_OVERRIDE_PURE(int, distributed::Collective, local_size, ); }
  /// allgather(text: bytes) -> list of bytes (bytes: a message need not be UTF-8)
  std::vector<std::string> allgather(const std::string& text) override {
    py::gil_scoped_acquire gil;
    return override_of("allgather")(py::bytes(text)).cast<std::vector<std::string>>();
  }

  /// abort(why: str): comm.Abort after printing why
  [[noreturn]] void abort(const std::string& why) override {
    {
      py::gil_scoped_acquire gil;
      override_of("abort")(py::str(py::bytes(why).attr("decode")("utf-8", "replace")));
    }
    std::abort();  // the Python method ends the job; should it return, this process still ends
  }

  /// gather(data: memoryview, into: writable memoryview or None, bytes_by_rank: list, root: int)
  void gather(const void* data, std::size_t bytes, void* into, const std::vector<std::uint64_t>& bytes_by_rank,
              int root) override {
    py::gil_scoped_acquire gil;
    const py::function method = override_of("gather");
    std::size_t total = 0;
    for (std::uint64_t n : bytes_by_rank) total += static_cast<std::size_t>(n);
    const py::object target = into != nullptr
                                  ? py::object(py::memoryview::from_memory(into, static_cast<py::ssize_t>(total), false))
                                  : py::object(py::none());
    method(py::memoryview::from_memory(data == nullptr && bytes == 0 ? "" : data, static_cast<py::ssize_t>(bytes)),
           target, bytes_by_rank, root);
  }

  /// write_at_all(path: str, pieces: list of (offset, memoryview)) -> str (the error, "" when none)
  std::string write_at_all(const std::string& path, const std::vector<distributed::FilePiece>& pieces) override {
    py::gil_scoped_acquire gil;
    const py::function method = override_of("write_at_all");
    py::list list;
    for (const distributed::FilePiece& p : pieces) {
      list.append(py::make_tuple(p.offset, py::memoryview::from_memory(p.data, static_cast<py::ssize_t>(p.bytes))));
    }
    return method(path, list).cast<std::string>();
  }

 private:
  py::function override_of(const char* name) const {
    py::function method = py::get_override(static_cast<const distributed::Collective*>(this), name);
    if (!method) throw std::runtime_error(std::string("batchode Collective: ") + name + " is not implemented");
    return method;
  }
};

}  // namespace

void bind_distributed(py::module_& m) {
  py::class_<distributed::Collective, PyCollective>(m, "Collective",
                                                    "The processes a distributed solve runs on (see batchode._mpi)")
      .def(py::init<>());
}

}  // namespace batchode::python
