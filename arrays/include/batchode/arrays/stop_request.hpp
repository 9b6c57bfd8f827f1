// arrays/: a caller's request to stop a solve before it ends (SolveOptions.stop): a flag the caller
// owns and sets from anywhere (another thread, a signal handler, Python's Ctrl-C), read by the
// backends where stopping leaves nothing half done: the CPU path before each block of runs it hands
// a worker, the GPU path before it queues each chunk (the chunks already queued are waited for on the
// way out, so no copy lands in a result being dropped). A one-chunk GPU solve therefore stops only
// once its kernel ends. A stopped solve throws SolveInterrupted and returns no result, so no run is
// left without a status.
#pragma once

#include <atomic>
#include <stdexcept>

namespace batchode {

/// A solve stopped because its SolveOptions.stop flag was set. what() says where it stopped.
class SolveInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace arrays {

/// True when `stop` (null: never) has been set. Relaxed: the flag carries no data with it.
inline bool stop_requested(const std::atomic<bool>* stop) noexcept {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

}  // namespace arrays
}  // namespace batchode
