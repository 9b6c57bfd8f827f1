// arrays/: the device-side outputs of a chunked batch (final state, saved series and observables,
// summaries, status and stop time, counters, events): per buffer slot, device buffers for the active outputs
// only and their pinned staging, the asynchronous downloads (one per output, so each can be timed as its own
// event) and the host transpose into the result (a ResultView). Layout and stride: see device_views.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/gpu/buffers.hpp"
#include "batchode/checks/checked_size.hpp"
#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/kernels/launch/device_views.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/transpose.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/arrays/series_moments_sink.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/outputs/series_moments.hpp"

namespace batchode::arrays {

/// Device and pinned buffers for the outputs of `slots` chunks in flight. Buffers only grow, so a
/// manager kept across solves stops allocating once it has seen the largest batch. Status and
/// counters take memory only when selected; the series only when n_saves > 0; the summaries only
/// when asked for. Each run's stop time is kept with its status.
///
/// Per chunk and slot: the kernel writes device_view(slot, count), then download_*() enqueue the
/// copies, then, after the stream synchronised, scatter() fills the result. The counters are one
/// buffer per slot holding accepted, rejected and rhs_evaluations back to back (3 x stride), so
/// they download with one copy.
///
/// With `series_moments` (a solve keeping statistics across runs and no series: ResultView::
/// series_moments) the series and observables stay on the device: reduce_series() enqueues their
/// moments (kernels/outputs/series_moments.hpp) and the download of those alone, and scatter() hands
/// them to the result's sink. Their pinned staging is then not needed.
template <class T>
class OutputArrayManager {
 public:
  /// Sizes every slot for `plan` and selects the outputs; returns true when a buffer had to grow.
  /// Throws GpuError, or InvalidInput when n_saves does not fit in 32 bits or a buffer size in size_t.
  /// `n_observables`: saved beside the state at every save (nothing without saves). Summaries
  /// (kernels/outputs/summaries.hpp): `summary_windows` x `summary_slots` values per run, with or without
  /// saves (none when either is 0). `series_states`: the states saved at each save
  /// (SolveOptions::save_variables; default: every one), the series' columns. `series_moments`: the
  /// series is reduced on the device (reduce_series), not downloaded.
  bool prepare(const ChunkPlan& plan, std::size_t n_states, std::size_t n_saves, bool status, bool counters,
               const EventShape& events = {}, std::size_t n_observables = 0, std::size_t summary_windows = 0,
               std::size_t summary_slots = 0, std::optional<std::size_t> series_states = std::nullopt,
               bool series_moments = false) {
    if (n_saves > std::numeric_limits<std::uint32_t>::max()) {
      throw InvalidInput("OutputArrayManager: " + std::to_string(n_saves) + " saved points exceed 2^32 - 1");
    }
    // Sizes first: a throw leaves the manager as it was.
    const std::size_t c = plan.chunk_runs;
    const std::size_t state_values = checks::checked_mul(n_states, c, "final-state buffer (n_states x chunk runs)");
    const std::size_t series_width = series_states.value_or(n_states);
    const std::size_t series_values =
        checks::checked_product({n_saves, series_width, c}, "series buffer (n_saves x saved states x chunk runs)");
    const std::size_t counter_values = counters ? checks::checked_mul(3, c, "counters buffer (3 x chunk runs)") : 0;
    const std::size_t event_values =
        checks::checked_mul(events.values_per_run(n_states), c, "event buffer (event values x chunk runs)");
    const std::size_t count_values = checks::checked_mul(events.n_events, c, "event counts (n_events x chunk runs)");
    const std::size_t observable_values = checks::checked_product(
        {n_saves, n_observables, c}, "observables buffer (n_saves x n_observables x chunk runs)");
    const std::size_t summary_values = checks::checked_product(
        {summary_windows, summary_slots, c}, "summaries buffer (windows x values per window x chunk runs)");
    const bool moments = series_moments && n_saves > 0;
    const std::size_t moment_rows = checks::checked_mul(n_saves, series_width + n_observables, "moments (saves x columns)");
    // The most parts a chunk's rows are cut into: a full chunk's (series_moments_parts grows with the runs).
    const std::size_t moment_values =
        moments ? checks::checked_product({moment_rows, kernels::series_moments_parts(moment_rows, c),
                                           kernels::moments_values},
                                          "moments buffer (saves x columns x parts x 5)")
                : 0;
    n_states_ = n_states;
    n_saves_ = n_saves;
    series_states_ = series_width;
    status_ = status;
    counters_ = counters;
    events_ = events;
    n_observables_ = n_saves > 0 ? n_observables : 0;
    const bool summaries = summary_windows > 0 && summary_slots > 0;
    summary_windows_ = summaries ? summary_windows : 0;
    summary_slots_ = summaries ? summary_slots : 0;
    moments_ = moments;
    capacity_ = c;
    if (slots_.size() < plan.slots) slots_.resize(plan.slots);
    n_slots_ = plan.slots;
    bool grew = false;
    for (std::size_t i = 0; i < n_slots_; ++i) {
      Slot& slot = slots_[i];
      grew |= slot.final_state.ensure(state_values);
      grew |= slot.final_state_staging.ensure(state_values);
      grew |= slot.series.ensure(series_values);
      grew |= slot.series_staging.ensure(moments ? 0 : series_values);
      grew |= slot.status.ensure(status ? c : 0);
      grew |= slot.status_staging.ensure(status ? c : 0);
      grew |= slot.stop_time.ensure(status ? c : 0);
      grew |= slot.stop_time_staging.ensure(status ? c : 0);
      grew |= slot.counters.ensure(counter_values);
      grew |= slot.counters_staging.ensure(counter_values);
      grew |= slot.events.ensure(event_values);
      grew |= slot.events_staging.ensure(event_values);
      grew |= slot.event_counts.ensure(count_values);
      grew |= slot.event_counts_staging.ensure(count_values);
      grew |= slot.observables.ensure(observable_values);
      grew |= slot.observables_staging.ensure(moments ? 0 : observable_values);
      grew |= slot.moments.ensure(moment_values);
      grew |= slot.moments_staging.ensure(moment_values);
      grew |= slot.summaries.ensure(summary_values);
      grew |= slot.summaries_staging.ensure(summary_values);
      slot.downloaded = 0;
    }
    return grew;
  }

