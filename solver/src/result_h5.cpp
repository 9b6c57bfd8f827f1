// solver/: write_h5, the HDF5 file of a SolveResult (layout in result_h5.hpp). The only file that
// includes hdf5.h.
//
// HDF5 writes only the file's structure (metadata: a few KiB); the arrays are written by us, with
// pwrite, at the addresses HDF5 reserved for them (contiguous datasets allocated at creation, never
// filled: H5Dget_offset exists for such direct access). Why: HDF5 1.10 does not survive a failed
// write well. A dataset write that fails (a full disk) leaves the file open inside the library, its
// H5Fclose fails too, and the library crashed at exit (H5F__close_cb, SIGSEGV, seen with Debian's
// 1.10.8 under `ulimit -f`); a failed superblock write (/dev/full) leaks and prints "infinite loop
// closing library" at exit. So the disk is probed before HDF5 opens the file (room for the whole file
// reserved with fallocate, or 4 KiB written where that is not supported) and every large write is
// ours, with the OS error in its message. The file is written beside its destination and moved into
// place once complete (files::AtomicFile), so no file of zeros passes for a result and an old file
// survives a failed write. HDF5's own error printing is off while we run, and every failed HDF5
// call becomes a std::runtime_error naming the file and what HDF5 reported.
#include "batchode/solver/result_h5.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "batchode/checks/checked_size.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/files/atomic_file.hpp"
#include "batchode/kernels/status.hpp"
#include "batchode/solver/result_io.hpp"

#ifndef BATCHODE_VERSION_STRING
#error "BATCHODE_VERSION_STRING (the project's version) is defined by solver/CMakeLists.txt"
#endif

namespace batchode {

namespace {

static_assert(sizeof(Status) == sizeof(std::int32_t), "/status is written straight from the result");
static_assert(sizeof(RunCounters) == 3 * sizeof(std::uint32_t) && std::is_standard_layout_v<RunCounters>,
              "/counters is written straight from the result as (n_runs, 3) uint32");

/// Turns HDF5's automatic error printing off for the lifetime of the object and puts the previous
/// handler back afterwards, so a program that wants HDF5's printing elsewhere keeps it.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    if (H5Eget_auto2(H5E_DEFAULT, &function_, &data_) < 0) function_ = nullptr;
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

/// What HDF5's error stack says now, outermost call first and innermost (the cause) last, then clears
/// it: "unable to create file: ... errno = 2, error message = 'No such file or directory' ...".
std::string hdf5_error_text() {
  std::vector<std::string> messages;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* error, void* out) -> herr_t {
        if (error != nullptr && error->desc != nullptr && error->desc[0] != '\0') {
          static_cast<std::vector<std::string>*>(out)->push_back(error->desc);
        }
        return 0;
      },
      &messages);
  H5Eclear2(H5E_DEFAULT);
  if (messages.empty()) return "HDF5 reported no detail";
  if (messages.size() == 1) return messages.front();
  return messages.front() + ": " + messages.back();
}

/// One HDF5 handle, closed by the matching H5?close when it goes out of scope.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer closer) noexcept : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&&) = delete;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) closer_(id_);
  }
  hid_t get() const noexcept { return id_; }
  /// Closes now and returns what the close returned (the file's close is where its metadata is written).
  herr_t close() noexcept {
    const herr_t status = id_ >= 0 ? closer_(id_) : 0;
    id_ = H5I_INVALID_HID;
    return status;
  }

 private:
  hid_t id_;
  Closer closer_;
};

/// The HDF5 type of V: the host's native one, so the bytes in memory are the bytes in the file and can
/// be written without HDF5 (the file records the byte order; readers elsewhere convert).
template <class V>
hid_t native_type() {
  if constexpr (std::is_same_v<V, float>) return H5T_NATIVE_FLOAT;
  if constexpr (std::is_same_v<V, double>) return H5T_NATIVE_DOUBLE;
  if constexpr (std::is_same_v<V, std::int32_t>) return H5T_NATIVE_INT32;
  if constexpr (std::is_same_v<V, std::uint32_t>) return H5T_NATIVE_UINT32;
  if constexpr (std::is_same_v<V, std::uint64_t>) return H5T_NATIVE_UINT64;
}

