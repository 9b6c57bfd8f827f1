// timing/: TimeLogger's trace file: start_trace, stop_trace, each finished occurrence written as it
// finishes, its GPU part once the measurement completes. Recording calls reach this only while a
// trace is on (the profiler ranges are pushed and popped in time_logger_recording.cpp).
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <exception>
#include <string>

#include "batchode/timing/json_writer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "gpu_clock.hpp"
#include "metadata_json.hpp"
#include "trace_file.hpp"

namespace batchode {

namespace {

double micros(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

}  // namespace

void TimeLogger::start_trace(const std::string& path) {
  // The running trace is closed before the new file is opened: they may be the same file.
  for (;;) {
    (void)stop_trace();
    const std::lock_guard<std::mutex> lock(mutex_);
    if (trace_) continue;  // another thread started one meanwhile: close that one too
    trace_ = std::make_unique<detail::TraceFile>(path);  // throws: then no trace runs
    detail::want_gpu_clock(true);
    tracing_.store(true, std::memory_order_relaxed);
    return;
  }
}

std::string TimeLogger::stop_trace() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!trace_) return {};
  trace_gpu_parts(true);
  std::string path = trace_->path();
  if (!trace_->close())
    out() << fmt::format("batchode: writing the trace file '{}' failed (disk full?)\n", path);
  trace_.reset();
  trace_gpu_.clear();
  tracing_.store(false, std::memory_order_relaxed);
  detail::want_gpu_clock(false);
  return path;
}

void TimeLogger::trace_finished(std::size_t index) {
  const Record& record = records_[index];
  const EventInfo& info = events_[record.event];
  JsonWriter args;
  // id and parent are the occurrence ids (TimeLogger::occurrences(): since the last reset());
  // serial and parent_serial stay unique over the logger's life, across resets.
  args.begin_object().field("id", index).field("serial", record.serial).key("parent");
  if (record.parent == no_parent) {
    args.null();
  } else {
    args.value(record.parent);
    args.field("parent_serial", records_[record.parent].serial);
  }
  args.field("depth", record.depth).field("wall_ms", record.wall_ms);
  detail::write_metadata_fields(args, record.metadata);
  args.end_object();
  trace_->complete(info.label, info.category, trace_->host_track(record.thread),
                   micros(record.start - epoch_), record.wall_ms * 1000.0, args.str());
  if (record.gpu.has_value())
    trace_gpu_.push_back(TraceGpuPart{index, record.event, record.gpu, record.metadata});
  // A top-level event's end is where a summary is printed (waiting for its GPU times too): the
  // trace then holds everything so far, and a viewer opening the file sees it.
  trace_gpu_parts(record.parent == no_parent);
  if (record.parent == no_parent) trace_->flush();
}

void TimeLogger::trace_gpu_parts(bool wait) {
  if (detail::gpu_runtime_may_be_gone()) {
    // At exit the runtime may be torn down already: its events are neither read nor destroyed.
    (void)new std::deque<TraceGpuPart>(std::move(trace_gpu_));
    trace_gpu_.clear();
    return;
  }
  while (!trace_gpu_.empty()) {
    TraceGpuPart& part = trace_gpu_.front();
    try {
      std::optional<double> ms = wait ? part.gpu.wait() : part.gpu.peek();
      if (!ms) return;  // in order: the first one still running holds the rest back
      if (const std::optional<GpuSpan> span = part.gpu.span()) {
        const EventInfo& info = events_[part.event];
        JsonWriter args;
        args.begin_object().field("id", part.id).field("gpu_ms", *ms).field("device", span->device);
        detail::write_metadata_fields(args, part.metadata);
        args.end_object();
        trace_->complete(info.label, info.category, trace_->gpu_track(span->device, span->stream),
                         micros(span->start - epoch_), *ms * 1000.0, args.str());
      }
    } catch (const std::exception&) {
      // The runtime could not read it: the host event is in the trace, this part is dropped.
    }
    trace_gpu_.pop_front();
  }
}

}  // namespace batchode