  /// The kernel's view of slot `slot` for a chunk of `stride` runs (its count); inactive outputs
  /// are nullptr. Throws std::out_of_range for a bad slot or a stride of 0 or above capacity.
  kernels::DeviceOutputs<T> device_view(std::size_t slot, std::size_t stride) {
    Slot& s = checked_slot(slot, stride, "device_view");
    std::uint32_t* counters = counters_ ? s.counters.data() : nullptr;
    return kernels::DeviceOutputs<T>{s.final_state.data(),
                            n_saves_ > 0 && series_states_ > 0 ? s.series.data() : nullptr,
                            status_ ? s.status.data() : nullptr,
                            counters,
                            counters ? counters + stride : nullptr,
                            counters ? counters + 2 * stride : nullptr,
                            stride,
                            static_cast<std::uint32_t>(n_saves_),
                            events_.n_events > 0 ? s.events.data() : nullptr,
                            events_.n_events > 0 ? s.event_counts.data() : nullptr,
                            n_observables_ > 0 ? s.observables.data() : nullptr,
                            summary_windows_ > 0 ? s.summaries.data() : nullptr,
                            status_ ? s.stop_time.data() : nullptr,
                            moments_ ? 1u : 0u};  // reduced across the runs: in the threads' order
  }

  /// Enqueues the copy of the final states (n_states x count values) on `stream`, to staging or,
  /// when `pinned_dst` is given (page-locked memory: the result's own rows), straight there, and
  /// scatter() then leaves them alone. Returns the bytes. Throws GpuError, std::out_of_range (bad
  /// slot or count).
  std::size_t download_state(std::size_t slot, std::size_t count, gpu::stream_t stream, T* pinned_dst = nullptr) {
    Slot& s = checked_slot(slot, count, "download_state");
    s.state_direct = pinned_dst != nullptr;
    return download(s, s.state_direct ? pinned_dst : s.final_state_staging.data(), s.final_state.data(),
                    n_states_ * count * sizeof(T), count, stream);
  }
  /// Enqueues the copy of the series (n_saves x saved states x count values); 0 bytes when none is saved.
  std::size_t download_series(std::size_t slot, std::size_t count, gpu::stream_t stream) {
    Slot& s = checked_slot(slot, count, "download_series");
    return download(s, s.series_staging.data(), s.series.data(), n_saves_ * series_states_ * count * sizeof(T),
                    count, stream);
  }
  /// With series_moments: enqueues on `stream` the moments of the chunk's series and observables,
  /// through `launch(gpu::stream_t, const kernels::SeriesMomentsJob<T>&)` (which enqueues
  /// kernels::series_moments with series_moments_block threads and rows x parts blocks), then their
  /// download. Returns the bytes downloaded (0 without series_moments).
  template <class Launch>
  std::size_t reduce_series(std::size_t slot, std::size_t count, gpu::stream_t stream, Launch&& launch) {
    Slot& s = checked_slot(slot, count, "reduce_series");
    if (!moments_) return 0;
    const std::size_t columns = series_states_ + n_observables_;
    s.parts = kernels::series_moments_parts(n_saves_ * columns, count);
    auto job = [&](const T* values, std::size_t width, std::size_t first_column) {
      if (width == 0) return;
      launch(stream, kernels::SeriesMomentsJob<T>{values, static_cast<std::uint32_t>(n_saves_ * width),
                                                  static_cast<std::uint32_t>(width), count, count, s.parts,
                                                  s.moments.data(), static_cast<std::uint32_t>(columns),
                                                  static_cast<std::uint32_t>(first_column)});
    };
    job(s.series.data(), series_states_, 0);
    job(s.observables.data(), n_observables_, series_states_);
    return download(s, s.moments_staging.data(), s.moments.data(),
                    n_saves_ * columns * s.parts * kernels::moments_values * sizeof(double), count, stream);
  }
  /// Whether the series is reduced on the device (prepare's series_moments with saves).
  bool reduces_series() const noexcept { return moments_; }