/// An array's bytes, to be written at `offset` in the file once HDF5 has closed it.
struct RawWrite {
  std::string dataset;
  haddr_t offset;
  const char* data;
  std::size_t bytes;
};

[[noreturn]] void fail_os(const std::string& path, const std::string& what, int error) {
  throw std::runtime_error(
      fmt::format("writing HDF5 file '{}' failed: {}: {}", path, what, detail::os_error(error)));
}

/// Where the file is written (an AtomicFile's temporary file, or a device) and the name its messages
/// give it (the user's path).
struct H5Target {
  const std::string& file;
  const std::string& name;
};

/// Creates (truncates) the file and checks that `bytes` fit on its disk: fallocate reserves them
/// (released again when HDF5 truncates the file: this is a probe); where the file system or device
/// cannot (a pipe, /dev/full, some network file systems) 4 KiB are written instead.
void probe_disk(const H5Target& to, std::uint64_t bytes) {
  const std::string& path = to.name;
  errno = 0;
  const int fd = ::open(to.file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot open '{}' for writing: {}", path, detail::os_error(errno)));
  int error = EOPNOTSUPP;
#ifdef __linux__
  error = ::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) == 0 ? 0 : errno;
#endif
  if (error != 0 && error != ENOSPC && error != EFBIG && error != EDQUOT) {
    static const char zeros[4096] = {};
    errno = 0;
    const ssize_t written = ::write(fd, zeros, sizeof zeros);
    error = written == static_cast<ssize_t>(sizeof zeros) ? 0 : (errno != 0 ? errno : ENOSPC);
  }
  const int close_error = ::close(fd) == 0 ? 0 : errno;
  if (error != 0) fail_os(path, fmt::format("making room for {} bytes", bytes), error);
  if (close_error != 0) fail_os(path, "closing the file", close_error);
}

