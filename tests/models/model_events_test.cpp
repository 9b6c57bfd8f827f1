// tests/models: events in model text (issue 12): the [events] table and the `events = [...]` list read
// with their words and places; every mistake named at its line and column (names, words, max, the
// expression's own syntax and symbols); the interpreter's values; and generated code that the host
// compiler accepts as a system with events, computing what the interpreter computes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "batchode/models/codegen.hpp"
#include "batchode/models/evaluate.hpp"
#include "batchode/models/model.hpp"
#include "compile_support.hpp"
#include "expect_model_error.hpp"

namespace {

using batchode::models::testing::expect_error;

using namespace batchode::models;
namespace support = batchode::models::testing;

// Line 1-6: the model; the events follow from line 7 on.
const std::string kHead =
    "name = \"ball\"\n"
    "equations = \"\"\"\n"
    "energy = 0.5 * v^2 + g * h\n"
    "dh = v\n"
    "dv = -g\n\"\"\"\n";
const std::string kTables = "[states]\nh = 1\nv = 0\n[parameters]\ng = 9.81\n";

Model parse(const std::string& text) { return parse_model(read_model_toml(text, "m.toml")); }


TEST(ModelEvents, TableWithEveryField) {
  const Model m = parse(kHead + kTables +
                        "[events]\n"
                        "ground = { expr = \"h\", direction = \"falling\", action = \"terminal\" }\n"
                        "apex = { expr = \"v\", max = 3 }\n"
                        "low_energy = \"energy - 0.5 * g\"\n");
  ASSERT_EQ(m.events().size(), 3u);
  EXPECT_EQ(m.events()[0].name, "ground");
  EXPECT_EQ(m.events()[0].direction, "falling");
  EXPECT_EQ(m.events()[0].action, "terminal");
  EXPECT_EQ(m.events()[0].max, 1);
  EXPECT_EQ(m.events()[1].name, "apex");  // the file's order, not toml++'s sorted one
  EXPECT_EQ(m.events()[1].direction, "both");
  EXPECT_EQ(m.events()[1].action, "record");
  EXPECT_EQ(m.events()[1].max, 3);
  EXPECT_EQ(m.events()[2].name, "low_energy");
  ASSERT_EQ(m.equations().events.size(), 3u);

  // g(t, y, p) as the interpreter computes it: h, v, 0.5 v^2 + g h - 0.5 g.
  const double y[] = {0.75, -2.0}, p[] = {9.81};
  double g[3] = {};
  evaluate_events(m, 0.0, y, p, g);
  EXPECT_EQ(g[0], 0.75);
  EXPECT_EQ(g[1], -2.0);
  EXPECT_DOUBLE_EQ(g[2], 0.5 * 4.0 + 9.81 * 0.75 - 0.5 * 9.81);
}

TEST(ModelEvents, ListFormNamesThemInOrder) {
  const Model m = parse(kHead + "events = [\"h - 0.5\", \"v + 1\"]\n" + kTables);
  ASSERT_EQ(m.events().size(), 2u);
  EXPECT_EQ(m.events()[0].name, "event0");
  EXPECT_EQ(m.events()[1].name, "event1");
  EXPECT_EQ(m.events()[1].expression, "v + 1");
  const double y[] = {2.0, 3.0}, p[] = {9.81};
  double g[2] = {};
  evaluate_events(m, 0.0, y, p, g);
  EXPECT_EQ(g[0], 1.5);
  EXPECT_EQ(g[1], 4.0);
  // A model without events has none, and its generated code no events() member.
  const Model plain = parse(kHead + kTables);
  EXPECT_TRUE(plain.events().empty());
  EXPECT_EQ(generate_system(plain).find("n_events"), std::string::npos);
}

TEST(ModelEvents, ExpressionMistakesAtTheirPlace) {
  // Line 7 holds `[events]`, line 8 the event; the expression's text starts after the quote.
  const std::string events = kHead + kTables + "[events]\n";
  const std::size_t line = 6 + 5 + 2;  // head 6 lines, tables 5, [events] 1: the event on line 13
  expect_error(events + "e = { expr = \"h - hh\" }\n", line, 19, {"unknown", "'hh'"});
  expect_error(events + "e = { expr = \"h - \" }\n", line, 18, {"expected"});
  expect_error(events + "e = { expr = \"(h - 1\" }\n", line, 21, {"expected ')'"});
  expect_error(events + "e = { expr = \"h 1\" }\n", line, 17, {"unexpected '1'"});
  expect_error(events + "e = { expr = \"h < 1\" }\n", line, 17, {"condition"});
  expect_error(events + "e = { expr = \"\" }\n", line, 15, {"event 'e' has an empty expression"});
  expect_error(events + "e = \"sin(h, v)\"\n", line, 6, {"sin"});
  // The list form: the expression's own column.
  expect_error(kHead + "events = [\"h\", \"v +* 1\"]\n" + kTables, 7, 20, {"found '*'"});
}

TEST(ModelEvents, SpecMistakesAtTheirPlace) {
  const std::string events = kHead + kTables + "[events]\n";
  const std::size_t line = 13;
  expect_error(events + "e = { expr = \"h\", direction = \"up\" }\n", line, 31,
               {"direction 'up'", "\"rising\", \"falling\" or \"both\""});
  expect_error(events + "e = { expr = \"h\", action = \"stop\" }\n", line, 28, {"action 'stop'", "\"terminal\""});
  expect_error(events + "e = { expr = \"h\", max = 0 }\n", line, 25, {"max = 0", "max >= 1"});
  expect_error(events + "e = { expr = \"h\", max = 2000000 }\n", line, 25, {"above 2^20"});
  expect_error(events + "e = { expr = \"h\", max = 1.5 }\n", line, 25, {"max must be an integer"});
  expect_error(events + "e = { expr = \"h\", when = \"always\" }\n", line, 19, {"unknown key 'when'"});
  expect_error(events + "e = { direction = \"rising\" }\n", line, 1, {"event 'e' has no expr"});
  expect_error(events + "e = 3\n", line, 5, {"event 'e' must be an expression in quotes or a table"});
  expect_error(kHead + "events = [\"h\", 2]\n" + kTables, 7, 16, {"an event must be an expression in quotes"});
  expect_error(kHead + "events = \"h\"\n" + kTables, 7, 10, {"'events' must be a table"});
  std::string nine = events;
  for (int i = 0; i < 9; ++i) nine += "e" + std::to_string(i) + " = \"h\"\n";
  expect_error(nine, line + 8, 1, {"too many events", "at most 8"});
  // Names must be usable as names (files, Python keys); toml++ accepts quoted keys.
  expect_error(events + "\"my event\" = \"h\"\n", line, 1, {"event name 'my event' is not a valid name"});
}

TEST(ModelEvents, DescriptionsFromCppWithoutPlaces) {
  ModelDescription d = read_model_toml(kHead + kTables, "<string>");
  d.events.push_back({"ground", "h", "falling", "terminal", 1, "", {}, "", ""});
  EXPECT_EQ(parse_model(d).events().size(), 1u);
  d.events.push_back({"ground", "v", "both", "record", 2, "", {}, "", ""});
  try {
    parse_model(d);
    ADD_FAILURE() << "a name used twice was accepted";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "<string>: event 'ground' is defined twice");
  }
  d.events.back() = {"apex", "v +", "both", "record", 2, "", {}, "", ""};
  try {
    parse_model(d);
    ADD_FAILURE() << "a bad expression was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
  }
}

