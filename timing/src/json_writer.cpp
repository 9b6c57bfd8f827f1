// timing/: JsonWriter and the escaping and number rules it shares with anyone writing JSON by hand.
#include "batchode/timing/json_writer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace batchode {

namespace json {

std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;  // UTF-8 passes through unchanged
        }
    }
  }
  out += '"';
  return out;
}

// fmt's "{}" is the shortest text that reads back to the same double.
std::string number(double value) { return std::isfinite(value) ? fmt::format("{}", value) : "null"; }

std::string number(const std::optional<double>& value) { return value ? number(*value) : "null"; }

}  // namespace json

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (empty_.empty()) return;  // the document's top-level value
  if (!empty_.back()) out_ += ',';
  empty_.back() = false;
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  empty_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  out_ += bracket;
  if (!empty_.empty()) empty_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_object() { return open('{'); }
JsonWriter& JsonWriter::end_object() { return close('}'); }
JsonWriter& JsonWriter::begin_array() { return open('['); }
JsonWriter& JsonWriter::end_array() { return close(']'); }

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  out_ += json::quote(name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view text) {
  separate();
  out_ += text;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) { return raw(json::quote(text)); }
JsonWriter& JsonWriter::value(double number) { return raw(json::number(number)); }
JsonWriter& JsonWriter::value(const std::optional<double>& number) { return raw(json::number(number)); }

}  // namespace batchode
