// tests/models: events that change the state (an event's `assign`, model_description.hpp): the
// statements read into trees (the bouncing ball, an Izhikevich neuron), simultaneous through the
// interpreter (x = y; y = x swaps), each mistake at its line and column inside the assign string, and
// the generated event_assignments mask and event_assign() compiled by the host compiler and run
// against the interpreter; models without assign generate exactly what they did before.
#include <gtest/gtest.h>

#include <cstdio>
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

Model parse(const std::string& text) { return parse_model(read_model_toml(text, "m.toml")); }

std::string example(const std::string& name) { return std::string(BATCHODE_EXAMPLE_MODELS_DIR) + "/" + name; }

constexpr const char* kIzhikevich = R"(name = "izhikevich"
equations = """
dv = 0.04 * v^2 + 5 * v + 140 - u + I
du = a * (b * v - u)
"""
[states]
v = -65.0
u = -13.0
[parameters]
a = 0.02
b = 0.2
c = -65.0
d = 8.0
I = 10.0
[events]
spike = { expr = "v - 30", direction = "rising", assign = "v = c; u = u + d", max = 100 }
)";

TEST(ModelEventAssign, BouncingBallExampleReadsItsAssign) {
  const Model m = load_model(example("bouncing_ball.toml"));
  ASSERT_EQ(m.events().size(), 1u);
  EXPECT_EQ(m.events()[0].assign, "vh = -e * vh");
  EXPECT_EQ(m.events()[0].max, 40);
  // The assign's first character: after `bounce = { expr = "h", direction = "falling", assign = "`.
  const SourceLocation at = m.description().locations.at("events.0.assign");
  EXPECT_EQ(at.column, 57u);
  const std::vector<std::vector<EventAssignment>>& all = m.equations().event_assignments;
  ASSERT_EQ(all.size(), 1u);
  ASSERT_EQ(all[0].size(), 1u);
  EXPECT_FALSE(all[0][0].parameter);
  EXPECT_EQ(all[0][0].index, 1u);  // vh
  EXPECT_EQ(all[0][0].where.line, at.line);
  EXPECT_EQ(all[0][0].where.column, at.column);
  // -e * vh reads as (-e) * vh, as in the equations.
  const ExprPtr expected = make_node(
      ExprKind::multiply,
      {make_node(ExprKind::negate, {make_symbol(ExprKind::parameter, 0)}), make_symbol(ExprKind::state, 1)});
  EXPECT_TRUE(same_tree(*all[0][0].value, *expected));

  double y[] = {0.0, -5.0};
  double p[] = {0.8};
  apply_event_assignments(m, 0, 1.0, y, p);
  EXPECT_EQ(y[0], 0.0);
  EXPECT_EQ(y[1], -0.8 * -5.0);
  EXPECT_EQ(p[0], 0.8);  // parameters it does not assign are left alone
}

TEST(ModelEventAssign, IzhikevichResetsBothStates) {
  const Model m = parse(kIzhikevich);
  const std::vector<EventAssignment>& spike = m.equations().event_assignments.at(0);
  ASSERT_EQ(spike.size(), 2u);
  EXPECT_EQ(spike[0].index, 0u);  // written order
  EXPECT_TRUE(same_tree(*spike[0].value, *make_symbol(ExprKind::parameter, 2)));
  EXPECT_EQ(spike[1].index, 1u);
  EXPECT_FALSE(spike[0].parameter || spike[1].parameter);
  EXPECT_TRUE(same_tree(*spike[1].value, *make_node(ExprKind::add, {make_symbol(ExprKind::state, 1),
                                                                    make_symbol(ExprKind::parameter, 3)})));
  EXPECT_EQ(spike[1].where.line, 16u);
  EXPECT_EQ(spike[1].where.column, 67u);  // the `u` after "v = c; "

  double y[] = {35.0, -10.0};
  double p[] = {0.02, 0.2, -65.0, 8.0, 10.0};
  apply_event_assignments(m, 0, 3.0, y, p);
  EXPECT_EQ(y[0], -65.0);
  EXPECT_EQ(y[1], -2.0);
  EXPECT_THROW(apply_event_assignments(m, 1, 3.0, y, p), std::out_of_range);
}