  /// Enqueues the copies of the statuses (count int32) and of the stop times (count values, always to
  /// staging); 0 bytes when status is not selected. `pinned_dst` (the statuses) as for download_state.
  std::size_t download_status(std::size_t slot, std::size_t count, gpu::stream_t stream,
                              Status* pinned_dst = nullptr) {
    Slot& s = checked_slot(slot, count, "download_status");
    s.status_direct = pinned_dst != nullptr;
    void* dst = s.status_direct ? static_cast<void*>(pinned_dst) : static_cast<void*>(s.status_staging.data());
    const std::size_t bytes =
        download(s, dst, s.status.data(), status_ ? count * sizeof(std::int32_t) : 0, count, stream);
    return bytes + download(s, s.stop_time_staging.data(), s.stop_time.data(), status_ ? count * sizeof(T) : 0,
                            count, stream);
  }
  /// Enqueues the copy of the counters (3 x count uint32); 0 bytes when counters are not selected.
  std::size_t download_counters(std::size_t slot, std::size_t count, gpu::stream_t stream) {
    Slot& s = checked_slot(slot, count, "download_counters");
    return download(s, s.counters_staging.data(), s.counters.data(),
                    counters_ ? 3 * count * sizeof(std::uint32_t) : 0, count, stream);
  }

  /// Enqueues the copy of the observables (n_saves x n_observables x count values); 0 bytes without.
  std::size_t download_observables(std::size_t slot, std::size_t count, gpu::stream_t stream) {
    Slot& s = checked_slot(slot, count, "download_observables");
    return download(s, s.observables_staging.data(), s.observables.data(),
                    n_saves_ * n_observables_ * count * sizeof(T), count, stream);
  }

