// timing/: KernelTimer, one named duration measured either on a GPU stream (an event pair) or on
// the host clock, whose GPU result can be handed to the TimeLogger unread (deferred()).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "batchode/gpu/runtime.hpp"
#include "batchode/timing/gpu_time.hpp"
#include "batchode/timing/timing_error.hpp"

namespace batchode {

namespace detail {
class GpuEventPair;  // defined in kernel_timer.cpp: a pair of gpu::Event
}

/// A named timer. GPU mode records an event pair on a stream: start(stream) ... stop(stream).
/// CPU mode uses steady_clock: start_cpu() ... stop_cpu(). A timer can be restarted after a stop
/// as often as needed; a restart never touches events a deferred() handle still holds (it takes a
/// fresh pair then, and reuses the old pair when no handle holds it).
/// Misuse throws TimingError: start while running, stop before start, a stop of the other mode,
/// elapsed_ms()/deferred() before a stop, and the GPU methods in a build without a GPU runtime.
/// is_started(), is_stopped() and elapsed() answer without throwing, for callers that only ask.
/// Runtime failures throw batchode::GpuError. Not thread-safe: one timer, one thread at a time.
class KernelTimer {
 public:
  explicit KernelTimer(std::string name);
  ~KernelTimer();
  KernelTimer(KernelTimer&&) noexcept;
  KernelTimer& operator=(KernelTimer&&) noexcept;
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  const std::string& name() const noexcept { return name_; }
  /// True between a start and its stop.
  bool running() const noexcept { return state_ == State::gpu_running || state_ == State::cpu_running; }
  /// True once a measurement has been started: while it runs and after its stop. False for a new or
  /// moved-from timer. A start that throws TimingError changes nothing; one whose runtime call
  /// fails (GpuError) leaves the timer idle, not started.
  bool is_started() const noexcept { return state_ != State::idle; }
  /// True when the last measurement has been stopped, so it can be read; false again once it is
  /// restarted.
  bool is_stopped() const noexcept { return state_ == State::gpu_stopped || state_ == State::cpu_stopped; }

  /// Records the start event on `stream` (the stream is not kept).
  void start(gpu::stream_t stream);
  /// Records the stop event on `stream`; it normally is the stream given to start(). Does not wait.
  void stop(gpu::stream_t stream);
  /// Starts a host-clock measurement.
  void start_cpu();
  /// Ends a host-clock measurement.
  void stop_cpu();

  /// The last measurement in milliseconds, or nothing: empty until a measurement has been started
  /// and stopped (a new, running or moved-from timer), and in GPU mode while the stop event has not
  /// completed on the device. Never blocks and never throws TimingError; throws batchode::GpuError
  /// only when the runtime fails to read a completed GPU measurement.
  std::optional<double> elapsed() const;
  /// The last measurement in milliseconds. In GPU mode, blocks until the stop event has completed
  /// (that event only, not the device). Throws TimingError where elapsed() would be empty for want
  /// of a stopped measurement.
  double elapsed_ms() const;
  /// The last measurement as a GpuTime for TimeLogger::stop_event(): in GPU mode a pending handle
  /// sharing ownership of the event pair, readable after this timer is restarted or destroyed.
  /// Throws TimingError for a CPU-mode measurement (pass elapsed_ms() as wall time instead).
  GpuTime deferred() const;

 private:
  enum class State { idle, gpu_running, gpu_stopped, cpu_running, cpu_stopped };
  [[noreturn]] void misuse(const char* what) const;
  double cpu_ms() const noexcept;  // the last host-clock measurement

  std::string name_;
  State state_ = State::idle;
  std::shared_ptr<detail::GpuEventPair> events_;
  std::chrono::steady_clock::time_point cpu_start_;
  std::chrono::steady_clock::time_point cpu_stop_;
};

}  // namespace batchode
