// timing/: ScopedTimer, one TimeLogger event for the enclosing scope, recorded even on unwinding.
#include "batchode/timing/scoped_timer.hpp"

#include <exception>

namespace batchode {

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
