// arrays/: the host memory of results: a pool of large blocks recycled between the results of one
// Solver (page-locked once a GPU has been used), and the allocator that takes from it without
// zero-filling. Implemented in arrays/src/result_memory.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "batchode/checks/checked_size.hpp"

namespace batchode {

/// Large blocks of host memory handed back by the results of one Solver and handed out again to its
/// later results. A fresh block costs a page fault per page on first write (with transparent huge
/// pages, 1.5 ms per 64 MiB over 16 threads on the H100 machine; 34 ms on one thread without them),
/// and the GPU path writes a 2^22-run result while its kernels run, so those faults decided how fast
/// the host kept up. A recycled block is already mapped. Thread-safe: results may die anywhere.
class ResultMemoryPool {
 public:
  ResultMemoryPool() = default;
  ~ResultMemoryPool();
  ResultMemoryPool(const ResultMemoryPool&) = delete;
  ResultMemoryPool& operator=(const ResultMemoryPool&) = delete;

  /// Blocks below this size come from the ordinary allocator and are never pooled.
  static constexpr std::size_t min_block_bytes = std::size_t(4) << 20;
  /// Free blocks kept for reuse at most; the oldest is returned to the system beyond that.
  static constexpr std::size_t max_free_blocks = 8;

  /// A block of at least `bytes` (>= min_block_bytes), on a 2 MiB boundary. Throws std::bad_alloc,
  /// or InvalidInput when `bytes` rounded up to 2 MiB does not fit in size_t.
  void* acquire(std::size_t bytes);
  /// Takes back a block that acquire(bytes) gave out, with the same `bytes`. Never throws.
  void release(void* block, std::size_t bytes) noexcept;
  /// Free blocks held now (for tests).
  std::size_t free_blocks() const;

  /// From now on, blocks coming back are page-locked (registered with the GPU runtime) before they
  /// are kept, so the GPU path downloads final states and statuses straight into the next results
  /// instead of through staging (on two H200s sharing one host, that copy's memory traffic decided
  /// the time). Only recycled blocks are locked: a one-off result never pays the registration
  /// (2 ms per 64 MiB), and the locked memory stays bounded by the blocks of repeated solves. A
  /// Solver calls this when it first uses a GPU.
  void enable_pinning() noexcept;
  /// Whether [p, p + bytes) lies in a page-locked block of this pool.
  bool is_pinned(const void* p, std::size_t bytes) const;

  /// The block size acquire(bytes) really allocates: `bytes` rounded up to 2 MiB. Throws
  /// InvalidInput when that does not fit in size_t (never for a size acquire() gave out).
  static std::size_t rounded(std::size_t bytes);
  /// A fresh block from the system, marked for transparent huge pages; and its release.
  static void* allocate_block(std::size_t rounded_bytes);
  static void free_block(void* block) noexcept;

 private:
  struct Free {
    void* block;
    std::size_t bytes;
  };
  struct Pinned {
    const char* block;
    std::size_t bytes;
  };
  void forget_pinned(const void* block) noexcept;  // under mutex_

  mutable std::mutex mutex_;
  std::vector<Free> free_;      // oldest first
  std::vector<Pinned> pinned_;  // every locked block, free or in a result
  bool pinning_ = false;
};

/// An allocator whose construct() default-initialises: a std::vector of numbers resized with it is not
/// zero-filled first. The result's arrays are written in full by the backends, and zero-filling
/// 10^7 runs' worth of outputs would cost more than the GPU's kernel. Large arrays are placed on
/// 2 MiB boundaries, marked for transparent huge pages, and taken from (and given back to) the
/// Solver's ResultMemoryPool when one is attached.
template <class U>
struct DefaultInitAllocator {
  using value_type = U;
  // A result moved or swapped keeps its pool with its memory.
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  DefaultInitAllocator() = default;
  explicit DefaultInitAllocator(std::shared_ptr<ResultMemoryPool> memory) noexcept : pool(std::move(memory)) {}
  template <class V>
  DefaultInitAllocator(const DefaultInitAllocator<V>& other) noexcept : pool(other.pool) {}

  U* allocate(std::size_t n) {
    const std::size_t bytes = checks::checked_mul(n, sizeof(U), "result array bytes (values x value size)");
    if (bytes < ResultMemoryPool::min_block_bytes) return std::allocator<U>().allocate(n);
    if (pool) return static_cast<U*>(pool->acquire(bytes));
    return static_cast<U*>(ResultMemoryPool::allocate_block(ResultMemoryPool::rounded(bytes)));
  }
  void deallocate(U* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(U);
    if (bytes < ResultMemoryPool::min_block_bytes) {
      std::allocator<U>().deallocate(p, n);
    } else if (pool) {
      pool->release(p, bytes);
    } else {
      ResultMemoryPool::free_block(p);
    }
  }
  template <class V>
  void construct(V* p) noexcept(std::is_nothrow_default_constructible_v<V>) {
    ::new (static_cast<void*>(p)) V;
  }
  template <class V, class... Args>
  void construct(V* p, Args&&... args) {
    ::new (static_cast<void*>(p)) V(std::forward<Args>(args)...);
  }
  template <class V>
  bool operator==(const DefaultInitAllocator<V>& other) const noexcept {
    return pool == other.pool;
  }
  template <class V>
  bool operator!=(const DefaultInitAllocator<V>& other) const noexcept {
    return pool != other.pool;
  }

  std::shared_ptr<ResultMemoryPool> pool;  ///< null: blocks come from and go back to the system
};

/// The arrays of a result: std::vector without the zero fill.
template <class U>
using ResultArray = std::vector<U, DefaultInitAllocator<U>>;

}  // namespace batchode
