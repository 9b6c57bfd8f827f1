// timing/src (private): a trace file in the Trace Event Format (the JSON that Perfetto and
// chrome://tracing read), written as events happen: a JSON array, one event per line, closed by
// close(). Written beside its path and moved there by close() (files::AtomicFile), so the path holds
// a complete trace or an older file, never a cut one; the file in the making (".<name>.tmp-<pid>-<n>")
// is flushed at the end of every top-level event, so a viewer can open it while the program runs,
// and scripts/plot_trace.py reads it even after a crash cut its last line.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "batchode/files/atomic_file.hpp"

namespace batchode::detail {

class TraceFile {
 public:
  /// Prepares `path` (replaced by close()). Throws std::runtime_error naming the path and the reason.
  explicit TraceFile(std::string path);
  ~TraceFile();  // closes the array and the file
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  const std::string& path() const noexcept { return path_; }

  /// The track of host thread `thread` (the TimeLogger's thread number), named on first use.
  int host_track(std::size_t thread);
  /// The track of a device's stream, named on first use ("gpu:0 stream 1", in the order streams
  /// appear); sorted after the host threads.
  int gpu_track(int device, std::uintptr_t stream);
  /// One complete event ("ph":"X"): `ts_us` from the logger's epoch and `dur_us`, in microseconds;
  /// `args` a JSON object (or empty for none).
  void complete(std::string_view name, std::string_view category, int track, double ts_us, double dur_us,
                std::string_view args);
  /// Pushes what was written to the file (a viewer can open it while the program runs).
  void flush();
  /// Closes the array and the file and moves it to path(); later writes are dropped. Returns false when
  /// a write or the move failed (then path() is as it was).
  bool close();

 private:
  void line(const std::string& event);
  void name_track(int track, const std::string& name, int sort_index);

  std::string path_;
  std::optional<files::AtomicFile> atomic_;  // made in the constructor, which words its errors
  std::FILE* file_ = nullptr;
  bool first_ = true;
  bool failed_ = false;
  int pid_ = 0;
  std::map<std::size_t, int> host_tracks_;
  std::map<std::pair<int, std::uintptr_t>, int> gpu_tracks_;
  std::map<int, int> streams_per_device_;
};

}  // namespace batchode::detail
