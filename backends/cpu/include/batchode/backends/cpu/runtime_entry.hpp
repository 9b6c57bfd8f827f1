// backends/cpu/: a loaded model compiled at run time, as the CPU path calls it: its range function and
// the pair that makes and frees a worker's stepper (runtime_abi.hpp), and what keeps the shared object
// they live in loaded.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "batchode/backends/cpu/runtime_abi.hpp"

namespace batchode::cpu {

template <class T>
struct RuntimeEntry {
  RangeFunction<T> integrate = nullptr;
  NewStepperFunction new_stepper = nullptr;
  DeleteStepperFunction delete_stepper = nullptr;
  std::size_t n_states = 0, n_params = 0;
  std::string name;                  ///< the model's name, for messages
  std::shared_ptr<const void> keep;  ///< the loaded object: alive while any entry is
};

}  // namespace batchode::cpu
