// timing/: KernelTimer. Its GPU measurements are a pair of gpu::Event (gpu/buffers.hpp): timing
// calls no runtime itself, so the same code serves HIP and CUDA and compiles to stubs without one.
#include "batchode/timing/kernel_timer.hpp"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "batchode/gpu/buffers.hpp"
#include "gpu_clock.hpp"

namespace batchode {

namespace detail {

#if BATCHODE_HAS_GPU_RUNTIME
// A start/stop event pair, shared between a KernelTimer and the GpuTime handles it gave out.
// Destroying it while the events are still pending is safe: the runtime releases them once done.
// A failed creation of the stop event destroys the start event (member destruction) and throws.
class GpuEventPair final : public PendingGpuDuration {
 public:
  GpuEventPair() = default;

  // While a trace is written the pair is placed on the host's clock (gpu_clock.hpp): the anchor is
  // taken before the start event is recorded, so the start comes after it on the device.
  // Tracing must not fail the work it watches: a pair that cannot be anchored is just not placed.
  void record_start(gpu::stream_t stream) {
    anchor_.reset();
    if (gpu_clock_wanted()) {
      try {
        anchor_ = anchor_gpu_clock(stream);
      } catch (const GpuError&) {
      }
    }
    start_.record(stream);
  }
  void record_stop(gpu::stream_t stream) { stop_.record(stream); }

  double wait_ms() const override {
    stop_.synchronize();
    return elapsed();
  }
  std::optional<double> poll_ms() const override {
    if (!stop_.ready()) return std::nullopt;
    return elapsed();
  }
  std::optional<GpuSpan> span() const override {
    try {
      if (!anchor_ || !stop_.ready()) return std::nullopt;
      return GpuSpan{anchor_->device, anchor_->stream, host_time_of(*anchor_, start_)};
    } catch (const GpuError&) {
      return std::nullopt;  // a place on the timeline is optional; the duration is what counts
    }
  }

 private:
  double elapsed() const { return static_cast<double>(gpu::elapsed_ms(start_, stop_)); }
  gpu::Event start_;
  gpu::Event stop_;
  std::optional<GpuClockAnchor> anchor_;
};
#else
// No runtime: the type exists so KernelTimer's members compile; it is never created.
class GpuEventPair final : public PendingGpuDuration {
 public:
  double wait_ms() const override { return 0; }
  std::optional<double> poll_ms() const override { return std::nullopt; }
};
#endif

}  // namespace detail

KernelTimer::KernelTimer(std::string name) : name_(std::move(name)) {}
KernelTimer::~KernelTimer() = default;
// A moved-from timer is idle (not "stopped" without events), so misusing it is a TimingError.
KernelTimer::KernelTimer(KernelTimer&& other) noexcept
    : name_(std::move(other.name_)),
      state_(std::exchange(other.state_, State::idle)),
      events_(std::move(other.events_)),
      cpu_start_(other.cpu_start_),
      cpu_stop_(other.cpu_stop_) {}

KernelTimer& KernelTimer::operator=(KernelTimer&& other) noexcept {
  name_ = std::move(other.name_);
  state_ = std::exchange(other.state_, State::idle);
  events_ = std::move(other.events_);
  cpu_start_ = other.cpu_start_;
  cpu_stop_ = other.cpu_stop_;
  return *this;
}

void KernelTimer::misuse(const char* what) const { throw TimingError(fmt::format("KernelTimer '{}': {}", name_, what)); }

#if BATCHODE_HAS_GPU_RUNTIME

void KernelTimer::start(gpu::stream_t stream) {
  if (running()) misuse("start() while a measurement is running; stop it first");
  // A GpuTime from deferred() may still read the old pair: take a fresh one then.
  if (!events_ || events_.use_count() > 1) events_ = std::make_shared<detail::GpuEventPair>();
  state_ = State::idle;  // if recording throws, the timer is left idle, not half-started
  events_->record_start(stream);
  state_ = State::gpu_running;
}

void KernelTimer::stop(gpu::stream_t stream) {
  if (state_ == State::cpu_running) misuse("stop(stream) on a measurement started with start_cpu(); use stop_cpu()");
  if (state_ != State::gpu_running) misuse("stop(stream) without a running start(stream)");
  events_->record_stop(stream);
  state_ = State::gpu_stopped;
}

#else

void KernelTimer::start(gpu::stream_t) {
  misuse("start(stream) needs a GPU backend, but batchode was built without one (BATCHODE_GPU=off); "
         "use start_cpu()/stop_cpu()");
}

void KernelTimer::stop(gpu::stream_t) {
  misuse("stop(stream) needs a GPU backend, but batchode was built without one (BATCHODE_GPU=off); "
         "use start_cpu()/stop_cpu()");
}

#endif

void KernelTimer::start_cpu() {
  if (running()) misuse("start_cpu() while a measurement is running; stop it first");
  state_ = State::cpu_running;
  cpu_start_ = std::chrono::steady_clock::now();
}

void KernelTimer::stop_cpu() {
  const auto now = std::chrono::steady_clock::now();
  if (state_ == State::gpu_running) misuse("stop_cpu() on a measurement started with start(stream); use stop(stream)");
  if (state_ != State::cpu_running) misuse("stop_cpu() without a running start_cpu()");
  cpu_stop_ = now;
  state_ = State::cpu_stopped;
}

double KernelTimer::cpu_ms() const noexcept {
  return std::chrono::duration<double, std::milli>(cpu_stop_ - cpu_start_).count();
}

std::optional<double> KernelTimer::elapsed() const {
  switch (state_) {
    case State::cpu_stopped: return cpu_ms();
    case State::gpu_stopped: return events_->poll_ms();  // empty while the stop event is pending
    case State::idle:
    case State::gpu_running:
    case State::cpu_running: break;
  }
  return std::nullopt;
}

double KernelTimer::elapsed_ms() const {
  switch (state_) {
    case State::cpu_stopped: return cpu_ms();
    case State::gpu_stopped: return events_->wait_ms();
    case State::idle: misuse("elapsed_ms() before any measurement");
    case State::gpu_running:
    case State::cpu_running: break;
  }
  misuse("elapsed_ms() while the measurement is running; stop it first");
}

GpuTime KernelTimer::deferred() const {
  switch (state_) {
    case State::gpu_stopped: return GpuTime(std::shared_ptr<const PendingGpuDuration>(events_));
    case State::cpu_stopped: misuse("deferred() needs a GPU measurement; a CPU one is read with elapsed_ms()");
    case State::idle: misuse("deferred() before any measurement");
    case State::gpu_running:
    case State::cpu_running: break;
  }
  misuse("deferred() while the measurement is running; stop it first");
}

}  // namespace batchode