// Two states x, y; an auxiliary s = x + y; events from line 12 on.
const std::string kSwapHead =
    "name = \"swap\"\n"
    "equations = \"\"\"\n"
    "s = x + y\n"
    "dx = -k * x\n"
    "dy = s - y\n"
    "\"\"\"\n"
    "[states]\n"
    "x = 1\n"
    "y = 2\n"
    "[parameters]\n"
    "k = 0.5\n"
    "[events]\n";

TEST(ModelEventAssign, StatementsAreSimultaneous) {
  const Model m = parse(kSwapHead +
                        "plain = \"x - 3\"\n"
                        "swap = { expr = \"x - y\", assign = \"x = y; y = x\" }\n"
                        "sum = { expr = \"y\", action = \"terminal\", assign = \"x = s; y = s * t;\" }\n");
  ASSERT_EQ(m.equations().event_assignments.size(), 3u);
  EXPECT_TRUE(m.equations().event_assignments[0].empty());
  EXPECT_TRUE(m.events()[0].assign.empty());
  double y[] = {1.5, -4.0};
  double p[] = {0.5};
  apply_event_assignments(m, 0, 0.0, y, p);  // no assign: nothing changes
  EXPECT_EQ(y[0], 1.5);
  EXPECT_EQ(y[1], -4.0);
  apply_event_assignments(m, 1, 0.0, y, p);  // sequential statements would give y = x = -4 both
  EXPECT_EQ(y[0], -4.0);
  EXPECT_EQ(y[1], 1.5);
  // The auxiliary is computed from the state before the event: both read s = -2.5.
  apply_event_assignments(m, 2, 2.0, y, p);
  EXPECT_EQ(y[0], -2.5);
  EXPECT_EQ(y[1], -5.0);
}

TEST(ModelEventAssign, MultiLineAssignWithComments) {
  // A sub-table instead of an inline one, so the assign can span lines; a comment may hold ';'.
  const Model m = parse(kSwapHead +
                        "[events.swap]\n"
                        "expr = \"x - y\"\n"
                        "assign = \"\"\"\n"
                        "x = y  # first; not a statement\n"
                        "\n"
                        "y = x; \n"
                        "\"\"\"\n");
  const std::vector<EventAssignment>& swap = m.equations().event_assignments.at(0);
  ASSERT_EQ(swap.size(), 2u);
  EXPECT_EQ(swap[0].where.line, 16u);
  EXPECT_EQ(swap[1].where.line, 18u);
  EXPECT_EQ(swap[1].where.column, 1u);
  double y[] = {1.0, 2.0};
  double p[] = {0.5};
  apply_event_assignments(m, 0, 0.0, y, p);
  EXPECT_EQ(y[0], 2.0);
  EXPECT_EQ(y[1], 1.0);
}

TEST(ModelEventAssign, ReadingAnAuxiliaryNamedLikeADerivativeCountsAsReadingIt) {
  // `dz = ...` with no state z is refused unless something reads it: an assign does.
  const Model m = parse(
      "name = \"m\"\nequations = \"\"\"\ndz = 2 * x\ndx = -x\n\"\"\"\n[states]\nx = 1\n"
      "[events]\ne = { expr = \"x - 0.5\", assign = \"x = dz\" }\n");
  double y[] = {0.25};
  apply_event_assignments(m, 0, 0.0, y, nullptr);
  EXPECT_EQ(y[0], 0.5);
}

// Every name kind: states h, v; auxiliary energy; parameter k; constant g; driver w. The event is on
// line 17, the assign's text starting at column 29 (after `e = { expr = "h", assign = "`).
const std::string kNamesHead =
    "name = \"m\"\n"
    "equations = \"\"\"\n"
    "energy = 0.5 * v^2 + g * h\n"
    "dh = v\n"
    "dv = -g * k + w\n"
    "\"\"\"\n"
    "[states]\n"
    "h = 1\n"
    "v = 0\n"
    "[parameters]\n"
    "k = 1\n"
    "[constants]\n"
    "g = 9.81\n"
    "[drivers]\n"
    "w = {}\n"
    "[events]\n";
constexpr std::size_t kLine = 17;
constexpr std::size_t kText = 29;  // column of the assign's first character

std::string with_assign(const std::string& assign) {
  return kNamesHead + "e = { expr = \"h\", assign = \"" + assign + "\" }\n";
}

