// timing/: key/value annotations attached to a timed event (nbytes, chunk_index, runs, chunk_slice...).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace batchode {

/// One metadata value: a 64-bit integer, a double or a string. Any integer type converts to the
/// integer alternative (unsigned values above INT64_MAX wrap; byte counts never get there), any
/// floating-point type to double, and C strings / std::string / std::string_view to string.
class MetaValue {
 public:
  using Storage = std::variant<std::int64_t, double, std::string>;

  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  MetaValue(Int value) : value_(static_cast<std::int64_t>(value)) {}  // NOLINT: implicit on purpose
  MetaValue(double value) : value_(value) {}                           // NOLINT
  MetaValue(float value) : value_(static_cast<double>(value)) {}       // NOLINT
  MetaValue(const char* value) : value_(std::string(value)) {}         // NOLINT
  MetaValue(std::string value) : value_(std::move(value)) {}           // NOLINT
  MetaValue(std::string_view value) : value_(std::string(value)) {}    // NOLINT
  MetaValue(bool) = delete;  // a bool is almost always a mistake here; say 0 or 1

  bool is_int() const noexcept { return std::holds_alternative<std::int64_t>(value_); }
  bool is_double() const noexcept { return std::holds_alternative<double>(value_); }
  bool is_string() const noexcept { return std::holds_alternative<std::string>(value_); }
  /// The value; throws std::bad_variant_access when it holds another alternative.
  std::int64_t as_int() const { return std::get<std::int64_t>(value_); }
  double as_double() const { return std::get<double>(value_); }
  const std::string& as_string() const { return std::get<std::string>(value_); }
  /// Integers and doubles as double (for sums such as total nbytes); false for strings.
  bool numeric(double& out) const noexcept;
  const Storage& storage() const noexcept { return value_; }
  /// The value as text: integers and doubles as numbers, strings unquoted.
  std::string to_string() const;

  friend bool operator==(const MetaValue& a, const MetaValue& b) { return a.value_ == b.value_; }
  friend bool operator!=(const MetaValue& a, const MetaValue& b) { return !(a == b); }

 private:
  Storage value_;
};

/// One key/value pair of a Metadata list.
struct MetaEntry {
  MetaEntry(std::string key_, MetaValue value_) : key(std::move(key_)), value(std::move(value_)) {}
  std::string key;
  MetaValue value;
};

/// An ordered list of key/value pairs with unique keys, e.g.
/// `Metadata{{"runs", 5}, {"nbytes", bytes}, {"chunk_slice", "0:100"}}`.
class Metadata {
 public:
  Metadata() = default;
  /// Later duplicates of a key replace earlier ones.
  Metadata(std::initializer_list<MetaEntry> entries);

  /// Adds `key`, or replaces its value when it is present.
  void set(std::string key, MetaValue value);
  /// The value of `key`, or nullptr when absent.
  const MetaValue* find(std::string_view key) const noexcept;
  bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }
  bool empty() const noexcept { return entries_.empty(); }
  std::size_t size() const noexcept { return entries_.size(); }
  std::vector<MetaEntry>::const_iterator begin() const noexcept { return entries_.begin(); }
  std::vector<MetaEntry>::const_iterator end() const noexcept { return entries_.end(); }
  /// "key=value, key=\"text\"" on one line, for log output.
  std::string to_string() const;

 private:
  std::vector<MetaEntry> entries_;
};

}  // namespace batchode
