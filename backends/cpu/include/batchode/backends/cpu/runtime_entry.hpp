// backends/cpu/: a loaded model compiled at run time, as the CPU path calls it: its range function
// (runtime_abi.hpp) and what keeps the shared object it lives in loaded.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "batchode/backends/cpu/runtime_abi.hpp"

namespace batchode::cpu {

template <class T>
struct RuntimeEntry {
  RangeFunction<T> integrate = nullptr;
  std::size_t n_states = 0, n_params = 0;
  std::string name;                  ///< the model's name, for messages
  std::shared_ptr<const void> keep;  ///< the loaded object: alive while any entry is
};

}  // namespace batchode::cpu
