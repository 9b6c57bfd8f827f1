// solver/results/ (private): plain values and arrays as bytes and back, for statistics sent to another
// process (EnsembleStatistics::to_bytes, QuantileSketch::append_bytes). Both ends are this library on
// machines of one job: native byte order, no versioning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace batchode::bytes {

template <class V>
void append(std::vector<char>& out, const V& v) {
  static_assert(std::is_trivially_copyable_v<V>);
  const char* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof(V));
}

/// The array's length, then its values.
template <class V>
void append_array(std::vector<char>& out, const std::vector<V>& values) {
  append(out, static_cast<std::uint64_t>(values.size()));
  const char* p = reinterpret_cast<const char*>(values.data());
  out.insert(out.end(), p, p + values.size() * sizeof(V));
}

/// Reads what append wrote at `at` (advanced); std::runtime_error past `end`.
template <class V>
V read(const char*& at, const char* end) {
  if (static_cast<std::size_t>(end - at) < sizeof(V)) throw std::runtime_error("statistics' bytes cut short");
  V v;
  std::memcpy(&v, at, sizeof(V));
  at += sizeof(V);
  return v;
}

/// Reads what append_array wrote; std::runtime_error when cut short or of another length than `expected`
/// (when given).
template <class V>
std::vector<V> read_array(const char*& at, const char* end, const std::size_t* expected = nullptr) {
  const auto n = read<std::uint64_t>(at, end);
  if (expected != nullptr && n != *expected) throw std::runtime_error("statistics' bytes of another shape");
  if (static_cast<std::uint64_t>(end - at) / sizeof(V) < n) throw std::runtime_error("statistics' bytes cut short");
  std::vector<V> values(static_cast<std::size_t>(n));
  if (n > 0) std::memcpy(values.data(), at, values.size() * sizeof(V));  // (an empty vector's data may be null)
  at += values.size() * sizeof(V);
  return values;
}

}  // namespace batchode::bytes
