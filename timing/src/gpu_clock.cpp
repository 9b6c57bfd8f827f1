// timing/src (private): device clock anchors; see gpu_clock.hpp.
#include "gpu_clock.hpp"

#include <atomic>
#include <map>
#include <mutex>

namespace batchode::detail {

namespace {

std::atomic<int> clock_users{0};
std::atomic<std::uint64_t> clock_generation{0};  // bumped by each new trace: anchors are renewed
std::atomic<bool> exiting{false};

struct Anchor {
  std::uint64_t generation = 0;
  std::shared_ptr<const gpu::Event> event;  // shared: measurements keep theirs through a renewal
  std::chrono::steady_clock::time_point host;
};

struct Anchors {
  std::mutex mutex;
  std::map<int, Anchor> by_device;
};

Anchors& anchors() {
  // Leaked: KernelTimers may be used from static destructors, after a static Anchors would be gone.
  static Anchors* const all = new Anchors;
  return *all;
}

}  // namespace

void want_gpu_clock(bool on) noexcept {
  if (on) {
    clock_generation.fetch_add(1, std::memory_order_relaxed);
    clock_users.fetch_add(1, std::memory_order_relaxed);
  } else {
    clock_users.fetch_sub(1, std::memory_order_relaxed);
  }
}

bool gpu_clock_wanted() noexcept { return clock_users.load(std::memory_order_relaxed) > 0; }

GpuClockAnchor anchor_gpu_clock(gpu::stream_t stream) {
  const int device = gpu::current_device();
  const std::uint64_t generation = clock_generation.load(std::memory_order_relaxed);
  Anchors& all = anchors();
  const std::lock_guard<std::mutex> lock(all.mutex);
  Anchor& anchor = all.by_device[device];
  const auto now = std::chrono::steady_clock::now();
  if (!anchor.event || anchor.generation != generation || now - anchor.host > max_anchor_age) {
    auto event = std::make_shared<gpu::Event>();
    event->record(stream);
    event->synchronize();
    anchor.host = std::chrono::steady_clock::now();
    anchor.event = std::move(event);
    anchor.generation = generation;
  }
  return GpuClockAnchor{device, reinterpret_cast<std::uintptr_t>(stream), anchor.event, anchor.host};
}

std::chrono::steady_clock::time_point host_time_of(const GpuClockAnchor& anchor, const gpu::Event& event) {
  const double ms = gpu::elapsed_ms(*anchor.event, event);
  return anchor.host + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double, std::milli>(ms));
}

void gpu_runtime_exiting() noexcept { exiting.store(true); }
bool gpu_runtime_may_be_gone() noexcept { return exiting.load(); }

}  // namespace batchode::detail