TEST(ModelEventAssign, OnlyStatesAndParametersCanBeAssigned) {
  const std::string only = "only a differential state or a parameter can be assigned: ";
  expect_error(with_assign("q = 1"), kLine, kText,
               {"event 'e'", "unknown state or parameter 'q'", "(states: h, v; parameters: k)"});
  expect_error(with_assign("v = 1; t = 2"), kLine, kText + 7, {only + "'t' is the time"});
  expect_error(with_assign("g = 2"), kLine, kText, {only + "'g' is a constant", "make it a parameter"});
  expect_error(with_assign("v = 1; w = 2"), kLine, kText + 7, {only + "'w' is a driver"});
  expect_error(with_assign("energy = 2"), kLine, kText, {only + "'energy' is an auxiliary"});
  expect_error(with_assign("v = 1; h = 2; v = 3"), kLine, kText + 14,
               {"event 'e' assigns state 'v' twice", "first in statement 1, at line 17, column 29",
                "give one value per state"});
  // A parameter twice, at the second; a state and a parameter are told apart.
  expect_error(with_assign("k = 1; v = k; k = 2"), kLine, kText + 14,
               {"event 'e' assigns parameter 'k' twice", "first in statement 1, at line 17, column 29",
                "give one value per parameter"});
  // A model without parameters says so.
  expect_error(
      "name = \"m\"\nequations = \"dx = -x\"\n[states]\nx = 1\n[events]\n"
      "e = { expr = \"x\", assign = \"y = 1\" }\n",
      6, 29, {"unknown state or parameter 'y' (states: x; no parameters)"});
  // An algebraic variable follows from its `0 =` equation.
  expect_error(
      "name = \"m\"\nequations = \"\"\"\ndx = -x + z\n0 = z - 2 * x\n\"\"\"\n[states]\nx = 1\n[algebraic]\n"
      "z = 2\n[events]\ne = { expr = \"x - 0.5\", assign = \"x = 1; z = 3\" }\n",
      11, 42, {only + "'z' is an algebraic variable"});
}

TEST(ModelEventAssign, ParametersCanBeAssigned) {
  // An infusion switched on at t = 10 and a threshold raised after each crossing (issue 49's switch).
  const Model m = parse(
      "name = \"infusion\"\n"
      "equations = \"dA = rate - ke * A\"\n"
      "[states]\nA = 0\n"
      "[parameters]\nrate = 0\nke = 0.1\nlevel = 2\n"
      "[events]\n"
      "on = { at = [10], assign = \"rate = 5\" }\n"
      "high = { expr = \"A - level\", direction = \"rising\", "
      "assign = \"level = level + 1; A = A - ke\" }\n");
  const std::vector<EventAssignment>& on = m.equations().event_assignments.at(0);
  ASSERT_EQ(on.size(), 1u);
  EXPECT_TRUE(on[0].parameter);
  EXPECT_EQ(on[0].index, 0u);  // rate
  EXPECT_EQ(on[0].where.line, 10u);
  EXPECT_EQ(on[0].where.column, 29u);  // after `on = { at = [10], assign = "`
  EXPECT_TRUE(same_tree(*on[0].value, *make_number(5.0)));
  const std::vector<EventAssignment>& high = m.equations().event_assignments.at(1);
  ASSERT_EQ(high.size(), 2u);
  EXPECT_TRUE(high[0].parameter);
  EXPECT_EQ(high[0].index, 2u);  // level
  EXPECT_EQ(high[0].where.line, 11u);
  EXPECT_EQ(high[0].where.column, 62u);  // the assign text's first character
  EXPECT_FALSE(high[1].parameter);
  EXPECT_EQ(high[1].index, 0u);          // A
  EXPECT_EQ(high[1].where.column, 81u);  // the `A` after "level = level + 1; "

  double y[] = {2.5};
  double p[] = {0.0, 0.1, 2.0};
  apply_event_assignments(m, 0, 10.0, y, p);
  EXPECT_EQ(p[0], 5.0);
  EXPECT_EQ(y[0], 2.5);
  apply_event_assignments(m, 1, 12.0, y, p);
  EXPECT_EQ(p[2], 3.0);
  EXPECT_EQ(y[0], 2.5 - 0.1);
  EXPECT_EQ(p[0], 5.0);
  EXPECT_EQ(p[1], 0.1);
}