TEST(ModelEvents, GeneratedCodeIsASystemWithEventsComputingTheInterpretersValues) {
  const Model m = parse(kHead + kTables +
                        "[events]\nground = { expr = \"h\", direction = \"falling\" }\n"
                        "energy_half = \"energy - 0.5 * g * t\"\n");
  const std::string source = generate_system(m, {"Ball", false});
  EXPECT_NE(source.find("static constexpr batchode::port::size_t n_events = 2;"), std::string::npos) << source;
  EXPECT_NE(source.find("void events(T t, const T* y, const T* p, T* g) const"), std::string::npos) << source;

  support::TempDir dir;
  support::write_file(dir.file("ball.hpp"), source);
  const double y[] = {0.25, -1.5}, p[] = {9.0};
  double g[2] = {};
  evaluate_events(m, 0.5, y, p, g);
  char expected[128];
  std::snprintf(expected, sizeof expected, "%a %a\n", g[0], g[1]);
  support::write_file(dir.file("main.cpp"),
                      "#include <cstdio>\n#include \"" + dir.file("ball.hpp") +
                          "\"\n#include \"batchode/kernels/loop/events.hpp\"\n"
                          "static_assert(batchode::n_events_v<Ball> == 2, \"two events\");\n"
                          "int main() {\n  const double y[] = {0.25, -1.5}, p[] = {9.0};\n  double g[2];\n"
                          "  Ball{}.events(0.5, y, p, g);\n  std::printf(\"%a %a\\n\", g[0], g[1]);\n}\n");
  const support::RunResult ran = support::build_and_run(dir, "main.cpp");
  ASSERT_EQ(ran.exit_code, 0) << ran.output << "\nsource:\n" << source;
  EXPECT_EQ(ran.output, expected);  // bit for bit (hex floats)
}

}  // namespace
