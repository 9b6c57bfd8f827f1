// timing/: ScopedTimer, which times the enclosing scope as one TimeLogger event, even when the
// scope is left by an exception.
#pragma once

#include <string>
#include <string_view>

#include "batchode/timing/time_logger.hpp"

namespace batchode {

/// Starts `label` on construction and stops it on destruction, with the metadata and GPU time
/// collected meanwhile. When the scope is left by an exception the occurrence is still recorded,
/// tagged unwound=1. The destructor never throws: if the event cannot be stopped normally (an
/// inner event was left running, or the verbosity changed meanwhile) it closes the event and
/// anything left open inside it (tagged interrupted=1), or does nothing when the event is gone.
class ScopedTimer {
 public:
  /// Starts `label`; throws TimingError as TimeLogger::start_event() does.
  ScopedTimer(TimeLogger& logger, std::string_view label);
  ~ScopedTimer();
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

  /// Attaches `key` = `value` to the occurrence (replacing an earlier value of `key`).
  void add_metadata(std::string key, MetaValue value);
  /// Attaches a GPU duration (a value or KernelTimer::deferred()).
  void set_gpu_time(GpuTime gpu_time);
  /// Stops the event now rather than at the end of the scope; later calls do nothing.
  /// Throws TimingError as TimeLogger::stop_event() does (the timer is then considered stopped).
  void stop();

 private:
  TimeLogger& logger_;
  std::string label_;
  Metadata metadata_;
  GpuTime gpu_time_;
  int uncaught_at_start_;
  bool active_;
};

}  // namespace batchode
