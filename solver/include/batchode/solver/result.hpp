// solver/: the result of a batch solve: every run's final state, saved series, status and counters,
// kept together with their layout, plus where the batch ran and why.
//
// Layouts (all run-major: run r's values are contiguous):
//   final_state()  n_runs x n_states             index r * n_states + s
//   series()       n_runs x n_saves x n_states   index (r * n_saves + k) * n_states + s
//   times()        n_saves                       t0 + k * save_every
//   statuses(), counters()  n_runs
// Points a failed run never reached hold NaN in series(). statuses() and counters() are empty when
// SolveOptions.outputs.status / .counters were off (their accessors then throw std::logic_error).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/arrays/checked_size.hpp"
#include "batchode/solver/options.hpp"
#include "batchode/solver/status.hpp"

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
    const std::size_t bytes = arrays::checked_mul(n, sizeof(U), "result array bytes (values x value size)");
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

/// Where (part of) a batch ran, and the real reason it ran there.
struct ExecutionRecord {
  std::string backend;  ///< "cpu" or "gpu:<index>"
  std::string reason;   ///< gpu_available, gpu_unavailable, cpu_fallback, user_preference, ...
  std::size_t first_run = 0;
  std::size_t runs = 0;
  double wall_ms = 0;
  std::string detail;  ///< e.g. the GPU error that caused a fallback, or the cost model's estimates
  std::optional<double> predicted_ms;  ///< the cost model's prediction, when one was made
};

template <class T>
class SolveResult {
 public:
  SolveResult() = default;
  /// A result shaped for a solve; its large arrays come from `memory` when given (a Solver's pool).
  /// Throws InvalidInput when an array's size does not fit in size_t, std::bad_alloc.
  SolveResult(std::size_t n_runs, std::size_t n_states, std::size_t n_saves, const SolveOptions& options,
              const std::shared_ptr<ResultMemoryPool>& memory = nullptr)
      : n_runs_(n_runs),
        n_states_(n_states),
        n_saves_(n_saves),
        method_(options.method),
        final_state_(DefaultInitAllocator<T>(memory)),
        series_(DefaultInitAllocator<T>(memory)),
        status_(DefaultInitAllocator<Status>(memory)),
        counters_(DefaultInitAllocator<RunCounters>(memory)) {
    // Every size before any allocation: an overflow is refused before memory is touched.
    const std::size_t final_values =
        arrays::checked_mul(n_runs, n_states, "result final states (n_runs x n_states)");
    const std::size_t series_values =
        arrays::checked_product({n_runs, n_saves, n_states}, "result series (n_runs x n_saves x n_states)");
    final_state_.resize(final_values);
    series_.resize(series_values);
    times_.resize(n_saves);
    for (std::size_t k = 0; k < n_saves; ++k) {
      times_[k] = static_cast<T>(options.t0 + static_cast<double>(k) * options.save_every.value_or(0.0));
    }
    if (options.outputs.status) status_.resize(n_runs);
    if (options.outputs.counters) counters_.resize(n_runs);
  }

  std::size_t n_runs() const noexcept { return n_runs_; }
  std::size_t n_states() const noexcept { return n_states_; }
  std::size_t n_saves() const noexcept { return n_saves_; }
  Method method() const noexcept { return method_; }

  /// n_runs x n_states, run-major.
  const ResultArray<T>& final_state() const noexcept { return final_state_; }
  /// Final value of state `s` of run `r`. Throws std::out_of_range.
  T final_state(std::size_t r, std::size_t s) const { return final_state_.at(index(r, s)); }

  /// Save times (empty when save_every was unset).
  const std::vector<T>& times() const noexcept { return times_; }
  /// n_runs x n_saves x n_states, run-major.
  const ResultArray<T>& series() const noexcept { return series_; }
  /// State `s` of run `r` at save `k`. Throws std::out_of_range.
  T state_at(std::size_t r, std::size_t k, std::size_t s) const {
    if (r >= n_runs_ || k >= n_saves_ || s >= n_states_) {
      throw std::out_of_range("state_at(" + std::to_string(r) + ", " + std::to_string(k) + ", " +
                              std::to_string(s) + ") outside " + std::to_string(n_runs_) + " runs x " +
                              std::to_string(n_saves_) + " saves x " + std::to_string(n_states_) + " states");
    }
    return series_[(r * n_saves_ + k) * n_states_ + s];
  }

  /// Status of run `r`. Throws std::logic_error when statuses were not selected, std::out_of_range.
  Status status(std::size_t r) const {
    require_statuses();
    return status_.at(r);
  }
  const ResultArray<Status>& statuses() const noexcept { return status_; }
  /// Counters of run `r`. Throws std::logic_error when counters were not selected, std::out_of_range.
  const RunCounters& counters(std::size_t r) const {
    if (counters_.empty() && n_runs_ > 0) {
      throw std::logic_error("counters were not selected for this solve (SolveOptions.outputs.counters)");
    }
    return counters_.at(r);
  }
  /// Every run's counters; empty when SolveOptions.outputs.counters was off.
  const ResultArray<RunCounters>& counters() const noexcept { return counters_; }

  /// Number of runs that ended with `s`. Throws std::logic_error when statuses were not selected.
  std::size_t count(Status s) const {
    require_statuses();
    std::size_t n = 0;
    for (Status x : status_) n += (x == s);
    return n;
  }
  bool all_succeeded() const { return count(Status::success) == n_runs_; }

  /// Where the batch ran: one record per part (CPU, each GPU, fallbacks).
  const std::vector<ExecutionRecord>& execution() const noexcept { return execution_; }

  /// The pool the large arrays came from (null when none); the GPU path asks it which are pinned.
  const ResultMemoryPool* memory() const noexcept { return final_state_.get_allocator().pool.get(); }

  // Writable views for the backends that fill the result.
  T* final_state_data() noexcept { return final_state_.data(); }
  T* series_data() noexcept { return series_.data(); }
  /// nullptr when statuses were not selected.
  Status* status_data() noexcept { return status_.empty() ? nullptr : status_.data(); }
  /// nullptr when counters were not selected.
  RunCounters* counters_data() noexcept { return counters_.empty() ? nullptr : counters_.data(); }
  void add_execution(ExecutionRecord record) { execution_.push_back(std::move(record)); }

 private:
  void require_statuses() const {
    if (status_.empty() && n_runs_ > 0) {
      throw std::logic_error("statuses were not selected for this solve (SolveOptions.outputs.status)");
    }
  }

  std::size_t index(std::size_t r, std::size_t s) const {
    if (r >= n_runs_ || s >= n_states_) {
      throw std::out_of_range("final_state(" + std::to_string(r) + ", " + std::to_string(s) + ") outside " +
                              std::to_string(n_runs_) + " runs x " + std::to_string(n_states_) + " states");
    }
    return r * n_states_ + s;
  }

  std::size_t n_runs_ = 0, n_states_ = 0, n_saves_ = 0;
  Method method_ = Method::dopri5;
  ResultArray<T> final_state_, series_;
  std::vector<T> times_;
  ResultArray<Status> status_;
  ResultArray<RunCounters> counters_;
  std::vector<ExecutionRecord> execution_;
};

}  // namespace batchode