  /// Enqueues the copy of the summaries (summary_windows x summary_slots x count values); 0 bytes
  /// without.
  std::size_t download_summaries(std::size_t slot, std::size_t count, gpu::stream_t stream) {
    Slot& s = checked_slot(slot, count, "download_summaries");
    return download(s, s.summaries_staging.data(), s.summaries.data(),
                    summary_windows_ * summary_slots_ * count * sizeof(T), count, stream);
  }

  /// Enqueues the copies of the event records and their counts (two copies; 0 bytes without events).
  std::size_t download_events(std::size_t slot, std::size_t count, gpu::stream_t stream) {
    Slot& s = checked_slot(slot, count, "download_events");
    if (events_.n_events == 0) return 0;
    const std::size_t bytes = download(s, s.events_staging.data(), s.events.data(),
                                       events_.values_per_run(n_states_) * count * sizeof(T), count, stream);
    return bytes + download(s, s.event_counts_staging.data(), s.event_counts.data(),
                            events_.n_events * count * sizeof(std::uint32_t), count, stream);
  }

  /// Transposes the downloaded chunk of slot `slot` (runs [first_run, first_run + count) of the
  /// batch) from pinned staging into `result`'s run-major arrays: final state, series, observables,
  /// summaries, events, statuses and counters; unselected status/counters keep the result's
  /// defaults. Call only after the downloads completed (the stream synchronised). Throws
  /// std::out_of_range (bad slot, count or runs outside the result), std::invalid_argument (result
  /// shaped differently, or without room for the events, observables or summaries the buffers hold)
  /// or std::logic_error (count is not what was downloaded).
  void scatter(std::size_t slot, std::size_t first_run, std::size_t count, const ResultView<T>& result,
               HostWorkers* workers = nullptr) const {
    const Slot& s = checked_slot(slot, count, "scatter");
    if (count != s.downloaded) {
      throw std::logic_error("OutputArrayManager::scatter: " + std::to_string(count) + " runs from slot " +
                             std::to_string(slot) + ", which downloaded " + std::to_string(s.downloaded));
    }
    if (result.n_states != n_states_ || result.n_saves != n_saves_ ||
        (n_saves_ > 0 && result.series_states != series_states_)) {
      throw std::invalid_argument("OutputArrayManager::scatter: result has " + std::to_string(result.n_states) +
                                  " states x " + std::to_string(result.n_saves) + " saves (" +
                                  std::to_string(result.series_states) + " saved), buffers hold " +
                                  std::to_string(n_states_) + " x " + std::to_string(n_saves_) + " (" +
                                  std::to_string(series_states_) + ")");
    }
    if (first_run > result.n_runs || count > result.n_runs - first_run) {
      throw std::out_of_range("OutputArrayManager::scatter: runs [" + std::to_string(first_run) + ", " +
                              std::to_string(first_run + count) + ") outside a result of " +
                              std::to_string(result.n_runs) + " runs");
    }
    // One pass per part over every output: a part's runs are contiguous in each of them, and one
    // wake-up of the workers per chunk instead of one per array.
    static_assert(sizeof(Status) == sizeof(std::int32_t), "Status is stored as int32 on the device");
    const std::size_t width = n_saves_ * series_states_;  // series: (k, c) -> k * saved states + c on both sides
    T* final_out = s.state_direct ? nullptr : result.final_state + first_run * n_states_;
    if (moments_ && result.series_moments == nullptr) {
      throw std::invalid_argument("OutputArrayManager::scatter: the series was reduced on the device but the result "
                                  "has no sink for its moments");
    }
    T* series_out = width > 0 && !moments_ ? result.series + first_run * width : nullptr;
    Status* status_out = status_ && !s.status_direct ? result.status + first_run : nullptr;
    T* stop_time_out = status_ && result.stop_time != nullptr ? result.stop_time + first_run : nullptr;
    RunCounters* counters_out = counters_ && result.counters != nullptr ? result.counters + first_run
                                                                                : nullptr;
    const std::size_t event_width = events_.values_per_run(n_states_);
    if (events_.n_events > 0 && (result.events == nullptr || result.n_events != events_.n_events ||
                                 result.event_slots != events_.slots)) {
      throw std::invalid_argument("OutputArrayManager::scatter: result has no room for the events the buffers hold");
    }
    T* events_out = events_.n_events > 0 ? result.events + first_run * event_width : nullptr;
    const std::size_t observable_width = n_saves_ * n_observables_;  // (k, o) -> k * n_observables + o
    if (n_observables_ > 0 && ((!moments_ && result.observables == nullptr) || result.n_observables != n_observables_)) {
      throw std::invalid_argument("OutputArrayManager::scatter: result has no room for the observables the buffers hold");
    }
    T* observables_out =
        n_observables_ > 0 && !moments_ ? result.observables + first_run * observable_width : nullptr;
    const std::size_t summary_width = summary_windows_ * summary_slots_;  // (w, v) -> w * summary_slots + v
    if (!holds_summaries(result, summary_windows_, summary_slots_)) {
      throw std::invalid_argument("OutputArrayManager::scatter: result has no room for the summaries the "
                                  "buffers hold (" + std::to_string(summary_windows_) + " windows x " +
                                  std::to_string(summary_slots_) + " values per run)");
    }
    T* summaries_out = summary_width > 0 ? result.summaries + first_run * summary_width : nullptr;
    std::uint32_t* counts_out = events_.n_events > 0 ? result.event_counts + first_run * events_.n_events : nullptr;
    auto part = [&](std::size_t begin, std::size_t end) {
      if (final_out != nullptr) {
        std::memcpy(final_out + begin * n_states_, s.final_state_staging.data() + begin * n_states_,
                    (end - begin) * n_states_ * sizeof(T));
      }
      if (series_out != nullptr) {
        unpack_to_run_major(s.series_staging.data() + begin, count, end - begin, width, series_out + begin * width);
      }
      if (status_out != nullptr) {
        std::memcpy(status_out + begin, s.status_staging.data() + begin, (end - begin) * sizeof(Status));
      }
      if (stop_time_out != nullptr) {
        std::memcpy(stop_time_out + begin, s.stop_time_staging.data() + begin, (end - begin) * sizeof(T));
      }
      if (counters_out != nullptr) {
        const std::uint32_t* accepted = s.counters_staging.data();
        const std::uint32_t* rejected = accepted + count;
        const std::uint32_t* rhs = accepted + 2 * count;
        for (std::size_t r = begin; r < end; ++r) counters_out[r] = RunCounters{accepted[r], rejected[r], rhs[r]};
      }
      if (observables_out != nullptr) {
        unpack_to_run_major(s.observables_staging.data() + begin, count, end - begin, observable_width,
                            observables_out + begin * observable_width);
      }
      if (summaries_out != nullptr) {
        unpack_to_run_major(s.summaries_staging.data() + begin, count, end - begin, summary_width,
                            summaries_out + begin * summary_width);
      }
      if (events_out != nullptr) {
        unpack_to_run_major(s.events_staging.data() + begin, count, end - begin, event_width,
                            events_out + begin * event_width);
        unpack_to_run_major(s.event_counts_staging.data() + begin, count, end - begin, events_.n_events,
                            counts_out + begin * events_.n_events);
      }
    };
    if (moments_) result.series_moments->add_moments(s.moments_staging.data(), s.parts, first_run, count);
    // (A series reduced on the device is not copied here.)
    const std::size_t copied_width = moments_ ? 0 : width + observable_width;
    const std::size_t run_bytes =
        (n_states_ + copied_width + event_width + summary_width) * sizeof(T) +
                                  (status_ ? sizeof(Status) + sizeof(T) : 0) + (counters_ ? sizeof(RunCounters) : 0);
    const std::size_t grain = std::max<std::size_t>(1, parallel_grain_bytes / run_bytes);
    if (workers != nullptr && count > grain) {
      workers->parallel_for(count, part, grain);
    } else {
      part(0, count);
    }
  }

