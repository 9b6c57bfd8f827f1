// tests/models: events at given times (an event's `at`, or `every` with `start`, model_description.hpp):
// the times read as text (numbers written back with full precision) and as trees, their values through
// the interpreter (evaluate_event_time) and Model's is_time_event and constant_event_times; each mistake
// (keys that do not combine, times that are not finite, not increasing or not positive, times that read
// a state, t, a driver or an auxiliary) at its line and column; the generated time_events mask and
// event_time() compiled by the host compiler and run against the interpreter; models without such events
// generate exactly what they did before; the example dosing.toml.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
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

constexpr double kInf = std::numeric_limits<double>::infinity();

Model parse(const std::string& text) { return parse_model(read_model_toml(text, "m.toml")); }

std::string example(const std::string& name) { return std::string(BATCHODE_EXAMPLE_MODELS_DIR) + "/" + name; }

// One compartment A dosed D; parameters k, D, tau, t1 (p[0..3]); constant V. Events from line 15.
const std::string kDosingHead =
    "name = \"dosing\"\n"
    "equations = \"\"\"\n"
    "dA = -k * A\n"
    "\"\"\"\n"
    "[states]\n"
    "A = 0\n"
    "[parameters]\n"
    "k = 0.1\n"
    "D = 1\n"
    "tau = 24\n"
    "t1 = 8\n"
    "[constants]\n"
    "V = 2\n"
    "[events]\n";

const std::string kFourEvents =
    "dose = { every = \"tau\", start = 8, assign = \"A = A + D\", max = 20 }\n"
    "probe = { at = [8, 32.5, 0.1e3], max = 3 }\n"
    "late = { at = [\"t1\", \"t1 + 24\", \"V * exp(t1 / 4) + 60\"], action = \"terminal\" }\n"
    "low = { expr = \"A - 0.5\", direction = \"falling\" }\n";

