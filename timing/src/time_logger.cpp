// timing/: TimeLogger's life and settings: construction, event registration, verbosity and output,
// the per-thread state, resolve_gpu_times() and reset(), and the process-wide default instance.
// The rest of TimeLogger is split by concern: recording (time_logger_recording.cpp), calls spanning
// threads (call_scope.cpp), queries (time_logger_queries.cpp), printed output
// (time_logger_output.cpp) and JSON (time_logger_json.cpp).
#include "batchode/timing/time_logger.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <stdexcept>

#include "batchode/timing/timed_events.hpp"
#include "gpu_clock.hpp"
#include "trace_file.hpp"  // complete, for trace_'s destructor

namespace batchode {

namespace {
std::atomic<std::uint64_t> next_logger_id{1};  // never reused, so a cached id cannot alias
}  // namespace

TimeLogger::TimeLogger(std::ostream* out, Verbosity verbosity)
    : verbosity_(verbosity), id_(next_logger_id.fetch_add(1)), out_(out), epoch_(Clock::now()) {}

TimeLogger::~TimeLogger() {
  try {
    (void)stop_trace();
  } catch (...) {
    // a destructor must not throw; the trace file is closed by its own destructor
  }
}

std::ostream& TimeLogger::out() const { return out_ != nullptr ? *out_ : std::cerr; }

// --- registration ------------------------------------------------------------------------------

void TimeLogger::register_event(std::string_view label, std::string_view category,
                                std::string_view description) {
  if (label.empty()) throw std::invalid_argument("TimeLogger::register_event: the label is empty");
  if (category.empty()) {
    throw std::invalid_argument(
        fmt::format("TimeLogger::register_event('{}'): the category is empty", label));
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  if (const auto found = event_by_label_.find(label); found != event_by_label_.end()) {
    EventInfo& known = events_[found->second];
    if (known.category != category) {
      throw std::invalid_argument(
          fmt::format("TimeLogger::register_event: event '{}' is already registered with category '{}'; "
                      "it cannot be registered again with category '{}'",
                      label, known.category, category));
    }
    if (known.description.empty()) known.description = std::string(description);
    return;
  }
  events_.push_back(EventInfo{std::string(label), std::string(category), std::string(description)});
  event_by_label_.emplace(std::string_view(events_.back().label), events_.size() - 1);
}

bool TimeLogger::is_registered(std::string_view label) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return event_by_label_.count(label) != 0;
}

std::vector<EventInfo> TimeLogger::registered_events() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return {events_.begin(), events_.end()};
}

std::size_t TimeLogger::event_index(std::string_view label, const char* operation) const {
  const auto found = event_by_label_.find(label);
  if (found == event_by_label_.end()) {
    throw TimingError(fmt::format(
        "TimeLogger::{}: event '{}' is not registered (call register_event() first)", operation, label));
  }
  return found->second;
}

// --- settings ----------------------------------------------------------------------------------

void TimeLogger::set_verbosity(Verbosity verbosity) {
  const std::lock_guard<std::mutex> lock(mutex_);
  verbosity_.store(verbosity, std::memory_order_relaxed);
  if (verbosity != Verbosity::none) return;
  // Nothing is recorded at none, so events still open could never be stopped: close them now.
  const auto now = Clock::now();
  const ThreadState* self = &this_thread_state();  // before the loop: it may add to threads_
  for (auto& entry : threads_) {
    ThreadState& thread = entry.second;
    while (!thread.open.empty()) {
      const std::size_t index = thread.open.back();
      records_[index].metadata.set("interrupted", 1);
      // A profiler range belongs to its own thread: this one pops its own, innermost first; another
      // thread's stays open there.
      if (&thread != self) records_[index].range_pushed = false;
      finish(index, now, thread);
      if (trace_) trace_finished(index);
    }
  }
}

