// arrays/: the device-side inputs of a chunked batch (initial values and parameters, and each run's
// save times when the runs have their own): per buffer slot, a device buffer and its pinned staging,
// the (parallel) copy into staging, which also checks that every value is finite, the device buffers
// of the chunk's run order when the solve orders its runs (run_order.hpp), and the asynchronous
// uploads. Layout and stride: see device_views.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/gpu/buffers.hpp"
#include "batchode/checks/checked_size.hpp"
#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/checks/finite.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/transpose.hpp"
#include "batchode/kernels/launch/run_order_kernels.hpp"

namespace batchode::arrays {

/// A NaN or infinity found while staging: in the initial values or the parameters of batch run
/// `run`, at `index` within that run's row.
struct NonFiniteInput {
  bool in_params = false;
  std::size_t run = 0, index = 0;
  double value = 0;
};

/// Device and pinned buffers for the inputs of `slots` chunks in flight. Buffers only grow, so a
/// manager kept across solves stops allocating once it has seen the largest batch.
///
/// Per chunk and slot: stage() (host transpose into pinned memory), then upload_*() (enqueued on
/// the slot's stream), then the order kernel (on order_job(), when the solve orders its runs) and
/// the batch kernel read device_view(). A slot may be staged again only after
/// its previous uploads completed (synchronise the slot's stream or an event after them).
template <class T>
class InputArrayManager {
 public:
  /// Sizes every slot for `plan` (plan.slots slots of plan.chunk_runs runs); returns true when a
  /// buffer had to grow (the solve then paid allocations). Throws GpuError, or InvalidInput when a
  /// buffer size does not fit in size_t.
  /// `ordered`: the slots also hold a run order (4 bytes per run, on the device). `own_save_times`:
  /// the save times per run when each run has its own (0: none), staged and uploaded per chunk.
  bool prepare(const ChunkPlan& plan, std::size_t n_states, std::size_t n_params, bool ordered = false,
               std::size_t own_save_times = 0) {
    // Sizes first: a throw leaves the manager as it was.
    const std::size_t y0_values =
        checks::checked_mul(n_states, plan.chunk_runs, "initial-value buffer (n_states x chunk runs)");
    const std::size_t param_values =
        checks::checked_mul(n_params, plan.chunk_runs, "parameter buffer (n_params x chunk runs)");
    const std::size_t time_values =
        checks::checked_mul(own_save_times, plan.chunk_runs, "save-time buffer (n_saves x chunk runs)");
    n_states_ = n_states;
    n_params_ = n_params;
    n_save_times_ = own_save_times;
    capacity_ = plan.chunk_runs;
    if (slots_.size() < plan.slots) slots_.resize(plan.slots);
    n_slots_ = plan.slots;
    bool grew = false;
    for (std::size_t i = 0; i < n_slots_; ++i) {
      Slot& slot = slots_[i];
      grew |= slot.y0.ensure(y0_values);
      grew |= slot.y0_staging.ensure(y0_values);
      grew |= slot.params.ensure(param_values);
      grew |= slot.params_staging.ensure(param_values);
      if (ordered) {
        grew |= slot.order.ensure(plan.chunk_runs);
      }
      if (time_values > 0) {
        grew |= slot.save_times.ensure(time_values);
        grew |= slot.save_times_staging.ensure(time_values);
      }
      slot.count = 0;
      slot.ordered = false;
    }
    return grew;
  }

