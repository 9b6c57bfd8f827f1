// arrays/: the Solver's pool of large result blocks (see result.hpp).
#include <algorithm>
#include <cstdlib>
#include <new>

#include "batchode/gpu/buffers.hpp"
#include "batchode/checks/checked_size.hpp"
#include "batchode/arrays/result_memory.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace batchode {

namespace {
constexpr std::size_t huge_page = std::size_t(2) << 20;
}

std::size_t ResultMemoryPool::rounded(std::size_t bytes) {
  return checks::checked_round_up(bytes, huge_page, "result block bytes rounded to 2 MiB");
}

void* ResultMemoryPool::allocate_block(std::size_t rounded_bytes) {
  void* block = std::aligned_alloc(huge_page, rounded_bytes);
  if (block == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  (void)::madvise(block, rounded_bytes, MADV_HUGEPAGE);  // advice only: without THP nothing changes
#endif
  return block;
}

void ResultMemoryPool::free_block(void* block) noexcept { std::free(block); }

ResultMemoryPool::~ResultMemoryPool() {
  for (const Free& f : free_) {
    forget_pinned(f.block);
    free_block(f.block);
  }
}

void ResultMemoryPool::enable_pinning() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  pinning_ = true;
}

bool ResultMemoryPool::is_pinned(const void* p, std::size_t bytes) const {
  const char* begin = static_cast<const char*>(p);
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Pinned& b : pinned_) {
    if (begin >= b.block && begin + bytes <= b.block + b.bytes) return true;
  }
  return false;
}

void ResultMemoryPool::forget_pinned(const void* block) noexcept {
  for (auto it = pinned_.begin(); it != pinned_.end(); ++it) {
    if (it->block == block) {
      gpu::unregister_host(const_cast<char*>(it->block));
      pinned_.erase(it);
      return;
    }
  }
}

void* ResultMemoryPool::acquire(std::size_t bytes) {
  const std::size_t size = rounded(bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The newest block of exactly this size: repeated solves of one batch size find theirs.
    for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
      if (it->bytes == size) {
        void* block = it->block;
        free_.erase(std::next(it).base());
        return block;
      }
    }
  }
  return allocate_block(size);
}

void ResultMemoryPool::release(void* block, std::size_t bytes) noexcept {
  const std::size_t size = rounded(bytes);
  bool pin = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pin = pinning_ && std::none_of(pinned_.begin(), pinned_.end(), [&](const Pinned& b) { return b.block == block; });
  }
  // Registration takes milliseconds: outside the lock, so other results' releases do not wait.
  if (pin && gpu::try_register_host(block, size)) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      pinned_.push_back({static_cast<const char*>(block), size});
    } catch (const std::bad_alloc&) {
      gpu::unregister_host(block);
    }
  }
  void* evicted = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      free_.push_back({block, size});
    } catch (const std::bad_alloc&) {
      evicted = block;  // no room to remember it: give it back to the system
    }
    if (evicted == nullptr && free_.size() > max_free_blocks) {
      evicted = free_.front().block;
      free_.erase(free_.begin());
    }
    if (evicted != nullptr) forget_pinned(evicted);
  }
  if (evicted != nullptr) free_block(evicted);
}

std::size_t ResultMemoryPool::free_blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_.size();
}

}  // namespace batchode
