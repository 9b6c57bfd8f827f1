// timing/: a duration measured on the GPU, either already known or still pending on the device.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

namespace batchode {

/// Where and when a GPU measurement ran, for a trace's GPU tracks: its device, its stream (an
/// opaque id, equal for measurements on the same stream) and its start on the host's steady_clock.
struct GpuSpan {
  int device = 0;
  std::uintptr_t stream = 0;
  std::chrono::steady_clock::time_point start;
};

/// A device-side measurement that may not have finished yet (e.g. a recorded GPU event pair).
/// Implemented by KernelTimer; other components may implement it too.
class PendingGpuDuration {
 public:
  virtual ~PendingGpuDuration() = default;
  /// Blocks until the measurement has completed on the device and returns it in milliseconds.
  /// Waits on the measurement alone (an event), never on the whole device. Throws batchode::GpuError.
  virtual double wait_ms() const = 0;
  /// Returns the duration if the device has finished, std::nullopt otherwise; never blocks.
  /// Throws batchode::GpuError.
  virtual std::optional<double> poll_ms() const = 0;
  /// Where and when it ran, once it has completed, for measurements that were placed on the host's
  /// clock (KernelTimer's while a TimeLogger writes a trace); std::nullopt otherwise. Never blocks.
  /// Throws batchode::GpuError.
  virtual std::optional<GpuSpan> span() const { return std::nullopt; }
};

/// The GPU time of one event occurrence: nothing, a value in milliseconds, or a pending
/// measurement that is read later (TimeLogger::resolve_gpu_times(), or at summary/json time).
class GpuTime {
 public:
  /// No GPU time.
  GpuTime() = default;
  /// A duration already known, in milliseconds.
  GpuTime(double ms) : value_(ms) {}  // NOLINT: implicit so `stop_event(label, {}, 1.5)` reads well
  /// A measurement still running on the device; shares ownership of it.
  explicit GpuTime(std::shared_ptr<const PendingGpuDuration> pending) : pending_(std::move(pending)) {}

  /// True when there is a GPU time, known or pending.
  bool has_value() const noexcept { return value_.has_value() || pending_ != nullptr; }
  /// True while the time is still a pending measurement that nobody resolved.
  bool pending() const noexcept { return pending_ != nullptr; }
  /// The known value, or std::nullopt (no GPU time, or still pending).
  std::optional<double> value() const noexcept { return value_; }
  /// The value, polling a pending measurement without blocking; std::nullopt when unknown.
  /// Throws batchode::GpuError.
  std::optional<double> peek() const { return pending_ ? pending_->poll_ms() : value_; }
  /// The value, waiting for a pending measurement; std::nullopt when there is no GPU time.
  /// Throws batchode::GpuError.
  std::optional<double> wait() const { return pending_ ? std::optional<double>(pending_->wait_ms()) : value_; }
  /// Waits for a pending measurement and keeps its value, releasing the device events it held.
  /// Throws batchode::GpuError (the time stays pending then).
  void resolve() {
    if (pending_) {
      value_ = pending_->wait_ms();
      span_ = pending_->span();
      pending_.reset();
    }
  }
  /// Where and when the measurement ran (PendingGpuDuration::span), kept through resolve();
  /// std::nullopt for a plain value or a measurement that was not placed. Never blocks.
  /// Throws batchode::GpuError.
  std::optional<GpuSpan> span() const { return pending_ ? pending_->span() : span_; }

 private:
  std::optional<double> value_;
  std::optional<GpuSpan> span_;
  std::shared_ptr<const PendingGpuDuration> pending_;
};

}  // namespace batchode