TEST(ModelEventAssign, StateAndParameterSwapSimultaneously) {
  // x = k; k = x: each right side reads the values before the event, so they swap; the auxiliary s
  // reads x before it too.
  const Model m = parse(kSwapHead + "swap = { expr = \"x - y\", assign = \"x = k; k = x; y = s * k\" }\n");
  double y[] = {3.0, 4.0};
  double p[] = {0.5};
  apply_event_assignments(m, 0, 0.0, y, p);
  EXPECT_EQ(y[0], 0.5);
  EXPECT_EQ(p[0], 3.0);
  EXPECT_EQ(y[1], 7.0 * 0.5);
}

TEST(ModelEventAssign, StatementMistakesAtTheirPlace) {
  expect_error(with_assign("v 1"), kLine, kText + 2, {"expected '=' after 'v'", "found '1'"});
  expect_error(with_assign("v; h = 1"), kLine, kText + 1, {"expected '=' after 'v'", "end of the statement"});
  expect_error(with_assign("v == 1"), kLine, kText + 2, {"expected '=' after 'v'", "found '=='"});
  expect_error(with_assign("= 1"), kLine, kText, {"expected a statement", "found '='", "no state before it"});
  expect_error(with_assign("v = 1; 2 = h"), kLine, kText + 7, {"expected a statement", "found '2'"});
  expect_error(with_assign("v ="), kLine, kText + 3, {"expected an expression after '='"});
  expect_error(with_assign("v = 1; h = 2 +"), kLine, kText + 14, {"expected an expression after '+'"});
  // Right sides are the equations' grammar, each mistake at its own column.
  expect_error(with_assign("v = 1; h = hh"), kLine, kText + 11, {"unknown symbol 'hh'"});
  expect_error(with_assign("v = sin(h, v)"), kLine, kText + 4, {"function 'sin' takes 1 argument"});
  expect_error(with_assign("v = h < 1"), kLine, kText + 6, {"condition"});
  expect_error(with_assign("v = (h"), kLine, kText + 6, {"expected ')'"});
  expect_error(with_assign("v = 2x"), kLine, kText + 4, {"invalid number '2x'"});
  expect_error(with_assign("v = 1 $"), kLine, kText + 6, {"'$'"});
  // Empty: nothing at all, or only separators and blanks.
  expect_error(with_assign(""), kLine, kText, {"event 'e' has an empty assign"});
  expect_error(with_assign(" ; ;"), kLine, kText, {"event 'e' has an empty assign"});
  // Not a string: at the value, as the other keys' types.
  expect_error(kNamesHead + "e = { expr = \"h\", assign = 3 }\n", kLine, 28,
               {"assign must be a string", "not an integer"});
  // A later line of a multi-line assign: its own line, from column 1.
  expect_error(kNamesHead + "[events.e]\nexpr = \"h\"\nassign = \"\"\"\nv = 1\n  g = 2\n\"\"\"\n", kLine + 4,
               3, {"'g' is a constant"});
  expect_error(kNamesHead + "[events.e]\nexpr = \"h\"\nassign = \"\"\"\nv = 1\nh = v +\n\"\"\"\n", kLine + 4,
               8, {"expected an expression after '+'"});
}

TEST(ModelEventAssign, DescriptionsFromCppWithoutPlaces) {
  ModelDescription d = read_model_toml(kNamesHead, "<string>");
  EventDescription e;
  e.name = "bounce";
  e.expression = "h";
  e.assign = "v = -0.5 * v";
  d.events.push_back(e);
  const Model m = parse_model(d);
  ASSERT_EQ(m.equations().event_assignments.at(0).size(), 1u);
  d.events[0].assign = "k = 2 * k";  // a parameter
  ASSERT_TRUE(parse_model(d).equations().event_assignments.at(0).at(0).parameter);
  d.events[0].assign = "g = 1";
  try {
    parse_model(d);
    ADD_FAILURE() << "a constant was assigned";
  } catch (const ModelError& error) {
    EXPECT_EQ(std::string(error.what()),
              "<string>: event 'bounce': only a differential state or a parameter can be assigned: 'g' is a "
              "constant (compiled in: make it a parameter to assign it)");
  }
}

/// The text generate_system writes for `m` between the end of events() and what follows it: the part
/// an assign adds. Fails the test unless `with` is `without` with exactly one block inserted.
std::string inserted_block(const std::string& without, const std::string& with) {
  std::size_t front = 0;
  while (front < without.size() && front < with.size() && without[front] == with[front]) ++front;
  const std::size_t back = without.size() - front;  // the rest of `without` must end `with`
  EXPECT_GT(with.size(), without.size());
  EXPECT_EQ(with.substr(with.size() - back), without.substr(front)) << with;
  return with.substr(front, with.size() - without.size());
}

