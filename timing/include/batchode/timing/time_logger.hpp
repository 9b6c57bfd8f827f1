// timing/: TimeLogger, the named-event timer behind every timed phase of batchode (solve, kernel
// launches, transfers, compilation) and the summaries it prints at the chosen verbosity.
//
// Usage: register an event once, then time it as often as needed, from any host thread:
//   auto& log = batchode::default_timelogger();
//   log.start_event(batchode::events::kernel_launch);
//   ...
//   log.stop_event(batchode::events::kernel_launch, {{"chunk_index", i}}, timer.deferred());
//
// Misuse policy (enabled levels only; at Verbosity::none every call is a no-op and checks nothing):
// starting an unregistered label, stopping an event that is not running on the calling thread
// (never started, already stopped, or started on another thread) and stopping an outer event while
// an inner one is still running on that thread all throw batchode::TimingError. The throw happens
// before anything changes, so every other event, open or finished, is left as it was. Inside a
// CallScope (a solve) misuse is reported once and dropped instead: timing must not fail the call.
//
// A library call that shares the logger with other threads (a solve) runs in a CallScope: its own
// level on its thread without touching the logger's, and the threads it starts take its
// CallContext so their events nest under the call's (one tree, one summary per call):
//   TimeLogger::CallScope call(log, options.verbosity);
//   const TimeLogger::CallContext context = log.context();
//   std::thread worker([&] { TimeLogger::CallScope part(log, context); ... });
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "batchode/timing/gpu_time.hpp"
#include "batchode/timing/metadata.hpp"
#include "batchode/timing/occurrence.hpp"
#include "batchode/timing/timing_error.hpp"
#include "batchode/timing/verbosity.hpp"

namespace batchode {

namespace detail {
class TraceFile;  // timing/src/trace_file.hpp: the Trace Event Format writer
}

/// Records named, nested, repeated events from any number of host threads (one mutex; measured
/// cost in benchmarks/timing_overhead.cpp) and prints what the verbosity asks for to one stream.
/// Occurrences are kept until reset(): memory grows by about 100 bytes per occurrence.
class TimeLogger {
 public:
  class CallContext;
  class CallScope;

  /// A logger printing to `out` (std::cerr when null) at `verbosity`. The environment is not read:
  /// call apply_environment() for that. Events must be registered before use.
  explicit TimeLogger(std::ostream* out = nullptr, Verbosity verbosity = Verbosity::normal);
  ~TimeLogger();
  TimeLogger(const TimeLogger&) = delete;
  TimeLogger& operator=(const TimeLogger&) = delete;

  // --- registration ------------------------------------------------------------------------
  /// Declares an event. Registering a label again with the same category does nothing; with
  /// another category it throws std::invalid_argument naming the label and both categories.
  /// An empty label or category also throws std::invalid_argument.
  void register_event(std::string_view label, std::string_view category, std::string_view description = {});
  bool is_registered(std::string_view label) const;
  /// Every registered event, in registration order.
  std::vector<EventInfo> registered_events() const;

  // --- verbosity ---------------------------------------------------------------------------
  /// Sets the logger's own level. Switching to none closes the events still running on every
  /// thread, tagged with metadata interrupted=1, so no thread keeps stale nesting; stopping them
  /// later is then a TimingError while enabled (ScopedTimer and CallScope cope with it).
  void set_verbosity(Verbosity verbosity);
  /// The level in force on the calling thread: that of its innermost CallScope on this logger that
  /// sets one, else the logger's own. Everything this logger records and prints follows it.
  Verbosity verbosity() const noexcept {
    if (call_scopes_.load(std::memory_order_relaxed) == 0) return verbosity_.load(std::memory_order_relaxed);
    return scoped_verbosity();
  }
  /// False at Verbosity::none. Check it before building costly metadata.
  bool enabled() const noexcept { return verbosity() != Verbosity::none; }
  /// Applies BATCHODE_VERBOSITY if it is set and valid and returns true. An invalid value leaves
  /// the level as it is and prints one warning on the stream (once per logger); returns false.
  /// Also starts a trace to BATCHODE_TRACE when it names a file (a file that cannot be written is
  /// reported on the stream, and nothing is traced) and sets the profiler ranges from
  /// BATCHODE_PROFILER_RANGES (1 or 0; unset: on when a profiler is attached, i.e. when
  /// NVTX_INJECTION64_PATH, as Nsight Systems sets it, or rocprof's HSA_TOOLS_LIB is set).
  bool apply_environment();
  /// Where summaries and event lines go (std::cerr when null).
  void set_output(std::ostream* out);

