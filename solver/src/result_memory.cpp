// solver/: the Solver's pool of large result blocks (see result.hpp).
#include <algorithm>
#include <cstdlib>
#include <new>

#include "batchode/solver/result.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace batchode {

namespace {
constexpr std::size_t huge_page = std::size_t(2) << 20;
}

std::size_t ResultMemoryPool::rounded(std::size_t bytes) noexcept {
  return (bytes + huge_page - 1) / huge_page * huge_page;
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
  for (const Free& f : free_) free_block(f.block);
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
  void* evicted = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      free_.push_back({block, rounded(bytes)});
    } catch (const std::bad_alloc&) {
      evicted = block;  // no room to remember it: give it back to the system
    }
    if (evicted == nullptr && free_.size() > max_free_blocks) {
      evicted = free_.front().block;
      free_.erase(free_.begin());
    }
  }
  if (evicted != nullptr) free_block(evicted);
}

std::size_t ResultMemoryPool::free_blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_.size();
}

}  // namespace batchode