TEST(ModelEventAssign, GeneratedCodeOnlyAddsTheMaskAndEventAssign) {
  const std::string events =
      "plain = \"x - 3\"\n"
      "swap = { expr = \"x - y\", assign = \"x = y; y = x\" }\n"
      "sum = { expr = \"y\", action = \"terminal\", assign = \"x = s; y = exp(s) * t + k\" }\n";
  const std::string with = generate_system(parse(kSwapHead + events), {"Swap", true});
  // The same events without their assign: the code as it was before events could assign.
  const std::string without = generate_system(
      parse(kSwapHead +
            "plain = \"x - 3\"\nswap = \"x - y\"\nsum = { expr = \"y\", action = \"terminal\" }\n"),
      {"Swap", true});
  EXPECT_EQ(without.find("event_assign"), std::string::npos);
  const std::string block = inserted_block(without, with);
  EXPECT_EQ(block.rfind("\n  // bit e: event e changes the state when it fires (its `assign`)\n", 0), 0u)
      << block;
  EXPECT_NE(block.find("static constexpr batchode::port::uint32_t event_assignments = 6;\n"),
            std::string::npos)
      << block;
  EXPECT_NE(
      block.find("BATCHODE_HOST_DEVICE void event_assign(batchode::port::size_t e, T t, T* y, const T* p) "
                 "const {\n"),
      std::string::npos)
      << block;
  // Right after events(): the text before it ends with events()' closing brace.
  EXPECT_NE(with.find("  }\n" + block), std::string::npos);
  EXPECT_LT(with.find("void events("), with.find(block));

  // The examples without assign generate no mask and no event_assign.
  for (const char* name :
       {"projectile.toml", "lorenz.toml", "forced_oscillator.toml", "robertson_dae.toml"}) {
    const std::string source = generate_system(load_model(example(name)), {"M", true});
    EXPECT_EQ(source.find("event_assign"), std::string::npos) << name;
  }
}

TEST(ModelEventAssign, GeneratedEventAssignSwapsAndMatchesTheInterpreter) {
  const Model m =
      parse(kSwapHead +
            "plain = \"x - 3\"\n"
            "swap = { expr = \"x - y\", assign = \"x = y; y = x\" }\n"
            "sum = { expr = \"y\", action = \"terminal\", assign = \"x = s; y = exp(s) * t + k\" }\n");
  const std::string source = generate_system(m, {"Swap", false});
  support::TempDir dir;
  support::write_file(dir.file("swap.hpp"), source);
  double y[] = {0.3, -1.7};
  double p[] = {0.5};
  apply_event_assignments(m, 2, 1.25, y, p);
  char expected[256];
  std::snprintf(expected, sizeof expected, "2 1\n1 2\n%a %a\n", y[0], y[1]);
  support::write_file(dir.file("main.cpp"),
                      "#include <cstdio>\n#include \"" + dir.file("swap.hpp") +
                          "\"\n"
                          "static_assert(Swap::event_assignments == 6u, \"events 1 and 2 assign\");\n"
                          "int main() {\n"
                          "  const double p[] = {0.5};\n"
                          "  double y[] = {1.0, 2.0};\n"
                          "  Swap{}.event_assign(1, 0.0, y, p);\n"
                          "  std::printf(\"%g %g\\n\", y[0], y[1]);\n"
                          "  Swap{}.event_assign(0, 0.0, y, p);  // no assign: unchanged\n"
                          "  Swap{}.event_assign(1, 0.0, y, p);\n"
                          "  std::printf(\"%g %g\\n\", y[0], y[1]);\n"
                          "  double z[] = {0.3, -1.7};\n"
                          "  Swap{}.event_assign(2, 1.25, z, p);\n"
                          "  std::printf(\"%a %a\\n\", z[0], z[1]);\n"
                          "  float f[] = {1.0f, 2.0f};\n"
                          "  const float pf[] = {0.5f};\n"
                          "  Swap{}.event_assign(1, 0.0f, f, pf);  // templated on T\n"
                          "  return f[0] == 2.0f && f[1] == 1.0f ? 0 : 1;\n"
                          "}\n");
  const support::RunResult ran = support::build_and_run(dir, "main.cpp");
  ASSERT_EQ(ran.exit_code, 0) << ran.output << "\nsource:\n" << source;
  EXPECT_EQ(ran.output, expected);  // bit for bit (hex floats)
}

