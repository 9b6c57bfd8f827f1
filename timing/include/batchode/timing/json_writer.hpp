// timing/: the one JSON writer of batchode's reports (TimeLogger::to_json, ExecutionTelemetry::to_json):
// string escaping, numbers that stay valid JSON, and a streaming writer that places the commas.
// Compact output (no spaces), so reports stay one line that tests and scripts can search.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace batchode {

namespace json {
/// `text` as a JSON string, quotes included: '"', '\\' and control characters escaped; other bytes
/// (UTF-8) pass through unchanged.
std::string quote(std::string_view text);
/// `value` as a JSON number in its shortest exact form; "null" for NaN and infinities, which JSON
/// cannot represent.
std::string number(double value);
/// number(*value), or "null" when empty.
std::string number(const std::optional<double>& value);
}  // namespace json

/// Writes one JSON document front to back: open a container, write keys and values, close it.
///   JsonWriter w;
///   w.begin_object().field("runs", 5).key("times").begin_array().value(1.5).end_array().end_object();
///   w.str();  // {"runs":5,"times":[1.5]}
/// Commas are placed by the writer. It does not check the document's shape: a key outside an object
/// or an unclosed container writes invalid JSON.
class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The key of the next value, inside an object.
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  /// NaN and infinities are written as null (json::number()).
  JsonWriter& value(double number);
  /// null when empty.
  JsonWriter& value(const std::optional<double>& number);
  /// Any integer type, exactly.
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  JsonWriter& value(Int number) {
    if constexpr (std::is_signed_v<Int>) return raw(std::to_string(static_cast<std::int64_t>(number)));
    return raw(std::to_string(static_cast<std::uint64_t>(number)));
  }
  JsonWriter& value(bool) = delete;  // say boolean(): a bool here is more often a pointer's mistake
  JsonWriter& boolean(bool flag) { return raw(flag ? "true" : "false"); }
  JsonWriter& null() { return raw("null"); }

  /// key(name) then value(v).
  template <typename Value>
  JsonWriter& field(std::string_view name, const Value& v) {
    key(name);
    return value(v);
  }

  /// The document so far.
  const std::string& str() const noexcept { return out_; }

 private:
  JsonWriter& raw(std::string_view text);  // one value, already valid JSON
  void separate();                         // the comma before an element that is not its container's first
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);

  std::string out_;
  std::vector<bool> empty_;  // per open container: nothing written in it yet
  bool after_key_ = false;   // the next value is a key's, so no comma before it
};

}  // namespace batchode