TEST(ModelTimeEvents, ReadsAtNumbersAtExpressionsAndEvery) {
  const Model m = parse(kDosingHead + kFourEvents);
  ASSERT_EQ(m.events().size(), 4u);
  const EventDescription& dose = m.events()[0];
  EXPECT_TRUE(dose.expression.empty());
  EXPECT_TRUE(dose.at.empty());
  EXPECT_EQ(dose.every, "tau");
  EXPECT_EQ(dose.start, "8");  // a number, written back as text
  EXPECT_EQ(dose.assign, "A = A + D");
  EXPECT_EQ(dose.max, 20);
  EXPECT_EQ(m.events()[1].at, (std::vector<std::string>{"8", "32.5", "100"}));
  EXPECT_EQ(m.events()[2].at, (std::vector<std::string>{"t1", "t1 + 24", "V * exp(t1 / 4) + 60"}));
  EXPECT_EQ(m.events()[2].action, "terminal");
  // The places: every's string from its first character, start's number, at's array and entries.
  const std::map<std::string, SourceLocation>& at = m.description().locations;
  EXPECT_EQ(at.at("events.0.every").line, 15u);
  EXPECT_EQ(at.at("events.0.every").column, 19u);  // t of "tau"
  EXPECT_EQ(at.at("events.0.start").column, 33u);
  EXPECT_EQ(at.at("events.1.at").column, 16u);
  EXPECT_EQ(at.at("events.1.at.2").column, 26u);
  EXPECT_EQ(at.at("events.2.at.1").column, 23u);
  EXPECT_EQ(at.count("events.0.expr"), 0u);

  // The trees: no event function for events at given times, times for them only.
  ASSERT_EQ(m.equations().events.size(), 4u);
  ASSERT_EQ(m.equations().event_times.size(), 4u);
  for (std::size_t e = 0; e < 3; ++e) {
    EXPECT_EQ(m.equations().events[e], nullptr) << e;
    EXPECT_TRUE(m.equations().event_times[e].timed()) << e;
    EXPECT_TRUE(m.is_time_event(e)) << e;
  }
  EXPECT_NE(m.equations().events[3], nullptr);
  EXPECT_FALSE(m.equations().event_times[3].timed());
  EXPECT_FALSE(m.is_time_event(3));
  EXPECT_TRUE(same_tree(*m.equations().event_times[0].every, *make_symbol(ExprKind::parameter, 2)));
  EXPECT_TRUE(same_tree(*m.equations().event_times[0].start, *make_number(8)));
  EXPECT_THROW(m.is_time_event(4), std::out_of_range);

  // Constant times: probe's only (late's read t1; every is not listed).
  EXPECT_EQ(m.constant_event_times(1),
            (std::optional<std::vector<double>>(std::vector<double>{8, 32.5, 100})));
  EXPECT_EQ(m.constant_event_times(0), std::nullopt);
  EXPECT_EQ(m.constant_event_times(2), std::nullopt);
  EXPECT_EQ(m.constant_event_times(3), std::nullopt);
  EXPECT_THROW(m.constant_event_times(4), std::out_of_range);

  // Their values: start + i every; at's, +inf past the last; a crossing has none.
  const double p[] = {0.1, 1.0, 24.0, 8.0};
  EXPECT_EQ(evaluate_event_time(m, 0, 0, p), 8.0);
  EXPECT_EQ(evaluate_event_time(m, 0, 3, p), 80.0);
  EXPECT_EQ(evaluate_event_time(m, 1, 1, p), 32.5);
  EXPECT_EQ(evaluate_event_time(m, 1, 3, p), kInf);
  EXPECT_EQ(evaluate_event_time(m, 2, 1, p), 32.0);
  EXPECT_EQ(evaluate_event_time(m, 2, 2, p), 2.0 * std::exp(8.0 / 4) + 60);
  EXPECT_EQ(evaluate_event_time(m, 2, 3, p), kInf);
  EXPECT_EQ(evaluate_event_time(m, 3, 0, p), kInf);
  EXPECT_THROW(evaluate_event_time(m, 4, 0, p), std::out_of_range);
  // A period that is not > 0 in a run: its start only.
  const double no_period[] = {0.1, 1.0, 0.0, 8.0};
  EXPECT_EQ(evaluate_event_time(m, 0, 0, no_period), 8.0);
  EXPECT_EQ(evaluate_event_time(m, 0, 1, no_period), kInf);
  const double nan_period[] = {0.1, 1.0, std::nan(""), 8.0};
  EXPECT_EQ(evaluate_event_time(m, 0, 5, nan_period), kInf);

  // The crossing's slot is computed; the slots of events at given times are left alone.
  double g[] = {-7.0, -7.0, -7.0, -7.0};
  const double y[] = {2.0};
  evaluate_events(m, 0.0, y, p, g);
  EXPECT_EQ(g[0], -7.0);
  EXPECT_EQ(g[2], -7.0);
  EXPECT_EQ(g[3], 1.5);
}

TEST(ModelTimeEvents, NumbersKeepEveryBit) {
  // %.17g text parses back to the same double (0.1 is not 0.10000000000000001 shortened).
  const Model m = parse(kDosingHead +
                        "e = { at = [0.1, 0.30000000000000004, 5, 1e300] }\n"
                        "f = { every = 0.7, start = -1.5e-3 }\n");
  EXPECT_EQ(m.constant_event_times(0),
            (std::optional<std::vector<double>>(std::vector<double>{0.1, 0.30000000000000004, 5.0, 1e300})));
  EXPECT_EQ(evaluate_event_time(m, 1, 0, nullptr), -1.5e-3);
  EXPECT_EQ(evaluate_event_time(m, 1, 2, nullptr), -1.5e-3 + 2.0 * 0.7);
}