/// The block event_assign() adds to `source`: from its mask's comment to event_assign's closing brace.
std::string event_assign_block(const std::string& source) {
  const std::size_t begin = source.find("\n  // bit e: event e changes the state");
  const std::size_t body = source.find("void event_assign(");
  const std::string end = "\n    }\n  }\n";  // the switch's and the function's closing braces
  if (begin == std::string::npos || body == std::string::npos ||
      source.find(end, body) == std::string::npos) {
    ADD_FAILURE() << "no event_assign in:\n" << source;
    return "";
  }
  return source.substr(begin, source.find(end, body) + end.size() - begin);
}

TEST(ModelEventAssign, GeneratedEventAssignWithoutParametersIsAsBefore) {
  // Exactly the code of before parameters could be assigned: no parameter_assignments, p const.
  const std::string source = generate_system(parse(kIzhikevich), {"Izhikevich", true});
  EXPECT_EQ(source.find("parameter_assignments"), std::string::npos) << source;
  EXPECT_EQ(
      event_assign_block(source),
      "\n"
      "  // bit e: event e changes the state when it fires (its `assign`)\n"
      "  static constexpr batchode::port::uint32_t event_assignments = 1;\n"
      "  // Event e's assign, at its crossing: every right side is computed from y as it is (and the\n"
      "  // auxiliaries computed from it), then all are stored (simultaneous, as SBML's event "
      "assignments).\n"
      "  template <class T>\n"
      "  BATCHODE_HOST_DEVICE void event_assign(batchode::port::size_t e, T t, T* y, const T* p) const {\n"
      "    (void)t;\n"
      "    switch (e) {\n"
      "      case 0: {  // spike\n"
      "        const T s_u = y[1];\n"
      "        const T p_c = p[2];\n"
      "        const T p_d = p[3];\n"
      "        const T next_v = p_c;\n"
      "        const T next_u = s_u + p_d;\n"
      "        y[0] = next_v;\n"
      "        y[1] = next_u;\n"
      "        break;\n"
      "      }\n"
      "      default:  // an event without assign leaves the state alone\n"
      "        break;\n"
      "    }\n"
      "  }\n");
  for (const char* name : {"bouncing_ball.toml", "dosing.toml"}) {
    const std::string example_source = generate_system(load_model(example(name)), {"M", true});
    EXPECT_NE(example_source.find("event_assign("), std::string::npos) << name;
    EXPECT_EQ(example_source.find("parameter_assignments"), std::string::npos) << name;
    EXPECT_EQ(example_source.find("T* y, T* p"), std::string::npos) << name;
  }
}

// An infusion switched on at t = 10 (issue 49's switch): an assign that sets a parameter only.
const std::string kInfusion =
    "name = \"infusion\"\n"
    "equations = \"dA = rate - ke * A\"\n"
    "[states]\nA = 0\n"
    "[parameters]\nrate = 0\nke = 0.1\n"
    "[events]\n"
    "on = { at = [10], assign = \"rate = 5\" }\n";

