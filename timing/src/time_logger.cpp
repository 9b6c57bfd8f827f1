// timing/: TimeLogger, ScopedTimer, Metadata and Verbosity parsing.
#include "batchode/timing/time_logger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "batchode/timing/events.hpp"
#include "batchode/timing/scoped_timer.hpp"

namespace batchode {

// --- Verbosity ---------------------------------------------------------------------------------

Verbosity parse_verbosity(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "none") return Verbosity::none;
  if (lower == "default" || lower == "normal") return Verbosity::normal;
  if (lower == "verbose") return Verbosity::verbose;
  if (lower == "debug") return Verbosity::debug;
  throw std::invalid_argument(
      fmt::format("invalid verbosity '{}': expected one of none, default, normal, verbose, debug", text));
}

std::optional<Verbosity> environment_verbosity(std::string* problem) {
  const char* value = std::getenv("BATCHODE_VERBOSITY");
  if (value == nullptr || *value == '\0') return std::nullopt;  // unset or set empty: nothing asked
  try {
    return parse_verbosity(value);
  } catch (const std::invalid_argument& error) {
    if (problem != nullptr) *problem = error.what();
    return std::nullopt;
  }
}

std::string_view to_string(Verbosity verbosity) noexcept {
  switch (verbosity) {
    case Verbosity::none: return "none";
    case Verbosity::normal: return "normal";
    case Verbosity::verbose: return "verbose";
    case Verbosity::debug: return "debug";
  }
  return "unknown";
}

// --- Metadata ----------------------------------------------------------------------------------

bool MetaValue::numeric(double& out) const noexcept {
  if (const auto* i = std::get_if<std::int64_t>(&value_)) {
    out = static_cast<double>(*i);
    return true;
  }
  if (const auto* d = std::get_if<double>(&value_)) {
    out = *d;
    return true;
  }
  return false;
}

std::string MetaValue::to_string() const {
  if (is_int()) return fmt::format("{}", as_int());
  if (is_double()) return fmt::format("{}", as_double());
  return as_string();
}

Metadata::Metadata(std::initializer_list<MetaEntry> entries) {
  entries_.reserve(entries.size());
  for (const MetaEntry& entry : entries) set(entry.key, entry.value);
}