  /// Copies runs [first_run, first_run + count) of the batch into slot `slot`'s pinned staging
  /// (split over `workers` when given) and checks every value on the way: returns the first NaN or
  /// infinity met (the lowest run; its initial values before its parameters), or nothing when all are
  /// finite. The slot is staged either way. `y0` and `params` are the whole batch's run-major arrays
  /// (run r's values at y0[r * n_states + s], params[r * n_params + p]); `params` may be nullptr when
  /// n_params == 0. Throws std::out_of_range (bad slot, count 0 or above capacity) or
  /// std::invalid_argument (params missing).
  std::optional<NonFiniteInput> stage(std::size_t slot, const T* y0, const T* params, std::size_t first_run,
                                      std::size_t count, HostWorkers* workers = nullptr) {
    Slot& s = checked_slot(slot);
    if (count == 0 || count > capacity_) {
      throw std::out_of_range("InputArrayManager::stage: " + std::to_string(count) +
                              " runs for a chunk capacity of " + std::to_string(capacity_));
    }
    if (n_params_ > 0 && params == nullptr) {
      throw std::invalid_argument("InputArrayManager::stage: the system has " + std::to_string(n_params_) +
                                  " parameters but no parameter array was given");
    }
    const T* y_src = y0 + first_run * n_states_;
    const T* p_src = n_params_ > 0 ? params + first_run * n_params_ : nullptr;
    const std::size_t none = count;
    std::vector<std::size_t> bad_y(1, none), bad_p(1, none);  // per part: first bad run (local)
    // One pass per part over both arrays: each part's runs are contiguous in both.
    auto copy_part = [&](std::size_t part, std::size_t begin, std::size_t end) {
      const std::size_t iy = checks::copy_checking_finite(s.y0_staging.data() + begin * n_states_, y_src + begin * n_states_,
                                                  (end - begin) * n_states_);
      if (iy != (end - begin) * n_states_) bad_y[part] = begin + iy / n_states_;
      if (n_params_ > 0) {
        const std::size_t ip = checks::copy_checking_finite(s.params_staging.data() + begin * n_params_,
                                                    p_src + begin * n_params_, (end - begin) * n_params_);
        if (ip != (end - begin) * n_params_) bad_p[part] = begin + ip / n_params_;
      }
    };
    const std::size_t grain = std::max<std::size_t>(1, parallel_grain_bytes / ((n_states_ + n_params_) * sizeof(T)));
    if (workers != nullptr && count > grain) {
      const std::size_t parts = workers->parts_for(count, grain);
      bad_y.assign(parts, none);
      bad_p.assign(parts, none);
      workers->parallel_parts(count, parts, copy_part);
    } else {
      copy_part(0, 0, count);
    }
    s.count = count;
    s.ordered = false;
    const std::size_t run_y = *std::min_element(bad_y.begin(), bad_y.end());
    const std::size_t run_p = *std::min_element(bad_p.begin(), bad_p.end());
    if (run_y == none && run_p == none) return std::nullopt;
    const bool in_params = run_p < run_y;
    const std::size_t run = in_params ? run_p : run_y;
    const std::size_t width = in_params ? n_params_ : n_states_;
    const T* row = (in_params ? p_src : y_src) + run * width;
    const std::size_t index = checks::first_non_finite_in(row, 0, width);
    return NonFiniteInput{in_params, first_run + run, index, static_cast<double>(row[index])};
  }

  /// Copies the save times of the runs staged in slot `slot` (runs [first_run, first_run + count) of
  /// `times`, the whole batch's, run-major: n_saves per run) into its pinned staging, runs fastest
  /// (device_views.hpp), split over `workers` when given. Needs prepare(..., own_save_times = n_saves)
  /// and stage() of the same runs first (std::logic_error otherwise). The times were checked with the
  /// options (strictly increasing in the span).
  void stage_save_times(std::size_t slot, const T* times, std::size_t first_run, std::size_t count,
                        HostWorkers* workers = nullptr) {
    Slot& s = staged_slot(slot, count);
    if (n_save_times_ == 0) {
      throw std::logic_error("InputArrayManager::stage_save_times: the slots were prepared without save times");
    }
    const T* src = times + first_run * n_save_times_;
    T* dst = s.save_times_staging.data();
    // Parts of whole tiles of runs: each writes its own columns of every row.
    auto copy_part = [&](std::size_t, std::size_t begin, std::size_t end) {
      pack_runs_fastest(src + begin * n_save_times_, end - begin, n_save_times_, dst + begin, count);
    };
    const std::size_t grain = std::max<std::size_t>(detail::transpose_tile,
                                                    parallel_grain_bytes / (n_save_times_ * sizeof(T)));
    if (workers != nullptr && count > grain) {
      workers->parallel_parts(count, workers->parts_for(count, grain), copy_part);
    } else {
      copy_part(0, 0, count);
    }
  }

  /// Enqueues the copy of the staged save times (n_saves x count values) on `stream`; returns the
  /// bytes copied. Throws as upload_initial_values.
  std::size_t upload_save_times(std::size_t slot, std::size_t count, gpu::stream_t stream) {
    Slot& s = staged_slot(slot, count);
    const std::size_t bytes = n_save_times_ * count * sizeof(T);
    gpu::copy_to_device_async(s.save_times.data(), s.save_times_staging.data(), bytes, stream);
    return bytes;
  }

