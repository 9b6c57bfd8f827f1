// checks/: the error every host layer throws for bad input (sizes, NaN, options, budgets). Lowest
// host layer so that arrays/, gpu/ and the backends refuse bad input in the same words as solver/.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace batchode {

/// Bad input to a solve: what() names the field, the run or the sizes at fault.
class InvalidInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The InvalidInput for a NaN or infinity in a batch: `what` is "initial value" or "parameter",
/// `index` the position within run `run`'s row. One wording for every place inputs are checked.
inline InvalidInput non_finite_input(const char* what, std::size_t run, std::size_t index, double value) {
  return InvalidInput(std::string(what) + " of run " + std::to_string(run) + " (index " + std::to_string(index) +
                      ") is " + std::to_string(value) + ": inputs must be finite");
}

}  // namespace batchode