TEST(ModelEventAssign, GeneratedParameterAssignmentsStoreIntoP) {
  const Model m = parse(kInfusion);
  const std::string source = generate_system(m, {"Infusion", false});
  EXPECT_EQ(event_assign_block(source),
            "\n"
            "  // bit e: event e changes the state or the parameters when it fires (its `assign`)\n"
            "  static constexpr batchode::port::uint32_t event_assignments = 1;\n"
            "  // bit e: event e's assign sets parameters: the run's own copy p, which its later steps,\n"
            "  // events and times read\n"
            "  static constexpr batchode::port::uint32_t parameter_assignments = 1;\n"
            "  // Event e's assign, when it fires: every right side is computed from y and p as they are\n"
            "  // (and the auxiliaries computed from them), then all are stored into y and p\n"
            "  // (simultaneous, as SBML's event assignments).\n"
            "  template <class T>\n"
            "  BATCHODE_HOST_DEVICE void event_assign(batchode::port::size_t e, T t, T* y, T* p) const {\n"
            "    (void)t;\n"
            "    (void)y;\n"
            "    switch (e) {\n"
            "      case 0: {  // on\n"
            "        const T next_rate = T(5);\n"
            "        p[0] = next_rate;\n"
            "        break;\n"
            "      }\n"
            "      default:  // an event without assign leaves the state alone\n"
            "        break;\n"
            "    }\n"
            "  }\n");
  // Nothing else changes: the same model with the assign on a state instead differs in that block only.
  std::string as_before = generate_system(
      parse(kInfusion.substr(0, kInfusion.find("rate = 5")) + "A = 5\" }\n"), {"Infusion", false});
  const std::string before_block = event_assign_block(as_before);
  ASSERT_FALSE(before_block.empty());
  as_before.replace(as_before.find(before_block), before_block.size(), event_assign_block(source));
  EXPECT_EQ(as_before, source);

  // Compiled with warnings as errors (y unused, p written), and run: only rate changes.
  support::TempDir dir;
  support::write_file(dir.file("infusion.hpp"), source);
  support::write_file(dir.file("main.cpp"),
                      "#include \"infusion.hpp\"\n"
                      "static_assert(Infusion::parameter_assignments == 1u, \"event 0 sets a parameter\");\n"
                      "int main() {\n"
                      "  double y[] = {2.5}, p[] = {0.0, 0.1};\n"
                      "  Infusion{}.event_assign(0, 10.0, y, p);\n"
                      "  float yf[] = {2.5f}, pf[] = {0.0f, 0.1f};\n"
                      "  Infusion{}.event_assign(0, 10.0f, yf, pf);  // templated on T\n"
                      "  return y[0] == 2.5 && p[0] == 5.0 && p[1] == 0.1 && pf[0] == 5.0f ? 0 : 1;\n"
                      "}\n");
  const support::RunResult ran = support::build_and_run(dir, "main.cpp");
  EXPECT_EQ(ran.exit_code, 0) << ran.output << "\nsource:\n" << source;
}

