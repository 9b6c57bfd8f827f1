// timing/: TimeLogger::CallContext and TimeLogger::CallScope, how one library call (a solve) keeps
// its own verbosity and one tree of events across the threads it starts. Included by
// time_logger.hpp, so either header gives the whole TimeLogger.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "batchode/timing/time_logger.hpp"
#include "batchode/timing/verbosity.hpp"

namespace batchode {

/// What a call hands to the threads it starts: its level (when it sets one) and its innermost open
/// event. Taken by TimeLogger::context() on the call's thread, installed by a CallScope on another;
/// a copyable value that does nothing by itself. A default-constructed one carries nothing.
class TimeLogger::CallContext {
 public:
  CallContext() = default;

 private:
  friend class TimeLogger;
  std::uint64_t logger_ = 0;  // the TimeLogger's id_; 0: carries nothing
  std::optional<Verbosity> verbosity_;
  std::uint64_t parent_serial_ = 0;  // 0: no open event
  std::size_t parent_hint_ = 0;      // where that event was in records_ (reset() may move it)
};

/// Marks the calling thread as working for one library call (a solve) on `logger` until the scope
/// ends, without changing what other threads see:
///  - the thread records and prints at `verbosity` (when given) instead of the logger's level;
///  - built from a context: at that call's level, and the thread's outermost events nest under the
///    event that was innermost where the context was taken (a parent across threads), so a call's
///    worker threads add to its one tree and its one summary instead of printing their own;
///  - timing misuse (an unregistered label, a stop of what is not running) is printed once and
///    dropped instead of thrown: timing is instrumentation and must not fail the call.
/// Scopes nest; each restores what it replaced. Build it on a thread with no event open (a new
/// one) when it carries a context, and destroy it on the thread that built it.
class TimeLogger::CallScope {
 public:
  CallScope(TimeLogger& logger, std::optional<Verbosity> verbosity);
  /// A context taken from another logger carries nothing here.
  CallScope(TimeLogger& logger, const CallContext& context);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  friend class TimeLogger;
  void push() noexcept;

  TimeLogger& logger_;
  std::optional<Verbosity> verbosity_;
  const CallScope* previous_ = nullptr;  // the thread's enclosing scope, of any logger
  bool carries_parent_ = false;
  std::uint64_t saved_serial_ = 0;  // the inherited parent this scope replaced (0: none)
  std::size_t saved_hint_ = 0;
};

}  // namespace batchode
