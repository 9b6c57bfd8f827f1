// arrays/: the host worker threads of host_workers.hpp: started once, fed ranges, joined at exit.
#include "batchode/arrays/host_workers.hpp"

#include <algorithm>
#include <cstring>

namespace batchode::arrays {

HostWorkers::HostWorkers(unsigned threads) {
  if (threads == 0) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    threads = std::min(15u, hw - 1);
  }
  wanted_ = threads;
}

HostWorkers::~HostWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void HostWorkers::start_threads() {
  threads_.reserve(wanted_);
  for (unsigned i = 0; i < wanted_; ++i) threads_.emplace_back(&HostWorkers::work, this, i);
}

std::size_t HostWorkers::parts_for(std::size_t n, std::size_t grain) const noexcept {
  if (n == 0) return 0;
  return std::max<std::size_t>(1, std::min<std::size_t>(concurrency(), n / std::max<std::size_t>(grain, 1)));
}

void HostWorkers::parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn,
                               std::size_t grain) {
  if (n == 0) return;
  parallel_parts(n, parts_for(n, grain), [&](std::size_t, std::size_t begin, std::size_t end) { fn(begin, end); });
}

void HostWorkers::parallel_parts(std::size_t n, std::size_t parts,
                                 const std::function<void(std::size_t, std::size_t, std::size_t)>& fn) {
  if (n == 0 || parts == 0) return;
  if (parts == 1) {
    fn(0, 0, n);
    return;
  }
  const std::lock_guard<std::mutex> turn(turn_);
  std::unique_lock<std::mutex> lock(mutex_);
  if (threads_.size() < wanted_) start_threads();
  job_ = &fn;
  n_ = n;
  parts_ = parts;
  next_part_ = 0;
  finished_ = 0;
  error_ = nullptr;
  ++generation_;
  wake_.notify_all();
  // The caller takes parts too, so a pool of 0 workers still makes progress.
  while (next_part_ < parts_) {
    const std::size_t part = next_part_++;
    lock.unlock();
    try {
      fn(part, part * n / parts, (part + 1) * n / parts);
    } catch (...) {
      std::lock_guard<std::mutex> guard(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    lock.lock();
    ++finished_;
  }
  done_.wait(lock, [&] { return finished_ == parts_; });
  job_ = nullptr;
  if (error_) std::rethrow_exception(error_);
}

void HostWorkers::work(unsigned) {
  unsigned seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || (generation_ != seen && job_ != nullptr); });
    if (stop_) return;
    seen = generation_;
    while (job_ != nullptr && next_part_ < parts_) {
      const std::size_t part = next_part_++;
      const auto* job = job_;
      const std::size_t n = n_, parts = parts_;
      lock.unlock();
      try {
        (*job)(part, part * n / parts, (part + 1) * n / parts);
      } catch (...) {
        std::lock_guard<std::mutex> guard(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      lock.lock();
      if (++finished_ == parts_) done_.notify_all();
    }
  }
}

void parallel_copy(HostWorkers* workers, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  if (workers == nullptr) {
    std::memcpy(d, s, bytes);
    return;
  }
  workers->parallel_for(
      bytes, [&](std::size_t begin, std::size_t end) { std::memcpy(d + begin, s + begin, end - begin); },
      parallel_grain_bytes);
}

}  // namespace batchode::arrays
