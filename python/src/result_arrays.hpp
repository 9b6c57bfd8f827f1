// python/: numpy arrays over memory batchode owns, without a copy. Each array's base is a capsule that
// holds a shared_ptr to the owner (a SolveResult, a grid's Batch), so the owner lives as long as any
// array over it, and dies with the last one.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace batchode::python {

/// A capsule keeping `owner` alive; numpy frees it (with the GIL held) when the last array goes.
template <class Owner>
pybind11::capsule keep_alive(const std::shared_ptr<Owner>& owner) {
  return pybind11::capsule(new std::shared_ptr<Owner>(owner),
                           [](void* p) { delete static_cast<std::shared_ptr<Owner>*>(p); });
}

/// A C-contiguous array of `dtype` shaped `shape` over `data`, owned by `base`. Read-write: results
/// are the user's to change.
inline pybind11::array view(const pybind11::dtype& dtype, std::vector<pybind11::ssize_t> shape, const void* data,
                            const pybind11::capsule& base) {
  return pybind11::array(dtype, std::move(shape), {}, data, base);
}

template <class T>
pybind11::array view_of(std::vector<pybind11::ssize_t> shape, const T* data, const pybind11::capsule& base) {
  return view(pybind11::dtype::of<T>(), std::move(shape), data, base);
}

}  // namespace batchode::python
