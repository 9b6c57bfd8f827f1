// tests/timing/: JsonWriter and json::quote/number, the JSON of TimeLogger and ExecutionTelemetry.
// The exact text is pinned: both reports are searched as strings by tests and scripts.
#include <gtest/gtest.h>

#include <batchode/timing/json_writer.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "json_reader.hpp"

namespace {

using batchode::JsonWriter;
namespace json = batchode::json;

TEST(JsonWriter, QuotesEscapeWhatJsonRequiresAndPassUtf8Through) {
  EXPECT_EQ(json::quote(""), "\"\"");
  EXPECT_EQ(json::quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json::quote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(json::quote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(json::quote("gr\xc3\xbc\xc3\x9f"), "\"gr\xc3\xbc\xc3\x9f\"");  // "grüß" unchanged
  EXPECT_EQ(json_reader::parse(json::quote("x\"\n\x02y")).string, "x\"\n\x02y");
}

TEST(JsonWriter, NumbersAreShortestAndNonFiniteOnesAreNull) {
  EXPECT_EQ(json::number(0.0), "0");
  EXPECT_EQ(json::number(2.5), "2.5");
  EXPECT_EQ(json::number(0.1), "0.1");
  EXPECT_EQ(json::number(1e21), "1e+21");
  EXPECT_EQ(json::number(std::nan("")), "null");
  EXPECT_EQ(json::number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json::number(-std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json::number(std::optional<double>()), "null");
  EXPECT_EQ(json::number(std::optional<double>(3.0)), "3");
}

TEST(JsonWriter, PlacesCommasAndNestsContainers) {
  JsonWriter w;
  w.begin_object()
      .field("n", std::size_t{3})
      .field("neg", std::int64_t{-4})
      .field("x", 1.5)
      .field("missing", std::optional<double>())
      .field("name", "a\"b")
      .key("ok")
      .boolean(true)
      .key("none")
      .null();
  w.key("list")
      .begin_array()
      .value(1)
      .value(2.5)
      .begin_object()
      .end_object()
      .begin_array()
      .end_array()
      .end_array();
  w.key("empty").begin_object().end_object();
  w.end_object();
  EXPECT_EQ(w.str(),
            "{\"n\":3,\"neg\":-4,\"x\":1.5,\"missing\":null,\"name\":\"a\\\"b\",\"ok\":true,\"none\":null,"
            "\"list\":[1,2.5,{},[]],\"empty\":{}}");
  const json_reader::Value parsed = json_reader::parse(w.str());
  EXPECT_EQ(parsed["list"].array.size(), 4u);
}

TEST(JsonWriter, TopLevelArraysAndLargeIntegersAreExact) {
  JsonWriter w;
  w.begin_array()
      .value(std::numeric_limits<std::uint64_t>::max())
      .value(std::numeric_limits<std::int64_t>::min())
      .value(std::nan(""))
      .end_array();
  EXPECT_EQ(w.str(), "[18446744073709551615,-9223372036854775808,null]");
}

}  // namespace