/// Writes every array at its offset, with pwrite (at most 1 GiB a call: Linux moves at most ~2 GiB).
void write_raw(const H5Target& to, const std::vector<RawWrite>& writes) {
  const std::string& path = to.name;
  errno = 0;
  const int fd = ::open(to.file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail_os(path, "reopening the file for its arrays", errno);
  int error = 0;
  std::string what;
  for (const RawWrite& w : writes) {
    const char* p = w.data;
    std::size_t left = w.bytes;
    std::uint64_t at = w.offset;
    while (left > 0 && error == 0) {
      const std::size_t piece = std::min<std::size_t>(left, std::size_t{1} << 30);
      errno = 0;
      const ssize_t n = ::pwrite(fd, p, piece, static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error = n < 0 && errno != 0 ? errno : ENOSPC;  // 0 bytes written: no room
        what = "writing dataset " + w.dataset;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
      at += static_cast<std::uint64_t>(n);
    }
    if (error != 0) break;
  }
  // Some file systems (NFS) report a failed write only at the close.
  const int close_error = ::close(fd) == 0 ? 0 : errno;
  if (error != 0) fail_os(path, what, error);
  if (close_error != 0) fail_os(path, "closing the file", close_error);
}

/// Builds the file's structure with HDF5; every HDF5 call goes through check(), which throws naming
/// the file. Keeps the list of arrays to write, and the buffers it made for them, alive.
class H5Writer {
 public:
  explicit H5Writer(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(
        fmt::format("writing HDF5 file '{}' failed: {}: {}", path_, what, hdf5_error_text()));
  }
  hid_t check(hid_t id, const std::string& what) const {
    if (id < 0) fail(what);
    return id;
  }
  void check_status(herr_t status, const std::string& what) const {
    if (status < 0) fail(what);
  }

  /// A variable-length UTF-8 string type (h5py reads it as str).
  Handle string_type() const {
    Handle type(check(H5Tcopy(H5T_C_S1), "copying the string type"), H5Tclose);
    check_status(H5Tset_size(type.get(), H5T_VARIABLE), "making the string type variable-length");
    check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "making the string type UTF-8");
    return type;
  }

  Handle space(const std::vector<hsize_t>& dims) const {
    if (dims.empty()) return Handle(check(H5Screate(H5S_SCALAR), "creating a scalar dataspace"), H5Sclose);
    return Handle(
        check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), "creating a dataspace"),
        H5Sclose);
  }

  /// A dataset `name` under `location` for `data` shaped `dims` (C order): HDF5 reserves its bytes
  /// (contiguous, allocated now, never filled) and raw_writes() says where `data` goes. `data` must
  /// stay alive until then.
  template <class V>
  Handle dataset(hid_t location, const std::string& name, const V* data, const std::vector<hsize_t>& dims) {
    std::size_t values = 1;
    for (hsize_t d : dims)
      values = checks::checked_mul(values, static_cast<std::size_t>(d), "HDF5 dataset values");
    const std::size_t bytes = checks::checked_mul(values, sizeof(V), "HDF5 dataset bytes");
    const Handle dataspace = space(dims);
    const Handle properties(check(H5Pcreate(H5P_DATASET_CREATE), "creating dataset properties"), H5Pclose);
    check_status(H5Pset_layout(properties.get(), H5D_CONTIGUOUS), "making dataset " + name + " contiguous");
    check_status(H5Pset_alloc_time(properties.get(), H5D_ALLOC_TIME_EARLY), "allocating dataset " + name);
    check_status(H5Pset_fill_time(properties.get(), H5D_FILL_TIME_NEVER),
                 "leaving dataset " + name + " unfilled");
    Handle set(check(H5Dcreate2(location, name.c_str(), native_type<V>(), dataspace.get(), H5P_DEFAULT,
                                properties.get(), H5P_DEFAULT),
                     "creating dataset " + name),
               H5Dclose);
    if (bytes > 0) {
      const haddr_t offset = H5Dget_offset(set.get());
      if (offset == HADDR_UNDEF) fail("locating dataset " + name + " in the file");
      offsets_.emplace_back(name, offset);
      // No data: the caller fills the dataset itself at the offset (write_h5_layout).
      if (data != nullptr) raw_.push_back({name, offset, reinterpret_cast<const char*>(data), bytes});
    }
    return set;
  }

  /// dataset() of values the writer keeps until the end (a conversion made for the file).
  template <class V>
  Handle dataset(hid_t location, const std::string& name, std::vector<V> data,
                 const std::vector<hsize_t>& dims) {
    auto kept = std::make_shared<const std::vector<V>>(std::move(data));
    kept_.push_back(kept);
    return dataset(location, name, kept->data(), dims);
  }

  void attribute(hid_t object, const std::string& name, const std::string& value) const {
    const Handle type = string_type();
    const Handle dataspace = space({});
    const Handle attr(
        check(H5Acreate2(object, name.c_str(), type.get(), dataspace.get(), H5P_DEFAULT, H5P_DEFAULT),
              "creating attribute " + name),
        H5Aclose);
    const char* text = value.c_str();
    check_status(H5Awrite(attr.get(), type.get(), &text), "writing attribute " + name);
  }

  void attribute(hid_t object, const std::string& name, const std::vector<std::string>& values) const {
    const Handle type = string_type();
    const Handle dataspace = space({static_cast<hsize_t>(values.size())});
    const Handle attr(
        check(H5Acreate2(object, name.c_str(), type.get(), dataspace.get(), H5P_DEFAULT, H5P_DEFAULT),
              "creating attribute " + name),
        H5Aclose);
    if (values.empty()) return;
    std::vector<const char*> texts;
    texts.reserve(values.size());
    for (const std::string& value : values) texts.push_back(value.c_str());
    check_status(H5Awrite(attr.get(), type.get(), texts.data()), "writing attribute " + name);
  }

  void attribute(hid_t object, const std::string& name, const std::vector<double>& values) const {
    const Handle dataspace = space({static_cast<hsize_t>(values.size())});
    const Handle attr(
        check(H5Acreate2(object, name.c_str(), H5T_NATIVE_DOUBLE, dataspace.get(), H5P_DEFAULT, H5P_DEFAULT),
              "creating attribute " + name),
        H5Aclose);
    if (values.empty()) return;
    check_status(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, values.data()), "writing attribute " + name);
  }

  template <class V>
  void attribute(hid_t object, const std::string& name, V value) const {
    const Handle dataspace = space({});
    const Handle attr(
        check(H5Acreate2(object, name.c_str(), native_type<V>(), dataspace.get(), H5P_DEFAULT, H5P_DEFAULT),
              "creating attribute " + name),
        H5Aclose);
    check_status(H5Awrite(attr.get(), native_type<V>(), &value), "writing attribute " + name);
  }

  const std::vector<RawWrite>& raw_writes() const noexcept { return raw_; }
  /// Where the dataset `name` starts in the file, when it was created with bytes to hold.
  std::optional<std::uint64_t> offset_of(const std::string& name) const {
    for (const auto& [dataset, offset] : offsets_) {
      if (dataset == name) return offset;
    }
    return std::nullopt;
  }

 private:
  std::string path_;
  std::vector<RawWrite> raw_;
  std::vector<std::pair<std::string, std::uint64_t>> offsets_;
  std::vector<std::shared_ptr<const void>> kept_;
};

