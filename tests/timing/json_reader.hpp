// tests/timing/: a minimal JSON reader, so tests check TimeLogger::to_json() by parsing it back.
// Strict enough to reject malformed output (bad escapes, trailing commas, NaN); not a library.
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace json_reader {

struct Value {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::map<std::string, Value> object;

  const Value& operator[](const std::string& key) const {
    const auto found = object.find(key);
    if (kind != Kind::object || found == object.end()) throw std::runtime_error("no key '" + key + "'");
    return found->second;
  }
  const Value& operator[](std::size_t index) const { return array.at(index); }
  bool has(const std::string& key) const { return kind == Kind::object && object.count(key) != 0; }
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}
  Value parse() {
    Value value = parse_value();
    skip_space();
    if (pos_ != text_.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("JSON error at " + std::to_string(pos_) + ": " + why);
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
  }
  char peek() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end");
    return text_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  Value parse_value() {
    Value value;
    const char c = peek();
    if (c == '{') {
      value.kind = Value::Kind::object;
      ++pos_;
      if (peek() == '}') { ++pos_; return value; }
      for (;;) {
        if (peek() != '"') fail("expected a key");
        std::string key = parse_string();
        expect(':');
        value.object[key] = parse_value();
        if (peek() == ',') { ++pos_; continue; }
        expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.kind = Value::Kind::array;
      ++pos_;
      if (peek() == ']') { ++pos_; return value; }
      for (;;) {
        value.array.push_back(parse_value());
        if (peek() == ',') { ++pos_; continue; }
        expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.kind = Value::Kind::string;
      value.string = parse_string();
      return value;
    }
    if (literal("true")) { value.kind = Value::Kind::boolean; value.boolean = true; return value; }
    if (literal("false")) { value.kind = Value::Kind::boolean; return value; }
    if (literal("null")) return value;
    const std::size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && std::string_view("0123456789.eE+-").find(text_[pos_]) != std::string_view::npos) ++pos_;
    if (pos_ == start) fail("unexpected character");
    const std::string number(text_.substr(start, pos_ - start));
    char* end = nullptr;
    value.kind = Value::Kind::number;
    value.number = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) fail("bad number " + number);
    return value;
  }
  std::string parse_string() {
    expect('"');
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      const char c = text_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in a string");
      if (c != '\\') { out += c; continue; }
      if (pos_ >= text_.size()) fail("unfinished escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > text_.size()) fail("short \\u escape");
          const unsigned long code = std::strtoul(std::string(text_.substr(pos_, 4)).c_str(), nullptr, 16);
          pos_ += 4;
          if (code >= 0x80) fail("only ASCII \\u escapes are expected here");
          out += static_cast<char>(code);
          break;
        }
        default: fail("bad escape");
      }
    }
    expect('"');
    return out;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

inline Value parse(std::string_view text) { return Parser(text).parse(); }

}  // namespace json_reader
