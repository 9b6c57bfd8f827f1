// timing/: the exception thrown when timers or the TimeLogger are used out of order.
#pragma once

#include <stdexcept>

namespace batchode {

/// Misuse of the timing API: an unregistered label, stopping what is not running, unbalanced
/// nesting, a KernelTimer read before it stopped, GPU timing in a build without a GPU backend.
/// A logic error: the calling code is wrong, not the data. The logger stays consistent after it.
class TimingError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace batchode
