// timing/src (private): device clocks placed on the host's steady_clock, for the GPU tracks of a
// trace. Each device gets an anchor: an event recorded and waited for once, paired with the host
// time at which the wait returned (the event completed at most that wait's wake-up before: a few
// microseconds). A GPU event's host time is then anchor + elapsed(anchor event, event).
// Anchors are made only while some TimeLogger writes a trace (want_gpu_clock), and are made again
// for each new trace and every max_anchor_age, so the float milliseconds of elapsed() stay short
// and precise.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "batchode/gpu/buffers.hpp"
#include "batchode/gpu/runtime.hpp"

namespace batchode::detail {

/// Counts the loggers writing a trace: while it is above zero, KernelTimer anchors device clocks.
/// `on` adds one, and renews the anchors (made again at their next use); false takes one away.
void want_gpu_clock(bool on) noexcept;
/// True while some logger writes a trace. One relaxed atomic load: what KernelTimer pays when off.
bool gpu_clock_wanted() noexcept;

/// How long an anchor serves before it is made again.
inline constexpr std::chrono::seconds max_anchor_age{10};

/// A device's anchor as a measurement took it, with the stream the measurement ran on.
struct GpuClockAnchor {
  int device = 0;
  std::uintptr_t stream = 0;                   ///< the measurement's stream, as an opaque id
  std::shared_ptr<const gpu::Event> event;     ///< recorded on the device, completed
  std::chrono::steady_clock::time_point host;  ///< when the host saw it complete
};
/// The calling thread's current device's anchor, made (recorded on `stream` and waited for) when
/// the device has none for the current trace or it is older than max_anchor_age: elapsed times are
/// float milliseconds, whose resolution at 10 s is about a microsecond. Throws GpuError.
GpuClockAnchor anchor_gpu_clock(gpu::stream_t stream);
/// The host time at which `event`, recorded after `anchor` on its device and completed, happened.
/// Throws GpuError.
std::chrono::steady_clock::time_point host_time_of(const GpuClockAnchor& anchor, const gpu::Event& event);

/// Set when the program exits (the default logger's atexit handler): the GPU runtime may have been
/// torn down by its own handler, so pending GPU measurements are no longer read.
void gpu_runtime_exiting() noexcept;
bool gpu_runtime_may_be_gone() noexcept;

}  // namespace batchode::detail