TEST(ModelTimeEvents, DescriptionsFromCpp) {
  ModelDescription d = read_model_toml(kDosingHead, "<string>");
  EventDescription dose;
  dose.name = "dose";
  dose.every = "tau";
  dose.start = "t1";
  dose.assign = "A = A + D";
  d.events.push_back(dose);
  EventDescription probe;
  probe.name = "probe";
  probe.at = {"1", "2 * V"};
  d.events.push_back(probe);
  const Model m = parse_model(d);
  EXPECT_TRUE(m.is_time_event(0));
  const double p[] = {0.1, 1.0, 12.0, 3.0};
  EXPECT_EQ(evaluate_event_time(m, 0, 2, p), 27.0);
  EXPECT_EQ(m.constant_event_times(1), (std::optional<std::vector<double>>(std::vector<double>{1, 4})));
  auto refused = [&](const ModelDescription& bad, const std::string& message) {
    try {
      parse_model(bad);
      ADD_FAILURE() << "accepted: " << message;
    } catch (const ModelError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  ModelDescription both = d;
  both.events[1].expression = "A - 1";
  refused(
      both,
      "<string>: event 'probe' has both expr and at: an event is a zero crossing of expr or happens at given "
      "times (at, or every with start), not both");
  ModelDescription rising = d;
  rising.events[0].direction = "rising";
  refused(
      rising,
      "<string>: event 'dose': direction = \"rising\" is for zero crossings (expr); an event at given times "
      "(every) has none: leave it out");
  ModelDescription nothing = d;
  nothing.events[1].at.clear();
  refused(
      nothing,
      "<string>: event 'probe' has an empty expression (give expr, a zero crossing, or the event's times: "
      "at = [...], or every with start)");
  ModelDescription unsorted = d;
  unsorted.events[1].at = {"2 * V", "4"};
  refused(
      unsorted,
      "<string>: event 'probe': at[1] = 4 repeats at[0] = \"2 * V\" = 4: give each time once (at = [t1, t2, "
      "...] with t1 < t2 < ...)");
  ModelDescription state = d;
  state.events[0].start = "A";
  refused(state,
          "<string>: event 'dose': start reads 'A', a state: an event's times are fixed per run and may read "
          "parameters, constants and numbers only (a parameter gives each run its own times)");
}

/// The event on line 15 written as `line`: refused at the column of the `nth` occurrence of `needle` in
/// it (+ `offset`), with each of `words` in the message.
void expect_refused(const std::string& line, const std::string& needle, const std::vector<std::string>& words,
                    std::size_t offset = 0, int nth = 0) {
  std::size_t found = line.find(needle);
  for (int k = 0; k < nth && found != std::string::npos; ++k) found = line.find(needle, found + 1);
  ASSERT_NE(found, std::string::npos) << needle << " not in " << line;
  expect_error(kDosingHead + line + "\n", 15, found + 1 + offset, words);
}

TEST(ModelTimeEvents, KeysThatDoNotCombineAtTheirPlace) {
  expect_refused("e = { at = [8], every = 24, start = 0 }", "24",
                 {"event 'e' has both at and every", "at = [t1, t2, ...]", "every = <period> with start"});
  expect_refused("e = { expr = \"A - 1\", at = [8] }", "[8]", {"event 'e' has both expr and at", "not both"});
  expect_refused("e = { every = 24, start = 0, expr = \"A\" }", "24", {"event 'e' has both expr and every"});
  expect_refused("e = { every = 24, start = 0, direction = \"rising\" }", "\"rising\"",
                 {"event 'e': direction = \"rising\" is for zero crossings", "(every) has none"});
  // Written out even as the default: still refused (it means nothing for given times).
  expect_refused("e = { at = [1], direction = \"both\" }", "\"both\"",
                 {"direction = \"both\"", "(at) has none"});
  expect_refused("e = { every = 24 }", "24",
                 {"event 'e': every = 24 needs start = <the first time>", "start + every"});
  expect_refused("e = { start = 8, assign = \"A = 1\" }", "8",
                 {"event 'e': start = 8 goes with every = <period>"});
  expect_refused("e = { at = [1, 2], start = 8 }", "8", {"start = 8 goes with every", "leave start out"});
  expect_refused("e = { action = \"record\", max = 2 }", "e",
                 {"event 'e' has no expr", "(a zero crossing), at = [...] or every = ... with start = ..."});
  expect_refused("e = { at = [8], when = 3 }", "when", {"unknown key 'when'", "or at, or every and start"});
}

TEST(ModelTimeEvents, TimesThatAreNoTimesAtTheirPlace) {
  // Shapes and types.
  expect_refused("e = { at = [] }", "[]", {"event 'e': at = [] lists no times"});
  expect_refused("e = { at = 8 }", "8", {"event 'e': at must be an array of times", "not an integer"});
  expect_refused("e = { at = [8, true] }", "true",
                 {"event 'e': at[1] must be a number or an expression", "boolean"});
  expect_refused("e = { every = [1], start = 0 }", "[1]",
                 {"event 'e': every must be a number", "not an array"});
  expect_refused("e = { at = [8, \"\"] }", "\"\"", {"event 'e': at[1] is an empty expression"}, 1);
  expect_refused("e = { at = [8, \"2\\n+ 1\"] }", "\"2", {"event 'e': at[1] must be one line"}, 1);
  // Not finite: a TOML inf or nan, or an expression that makes one.
  expect_refused("e = { at = [8, inf] }", "inf", {"event 'e': at[1] = inf is not a finite time"});
  expect_refused("e = { every = nan, start = 0 }", "nan", {"event 'e': every = nan is not a finite time"});
  expect_refused("e = { at = [8, \"1 / (V - 2)\"] }", "1 /",
                 {"at[1] = \"1 / (V - 2)\" = inf is not a finite time"});
  expect_refused("e = { every = 1, start = \"log(-V)\" }", "log",
                 {"start = \"log(-V)\" = nan is not a finite"});
  // Constant at times must increase: at the first one not after those before it.
  expect_refused("e = { at = [8, 32, 20] }", "20", {"at[2] = 20 is before at[1] = 32", "must increase"});
  expect_refused("e = { at = [8, 8] }", "8", {"at[1] = 8 repeats at[0] = 8", "give each time once"}, 0, 1);
  // Between per-run times the constant ones are still compared: 6 is before 8 whatever tau is.
  expect_refused("e = { at = [8, \"tau\", \"2 * 3\"] }", "2 *",
                 {"at[2] = \"2 * 3\" = 6 is before at[0] = 8"});
  expect_refused("e = { at = [-1, \"-V\"] }", "-V", {"at[1] = \"-V\" = -2 is before at[0] = -1"});
  // A constant period must be positive.
  expect_refused("e = { every = 0, start = 8 }", "0", {"event 'e': every = 0 is not > 0"});
  expect_refused("e = { every = \"V - 3\", start = 8 }", "V - 3", {"every = \"V - 3\" = -1 is not > 0"});
}

TEST(ModelTimeEvents, TimesReadParametersConstantsAndNumbersOnly) {
  const std::string fixed =
      ": an event's times are fixed per run and may read parameters, constants and numbers";
  // A state, t, a driver, an auxiliary: at the name inside the string.
  const std::string head =
      "name = \"m\"\nequations = \"\"\"\nconc = A / V\ndA = -k * A + w\n\"\"\"\n[states]\nA = 0\n"
      "[parameters]\nk = 0.1\n[constants]\nV = 2\n[drivers]\nw = {}\n[events]\n";
  auto refused = [&](const std::string& line, const std::string& needle,
                     const std::vector<std::string>& words) {
    const std::size_t found = line.find(needle);
    ASSERT_NE(found, std::string::npos);
    expect_error(head + line + "\n", 15, found + 1, words);
  };
  refused("e = { at = [8, \"10 + A\"] }", "A\"", {"event 'e': at[1] reads 'A', a state" + fixed});
  refused("e = { every = \"2 * t\", start = 0 }", "t\"", {"event 'e': every reads 't', the time"});
  refused("e = { every = 1, start = \"w\" }", "w\"", {"event 'e': start reads 'w', a driver"});
  refused("e = { at = [\"conc\"] }", "conc", {"event 'e': at[0] reads 'conc', an auxiliary"});
  // Parameters, constants, functions and ifelse are fine.
  const Model m = parse(head + "e = { at = [\"ifelse(k > 0.5, V, 1)\", \"max(k, V) + 1\"] }\n");
  const double p[] = {0.1};
  EXPECT_EQ(evaluate_event_time(m, 0, 0, p), 1.0);
  EXPECT_EQ(evaluate_event_time(m, 0, 1, p), 3.0);
  // Other mistakes are the equations' own, at their place.
  refused("e = { at = [\"8 +\"] }", "\"]", {"expected an expression after '+'"});  // past the '+'
  refused("e = { at = [\"kk\"] }", "kk", {"unknown symbol 'kk'"});
  refused("e = { every = \"k < 1\", start = 0 }", "< 1", {"condition"});
}

TEST(ModelTimeEvents, TheDosingExample) {
  const Model m = load_model(example("dosing.toml"));
  ASSERT_EQ(m.events().size(), 1u);
  EXPECT_TRUE(m.is_time_event(0));
  EXPECT_EQ(m.events()[0].every, "tau");
  EXPECT_EQ(m.events()[0].start, "8");
  EXPECT_EQ(m.events()[0].assign, "A = A + D");
  ASSERT_EQ(m.n_params(), 3u);
  EXPECT_EQ(m.parameters()[2].name, "tau");
  const double p[] = {m.parameters()[0].value, m.parameters()[1].value, m.parameters()[2].value};
  EXPECT_EQ(evaluate_event_time(m, 0, 0, p), 8.0);
  EXPECT_EQ(evaluate_event_time(m, 0, 2, p), 56.0);
}

/// `with` less the one block it adds to `without`, which must be the rest of `with` exactly.
std::string inserted_block(const std::string& without, const std::string& with) {
  std::size_t front = 0;
  while (front < without.size() && front < with.size() && without[front] == with[front]) ++front;
  const std::size_t back = without.size() - front;
  EXPECT_GT(with.size(), without.size());
  EXPECT_EQ(with.substr(with.size() - back), without.substr(front)) << with;
  return with.substr(front, with.size() - without.size());
}

TEST(ModelTimeEvents, GeneratedCodeOnlyAddsTheMaskAndEventTime) {
  // The same crossings with and without a last event at given times: the code differs in n_events and
  // the block after event_assign() only (events() leaves the new slot alone).
  const std::string crossings =
      "low = { expr = \"A - 0.5\", direction = \"falling\", assign = \"A = 2 * A\" }\nzero = \"A - k\"\n";
  const std::string with = generate_system(
      parse(kDosingHead + crossings + "dose = { every = \"tau\", start = \"t1\" }\n"), {"M", true});
  std::string without = generate_system(parse(kDosingHead + crossings), {"M", true});
  const std::string count = "n_events = 2;";
  ASSERT_NE(without.find(count), std::string::npos);
  without.replace(without.find(count), count.size(), "n_events = 3;");
  const std::string block = inserted_block(without, with);
  EXPECT_EQ(block.rfind("\n  // bit e: event e happens at given times", 0), 0u) << block;
  EXPECT_NE(block.find("static constexpr batchode::port::uint32_t time_events = 4;\n"), std::string::npos)
      << block;
  EXPECT_NE(
      block.find("BATCHODE_HOST_DEVICE T event_time(batchode::port::size_t e, batchode::port::uint32_t i, "
                 "const T* p) const {\n"),
      std::string::npos)
      << block;
  EXPECT_NE(block.find("        const T p_tau = p[2];\n        const T p_t1 = p[3];\n"), std::string::npos)
      << block;
  EXPECT_NE(block.find("        return start + T(i) * every;\n"), std::string::npos) << block;
  EXPECT_EQ(block.find("p_k"), std::string::npos) << block;  // only what the times read
  EXPECT_GT(with.find(block), with.find("void event_assign("));

  // Models without events at given times generate no mask and no event_time.
  for (const char* name : {"bouncing_ball.toml", "projectile.toml", "lorenz.toml", "robertson_dae.toml"}) {
    const std::string source = generate_system(load_model(example(name)), {"M", true});
    EXPECT_EQ(source.find("time_events"), std::string::npos) << name;
    EXPECT_EQ(source.find("event_time"), std::string::npos) << name;
  }
}

TEST(ModelTimeEvents, GeneratedEventTimeMatchesTheInterpreter) {
  const Model m = parse(kDosingHead + kFourEvents);
  const std::string source = generate_system(m, {"Dosing", true});
  EXPECT_NE(source.find("time_events = 7;"), std::string::npos) << source;
  // events() computes the crossing's slot only.
  EXPECT_NE(source.find("    g[3] = s_A - T(0.5);\n"), std::string::npos) << source;
  EXPECT_EQ(source.find("g[0]"), std::string::npos) << source;

  // Per-run parameters: the usual, a period that is not > 0, one that is NaN.
  const std::vector<std::vector<double>> runs = {
      {0.1, 1.0, 24.0, 8.0}, {0.2, 2.0, 7.25, 0.3}, {0.1, 1.0, -1.0, 8.0}, {0.1, 1.0, std::nan(""), 1.0}};
  std::string expected,
      program = "#include <cstdio>\n#include \"" + std::string("dosing.hpp") +
                "\"\n#include \"batchode/kernels/core/system.hpp\"\n"
                "static_assert(Dosing::time_events == 7u, \"events 0 to 2 at given times\");\n"
                "static_assert(batchode::time_events_v<Dosing> == 7u, \"the kernels see it\");\n"
                "int main() {\n";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    program += "  {\n    const double p[] = {";
    for (std::size_t k = 0; k < runs[r].size(); ++k) {
      char value[40];
      std::snprintf(value, sizeof value, "%a", runs[r][k]);
      program += (k ? ", " : "") + std::string(std::isnan(runs[r][k]) ? "__builtin_nan(\"\")" : value);
    }
    program += "};\n";
    for (std::size_t e = 0; e < 4; ++e) {
      for (unsigned i : {0u, 1u, 2u, 3u, 1000u}) {
        char line[64];
        std::snprintf(line, sizeof line, "%a\n", evaluate_event_time(m, e, i, runs[r].data()));
        expected += line;
        program += "    std::printf(\"%a\\n\", Dosing{}.event_time(" + std::to_string(e) + ", " +
                   std::to_string(i) + "u, p));\n";
      }
    }
    program += "  }\n";
  }
  // Templated on T: float too.
  program +=
      "  const float pf[] = {0.1f, 1.0f, 24.0f, 8.0f};\n"
      "  return Dosing{}.event_time(0, 2u, pf) == 56.0f && Dosing{}.event_time(1, 9u, pf) > 1e30f ? 0 : "
      "1;\n}\n";
  support::TempDir dir;
  support::write_file(dir.file("dosing.hpp"), source);
  support::write_file(dir.file("main.cpp"), program);
  const support::RunResult ran = support::build_and_run(dir, "main.cpp");
  ASSERT_EQ(ran.exit_code, 0) << ran.output << "\nsource:\n" << source;
  EXPECT_EQ(ran.output, expected);  // bit for bit (hex floats)
}

TEST(ModelTimeEvents, OnlyEventsAtGivenTimesCompile) {
  // events() then writes nothing: its output is marked used, so -Wall -Wextra -Werror pass.
  const Model m = parse(kDosingHead + "dose = { at = [1, \"t1\"], assign = \"A = A + D\" }\n");
  const std::string source = generate_system(m, {"Doses", false});
  EXPECT_NE(source.find("    (void)g;\n"), std::string::npos) << source;
  support::TempDir dir;
  support::write_file(dir.file("doses.hpp"), source);
  support::write_file(dir.file("main.cpp"),
                      "#include \"doses.hpp\"\n"
                      "int main() {\n"
                      "  const double p[] = {0.1, 1.0, 24.0, 8.0};\n"
                      "  double y[] = {0.5}, g[] = {-1.0};\n"
                      "  Doses{}.events(0.0, y, p, g);\n"
                      "  Doses{}.event_assign(0, 1.0, y, p);\n"
                      "  return g[0] == -1.0 && y[0] == 1.5 && Doses{}.event_time(0, 1u, p) == 8.0 &&\n"
                      "      Doses{}.event_time(0, 2u, p) > 1e300 ? 0 : 1;\n"
                      "}\n");
  const support::RunResult ran = support::build_and_run(dir, "main.cpp");
  EXPECT_EQ(ran.exit_code, 0) << ran.output << "\nsource:\n" << source;
}

}  // namespace
