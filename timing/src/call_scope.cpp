// timing/: TimeLogger::CallScope and CallContext: a call's own level on its thread, and its
// innermost event carried to the threads it starts so their events nest under it.
#include "batchode/timing/call_scope.hpp"

#include <mutex>

namespace batchode {

namespace {
// The calling thread's innermost CallScope, of any logger; each links to the one it encloses.
thread_local const TimeLogger::CallScope* innermost_call_scope = nullptr;
}  // namespace

std::optional<Verbosity> TimeLogger::call_scope_level() const noexcept {
  for (const CallScope* scope = innermost_call_scope; scope != nullptr; scope = scope->previous_) {
    if (&scope->logger_ == this && scope->verbosity_) return scope->verbosity_;
  }
  return std::nullopt;
}

Verbosity TimeLogger::scoped_verbosity() const noexcept {
  return call_scope_level().value_or(verbosity_.load(std::memory_order_relaxed));
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
  context.verbosity_ = call_scope_level();
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

}  // namespace batchode