  /// What the order kernel needs to order the runs staged in slot `slot` by `key` (planned by
  /// plan_run_order()); from now on device_view() names the slot's order, which that kernel must
  /// fill before the batch kernel runs. Needs prepare(..., ordered = true).
  kernels::RunOrderJob<T> order_job(std::size_t slot, const kernels::RunOrderKey& key) {
    Slot& s = checked_slot(slot);
    if (s.order.size() < s.count) {
      throw std::logic_error("InputArrayManager::order_job: the slots were prepared without a run order");
    }
    s.ordered = true;
    return kernels::RunOrderJob<T>{device_view(slot), static_cast<port::uint32_t>(n_states_),
                                   static_cast<port::uint32_t>(n_params_), key, s.order.data()};
  }

  /// Enqueues the copy of the staged initial values (n_states x count values) on `stream`; returns
  /// the bytes copied. `count` must be what the slot was staged with (std::logic_error otherwise).
  /// Throws GpuError.
  std::size_t upload_initial_values(std::size_t slot, std::size_t count, gpu::stream_t stream) {
    Slot& s = staged_slot(slot, count);
    const std::size_t bytes = n_states_ * count * sizeof(T);
    gpu::copy_to_device_async(s.y0.data(), s.y0_staging.data(), bytes, stream);
    return bytes;
  }

  /// Enqueues the copy of the staged parameters (n_params x count values) on `stream`; returns the
  /// bytes copied (0, and nothing enqueued, when n_params == 0). Throws as upload_initial_values.
  std::size_t upload_parameters(std::size_t slot, std::size_t count, gpu::stream_t stream) {
    Slot& s = staged_slot(slot, count);
    const std::size_t bytes = n_params_ * count * sizeof(T);
    if (bytes > 0) gpu::copy_to_device_async(s.params.data(), s.params_staging.data(), bytes, stream);
    return bytes;
  }

  /// The kernel's view of slot `slot`: device pointers and stride = the count it was staged with.
  /// Throws std::out_of_range for a bad slot.
  kernels::DeviceInputs<T> device_view(std::size_t slot) const {
    const Slot& s = checked_slot(slot);
    return kernels::DeviceInputs<T>{s.y0.data(), n_params_ > 0 ? s.params.data() : nullptr, s.count,
                                    s.ordered ? s.order.data() : nullptr,
                                    n_save_times_ > 0 ? s.save_times.data() : nullptr};
  }

  std::size_t slots() const noexcept { return n_slots_; }
  std::size_t capacity() const noexcept { return capacity_; }  ///< runs per slot
  std::size_t n_states() const noexcept { return n_states_; }
  std::size_t n_params() const noexcept { return n_params_; }
  /// Device bytes currently allocated by all slots (grows, never shrinks).
  std::size_t device_bytes() const noexcept {
    std::size_t total = 0;
    for (const Slot& s : slots_) {
      total += s.y0.bytes() + s.params.bytes() + s.order.bytes() + s.save_times.bytes();
    }
    return total;
  }

 private:
  struct Slot {
    gpu::DeviceBuffer<T> y0, params, save_times;
    gpu::PinnedBuffer<T> y0_staging, params_staging, save_times_staging;
    gpu::DeviceBuffer<std::uint32_t> order;  // the run order, made on the device
    std::size_t count = 0;  // runs staged (the chunk's device stride)
    bool ordered = false;   // order_job() was asked for the staged runs
  };

  Slot& checked_slot(std::size_t slot) {
    return const_cast<Slot&>(static_cast<const InputArrayManager&>(*this).checked_slot(slot));
  }
  const Slot& checked_slot(std::size_t slot) const {
    if (slot >= n_slots_) {
      throw std::out_of_range("InputArrayManager: slot " + std::to_string(slot) + " of " +
                              std::to_string(n_slots_));
    }
    return slots_[slot];
  }
  Slot& staged_slot(std::size_t slot, std::size_t count) {
    Slot& s = checked_slot(slot);
    if (count != s.count) {
      throw std::logic_error("InputArrayManager: upload of " + std::to_string(count) + " runs from slot " +
                             std::to_string(slot) + ", which holds " + std::to_string(s.count) +
                             " staged runs");
    }
    return s;
  }

  std::vector<Slot> slots_;
  std::size_t n_slots_ = 0, capacity_ = 0, n_states_ = 0, n_params_ = 0;
  std::size_t n_save_times_ = 0;  // save times per run staged per chunk (0: the runs share the plan's)
};

}  // namespace batchode::arrays