void Metadata::set(std::string key, MetaValue value) {
  for (MetaEntry& entry : entries_) {
    if (entry.key == key) {
      entry.value = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

const MetaValue* Metadata::find(std::string_view key) const noexcept {
  for (const MetaEntry& entry : entries_) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

std::string Metadata::to_string() const {
  std::string text;
  for (const MetaEntry& entry : entries_) {
    if (!text.empty()) text += ", ";
    if (entry.value.is_string()) {
      text += fmt::format("{}=\"{}\"", entry.key, entry.value.as_string());
    } else {
      text += fmt::format("{}={}", entry.key, entry.value.to_string());
    }
  }
  return text;
}

// --- helpers -----------------------------------------------------------------------------------

namespace {

// A GPU time for reporting: a runtime error while reading it means "unknown", never an exception
// out of a summary.
std::optional<double> read_gpu(const GpuTime& gpu, bool wait) noexcept {
  try {
    return wait ? gpu.wait() : gpu.peek();
  } catch (...) {
    return std::nullopt;
  }
}

std::string format_ms(double ms) { return fmt::format("{:.3f}", ms); }

// Decimal units, as transfer rates are usually quoted.
std::string format_rate(double bytes_per_second) {
  static const char* const units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  std::size_t unit = 0;
  while (bytes_per_second >= 1000.0 && unit + 1 < std::size(units)) {
    bytes_per_second /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.2f} {}", bytes_per_second, units[unit]);
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;  // UTF-8 passes through unchanged
        }
    }
  }
  out += '"';
  return out;
}

// JSON has no NaN or infinity.
std::string json_number(double value) { return std::isfinite(value) ? fmt::format("{}", value) : "null"; }

std::string json_optional(const std::optional<double>& value) { return value ? json_number(*value) : "null"; }

std::string json_value(const MetaValue& value) {
  if (value.is_int()) return fmt::format("{}", value.as_int());
  if (value.is_double()) return json_number(value.as_double());
  return json_string(value.as_string());
}

// Running sums behind EventStats and the summary table rows.
struct Tally {
  std::size_t count = 0;
  double total = 0, min = 0, max = 0;
  std::size_t gpu_count = 0;
  double gpu_total = 0;
  std::size_t nbytes_count = 0;
  double nbytes = 0, nbytes_wall = 0, nbytes_gpu = 0;
  bool nbytes_all_gpu = true;

  void add(double wall, const std::optional<double>& gpu, const Metadata& metadata) {
    min = count == 0 ? wall : std::min(min, wall);
    max = count == 0 ? wall : std::max(max, wall);
    ++count;
    total += wall;
    if (gpu) {
      ++gpu_count;
      gpu_total += *gpu;
    }
    double bytes = 0;
    if (const MetaValue* value = metadata.find("nbytes"); value && value->numeric(bytes)) {
      ++nbytes_count;
      nbytes += bytes;
      nbytes_wall += wall;
      if (gpu) {
        nbytes_gpu += *gpu;
      } else {
        nbytes_all_gpu = false;
      }
    }
  }
  // Device time measures a transfer more precisely than the host clock, when every one has it.
  double bytes_per_second() const {
    if (nbytes_count == 0) return 0;
    const double ms = nbytes_all_gpu ? nbytes_gpu : nbytes_wall;
    return ms > 0 ? nbytes / (ms * 1e-3) : 0;
  }
};

}  // namespace

// --- TimeLogger: registration and settings -----------------------------------------------------

namespace {
std::atomic<std::uint64_t> next_logger_id{1};  // never reused, so a cached id cannot alias
}  // namespace

TimeLogger::TimeLogger(std::ostream* out, Verbosity verbosity)
    : verbosity_(verbosity), id_(next_logger_id.fetch_add(1)), out_(out), epoch_(Clock::now()) {}

TimeLogger::~TimeLogger() = default;

std::ostream& TimeLogger::out() const { return out_ != nullptr ? *out_ : std::cerr; }

void TimeLogger::register_event(std::string_view label, std::string_view category, std::string_view description) {
  if (label.empty()) throw std::invalid_argument("TimeLogger::register_event: the label is empty");
  if (category.empty()) {
    throw std::invalid_argument(fmt::format("TimeLogger::register_event('{}'): the category is empty", label));
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

void TimeLogger::set_verbosity(Verbosity verbosity) {
  const std::lock_guard<std::mutex> lock(mutex_);
  verbosity_.store(verbosity, std::memory_order_relaxed);
  if (verbosity != Verbosity::none) return;
  // Nothing is recorded at none, so events still open could never be stopped: close them now.
  const auto now = Clock::now();
  for (auto& entry : threads_) {
    ThreadState& thread = entry.second;
    while (!thread.open.empty()) {
      records_[thread.open.back()].metadata.set("interrupted", 1);
      finish(thread.open.back(), now, thread);
    }
  }
}

bool TimeLogger::apply_environment() {
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

// --- TimeLogger: recording ---------------------------------------------------------------------

std::size_t TimeLogger::event_index(std::string_view label, const char* operation) const {
  const auto found = event_by_label_.find(label);
  if (found == event_by_label_.end()) {
    throw TimingError(
        fmt::format("TimeLogger::{}: event '{}' is not registered (call register_event() first)", operation, label));
  }
  return found->second;
}

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

void TimeLogger::start_impl(std::string_view label) {
  try {
    start_checked(label);
  } catch (const std::exception& problem) {
    if (!in_call_scope()) throw;
    report_dropped(problem.what());
  }
}

void TimeLogger::stop_impl(std::string_view label, Metadata metadata, GpuTime gpu_time) {
  try {
    stop_checked(label, std::move(metadata), std::move(gpu_time));
  } catch (const std::exception& problem) {
    if (!in_call_scope()) throw;
    report_dropped(problem.what());
  }
}

void TimeLogger::record_impl(std::string_view label, double wall_ms, Metadata metadata, GpuTime gpu_time) {
  try {
    record_checked(label, wall_ms, std::move(metadata), std::move(gpu_time));
  } catch (const std::exception& problem) {
    if (!in_call_scope()) throw;
    report_dropped(problem.what());
  }
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

void TimeLogger::start_checked(std::string_view label) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!enabled()) return;  // set to none while this call waited for the lock
  const std::size_t event = event_index(label, "start_event");
  ThreadState& thread = this_thread_state();
  thread.open.reserve(thread.open.size() + 1);  // so nothing below can fail half-way
  Record record;
  record.event = event;
  record.parent = parent_for(thread);
  record.depth = record.parent == no_parent ? 0 : records_[record.parent].depth + 1;
  record.thread = thread.number;
  record.serial = next_serial_++;
  records_.push_back(std::move(record));
  thread.open.push_back(records_.size() - 1);
  if (verbosity() >= Verbosity::debug) {
    out() << fmt::format("[batchode] {:{}}start {} [thread {}]\n", "", 2 * records_.back().depth, label,
                         thread.number);
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
      throw TimingError(fmt::format(
          "TimeLogger::stop_event('{}'): event '{}', started inside it, is still running on this thread; stop it first",
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
    throw std::invalid_argument(
        fmt::format("TimeLogger::record_event('{}'): wall_ms must be finite and >= 0, got {}", label, wall_ms));
  }
  const auto now = Clock::now();
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!enabled()) return;
  const std::size_t event = event_index(label, "record_event");
  ThreadState& thread = this_thread_state();
  Record record;
  record.event = event;
  record.parent = parent_for(thread);
  record.depth = record.parent == no_parent ? 0 : records_[record.parent].depth + 1;
  record.thread = thread.number;
  record.serial = next_serial_++;
  record.start = now - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(wall_ms));
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
}

void TimeLogger::after_stop(std::size_t index, const char* verb) {
  const Verbosity level = verbosity();
  const Record& record = records_[index];
  const EventInfo& info = events_[record.event];
  if (level >= Verbosity::verbose) {
    std::string line = fmt::format("[batchode] {:{}}", "", 2 * record.depth);
    if (level >= Verbosity::debug) line += fmt::format("{:<6} ", verb);
    line += fmt::format("{}: {} ms", info.label, format_ms(record.wall_ms));
    if (record.gpu.has_value()) {
      // Never wait here: the device may still be busy with this very work.
      const auto gpu = read_gpu(record.gpu, false);
      line += gpu ? fmt::format(" (gpu {} ms)", format_ms(*gpu)) : std::string(" (gpu pending)");
    }
    if (level >= Verbosity::debug) {
      if (!record.metadata.empty()) line += " {" + record.metadata.to_string() + "}";
      line += fmt::format(" [thread {}]", record.thread);
    }
    out() << line << '\n';
  }
  if (level >= Verbosity::normal && record.parent == no_parent) {
    // A top-level event ended: summarise it and everything nested in it, on this thread or on the
    // threads its CallContext reached. Children always come after their parent in records_, so
    // one forward pass finds the whole subtree.
    std::vector<char> inside(records_.size() - index, 0);
    std::vector<std::size_t> subtree{index};
    inside[0] = 1;
    for (std::size_t i = index + 1; i < records_.size(); ++i) {
      const std::size_t parent = records_[i].parent;
      if (parent != no_parent && parent >= index && inside[parent - index] && !records_[i].running) {
        inside[i - index] = 1;
        subtree.push_back(i);
      }
    }
    out() << render(subtree, fmt::format("{} took {} ms", info.label, format_ms(record.wall_ms)));
  }
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

// --- TimeLogger: calls spanning threads ----------------------------------------------------------

namespace {
// The calling thread's innermost CallScope, of any logger; each links to the one it encloses.
thread_local const TimeLogger::CallScope* innermost_call_scope = nullptr;
}  // namespace

Verbosity TimeLogger::scoped_verbosity() const noexcept {
  for (const CallScope* scope = innermost_call_scope; scope != nullptr; scope = scope->previous_) {
    if (&scope->logger_ == this && scope->verbosity_) return *scope->verbosity_;
  }
  return verbosity_.load(std::memory_order_relaxed);
}

bool TimeLogger::in_call_scope() const noexcept {
  for (const CallScope* scope = innermost_call_scope; scope != nullptr; scope = scope->previous_) {
    if (&scope->logger_ == this) return true;
  }
  return false;
}

std::size_t TimeLogger::find_record(std::uint64_t serial, std::size_t hint) const noexcept {
  if (hint < records_.size() && records_[hint].serial == serial) return hint;
  for (std::size_t i = 0; i < records_.size(); ++i) {  // moved by a reset(), or forgotten
    if (records_[i].serial == serial) return i;
  }
  return no_parent;
}

TimeLogger::CallContext TimeLogger::context() const {
  CallContext context;
  context.logger_ = id_;
  for (const CallScope* scope = innermost_call_scope; scope != nullptr; scope = scope->previous_) {
    if (&scope->logger_ == this && scope->verbosity_) {
      context.verbosity_ = scope->verbosity_;
      break;
    }
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto found = threads_.find(std::this_thread::get_id());
  if (found == threads_.end()) return context;  // this thread never recorded: nothing is open
  const std::size_t parent = parent_for(found->second);
  if (parent != no_parent) {
    context.parent_serial_ = records_[parent].serial;
    context.parent_hint_ = parent;
  }
  return context;
}

TimeLogger::CallScope::CallScope(TimeLogger& logger, std::optional<Verbosity> verbosity)
    : logger_(logger), verbosity_(verbosity) {
  push();
}

TimeLogger::CallScope::CallScope(TimeLogger& logger, const CallContext& context) : logger_(logger) {
  if (context.logger_ == logger.id_) {
    verbosity_ = context.verbosity_;
    if (context.parent_serial_ != 0) {
      try {
        const std::lock_guard<std::mutex> lock(logger_.mutex_);
        ThreadState& thread = logger_.this_thread_state();
        if (thread.inherited != no_parent) {
          saved_serial_ = logger_.records_[thread.inherited].serial;
          saved_hint_ = thread.inherited;
        }
        thread.inherited = logger_.find_record(context.parent_serial_, context.parent_hint_);
        carries_parent_ = true;
      } catch (...) {
        // No memory for this thread's state: its events stay top-level, the call goes on.
      }
    }
  }
  push();
}

void TimeLogger::CallScope::push() noexcept {
  previous_ = innermost_call_scope;
  innermost_call_scope = this;
  logger_.call_scopes_.fetch_add(1, std::memory_order_relaxed);
}

TimeLogger::CallScope::~CallScope() {
  innermost_call_scope = previous_;
  logger_.call_scopes_.fetch_sub(1, std::memory_order_relaxed);
  if (!carries_parent_) return;
  try {
    const std::lock_guard<std::mutex> lock(logger_.mutex_);
    ThreadState& thread = logger_.this_thread_state();  // exists: the constructor made it
    thread.inherited = saved_serial_ == 0 ? no_parent : logger_.find_record(saved_serial_, saved_hint_);
  } catch (...) {
    // a destructor must not throw; the lock is the only thing that could
  }
}

// --- TimeLogger: reading -----------------------------------------------------------------------

EventStats TimeLogger::stats(std::string_view label) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t event = event_index(label, "stats");
  Tally tally;
  for (const Record& record : records_) {
    if (record.event == event && !record.running) tally.add(record.wall_ms, read_gpu(record.gpu, false), record.metadata);
  }
  EventStats stats;
  stats.label = events_[event].label;
  stats.category = events_[event].category;
  stats.count = tally.count;
  stats.total_ms = tally.total;
  stats.min_ms = tally.min;
  stats.max_ms = tally.max;
  stats.mean_ms = tally.count > 0 ? tally.total / static_cast<double>(tally.count) : 0;
  stats.gpu_count = tally.gpu_count;
  stats.total_gpu_ms = tally.gpu_total;
  stats.total_nbytes = static_cast<std::int64_t>(tally.nbytes);
  stats.bytes_per_second = tally.bytes_per_second();
  return stats;
}

Occurrence TimeLogger::make_occurrence(std::size_t index, bool wait_gpu) const {
  const Record& record = records_[index];
  Occurrence occurrence;
  occurrence.id = index;
  occurrence.label = events_[record.event].label;
  occurrence.category = events_[record.event].category;
  if (record.parent != no_parent) occurrence.parent = record.parent;
  occurrence.depth = record.depth;
  occurrence.thread = record.thread;
  occurrence.start_ms = std::chrono::duration<double, std::milli>(record.start - epoch_).count();
  occurrence.wall_ms = record.wall_ms;
  occurrence.gpu_ms = read_gpu(record.gpu, wait_gpu);
  occurrence.gpu_pending = record.gpu.pending() && !occurrence.gpu_ms;
  occurrence.metadata = record.metadata;
  return occurrence;
}

std::vector<Occurrence> TimeLogger::occurrences(std::string_view label) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t event = label.empty() ? no_parent : event_index(label, "occurrences");
  std::vector<Occurrence> found;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (!records_[i].running && (label.empty() || records_[i].event == event)) found.push_back(make_occurrence(i, false));
  }
  return found;
}

Occurrence TimeLogger::occurrence(std::size_t id) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (id >= records_.size() || records_[id].running) {
    throw std::out_of_range(fmt::format("TimeLogger::occurrence({}): no finished occurrence has this id", id));
  }
  return make_occurrence(id, false);
}

namespace {

// True when an ancestor of `index` that has finished belongs to the same category: its time
// already contains this occurrence's.
template <typename Records, typename Events>
bool counted_by_ancestor(const Records& records, const Events& events, std::size_t index, std::size_t no_parent) {
  const std::string& category = events[records[index].event].category;
  for (std::size_t parent = records[index].parent; parent != no_parent; parent = records[parent].parent) {
    if (!records[parent].running && events[records[parent].event].category == category) return true;
  }
  return false;
}

}  // namespace

std::map<std::string, double> TimeLogger::category_totals_ms() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, double> totals;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (records_[i].running || counted_by_ancestor(records_, events_, i, no_parent)) continue;
    totals[events_[records_[i].event].category] += records_[i].wall_ms;
  }
  return totals;
}