  std::size_t slots() const noexcept { return n_slots_; }
  std::size_t capacity() const noexcept { return capacity_; }  ///< runs per slot
  std::size_t n_states() const noexcept { return n_states_; }
  std::size_t n_saves() const noexcept { return n_saves_; }
  std::size_t n_observables() const noexcept { return n_observables_; }
  std::size_t summary_windows() const noexcept { return summary_windows_; }  ///< 0: no summaries
  std::size_t summary_slots() const noexcept { return summary_slots_; }      ///< values per window
  bool has_status() const noexcept { return status_; }
  bool has_counters() const noexcept { return counters_; }
  /// Device bytes currently allocated by all slots (grows, never shrinks).
  std::size_t device_bytes() const noexcept {
    std::size_t total = 0;
    for (const Slot& s : slots_)
      total += s.final_state.bytes() + s.series.bytes() + s.status.bytes() + s.stop_time.bytes() +
               s.counters.bytes() + s.events.bytes() + s.event_counts.bytes() + s.observables.bytes() +
               s.summaries.bytes() + s.moments.bytes();
    return total;
  }

 private:
  struct Slot {
    gpu::DeviceBuffer<T> final_state, series;
    gpu::DeviceBuffer<std::int32_t> status;
    gpu::DeviceBuffer<std::uint32_t> counters;  // accepted | rejected | rhs_evaluations, stride apart
    gpu::DeviceBuffer<T> events;                 // event records, device_views.hpp's layout
    gpu::DeviceBuffer<std::uint32_t> event_counts;
    gpu::DeviceBuffer<T> observables;  // n_saves x n_observables x stride
    gpu::DeviceBuffer<T> summaries;    // summary_windows x summary_slots x stride
    gpu::DeviceBuffer<T> stop_time;    // [r], with the status
    gpu::DeviceBuffer<double> moments;  // series_moments: saves x columns x parts x 5 (series_moments.hpp)
    gpu::PinnedBuffer<double> moments_staging;
    std::uint32_t parts = 1;            // the parts of the last reduce_series
    gpu::PinnedBuffer<T> final_state_staging, series_staging, events_staging, observables_staging,
        summaries_staging, stop_time_staging;
    gpu::PinnedBuffer<std::int32_t> status_staging;
    gpu::PinnedBuffer<std::uint32_t> counters_staging, event_counts_staging;
    std::size_t downloaded = 0;  // runs of the last download (checked by scatter)
    bool state_direct = false, status_direct = false;  // downloaded straight into the result
  };

