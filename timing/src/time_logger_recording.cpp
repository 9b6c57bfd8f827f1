// timing/: TimeLogger's recording: start_event, stop_event, record_event and ScopedTimer's
// never-throwing stop, under one misuse policy (throw outside a CallScope, report once and drop
// inside one).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>

#include "batchode/gpu/profiler_ranges.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode {

template <typename Recording>
void TimeLogger::under_misuse_policy(Recording&& recording) {
  try {
    recording();
  } catch (const std::exception& problem) {
    if (!in_call_scope()) throw;
    report_dropped(problem.what());
  }
}

void TimeLogger::start_impl(std::string_view label) {
  under_misuse_policy([&] { start_checked(label); });
}

void TimeLogger::stop_impl(std::string_view label, Metadata metadata, GpuTime gpu_time) {
  under_misuse_policy([&] { stop_checked(label, std::move(metadata), std::move(gpu_time)); });
}

void TimeLogger::record_impl(std::string_view label, double wall_ms, Metadata metadata, GpuTime gpu_time) {
  under_misuse_policy([&] { record_checked(label, wall_ms, std::move(metadata), std::move(gpu_time)); });
}

void TimeLogger::report_dropped(const char* problem) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (warned_misuse_) return;
    warned_misuse_ = true;
    out() << fmt::format("batchode: timing problem ignored (later ones are not reported): {}\n", problem);
  } catch (...) {
    // nothing more can be done for instrumentation that failed to report its own failure
  }
}

// The parent is the thread's innermost open event, or, for its outermost events, the one a
// CallContext carried here: that is all that decides nesting, for started and recorded events alike.
TimeLogger::Record TimeLogger::new_record(std::size_t event, const ThreadState& thread) {
  Record record;
  record.event = event;
  record.parent = parent_for(thread);
  record.depth = record.parent == no_parent ? 0 : records_[record.parent].depth + 1;
  record.thread = thread.number;
  record.serial = next_serial_++;
  return record;
}

void TimeLogger::start_checked(std::string_view label) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!enabled()) return;  // set to none while this call waited for the lock
  const std::size_t event = event_index(label, "start_event");
  ThreadState& thread = this_thread_state();
  thread.open.reserve(thread.open.size() + 1);  // so nothing below can fail half-way
  records_.push_back(new_record(event, thread));
  thread.open.push_back(records_.size() - 1);
  if (verbosity() >= Verbosity::debug) {
    out() << fmt::format("[batchode] {:{}}start {} [thread {}]\n", "", 2 * records_.back().depth, label,
                         thread.number);
  }
  if (profiler_ranges()) {
    gpu::push_profiler_range(events_[event].label.c_str());
    records_.back().range_pushed = true;
  }
  // Taken last, so neither the lock nor the printing is counted in the event.
  records_.back().start = Clock::now();
}

void TimeLogger::stop_checked(std::string_view label, Metadata metadata, GpuTime gpu_time) {
  const auto now = Clock::now();  // before the lock: waiting for it is not part of the event
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!enabled()) return;
  const std::size_t event = event_index(label, "stop_event");
  ThreadState& thread = this_thread_state();
  if (thread.open.empty() || records_[thread.open.back()].event != event) {
    const bool running_here = std::any_of(thread.open.begin(), thread.open.end(),
                                          [&](std::size_t index) { return records_[index].event == event; });
    if (running_here) {
      throw TimingError(
          fmt::format("TimeLogger::stop_event('{}'): event '{}', started inside it, is still running on this "
                      "thread; stop it first",
                      label, events_[records_[thread.open.back()].event].label));
    }
    throw TimingError(
        fmt::format("TimeLogger::stop_event('{}'): the event is not running on this thread (never started, "
                    "already stopped, or started on another thread)",
                    label));
  }
  const std::size_t index = thread.open.back();
  records_[index].metadata = std::move(metadata);
  records_[index].gpu = std::move(gpu_time);
  finish(index, now, thread);
  after_stop(index, "stop");
}

void TimeLogger::record_checked(std::string_view label, double wall_ms, Metadata metadata, GpuTime gpu_time) {
  if (!std::isfinite(wall_ms) || wall_ms < 0) {
    throw std::invalid_argument(fmt::format(
        "TimeLogger::record_event('{}'): wall_ms must be finite and >= 0, got {}", label, wall_ms));
  }
  const auto now = Clock::now();
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!enabled()) return;
  const std::size_t event = event_index(label, "record_event");
  Record record = new_record(event, this_thread_state());
  record.start =
      now - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(wall_ms));
  record.wall_ms = wall_ms;
  record.running = false;
  record.metadata = std::move(metadata);
  record.gpu = std::move(gpu_time);
  records_.push_back(std::move(record));
  after_stop(records_.size() - 1, "record");
}

void TimeLogger::stop_event_noexcept(std::string_view label, Metadata metadata, GpuTime gpu_time) noexcept {
  try {
    const auto now = Clock::now();
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!enabled()) return;
    const auto found = event_by_label_.find(label);
    if (found == event_by_label_.end()) return;
    ThreadState& thread = this_thread_state();
    const auto open = std::find_if(thread.open.rbegin(), thread.open.rend(),
                                   [&](std::size_t index) { return records_[index].event == found->second; });
    if (open == thread.open.rend()) return;  // already closed (e.g. by set_verbosity(none))
    const std::size_t target = *open;
    while (thread.open.back() != target) {  // left open by code an exception skipped
      const std::size_t inner = thread.open.back();
      records_[inner].metadata.set("interrupted", 1);
      finish(inner, now, thread);
      after_stop(inner, "stop");
    }
    records_[target].metadata = std::move(metadata);
    records_[target].gpu = std::move(gpu_time);
    finish(target, now, thread);
    after_stop(target, "stop");
  } catch (...) {
    // Only allocation or stream failures get here; a destructor must not throw them.
  }
}

void TimeLogger::finish(std::size_t index, Clock::time_point now, ThreadState& thread) {
  Record& record = records_[index];
  record.wall_ms = std::chrono::duration<double, std::milli>(now - record.start).count();
  record.running = false;
  thread.open.pop_back();
  if (record.range_pushed) {
    gpu::pop_profiler_range();
    record.range_pushed = false;
  }
}

}  // namespace batchode