  // --- recording (all no-ops at Verbosity::none) -------------------------------------------
  /// Opens an occurrence of `label` on the calling thread, nested in its innermost open event.
  /// Throws TimingError when `label` is not registered.
  void start_event(std::string_view label) {
    if (enabled()) start_impl(label);
  }
  /// Closes the innermost open event of the calling thread, which must be `label`.
  /// Throws TimingError when `label` is not registered, not running on this thread, or when an
  /// event started inside it is still running. At normal level and above, when this closes a
  /// top-level event, prints the summary of it and everything nested in it (summary time: this
  /// waits for that subtree's pending GPU times, so resolve them first if the device may be busy).
  void stop_event(std::string_view label) {
    if (enabled()) stop_impl(label, Metadata{}, GpuTime{});
  }
  /// As stop_event(label), attaching metadata and a GPU duration (a value or a deferred handle).
  void stop_event(std::string_view label, Metadata metadata, GpuTime gpu_time = {}) {
    if (enabled()) stop_impl(label, std::move(metadata), std::move(gpu_time));
  }
  /// Adds a finished occurrence measured elsewhere (a worker thread, say), nested in the calling
  /// thread's innermost open event. It contains nothing: events that ran during its wall_ms stay
  /// where they were, so an event meant to wrap others must be started before them instead.
  /// Throws TimingError when `label` is not registered and std::invalid_argument when wall_ms is
  /// negative or not finite.
  void record_event(std::string_view label, double wall_ms, Metadata metadata = {}, GpuTime gpu_time = {}) {
    if (enabled()) record_impl(label, wall_ms, std::move(metadata), std::move(gpu_time));
  }

  /// Waits for every pending GPU time (each on its own event, never a device synchronisation) and
  /// keeps the values, releasing the events. Call it once the device work is known to be done.
  /// A GPU time the runtime cannot read (batchode::GpuError) is dropped. Returns how many resolved.
  std::size_t resolve_gpu_times();
  /// Forgets every finished occurrence; registrations, verbosity and events still running stay
  /// (they get new ids and are reported when they stop).
  void reset();

  // --- timeline -----------------------------------------------------------------------------
  /// Starts writing a trace to `path` (created or truncated): every occurrence that finishes from
  /// now on, as it finishes, becomes a complete event in the Trace Event Format (Perfetto,
  /// chrome://tracing) on its host thread's track, with its metadata, id and parent as arguments;
  /// one with a GPU measurement from KernelTimer is drawn again on its device stream's track, where
  /// the device clock, aligned to the host's, places it. What is traced is what is recorded: nothing
  /// at Verbosity::none. A trace already running is stopped first. Throws std::runtime_error naming
  /// the path when it cannot be written.
  void start_trace(const std::string& path);
  /// Waits for the GPU parts still pending, writes them, closes the file and returns its path; ""
  /// when no trace was running. A write that failed on the way is reported on the stream.
  std::string stop_trace();
  /// True while a trace is being written.
  bool tracing() const noexcept { return tracing_.load(std::memory_order_relaxed); }
  /// While on, each event started on a thread is also a range of the vendor's profiler API on that
  /// thread (NVTX in CUDA builds, roctx in HIP builds: gpu/profiler_ranges.hpp), so profiler
  /// timelines show batchode's phases by name. Off by default; apply_environment() may set it.
  /// Events added by record_event() have no range: they are known only once finished.
  void set_profiler_ranges(bool on) noexcept { profiler_ranges_.store(on, std::memory_order_relaxed); }
  bool profiler_ranges() const noexcept { return profiler_ranges_.load(std::memory_order_relaxed); }

  // --- calls spanning threads ----------------------------------------------------------------
  /// The calling thread's level (when a CallScope sets one) and innermost open event (its own, or
  /// the one its CallScope's context carried), for a CallScope on another thread. Never throws
  /// TimingError.
  CallContext context() const;

  // --- reading -----------------------------------------------------------------------------
  /// Aggregate of `label`. Pending GPU times are polled, not waited for (call resolve_gpu_times()
  /// first for complete GPU totals). Throws TimingError when `label` is not registered.
  EventStats stats(std::string_view label) const;
  /// Finished occurrences of `label` (all labels when empty), by id. Throws TimingError when a
  /// non-empty `label` is not registered.
  std::vector<Occurrence> occurrences(std::string_view label = {}) const;
  /// The finished occurrence `id`; throws std::out_of_range when there is none.
  Occurrence occurrence(std::size_t id) const;
  /// Wall time per category, counting only occurrences not nested in an event of the same
  /// category, so nested phases are not counted twice.
  std::map<std::string, double> category_totals_ms() const;

  /// The summary table of every finished occurrence (only those of `category` when not empty,
  /// nested under their nearest ancestor of that category): a tree of events with count, total,
  /// mean, min, max, GPU time and bytes/s, then totals per category. Waits for pending GPU times.
  std::string summary(std::string_view category = {}) const;
  /// Resolves pending GPU times, then writes summary(category) to the stream, whatever the level.
  void print_summary(std::string_view category = {});
  /// Registered events with their stats, category totals and every occurrence (running ones
  /// flagged), as a JSON object. Waits for pending GPU times.
  std::string to_json() const;

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t no_parent = static_cast<std::size_t>(-1);