  Slot& checked_slot(std::size_t slot, std::size_t count, const char* what) {
    return const_cast<Slot&>(static_cast<const OutputArrayManager&>(*this).checked_slot(slot, count, what));
  }
  const Slot& checked_slot(std::size_t slot, std::size_t count, const char* what) const {
    if (slot >= n_slots_) {
      throw std::out_of_range(std::string("OutputArrayManager::") + what + ": slot " + std::to_string(slot) +
                              " of " + std::to_string(n_slots_));
    }
    if (count == 0 || count > capacity_) {
      throw std::out_of_range(std::string("OutputArrayManager::") + what + ": " + std::to_string(count) +
                              " runs for a chunk capacity of " + std::to_string(capacity_));
    }
    return slots_[slot];
  }

  static std::size_t download(Slot& s, void* staging, const void* device, std::size_t bytes,
                              std::size_t count, gpu::stream_t stream) {
    gpu::copy_to_host_async(staging, device, bytes, stream);
    s.downloaded = count;
    return bytes;
  }

  std::vector<Slot> slots_;
  std::size_t n_slots_ = 0, capacity_ = 0, n_states_ = 0, n_saves_ = 0;
  std::size_t series_states_ = 0;  // the series' columns (n_states unless save_variables chose fewer)
  bool status_ = false, counters_ = false;
  bool moments_ = false;  // the series is reduced on the device (prepare's series_moments)
  EventShape events_;
  std::size_t n_observables_ = 0;  // observables per save (0: none, or no saves)
  std::size_t summary_windows_ = 0, summary_slots_ = 0;  // both 0: no summaries
};

}  // namespace batchode::arrays