/// Throws InvalidInput unless `values` is empty or holds `expected` values.
void require_size(std::size_t actual, std::size_t expected, const char* field, const std::string& shape) {
  if (actual != 0 && actual != expected) {
    throw InvalidInput(fmt::format("write_h5: H5Metadata.{} has {} values, expected {} ({})", field, actual,
                                   expected, shape));
  }
}

/// The status names by code: to_string(Status) of 0, 1, ... up to the first code it does not know.
std::vector<std::string> status_names() {
  std::vector<std::string> names;
  for (std::int32_t code = 0;; ++code) {
    std::string name = to_string(static_cast<Status>(code));
    if (name.rfind("unknown_status", 0) == 0) break;
    names.push_back(std::move(name));
  }
  return names;
}

/// names[i] for each i of `chosen`, in that order (the saved states' names).
std::vector<std::string> chosen_names(const std::vector<std::string>& names, const std::vector<std::size_t>& chosen) {
  std::vector<std::string> out;
  for (std::size_t i : chosen) out.push_back(names.at(i));
  return out;
}

/// What the file holds: the result's shape and arrays. A null per-run array (final_state, series,
/// status, counters) is reserved in the file and left to the caller (write_h5_layout).
template <class T>
struct Content {
  std::size_t n_runs = 0, n_states = 0, n_saves = 0;
  const T* final_state = nullptr;
  const T* series = nullptr;
  /// The series' columns (the saved states' indices) when SolveOptions::save_variables chose them;
  /// null: every state.
  const std::vector<std::size_t>* series_states = nullptr;
  const std::vector<T>* times = nullptr;
  bool times_per_run = false;  ///< times holds n_runs x n_saves (each run's own), not n_saves
  /// The observables (n_runs x n_saves x names), when the system has some and a series was saved;
  /// names without values: reserved for the caller (write_h5_layout).
  const T* observables = nullptr;
  const std::vector<std::string>* observable_names = nullptr;
  bool has_status = false, has_counters = false;
  const Status* status = nullptr;
  const T* stop_time = nullptr;  ///< with status
  const RunCounters* counters = nullptr;
  const std::vector<ExecutionRecord>* execution = nullptr;
  /// The events' names and specs, when there are events: the result itself (its records written), or
  /// a result of no runs made from the options (write_h5_layout: the rows reserved for the caller).
  const SolveResult<T>* events = nullptr;
  /// The result, when it kept summaries (written whole: write_h5_layout refuses them).
  const SolveResult<T>* summaries = nullptr;
};

template <class T>
Content<T> content_of(const SolveResult<T>& r, const SolveOptions& options) {
  Content<T> c;
  c.n_runs = r.n_runs();
  c.n_states = r.n_states();
  c.n_saves = r.n_saves();
  c.final_state = r.final_state().data();
  c.series = r.series().data();
  if (!r.saves_every_variable()) c.series_states = &r.series_states();
  c.times = &r.times();
  c.times_per_run = r.times_per_run();
  if (r.n_saves() > 0 && r.n_observables() > 0) {  // (a result of no runs: an empty dataset)
    c.observables = r.observables().data();
    c.observable_names = &r.observable_names();
  }
  c.has_status = !r.statuses().empty() || (options.outputs.status && r.n_runs() == 0);
  c.has_counters = !r.counters().empty() || (options.outputs.counters && r.n_runs() == 0);
  c.status = r.statuses().data();
  c.stop_time = r.stop_times().data();
  c.counters = r.counters().data();
  c.execution = &r.execution();
  if (r.n_events() > 0) c.events = &r;
  if (r.summary_layout() != nullptr) c.summaries = &r;
  return c;
}