  struct Record {
    std::size_t event = 0;  // index into events_
    std::size_t parent = no_parent;
    std::size_t depth = 0;
    std::size_t thread = 0;
    std::uint64_t serial = 0;  // unique for the logger's life: a CallContext finds it after reset()
    Clock::time_point start;
    double wall_ms = 0;
    bool running = true;
    bool range_pushed = false;  // a profiler range was opened for it on its thread
    GpuTime gpu;
    Metadata metadata;
  };
  // The GPU part of a traced occurrence, written once its measurement completes.
  struct TraceGpuPart {
    std::size_t id = 0;
    std::size_t event = 0;
    GpuTime gpu;
    Metadata metadata;
  };
  struct ThreadState {
    std::size_t number = 0;
    std::vector<std::size_t> open;  // record indices, innermost last
    // Parent of the thread's outermost events: the event a CallContext carried here, or none.
    std::size_t inherited = no_parent;
  };

  Verbosity scoped_verbosity() const noexcept;
  // The level of the calling thread's innermost CallScope on this logger that sets one.
  std::optional<Verbosity> call_scope_level() const noexcept;
  bool in_call_scope() const noexcept;  // the calling thread is in a CallScope on this logger
  // A timing problem inside a CallScope: the first one is printed, all are dropped.
  void report_dropped(const char* problem) noexcept;
  std::size_t find_record(std::uint64_t serial, std::size_t hint) const noexcept;  // or no_parent
  std::size_t parent_for(const ThreadState& thread) const noexcept {
    return thread.open.empty() ? thread.inherited : thread.open.back();
  }

  void start_impl(std::string_view label);
  void stop_impl(std::string_view label, Metadata metadata, GpuTime gpu_time);
  void record_impl(std::string_view label, double wall_ms, Metadata metadata, GpuTime gpu_time);
  // Used by ScopedTimer's destructor: closes `label` and anything left open inside it; never throws.
  void stop_event_noexcept(std::string_view label, Metadata metadata, GpuTime gpu_time) noexcept;
  friend class ScopedTimer;
  // Runs one recording call under the misuse policy: its exception propagates outside a CallScope
  // and is reported once and dropped inside one. Defined in time_logger_recording.cpp, its only user.
  template <typename Recording>
  void under_misuse_policy(Recording&& recording);
  // The recording calls proper; the *_impl wrappers decide whether their misuse throws.
  void start_checked(std::string_view label);
  void stop_checked(std::string_view label, Metadata metadata, GpuTime gpu_time);
  void record_checked(std::string_view label, double wall_ms, Metadata metadata, GpuTime gpu_time);

  std::size_t event_index(std::string_view label, const char* operation) const;  // throws TimingError
  ThreadState& this_thread_state();
  // A new record of `event`, nested in the innermost open event of `thread` (or what it inherited).
  Record new_record(std::size_t event, const ThreadState& thread);
  void finish(std::size_t record, Clock::time_point now, ThreadState& thread);
  void after_stop(std::size_t record, const char* verb);  // prints
  Occurrence make_occurrence(std::size_t record, bool wait_gpu) const;
  // True when a finished ancestor of `record` has the same category: its time already holds this one.
  bool counted_by_ancestor(std::size_t record) const;
  // Adds the wall time of `record` to its category's total unless an ancestor already counts it.
  void add_category_time(std::size_t record, std::map<std::string, double>& totals) const;
  std::string render(const std::vector<std::size_t>& records, std::string_view title) const;
  // The trace (time_logger_trace.cpp), all under mutex_: writes a finished record's host event and
  // queues its GPU part; writes the GPU parts that completed (all of them, waiting, when `wait`).
  void trace_finished(std::size_t record);
  void trace_gpu_parts(bool wait);
  std::ostream& out() const;

  std::atomic<Verbosity> verbosity_;
  std::atomic<std::size_t> call_scopes_{0};  // CallScopes alive on this logger, all threads together
  const std::uint64_t id_;  // unique per logger, for the per-thread cache in this_thread_state()
  mutable std::mutex mutex_;
  std::ostream* out_;
  bool warned_environment_ = false;
  bool warned_misuse_ = false;
  std::uint64_t next_serial_ = 1;
  Clock::time_point epoch_;
  std::deque<EventInfo> events_;  // deque: the map's string_view keys point into these labels
  std::unordered_map<std::string_view, std::size_t> event_by_label_;
  std::vector<Record> records_;
  std::unordered_map<std::thread::id, ThreadState> threads_;
  std::atomic<bool> tracing_{false};
  std::atomic<bool> profiler_ranges_{false};
  std::unique_ptr<detail::TraceFile> trace_;
  std::deque<TraceGpuPart> trace_gpu_;
};

/// The process-wide logger that batchode's solvers use. Built on first use with every event of
/// register_solver_events() registered, at Verbosity::normal unless BATCHODE_VERBOSITY says
/// otherwise, printing to std::cerr. Never destroyed, so it can be used during static destruction.
TimeLogger& default_timelogger();

}  // namespace batchode

// After TimeLogger, which they are members of; every user of TimeLogger gets them from here.
#include "batchode/timing/call_scope.hpp"  // IWYU pragma: export