bool TimeLogger::apply_environment() {
  if (const char* ranges = std::getenv("BATCHODE_PROFILER_RANGES"); ranges != nullptr && *ranges != '\0') {
    set_profiler_ranges(std::string_view(ranges) != "0");
  } else if (std::getenv("NVTX_INJECTION64_PATH") != nullptr || std::getenv("HSA_TOOLS_LIB") != nullptr) {
    set_profiler_ranges(true);  // a profiler is attached: show it batchode's phases
  }
  if (const char* trace = std::getenv("BATCHODE_TRACE"); trace != nullptr && *trace != '\0' && !tracing()) {
    try {
      start_trace(trace);
    } catch (const std::exception& error) {
      const std::lock_guard<std::mutex> lock(mutex_);
      out() << fmt::format("batchode: ignoring BATCHODE_TRACE: {}\n", error.what());
    }
  }
  std::string problem;
  if (const std::optional<Verbosity> level = environment_verbosity(&problem)) {
    set_verbosity(*level);
    return true;
  }
  if (!problem.empty()) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!warned_environment_) {
      warned_environment_ = true;
      out() << fmt::format("batchode: ignoring BATCHODE_VERBOSITY: {}; keeping verbosity '{}'\n", problem,
                           to_string(verbosity()));
    }
  }
  return false;
}

void TimeLogger::set_output(std::ostream* out) {
  const std::lock_guard<std::mutex> lock(mutex_);
  out_ = out;
}

// --- per-thread state, GPU times, reset --------------------------------------------------------

TimeLogger::ThreadState& TimeLogger::this_thread_state() {
  // Each thread remembers its state in the logger it used last: this saves a hash lookup on every
  // call (measured: about a fifth of an enabled start/stop pair). Entries of threads_ are never
  // erased and unordered_map never moves its elements, so the pointer stays valid.
  struct Cache {
    std::uint64_t logger = 0;
    ThreadState* state = nullptr;
  };
  thread_local Cache cache;
  if (cache.logger == id_) return *cache.state;
  const auto id = std::this_thread::get_id();
  auto found = threads_.find(id);
  if (found == threads_.end()) found = threads_.emplace(id, ThreadState{threads_.size(), {}}).first;
  cache = Cache{id_, &found->second};
  return found->second;
}

std::size_t TimeLogger::resolve_gpu_times() {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::size_t resolved = 0;
  for (Record& record : records_) {
    if (!record.gpu.pending()) continue;
    try {
      record.gpu.resolve();
      ++resolved;
    } catch (...) {
      record.gpu = GpuTime{};  // unreadable (the runtime failed): report no GPU time
    }
  }
  return resolved;
}

void TimeLogger::reset() {
  const std::lock_guard<std::mutex> lock(mutex_);
  // Keep the events still running, renumbered; their ancestors are running too, so every parent
  // index still points at a kept record. Compacted in place: the capacity stays, so recording
  // after a reset does not pay for growing the vector (and its page faults) again.
  std::vector<std::size_t> renumbered;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (!records_[i].running) continue;
    if (renumbered.empty()) renumbered.assign(records_.size(), no_parent);
    renumbered[i] = kept;
    if (kept != i) records_[kept] = std::move(records_[i]);
    if (records_[kept].parent != no_parent) records_[kept].parent = renumbered[records_[kept].parent];
    ++kept;
  }
  records_.erase(records_.begin() + static_cast<std::ptrdiff_t>(kept), records_.end());
  for (auto& entry : threads_) {
    for (std::size_t& index : entry.second.open) index = renumbered[index];
    std::size_t& inherited = entry.second.inherited;  // forgotten when it had finished
    if (inherited != no_parent) inherited = renumbered.empty() ? no_parent : renumbered[inherited];
  }
}

// --- the default instance ----------------------------------------------------------------------

TimeLogger& default_timelogger() {
  // Leaked on purpose: solvers may time work from static destructors and worker threads that
  // outlive main(); a destroyed logger would be a crash there.
  static TimeLogger* const logger = [] {
    auto* created = new TimeLogger(nullptr, Verbosity::normal);
    register_solver_events(*created);
    created->apply_environment();
    // Never destroyed, so a trace it writes (BATCHODE_TRACE) is closed when the program exits.
    // The GPU runtime's own exit handler, registered later, has run by then: GPU parts still
    // pending are dropped unread (gpu_clock.hpp).
    std::atexit([] {
      detail::gpu_runtime_exiting();
      try {
        (void)default_timelogger().stop_trace();
      } catch (...) {
        // nothing can be reported at exit
      }
    });
    return created;
  }();
  return *logger;
}

}  // namespace batchode