TEST(ModelEventAssign, GeneratedStateAndParameterSwapMatchesTheInterpreter) {
  // x = k; k = x swaps a state and a parameter (simultaneous); a state-only event of the same model
  // gets p mutable too (one signature for all cases); an event at given times may set a parameter.
  const Model m =
      parse(kSwapHead +
            "plain = \"x - 3\"\n"
            "swap = { expr = \"x - y\", assign = \"x = k; k = x\" }\n"
            "sum = { expr = \"y\", action = \"terminal\", assign = \"x = s; y = exp(s) * t + k\" }\n"
            "raise = { at = [1, \"2 * k\"], assign = \"k = k + s * t; y = k\" }\n");
  const std::string source = generate_system(m, {"Swap", true});
  EXPECT_NE(source.find("  static constexpr batchode::port::uint32_t event_assignments = 14;\n"
                        "  // bit e: event e's assign sets parameters"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("static constexpr batchode::port::uint32_t parameter_assignments = 10;\n"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("void event_assign(batchode::port::size_t e, T t, T* y, T* p) const {\n"),
            std::string::npos)
      << source;
  // Every right side first, from the locals loaded before; then the stores, in written order.
  EXPECT_NE(source.find("      case 1: {  // swap\n"
                        "        const T s_x = y[0];\n"
                        "        const T p_k = p[0];\n"
                        "        const T next_x = p_k;\n"
                        "        const T next_k = s_x;\n"
                        "        y[0] = next_x;\n"
                        "        p[0] = next_k;\n"
                        "        break;\n"),
            std::string::npos)
      << source;

  // The interpreter on the same values, printed bit for bit.
  std::string expected;
  auto print = [&](const double* y, const double* p) {
    char line[128];
    std::snprintf(line, sizeof line, "%a %a %a\n", y[0], y[1], p[0]);
    expected += line;
  };
  double y[] = {0.3, -1.7}, p[] = {0.5};
  apply_event_assignments(m, 1, 0.0, y, p);  // swap
  EXPECT_EQ(y[0], 0.5);
  EXPECT_EQ(p[0], 0.3);
  print(y, p);
  apply_event_assignments(m, 0, 0.5, y, p);  // plain: no assign
  print(y, p);
  apply_event_assignments(m, 2, 1.25, y, p);  // sum
  print(y, p);
  const double s_before = y[0] + y[1];
  apply_event_assignments(m, 3, 2.0, y, p);  // raise: y reads k before the event
  EXPECT_EQ(y[1], 0.3);
  EXPECT_EQ(p[0], 0.3 + s_before * 2.0);
  print(y, p);
  apply_event_assignments(m, 1, 2.5, y, p);  // swap again
  print(y, p);
  support::TempDir dir;
  support::write_file(dir.file("swap.hpp"), source);
  support::write_file(dir.file("main.cpp"),
                      "#include <cstdio>\n#include \"" + dir.file("swap.hpp") +
                          "\"\n"
                          "static_assert(Swap::event_assignments == 14u, \"events 1 to 3 assign\");\n"
                          "static_assert(Swap::parameter_assignments == 10u, \"events 1 and 3 set k\");\n"
                          "int main() {\n"
                          "  double y[] = {0.3, -1.7}, p[] = {0.5};\n"
                          "  const int events[] = {1, 0, 2, 3, 1};\n"
                          "  const double times[] = {0.0, 0.5, 1.25, 2.0, 2.5};\n"
                          "  for (int k = 0; k < 5; ++k) {\n"
                          "    Swap{}.event_assign(events[k], times[k], y, p);\n"
                          "    std::printf(\"%a %a %a\\n\", y[0], y[1], p[0]);\n"
                          "  }\n"
                          "  float f[] = {1.0f, 2.0f}, pf[] = {0.5f};\n"
                          "  Swap{}.event_assign(1, 0.0f, f, pf);  // templated on T\n"
                          "  return f[0] == 0.5f && pf[0] == 1.0f && f[1] == 2.0f ? 0 : 1;\n"
                          "}\n");
  const support::RunResult ran = support::build_and_run(dir, "main.cpp");
  ASSERT_EQ(ran.exit_code, 0) << ran.output << "\nsource:\n" << source;
  EXPECT_EQ(ran.output, expected);  // bit for bit (hex floats)
}

TEST(ModelEventAssign, DrivenModelsPassTheDriversLast) {
  const Model m = parse(
      "name = \"driven\"\nequations = \"\"\"\ndx = -x + w\n\"\"\"\n[states]\nx = 1\n[drivers]\nw = {}\n"
      "[events]\nkick = { expr = \"x - 2\", direction = \"rising\", assign = \"x = x - w\" }\n");
  const std::string source = generate_system(m, {"Driven", false});
  EXPECT_NE(source.find("event_assignments = 1;\n"), std::string::npos) << source;
  EXPECT_NE(
      source.find("void event_assign(batchode::port::size_t e, T t, T* y, const T* p, const T* u) const"),
      std::string::npos)
      << source;
  double y[] = {2.5};
  const double u[] = {0.75};
  apply_event_assignments(m, 0, 0.0, y, nullptr, u);
  EXPECT_EQ(y[0], 1.75);

  support::TempDir dir;
  support::write_file(dir.file("driven.hpp"), source);
  support::write_file(dir.file("main.cpp"), "#include \"" + dir.file("driven.hpp") +
                                                "\"\n"
                                                "int main() {\n"
                                                "  double y[] = {2.5};\n"
                                                "  const double* p = nullptr;  // no parameters\n"
                                                "  const double u[] = {0.75};\n"
                                                "  Driven{}.event_assign(0, 0.0, y, p, u);\n"
                                                "  return y[0] == 1.75 ? 0 : 1;\n"
                                                "}\n");
  const support::RunResult ran = support::build_and_run(dir, "main.cpp");
  EXPECT_EQ(ran.exit_code, 0) << ran.output << "\nsource:\n" << source;

  // One that sets a parameter: p mutable, u still last.
  const Model set = parse(
      "name = \"driven\"\nequations = \"dx = -g * x + w\"\n[states]\nx = 1\n[parameters]\ng = 1\n"
      "[drivers]\nw = {}\n[events]\nkick = { expr = \"x - 2\", assign = \"g = g + w\" }\n");
  const std::string set_source = generate_system(set, {"Driven", false});
  EXPECT_NE(set_source.find("void event_assign(batchode::port::size_t e, T t, T* y, T* p, const T* u) const"),
            std::string::npos)
      << set_source;
  double p[] = {1.0};
  apply_event_assignments(set, 0, 0.0, y, p, u);
  EXPECT_EQ(p[0], 1.75);
  EXPECT_EQ(y[0], 1.75);
}

}  // namespace
