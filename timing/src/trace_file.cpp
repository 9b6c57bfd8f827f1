// timing/src (private): TraceFile, the Trace Event Format writer; see trace_file.hpp.
#include "trace_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "batchode/files/output_path.hpp"
#include "batchode/timing/json_writer.hpp"

namespace batchode::detail {

namespace {
// Host threads keep the logger's numbers as track ids; device streams come after them.
constexpr int first_gpu_track = 1000;
}  // namespace

TraceFile::TraceFile(std::string path) : path_(std::move(path)), pid_(static_cast<int>(::getpid())) {
  try {
    files::check_output_path(path_);
  } catch (const std::exception& e) {  // "'<path>': why": said as the trace file's
    const std::string why = e.what();
    const std::string named = "'" + path_ + "': ";
    throw std::runtime_error(fmt::format("cannot write the trace file '{}': {}", path_,
                                         why.rfind(named, 0) == 0 ? why.substr(named.size()) : why));
  }
  atomic_.emplace(path_);
  file_ = std::fopen(atomic_->write_path().c_str(), "w");
  if (file_ == nullptr) {
    throw std::runtime_error(
        fmt::format("cannot write the trace file '{}': {}", path_, std::strerror(errno)));
  }
  if (std::fputs("[\n", file_) < 0) failed_ = true;
  JsonWriter process;
  process.begin_object()
      .field("name", "process_name")
      .field("ph", "M")
      .field("pid", pid_)
      .key("args")
      .begin_object()
      .field("name", fmt::format("batchode (pid {})", pid_))
      .end_object()
      .end_object();
  line(process.str());
}

TraceFile::~TraceFile() { close(); }

void TraceFile::line(const std::string& event) {
  if (file_ == nullptr) return;
  if (!first_ && std::fputs(",\n", file_) < 0) failed_ = true;
  first_ = false;
  if (std::fwrite(event.data(), 1, event.size(), file_) != event.size()) failed_ = true;
}

void TraceFile::name_track(int track, const std::string& name, int sort_index) {
  JsonWriter named;
  named.begin_object()
      .field("name", "thread_name")
      .field("ph", "M")
      .field("pid", pid_)
      .field("tid", track)
      .key("args")
      .begin_object()
      .field("name", name)
      .end_object()
      .end_object();
  line(named.str());
  JsonWriter sorted;
  sorted.begin_object()
      .field("name", "thread_sort_index")
      .field("ph", "M")
      .field("pid", pid_)
      .field("tid", track)
      .key("args")
      .begin_object()
      .field("sort_index", sort_index)
      .end_object()
      .end_object();
  line(sorted.str());
}

int TraceFile::host_track(std::size_t thread) {
  const auto found = host_tracks_.find(thread);
  if (found != host_tracks_.end()) return found->second;
  const int track = static_cast<int>(thread);
  host_tracks_.emplace(thread, track);
  name_track(track, fmt::format("host thread {}", thread), track);
  return track;
}

int TraceFile::gpu_track(int device, std::uintptr_t stream) {
  const auto key = std::make_pair(device, stream);
  const auto found = gpu_tracks_.find(key);
  if (found != gpu_tracks_.end()) return found->second;
  const int track = first_gpu_track + static_cast<int>(gpu_tracks_.size());
  gpu_tracks_.emplace(key, track);
  const int number = streams_per_device_[device]++;
  name_track(track, fmt::format("gpu:{} stream {}", device, number), track);
  return track;
}

void TraceFile::complete(std::string_view name, std::string_view category, int track, double ts_us,
                         double dur_us, std::string_view args) {
  JsonWriter event;
  event.begin_object()
      .field("name", name)
      .field("cat", category)
      .field("ph", "X")
      .field("pid", pid_)
      .field("tid", track)
      .field("ts", ts_us)
      .field("dur", dur_us);
  std::string text = event.str();
  if (!args.empty()) {
    text += ",\"args\":";
    text += args;
  }
  text += '}';
  line(text);
}

void TraceFile::flush() {
  if (file_ != nullptr && std::fflush(file_) != 0) failed_ = true;
}

bool TraceFile::close() {
  if (file_ == nullptr) return !failed_;
  if (std::fputs("\n]\n", file_) < 0) failed_ = true;
  if (std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  if (failed_) {
    atomic_->discard();
    return false;
  }
  try {
    atomic_->commit();
  } catch (const std::exception&) {
    failed_ = true;  // (the caller says the trace could not be written)
  }
  return !failed_;
}

}  // namespace batchode::detail