std::string TimeLogger::render(const std::vector<std::size_t>& subset, std::string_view title) const {
  // Aggregate occurrences into a tree keyed by the path of labels from the root, so a repeated
  // event under the same parent becomes one row with count/total/mean/min/max.
  struct Node {
    std::size_t event = 0;
    std::size_t depth = 0;
    std::vector<std::size_t> children;
    Tally tally;
  };
  std::vector<Node> nodes(1);  // nodes[0]: the invisible root
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> child_of;  // (node, event) -> node
  std::vector<std::size_t> node_of(records_.size(), 0);
  std::vector<char> included(records_.size(), 0);
  for (const std::size_t index : subset) included[index] = 1;
  std::map<std::string, double> category_ms;
  for (const std::size_t index : subset) {  // ascending ids: parents before children
    const Record& record = records_[index];
    std::size_t ancestor = record.parent;  // nearest ancestor that is part of this summary
    while (ancestor != no_parent && !included[ancestor]) ancestor = records_[ancestor].parent;
    const std::size_t parent_node = ancestor == no_parent ? 0 : node_of[ancestor];
    auto [slot, inserted] = child_of.try_emplace({parent_node, record.event}, nodes.size());
    if (inserted) {
      Node node;
      node.event = record.event;
      node.depth = parent_node == 0 ? 0 : nodes[parent_node].depth + 1;
      nodes.push_back(std::move(node));
      nodes[parent_node].children.push_back(slot->second);
    }
    node_of[index] = slot->second;
    nodes[slot->second].tally.add(record.wall_ms, read_gpu(record.gpu, true), record.metadata);
    if (!counted_by_ancestor(records_, events_, index, no_parent)) category_ms[events_[record.event].category] += record.wall_ms;
  }

  std::string text = fmt::format("batchode timing: {}\n", title);
  if (subset.empty()) return text + "  (no finished events)\n";
  std::size_t width = 5;
  for (std::size_t n = 1; n < nodes.size(); ++n) {
    width = std::max(width, 2 * nodes[n].depth + events_[nodes[n].event].label.size());
  }
  text += fmt::format("  {:<{}}  {:>6}  {:>11}  {:>10}  {:>10}  {:>10}  {:>11}  {}\n", "event", width, "count",
                      "total ms", "mean ms", "min ms", "max ms", "gpu ms", "throughput");
  // Depth-first, children in order of first appearance.
  std::vector<std::size_t> pending(nodes[0].children.rbegin(), nodes[0].children.rend());
  while (!pending.empty()) {
    const Node& node = nodes[pending.back()];
    pending.pop_back();
    const Tally& t = node.tally;
    const bool repeated = t.count > 1;  // mean/min/max say nothing new for a single occurrence
    const std::string name = std::string(2 * node.depth, ' ') + events_[node.event].label;
    std::string row = fmt::format("  {:<{}}  {:>6}  {:>11}  {:>10}  {:>10}  {:>10}  {:>11}  {}", name, width, t.count,
                                  format_ms(t.total), repeated ? format_ms(t.total / static_cast<double>(t.count)) : "",
                                  repeated ? format_ms(t.min) : "", repeated ? format_ms(t.max) : "",
                                  t.gpu_count > 0 ? format_ms(t.gpu_total) : "-",
                                  t.nbytes_count > 0 ? format_rate(t.bytes_per_second()) : "");
    row.erase(row.find_last_not_of(' ') + 1);
    text += row + '\n';
    pending.insert(pending.end(), node.children.rbegin(), node.children.rend());
  }
  std::size_t category_width = 8;
  for (const auto& entry : category_ms) category_width = std::max(category_width, entry.first.size());
  text += fmt::format("  {:<{}}  {:>11}   (outermost events of each category)\n", "category", category_width,
                      "total ms");
  for (const auto& [category, ms] : category_ms) {
    text += fmt::format("  {:<{}}  {:>11}\n", category, category_width, format_ms(ms));
  }
  return text;
}

