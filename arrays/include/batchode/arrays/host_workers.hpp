// arrays/: a few persistent host threads for the large host-side copies of a GPU solve (user arrays
// into pinned staging, pinned staging into the result). One thread copies ~10 GB/s, well below what
// the host memory and the bus sustain, so on a 2^22-run batch a single-threaded copy would cost more
// than the kernel.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace batchode::arrays {

class HostWorkers {
 public:
  /// `threads` workers besides the caller (0: min(15, hardware threads - 1)).
  explicit HostWorkers(unsigned threads = 0);
  ~HostWorkers();
  HostWorkers(const HostWorkers&) = delete;
  HostWorkers& operator=(const HostWorkers&) = delete;

  /// Calls fn(begin, end) over [0, n) split into contiguous parts of at least `grain` items, run by
  /// the workers and the calling thread; returns when all parts are done and rethrows the first
  /// exception a part threw. Not reentrant: one parallel_for at a time per HostWorkers.
  void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn,
                    std::size_t grain = std::size_t(1) << 16);

  /// Threads that share the work (the workers and the caller).
  unsigned concurrency() const noexcept { return static_cast<unsigned>(threads_.size()) + 1; }

 private:
  void work(unsigned index);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t, std::size_t)>* job_ = nullptr;
  std::size_t n_ = 0, parts_ = 0, next_part_ = 0, finished_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

/// memcpy of `bytes` from src to dst, split over the workers (or on the calling thread when null).
void parallel_copy(HostWorkers* workers, void* dst, const void* src, std::size_t bytes);

}  // namespace batchode::arrays
