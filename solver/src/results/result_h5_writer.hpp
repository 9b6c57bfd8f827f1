// solver/results/: the HDF5 writer's tools, private to src/results/ and apart from what a file holds
// (result_h5.cpp): HDF5 handles closed by scope, HDF5's error printing silenced, the native types, and
// H5Writer, which builds a file's structure and reserves its datasets for the raw writes. Includes
// hdf5.h: only files given its folder by solver/CMakeLists.txt include this.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "batchode/checks/checked_size.hpp"

namespace batchode {

namespace detail {

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
std::string hdf5_error_text();

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

/// Where the file is written (an AtomicFile's temporary file, or a device) and the name its messages
/// give it (the user's path).
struct H5Target {
  const std::string& file;
  const std::string& name;
};

/// Creates (truncates) the file and checks that `bytes` fit on its disk: fallocate reserves them
/// (released again when HDF5 truncates the file: this is a probe); where the file system or device
/// cannot (a pipe, /dev/full, some network file systems) 4 KiB are written instead.
void probe_disk(const H5Target& to, std::uint64_t bytes);

/// Writes every array at its offset, with pwrite (at most 1 GiB a call: Linux moves at most ~2 GiB).
void write_raw(const H5Target& to, const std::vector<RawWrite>& writes);

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

}  // namespace detail

}  // namespace batchode