std::string TimeLogger::summary(std::string_view category) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::size_t> subset;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (!records_[i].running && (category.empty() || events_[records_[i].event].category == category)) {
      subset.push_back(i);
    }
  }
  return render(subset, category.empty() ? std::string("summary of all events")
                                         : fmt::format("summary of '{}' events", category));
}

void TimeLogger::print_summary(std::string_view category) {
  resolve_gpu_times();
  const std::string text = summary(category);
  const std::lock_guard<std::mutex> lock(mutex_);
  out() << text << std::flush;
}

std::string TimeLogger::to_json() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::optional<double>> gpu(records_.size());
  std::vector<Tally> tallies(events_.size());
  std::map<std::string, double> category_ms;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (records_[i].running) continue;
    gpu[i] = read_gpu(records_[i].gpu, true);
    tallies[records_[i].event].add(records_[i].wall_ms, gpu[i], records_[i].metadata);
    if (!counted_by_ancestor(records_, events_, i, no_parent)) {
      category_ms[events_[records_[i].event].category] += records_[i].wall_ms;
    }
  }

  std::string json = fmt::format("{{\"verbosity\":{},\"events\":[", json_string(to_string(verbosity())));
  for (std::size_t e = 0; e < events_.size(); ++e) {
    const Tally& t = tallies[e];
    json += fmt::format(
        "{}{{\"label\":{},\"category\":{},\"description\":{},\"count\":{},\"total_ms\":{},\"min_ms\":{},"
        "\"max_ms\":{},\"mean_ms\":{},\"gpu_count\":{},\"total_gpu_ms\":{},\"total_nbytes\":{},"
        "\"bytes_per_second\":{}}}",
        e == 0 ? "" : ",", json_string(events_[e].label), json_string(events_[e].category),
        json_string(events_[e].description), t.count, json_number(t.total), json_number(t.min), json_number(t.max),
        json_number(t.count > 0 ? t.total / static_cast<double>(t.count) : 0), t.gpu_count, json_number(t.gpu_total),
        static_cast<std::int64_t>(t.nbytes), json_number(t.bytes_per_second()));
  }
  json += "],\"category_totals_ms\":{";
  bool first = true;
  for (const auto& [category, ms] : category_ms) {
    json += fmt::format("{}{}:{}", first ? "" : ",", json_string(category), json_number(ms));
    first = false;
  }
  json += "},\"occurrences\":[";
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const Record& record = records_[i];
    std::string metadata;
    for (const MetaEntry& entry : record.metadata) {
      metadata += fmt::format("{}{}:{}", metadata.empty() ? "" : ",", json_string(entry.key), json_value(entry.value));
    }
    json += fmt::format(
        "{}{{\"id\":{},\"label\":{},\"parent\":{},\"depth\":{},\"thread\":{},\"start_ms\":{},\"wall_ms\":{},"
        "\"gpu_ms\":{},\"running\":{},\"metadata\":{{{}}}}}",
        i == 0 ? "" : ",", i, json_string(events_[record.event].label),
        record.parent == no_parent ? std::string("null") : std::to_string(record.parent), record.depth, record.thread,
        json_number(std::chrono::duration<double, std::milli>(record.start - epoch_).count()),
        record.running ? std::string("null") : json_number(record.wall_ms), json_optional(gpu[i]),
        record.running ? "true" : "false", metadata);
  }
  json += "]}";
  return json;
}

