// Tests' reader of the files write_h5 writes: datasets and attributes read back through HDF5's C API,
// as a reader without batchode would (tests/cli/result_h5_test.cpp,
// tests/solver/results/summaries_io_test.cpp).
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace batchode::testing {

/// Reads back what write_h5 wrote. Fails the test (ADD_FAILURE) on any HDF5 error while reading.
class H5Reader {
 public:
  /// Throws std::runtime_error when `path` cannot be opened as an HDF5 file.
  explicit H5Reader(const std::string& path) : file_(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {
    if (file_ < 0) throw std::runtime_error("cannot open " + path);
  }
  ~H5Reader() { H5Fclose(file_); }
  H5Reader(const H5Reader&) = delete;
  H5Reader& operator=(const H5Reader&) = delete;

  bool has(const std::string& path) const { return H5Lexists(file_, path.c_str(), H5P_DEFAULT) > 0; }
  bool has_attribute(const std::string& object, const std::string& name) const {
    return H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
  }

  std::vector<hsize_t> shape(const std::string& path) const {
    const hid_t set = H5Dopen2(file_, path.c_str(), H5P_DEFAULT);
    const hid_t space = H5Dget_space(set);
    std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    H5Sclose(space);
    H5Dclose(set);
    return dims;
  }

  /// The stored type's class and size, e.g. {H5T_FLOAT, 4}.
  std::pair<H5T_class_t, std::size_t> type(const std::string& path) const {
    const hid_t set = H5Dopen2(file_, path.c_str(), H5P_DEFAULT);
    const hid_t t = H5Dget_type(set);
    const std::pair<H5T_class_t, std::size_t> result{H5Tget_class(t), H5Tget_size(t)};
    H5Tclose(t);
    H5Dclose(set);
    return result;
  }

  /// The stored values' size in bytes (4: float32, 8: float64) when they are floats, else 0.
  std::size_t float_size(const std::string& path) const {
    const auto [type_class, size] = type(path);
    return type_class == H5T_FLOAT ? size : 0;
  }

  /// The dataset's values converted by HDF5 to V (float, double, int32_t, uint32_t, uint64_t).
  template <class V>
  std::vector<V> values(const std::string& path) const {
    const hid_t set = H5Dopen2(file_, path.c_str(), H5P_DEFAULT);
    const hid_t space = H5Dget_space(set);
    std::vector<V> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    if (!out.empty() && H5Dread(set, memory_type<V>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) {
      ADD_FAILURE() << "reading " << path;
    }
    H5Sclose(space);
    H5Dclose(set);
    return out;
  }

  /// A scalar attribute of the root, converted by HDF5 to V.
  template <class V>
  V scalar(const std::string& name) const {
    V value{};
    const hid_t attr = H5Aopen(file_, name.c_str(), H5P_DEFAULT);
    if (attr < 0 || H5Aread(attr, memory_type<V>(), &value) < 0) ADD_FAILURE() << "reading attribute " << name;
    H5Aclose(attr);
    return value;
  }

  /// A number or number-list attribute of `object`, as a list of doubles.
  std::vector<double> numbers(const std::string& object, const std::string& name) const {
    const hid_t attr = H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0) {
      ADD_FAILURE() << "no attribute " << name << " on " << object;
      return {};
    }
    const hid_t space = H5Aget_space(attr);
    std::vector<double> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    if (!out.empty() && H5Aread(attr, H5T_NATIVE_DOUBLE, out.data()) < 0) {
      ADD_FAILURE() << "reading attribute " << name << " on " << object;
    }
    H5Sclose(space);
    H5Aclose(attr);
    return out;
  }

  /// A string or string-list attribute of `object` ("/" for the root), as a list. Expects the
  /// layout's string type: variable-length UTF-8.
  std::vector<std::string> strings(const std::string& object, const std::string& name) const {
    const hid_t attr = H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0) {
      ADD_FAILURE() << "no attribute " << name << " on " << object;
      return {};
    }
    const hid_t stored = H5Aget_type(attr);
    EXPECT_EQ(H5Tget_class(stored), H5T_STRING);
    EXPECT_TRUE(H5Tis_variable_str(stored) > 0) << name;
    EXPECT_EQ(H5Tget_cset(stored), H5T_CSET_UTF8) << name;
    const hid_t space = H5Aget_space(attr);
    std::vector<char*> texts(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    const hid_t memory = H5Tcopy(H5T_C_S1);
    H5Tset_size(memory, H5T_VARIABLE);
    H5Tset_cset(memory, H5T_CSET_UTF8);
    std::vector<std::string> out;
    if (!texts.empty() && H5Aread(attr, memory, texts.data()) >= 0) {
      for (char* text : texts) {
        out.emplace_back(text);
        H5free_memory(text);
      }
    }
    H5Tclose(memory);
    H5Sclose(space);
    H5Tclose(stored);
    H5Aclose(attr);
    return out;
  }

  /// A single-string attribute of the root; a placeholder naming the count when it holds more or none.
  std::string string(const std::string& name) const {
    const std::vector<std::string> list = strings("/", name);
    return list.size() == 1 ? list.front() : "<" + std::to_string(list.size()) + " strings>";
  }

 private:
  template <class V>
  static hid_t memory_type() {
    if constexpr (std::is_same_v<V, float>) {
      return H5T_NATIVE_FLOAT;
    } else if constexpr (std::is_same_v<V, double>) {
      return H5T_NATIVE_DOUBLE;
    } else if constexpr (std::is_same_v<V, std::int32_t>) {
      return H5T_NATIVE_INT32;
    } else if constexpr (std::is_same_v<V, std::uint32_t>) {
      return H5T_NATIVE_UINT32;
    } else {
      static_assert(std::is_same_v<V, std::uint64_t>, "H5Reader reads float, double, int32, uint32, uint64");
      return H5T_NATIVE_UINT64;
    }
  }
  hid_t file_;
};

}  // namespace batchode::testing
