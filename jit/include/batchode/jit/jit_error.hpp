// jit/: the one error type of the runtime-compilation layer, in its own header so that the cache, the
// compiler driver and the loader can throw it without including one another.
#pragma once

#include <stdexcept>

namespace batchode::jit {

/// Runtime compilation or loading failed: no compiler, an unusable cache folder, a file that does not
/// load, a missing symbol. what() names the file, folder, symbol or variable at fault.
class JitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace batchode::jit