// --- the default instance ----------------------------------------------------------------------

TimeLogger& default_timelogger() {
  // Leaked on purpose: solvers may time work from static destructors and worker threads that
  // outlive main(); a destroyed logger would be a crash there.
  static TimeLogger* const logger = [] {
    auto* created = new TimeLogger(nullptr, Verbosity::normal);
    register_solver_events(*created);
    created->apply_environment();
    return created;
  }();
  return *logger;
}

// --- ScopedTimer -------------------------------------------------------------------------------

ScopedTimer::ScopedTimer(TimeLogger& logger, std::string_view label)
    : logger_(logger),
      label_(logger.enabled() ? std::string(label) : std::string()),  // no copy when disabled
      uncaught_at_start_(std::uncaught_exceptions()),
      active_(logger.enabled()) {
  if (active_) logger_.start_event(label_);
}

ScopedTimer::~ScopedTimer() {
  if (!active_) return;
  if (std::uncaught_exceptions() > uncaught_at_start_) {
    try {
      metadata_.set("unwound", 1);
    } catch (...) {
      // out of memory while unwinding: record the event without the tag
    }
  }
  logger_.stop_event_noexcept(label_, std::move(metadata_), std::move(gpu_time_));
}

void ScopedTimer::add_metadata(std::string key, MetaValue value) {
  if (active_) metadata_.set(std::move(key), std::move(value));
}

void ScopedTimer::set_gpu_time(GpuTime gpu_time) {
  if (active_) gpu_time_ = std::move(gpu_time);
}

void ScopedTimer::stop() {
  if (!active_) return;
  active_ = false;
  logger_.stop_event(label_, std::move(metadata_), std::move(gpu_time_));
}

}  // namespace batchode