/// The group /summaries: one dataset per summary output, (n_runs, windows, variables) or with a last
/// axis of its values when it has several; the cadence, the variables and the windows' ends as
/// attributes (layout in result_h5.hpp).
template <class T>
void write_summaries(H5Writer& w, hid_t root, const SolveResult<T>& r, double t0) {
  const SummaryLayout& layout = *r.summary_layout();
  const Handle group(w.check(H5Gcreate2(root, "summaries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             "creating group summaries"),
                     H5Gclose);
  std::vector<std::string> names;
  for (const SummaryOutput& out : layout.outputs) names.push_back(out.name);
  std::vector<double> window_ends(layout.windows);
  for (std::size_t k = 0; k < layout.windows; ++k) window_ends[k] = layout.window_end(t0, k);
  w.attribute(group.get(), "names", names);
  w.attribute(group.get(), "summary_variables", layout.variable_names);
  w.attribute(group.get(), "summarise_every", layout.window_length);
  w.attribute(group.get(), "sample_summaries_every", layout.sample_period);
  w.attribute(group.get(), "window_ends", window_ends);
  const hsize_t runs = r.n_runs(), windows = layout.windows, variables = layout.variables.size();
  for (const SummaryOutput& out : layout.outputs) {
    std::vector<hsize_t> dims{runs, windows, variables};
    if (!out.value_names.empty()) dims.push_back(out.width);  // named values: their own axis (as Python)
    const Handle set = w.dataset(group.get(), out.name, r.summary(out.name), dims);
    if (!out.value_names.empty()) w.attribute(set.get(), "value_names", out.value_names);
  }
}

/// Builds the file with HDF5 (structure and attributes), closes it, then writes the arrays it was
/// given. Returns where the per-run arrays start.
template <class T>
H5RowOffsets write_file(const Content<T>& r, const H5Target& to, const SolveOptions& options,
                        const H5Metadata& meta, std::size_t params) {
  const SilenceHdf5Errors silence;
  H5Writer w(to.name);
  // The 1.8 file format (readable by every HDF5 since 1.8, h5py included) stores attributes larger
  // than 64 KiB (the names of thousands of states) densely, where the 1.6 format would refuse them.
  const Handle access(w.check(H5Pcreate(H5P_FILE_ACCESS), "creating file access properties"), H5Pclose);
  w.check_status(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_V18),
                 "choosing the 1.8 file format");
  Handle file(w.check(H5Fcreate(to.file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), "creating the file"),
              H5Fclose);
  const hid_t root = file.get();
  const hsize_t n_runs = r.n_runs, n_states = r.n_states, n_saves = r.n_saves, n_params = params;

  {
    const Handle set = w.dataset(root, "final_state", r.final_state, {n_runs, n_states});
    if (!meta.state_names.empty()) w.attribute(set.get(), "state_names", meta.state_names);
  }
  // The series' columns: every state, or those save_variables chose (no dataset when it chose none).
  const std::vector<std::string> series_names = r.series_states == nullptr || meta.state_names.empty()
                                                    ? meta.state_names
                                                    : chosen_names(meta.state_names, *r.series_states);
  const hsize_t series_width = r.series_states == nullptr ? n_states : r.series_states->size();
  if (n_saves > 0) {
    if (series_width > 0) {
      const Handle set = w.dataset(root, "series", r.series, {n_runs, n_saves, series_width});
      if (!series_names.empty()) w.attribute(set.get(), "state_names", series_names);
    }
    if (r.times_per_run) {
      w.dataset(root, "t", r.times->data(), {n_runs, n_saves});
    } else {
      w.dataset(root, "t", r.times->data(), {n_saves});
    }
    if (r.observable_names != nullptr) {
      const hsize_t n_observables = r.observable_names->size();
      const Handle observables = w.dataset(root, "observables", r.observables, {n_runs, n_saves, n_observables});
      w.attribute(observables.get(), "observable_names", *r.observable_names);
    }
  }
  if (r.has_status) {
    const Handle set =
        w.dataset(root, "status", reinterpret_cast<const std::int32_t*>(r.status), {n_runs});
    w.attribute(set.get(), "status_names", status_names());
    (void)w.dataset(root, "t_stop", r.stop_time, {n_runs});
  }
  if (r.has_counters) {
    const Handle set =
        w.dataset(root, "counters", reinterpret_cast<const std::uint32_t*>(r.counters), {n_runs, 3});
    w.attribute(set.get(), "columns",
                std::vector<std::string>{"accepted_steps", "rejected_steps", "rhs_evaluations"});
  }
  std::vector<std::uint64_t> event_offsets[3];  // t, state, count of each event, when reserved
  if (r.events != nullptr) {
    const SolveResult<T>& result = *r.events;
    const bool filled = result.n_runs() == r.n_runs;  // else: the rows are the caller's to fill
    const Handle group(
        w.check(H5Gcreate2(root, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating group events"),
        H5Gclose);
    w.attribute(group.get(), "names", result.event_names());
    auto reserved = [&](int which, const Handle& set) {
      if (filled || n_runs == 0) return;
      const haddr_t offset = H5Dget_offset(set.get());
      if (offset == HADDR_UNDEF) w.fail("locating an events dataset in the file");
      event_offsets[which].push_back(offset);
    };
    for (std::size_t e = 0; e < result.n_events(); ++e) {
      const std::string& name = result.event_names()[e];
      const Handle event(w.check(H5Gcreate2(group.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                 "creating group events/" + name),
                         H5Gclose);
      const hsize_t k_max = result.event_max(e);
      if (filled) {
        detail::EventColumns<T> columns = detail::event_columns(result, e);
        w.dataset(event.get(), "t", std::move(columns.t), {n_runs, k_max});
        const Handle state = w.dataset(event.get(), "state", std::move(columns.state), {n_runs, k_max, n_states});
        if (!meta.state_names.empty()) w.attribute(state.get(), "state_names", meta.state_names);
        std::vector<std::uint32_t> count(result.n_runs());
        for (std::size_t i = 0; i < result.n_runs(); ++i) count[i] = result.event_count(i, e);
        w.dataset(event.get(), "count", std::move(count), {n_runs});
      } else {
        reserved(0, w.dataset(event.get(), "t", static_cast<const T*>(nullptr), {n_runs, k_max}));
        const Handle state = w.dataset(event.get(), "state", static_cast<const T*>(nullptr), {n_runs, k_max, n_states});
        if (!meta.state_names.empty()) w.attribute(state.get(), "state_names", meta.state_names);
        reserved(1, state);
        reserved(2, w.dataset(event.get(), "count", static_cast<const std::uint32_t*>(nullptr), {n_runs}));
      }
      // The result's own specs: the options a caller passes may name none (the Solver filled them in).
      w.attribute(event.get(), "direction", to_string(result.event_spec(e).direction));
      w.attribute(event.get(), "action", to_string(result.event_spec(e).action));
      w.attribute(event.get(), "max", static_cast<std::uint64_t>(k_max));
    }
  }
  if (r.summaries != nullptr) write_summaries(w, root, *r.summaries, options.t0);
  if (!meta.y0.empty() || !meta.parameters.empty()) {
    const Handle grid(
        w.check(H5Gcreate2(root, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating group grid"),
        H5Gclose);
    // In the solve's precision: the values that were solved.
    if (!meta.y0.empty()) {
      const Handle set =
          w.dataset(grid.get(), "y0", std::vector<T>(meta.y0.begin(), meta.y0.end()), {n_runs, n_states});
      if (!meta.state_names.empty()) w.attribute(set.get(), "state_names", meta.state_names);
    }
    if (!meta.parameters.empty()) {
      const Handle set =
          w.dataset(grid.get(), "parameters", std::vector<T>(meta.parameters.begin(), meta.parameters.end()),
                    {n_runs, n_params});
      if (!meta.parameter_names.empty()) w.attribute(set.get(), "parameter_names", meta.parameter_names);
    }
  }

  w.attribute(root, "batchode_version", std::string(BATCHODE_VERSION_STRING));
  w.attribute(root, "state_names", meta.state_names);
  w.attribute(root, "parameter_names", meta.parameter_names);
  w.attribute(root, "method", to_string(options.method));
  w.attribute(root, "precision", std::string(std::is_same_v<T, float> ? "float32" : "float64"));
  w.attribute(root, "t0", options.t0);
  w.attribute(root, "t_end", options.t_end);
  w.attribute(root, "rtol", options.rtol);
  w.attribute(root, "atol", options.atol);
  if (options.dt) w.attribute(root, "dt", *options.dt);
  if (options.save_every) w.attribute(root, "save_every", *options.save_every);
  if (r.series_states != nullptr) {  // the chosen variables as the columns hold them: the system's order
    std::vector<std::string> chosen = series_names;
    if (r.observable_names != nullptr) chosen.insert(chosen.end(), r.observable_names->begin(), r.observable_names->end());
    w.attribute(root, "save_variables", chosen);
  }
  if (count_saves(options) > 0) {
    w.attribute(root, "save_mode", std::string(interpolates_saves(options) ? "interpolate" : "land"));
  }
  w.attribute(root, "max_steps", static_cast<std::uint64_t>(options.max_steps));
  w.attribute(root, "backend", to_string(options.backend));
  w.attribute(root, "run_order", to_string(options.run_order));
  std::vector<std::string> execution;
  for (const ExecutionRecord& part : *r.execution) {
    execution.push_back(fmt::format("{}: runs [{}, {}), {}{}", to_string(part.backend), part.first_run,
                                    part.first_run + part.runs, sched::to_string(part.reason),
                                    part.detail.empty() ? "" : " (" + part.detail + ")"));
  }
  w.attribute(root, "execution", execution);
  if (!meta.model_name.empty()) w.attribute(root, "model_name", meta.model_name);
  if (!meta.model_source.empty()) w.attribute(root, "model_source", meta.model_source);
  if (!meta.grid_kind.empty()) w.attribute(root, "grid_kind", meta.grid_kind);

  w.check_status(H5Fflush(root, H5F_SCOPE_LOCAL), "flushing the file");
  w.check_status(file.close(), "closing the file");
  write_raw(to, w.raw_writes());
  H5RowOffsets offsets;
  if (n_runs > 0) {
    offsets.final_state = w.offset_of("final_state");
    if (n_saves > 0 && series_width > 0) offsets.series = w.offset_of("series");
    if (n_saves > 0 && r.observable_names != nullptr && !r.observable_names->empty()) {
      offsets.observables = w.offset_of("observables");
    }
    if (r.has_status) {
      offsets.status = w.offset_of("status");
      offsets.t_stop = w.offset_of("t_stop");
    }
    if (r.has_counters) offsets.counters = w.offset_of("counters");
    offsets.event_t = event_offsets[0];
    offsets.event_state = event_offsets[1];
    offsets.event_count = event_offsets[2];
  }
  return offsets;
}

/// Checks `meta` against the shape (InvalidInput before the file is touched), then writes the file.
/// Returns the offsets of the per-run arrays.
template <class T>
H5RowOffsets write_checked(const Content<T>& c, const H5Target& to, const SolveOptions& options,
                           const H5Metadata& meta) {
  const std::size_t runs = c.n_runs, states = c.n_states;
  // The metadata's shape first: nothing is written when it does not describe this result.
  if (!meta.state_names.empty() && meta.state_names.size() != states) {
    throw InvalidInput(fmt::format("write_h5: H5Metadata.state_names has {} names for {} states",
                                   meta.state_names.size(), states));
  }
  require_size(meta.y0.size(), checks::checked_mul(runs, states, "n_runs x n_states"), "y0",
               fmt::format("{} runs x {} states", runs, states));
  std::size_t params = meta.parameter_names.size();
  if (params == 0 && runs > 0) params = meta.parameters.size() / runs;
  require_size(meta.parameters.size(), checks::checked_mul(runs, params, "n_runs x n_params"), "parameters",
               fmt::format("{} runs x {} parameters", runs, params));

  // Everything the arrays need, plus 1 MiB for HDF5's structures (a few KiB; names of many states).
  const std::uint64_t values = checks::checked_mul(runs, states, "n_runs x n_states") +
                               checks::checked_product({runs, c.n_saves, c.series_states == nullptr ? states : c.series_states->size()},
                                                       "n_runs x n_saves x saved states") +
                               (c.times != nullptr ? c.times->size() : 0) + meta.y0.size() + meta.parameters.size() +
                               (c.observable_names != nullptr ? runs * c.n_saves * c.observable_names->size() : 0);
  const std::uint64_t event_bytes =
      c.events == nullptr ? 0
                          : runs * c.events->n_events() * (c.events->event_slots() * (states + 1) * sizeof(T) +
                                                           sizeof(std::uint32_t));
  const std::uint64_t summary_bytes = c.summaries == nullptr ? 0 : c.summaries->summaries().size() * sizeof(T);
  const std::uint64_t bytes = values * sizeof(T) + summary_bytes + (c.has_status ? runs * (sizeof(Status) + sizeof(T)) : 0) +
                              (c.has_counters ? runs * sizeof(RunCounters) : 0) + event_bytes + (1u << 20);
  probe_disk(to, bytes);
  return write_file(c, to, options, meta, params);
}

}  // namespace

template <class T>
void write_h5(const SolveResult<T>& r, const std::string& path, const SolveOptions& options,
              const H5Metadata& meta) {
  // Written beside `path` and moved into place once complete: a failed write leaves an old file as it
  // was and no partial file behind.
  files::AtomicFile file(path);
  (void)write_checked(content_of(r, options), H5Target{file.write_path(), path}, options, meta);
  file.commit();
}

template <class T>
H5RowOffsets write_h5_layout(std::size_t n_runs, std::size_t n_states, const std::vector<ExecutionRecord>& execution,
                             const std::string& path, const SolveOptions& options, const H5Metadata& meta,
                             const std::vector<std::string>& observable_names, const std::string& name) {
  if (saves_per_run(options)) {  // the times are rows of the file like the series; not reserved yet
    throw InvalidInput("write_h5_layout: per-run save times (SolveOptions.save_at_per_run) are not written in rows "
                       "yet; write the whole result with write_h5");
  }
  if (!options.summaries.empty()) {  // distributed solves refuse them; nothing reserves their rows
    throw InvalidInput("write_h5_layout: summaries (SolveOptions.summaries) are not written in rows yet; write the "
                       "whole result with write_h5");
  }
  if (!options.save_variables.empty()) {  // distributed solves refuse them; the rows reserved are every state's
    throw InvalidInput("write_h5_layout: a series of chosen variables (SolveOptions.save_variables) is not written "
                       "in rows yet; write the whole result with write_h5");
  }
  const SolveResult<T> shape(0, n_states, count_saves(options), options);  // the save times, no runs
  Content<T> c;
  c.n_runs = n_runs;
  c.n_states = n_states;
  c.n_saves = shape.n_saves();
  c.times = &shape.times();
  if (c.n_saves > 0 && !observable_names.empty()) c.observable_names = &observable_names;  // reserved
  c.has_status = options.outputs.status;
  c.has_counters = options.outputs.counters;
  c.execution = &execution;
  if (shape.n_events() > 0) c.events = &shape;  // names and specs; the rows are reserved
  return write_checked(c, H5Target{path, name.empty() ? path : name}, options, meta);
}

template void write_h5<float>(const SolveResult<float>&, const std::string&, const SolveOptions&,
                              const H5Metadata&);
template void write_h5<double>(const SolveResult<double>&, const std::string&, const SolveOptions&,
                               const H5Metadata&);
template H5RowOffsets write_h5_layout<float>(std::size_t, std::size_t, const std::vector<ExecutionRecord>&,
                                             const std::string&, const SolveOptions&, const H5Metadata&,
                                             const std::vector<std::string>&, const std::string&);
template H5RowOffsets write_h5_layout<double>(std::size_t, std::size_t, const std::vector<ExecutionRecord>&,
                                              const std::string&, const SolveOptions&, const H5Metadata&,
                                              const std::vector<std::string>&, const std::string&);

}  // namespace batchode
