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

/// Bytes per thread below which splitting a copy costs more (waking the thread) than it saves. A
/// chunk of a 2^22-run float batch holds 8 MiB of inputs: at 1 MiB per part only 8 of the H100
/// machine's 16 threads took part and staging ran at 20 GB/s, slower than the kernels.
inline constexpr std::size_t parallel_grain_bytes = std::size_t(256) << 10;

class HostWorkers {
 public:
  /// `threads` workers besides the caller (0: min(15, hardware threads - 1)). The threads start on
  /// the first call that has work for them, so a runner that only ever sees small batches (and the
  /// cost model's probes of a fresh runner) never pays for starting them.
  explicit HostWorkers(unsigned threads = 0);
  ~HostWorkers();
  HostWorkers(const HostWorkers&) = delete;
  HostWorkers& operator=(const HostWorkers&) = delete;

  /// Calls fn(begin, end) over [0, n) split into contiguous parts of at least `grain` items, run by
  /// the workers and the calling thread; returns when all parts are done and rethrows the first
  /// exception a part threw. Calls from several threads take turns; fn must not call back into the
  /// same HostWorkers.
  void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn,
                    std::size_t grain = std::size_t(1) << 16);

  /// How many parts parallel_for would split [0, n) into with this grain.
  std::size_t parts_for(std::size_t n, std::size_t grain) const noexcept;
  /// Calls fn(part, begin, end) for part = 0 .. parts-1 over [0, n) split evenly (parts >= 1), on the
  /// workers and the calling thread; for callers that keep a result per part. Same rules as
  /// parallel_for.
  void parallel_parts(std::size_t n, std::size_t parts,
                      const std::function<void(std::size_t, std::size_t, std::size_t)>& fn);

  /// Threads that share the work (the workers and the caller).
  unsigned concurrency() const noexcept { return wanted_ + 1; }

 private:
  void work(unsigned index);
  void start_threads();

  unsigned wanted_ = 0;
  std::vector<std::thread> threads_;
  std::mutex turn_;  // one job at a time (a GPU part's CPU fallback may meet the CPU part here)
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t, std::size_t, std::size_t)>* job_ = nullptr;
  std::size_t n_ = 0, parts_ = 0, next_part_ = 0, finished_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

/// memcpy of `bytes` from src to dst, split over the workers (or on the calling thread when null).
void parallel_copy(HostWorkers* workers, void* dst, const void* src, std::size_t bytes);

}  // namespace batchode::arrays
