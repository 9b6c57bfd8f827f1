// tests/models: one test per class of mistake in a model, each pinning the exact file, line and
// column and the words of the message, through a TOML file (where the equations start on line 3) and,
// for the declarations, through a ModelDescription filled in by C++ code.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "batchode/models/evaluate.hpp"
#include "batchode/models/model.hpp"
#include "expect_model_error.hpp"

namespace {

using batchode::models::testing::expect_error;

using namespace batchode::models;

// The equations start on line 3, column 1 of this file.
std::string model_with(const std::string& equations, const std::string& tables = "") {
  return "name = \"m\"\nequations = \"\"\"\n" + equations + "\n\"\"\"\n" +
         "[states]\nx = 1\ny = 2\n[parameters]\nk = 3\n[constants]\nc = 4\n" + tables;
}
constexpr std::size_t kFirstLine = 3;


/// An error in the equations at (equation line, column).
void expect_equation_error(const std::string& equations, std::size_t line, std::size_t column,
                           const std::vector<std::string>& words) {
  expect_error(model_with(equations), kFirstLine + line - 1, column, words);
}

TEST(ModelErrors, ValidTemplateParses) {
  // The template itself is fine: every failure below comes from its one change.
  const Model m = parse_model(read_model_toml(model_with("dx = k * y\ndy = -c * x"), "m.toml"));
  EXPECT_EQ(m.n_states(), 2u);
}

TEST(ModelErrors, UnknownSymbol) {
  expect_equation_error("dx = k * w\ndy = x", 1, 10,
                        {"unknown symbol 'w'", "states x, y", "parameters k", "constants c", "time t"});
  expect_equation_error("a = 2\ndx = a + bb\ndy = x", 2, 10, {"unknown symbol 'bb'", "auxiliaries a"});
  expect_equation_error("speed = 2\ndx = sped\ndy = x", 2, 6,
                        {"unknown symbol 'sped'", "did you mean 'speed'?"});
  // The name of an equation is not a value.
  expect_equation_error("dx = dy\ndy = x", 1, 6, {"unknown symbol 'dy'", "equation of state 'y'"});
}

TEST(ModelErrors, StateWithoutEquation) {
  // Reported where the state is declared (line 7: after one line of equations and [states], x).
  expect_error(model_with("dx = -x"), 7, 1, {"state 'y' has no equation", "dy = ..."});
}

TEST(ModelErrors, StateWithTwoEquations) {
  expect_equation_error("dx = 1\ndy = 2\n  dx = 3", 3, 3,
                        {"state 'x' has two equations", "first is on line 3"});
}

TEST(ModelErrors, EquationOfAnUndeclaredState) {
  // Issue 44: `dz = 1` without a state z parsed as an auxiliary nothing reads, and vanished.
  expect_equation_error("dx = -x\ndy = x\ndz = 1", 3, 1,
                        {"'dz' reads as the derivative of state 'z', but the model has no state 'z' "
                         "(states: x, y); declare z under [states], or rename the auxiliary"});
  // A misspelt state: named at its line, before the state it left without an equation.
  expect_equation_error("dx = y\n  dyy = -x", 2, 3, {"'dyy' reads as the derivative of state 'yy'"});
  expect_equation_error("dx = y\ndy = x\ndk = 1", 3, 1,
                        {"'dk' reads as the derivative of state 'k', but 'k' is a parameter, not a state",
                         "; rename the auxiliary"});
  // An auxiliary named d<name> that a line, an event or observables reads is an auxiliary as before.
  const std::vector<std::string> valid = {
      model_with("drag = k * y\ndx = -drag\ndy = x"),
      model_with("dx = y\ndy = x\ndz = x + y", "[events]\nz0 = \"dz\"\n"),
      "name = \"m\"\nobservables = [\"dz\"]\nequations = \"dx = -x\\ndz = 2 * x\"\n[states]\nx = 1\n",
      model_with("dx = y\ndy = x\nd2 = 1\nd = 2")};  // d2 and d can name no state's equation
  for (const std::string& text : valid) EXPECT_NO_THROW(parse_model(read_model_toml(text, "m.toml"))) << text;
}

TEST(ModelErrors, NameDeclaredTwice) {
  expect_equation_error("k = 2 * x\ndx = k\ndy = x", 1, 1, {"'k' is already declared as a parameter"});
  expect_equation_error("x = 2\ndx = 1\ndy = x", 1, 1, {"'x' is already declared as a state", "dx = ..."});
  expect_equation_error("a = 1\ndx = a\na = 2\ndy = x", 3, 1, {"auxiliary 'a' is defined twice", "line 3"});
  // Across the tables: reported at the second declaration.
  expect_error("name = \"m\"\nequations = \"dx = 1\"\n[states]\nx = 1\n[parameters]\nx = 2\n", 6, 1,
               {"'x' is declared twice: as a state and as a parameter"});
}

TEST(ModelErrors, ReservedWordAsName) {
  expect_equation_error("t = 1\ndx = 1\ndy = 1", 1, 1, {"'t' is a reserved word"});
  expect_equation_error("dx = 1\nifelse = 2\ndy = 1", 2, 1, {"'ifelse' is a reserved word"});
  expect_error("name = \"m\"\nequations = \"dsin = 1\"\n[states]\nsin = 1\n", 4, 1,
               {"'sin' is a reserved word", "cannot name a state"});
  expect_error("name = \"m\"\nequations = \"dx = 1\"\n[states]\nx = 1\n[constants]\n  and = 1\n", 6, 3,
               {"'and' is a reserved word", "cannot name a constant"});
}

TEST(ModelErrors, EmptyExpression) {
  expect_equation_error("dx =\ndy = 1", 1, 5, {"expected an expression after '='"});
  expect_equation_error("dx = 1\ndy =    # nothing yet", 2, 5, {"expected an expression after '='"});
}

TEST(ModelErrors, UnexpectedToken) {
  expect_equation_error("dx = x + * y\ndy = 1", 1, 10, {"expected an expression", "found '*'"});
  expect_equation_error("dx = x +\ndy = 1", 1, 9, {"expected an expression after '+'", "end of the line"});
  expect_equation_error("dx x\ndy = 1", 1, 4, {"expected '=' after 'dx'", "found 'x'"});
  expect_equation_error("dx = 1\n3 = y", 2, 1, {"expected a statement", "found '3'"});
  expect_equation_error("dx = x $ 2\ndy = 1", 1, 8, {"unexpected character '$'"});
  expect_equation_error("dx = ifelse(x < 1 && y > 2, 1, 2)\ndy = 1", 1, 19,
                        {"unexpected character '&'", "and"});
  expect_equation_error("dx = 1\ndy = x ° 2", 2, 8, {"unexpected character '°'"});
}

TEST(ModelErrors, UnbalancedParenthesis) {
  expect_equation_error("dx = (x + 1\ndy = 1", 1, 12, {"expected ')' to close the '(' at column 6"});
  expect_equation_error("dx = x + 1)\ndy = 1", 1, 11, {"unbalanced ')'"});
  expect_equation_error("dx = sin(x\ndy = 1", 1, 11, {"expected ',' or ')' in the arguments of 'sin'"});
}

TEST(ModelErrors, TrailingGarbage) {
  expect_equation_error("dx = x y\ndy = 1", 1, 8, {"unexpected 'y' after the end of the expression"});
  expect_equation_error("dx = 1\ndy = (x) (y)", 2, 10, {"unexpected '('"});
}

TEST(ModelErrors, WrongArgumentCount) {
  expect_equation_error("dx = atan2(x)\ndy = 1", 1, 6, {"function 'atan2' takes 2 arguments, got 1"});
  expect_equation_error("dx = 1\ndy = 2 * sin(x, y)", 2, 10, {"function 'sin' takes 1 argument, got 2"});
  expect_equation_error("dx = ifelse(x < 1, 2)\ndy = 1", 1, 6,
                        {"function 'ifelse' takes 3 arguments, got 2"});
  expect_equation_error("dx = pow()\ndy = 1", 1, 6, {"function 'pow' takes 2 arguments, got 0"});
}

TEST(ModelErrors, UnknownOrMisusedFunction) {
  expect_equation_error("dx = foo(x)\ndy = 1", 1, 6, {"unknown function 'foo'", "exp", "atan2", "ifelse"});
  expect_equation_error("dx = sine(x)\ndy = 1", 1, 6, {"unknown function 'sine' (did you mean 'sin'?)"});
  expect_equation_error("dx = x(2)\ndy = 1", 1, 6, {"'x' is a state, not a function"});
  expect_equation_error("dx = sin\ndy = 1", 1, 6, {"function 'sin' needs its arguments"});
}

TEST(ModelErrors, AuxiliaryUsedBeforeItsDefinition) {
  expect_equation_error("dx = a\na = 2\ndy = a", 1, 6,
                        {"auxiliary 'a' is used before its definition on line 4"});
  expect_equation_error("a = 1 + a\ndx = a\ndy = 1", 1, 9, {"auxiliary 'a' is used in its own definition"});
}

TEST(ModelErrors, InvalidNumber) {
  expect_equation_error("dx = 1.2.3\ndy = 1", 1, 6, {"invalid number '1.2.3'"});
  expect_equation_error("dx = 1e\ndy = 1", 1, 6, {"invalid number '1e'"});
  expect_equation_error("dx = 1\ndy = 2x", 2, 6, {"invalid number '2x'", "2*x"});
  expect_equation_error("dx = 1e999\ndy = 1", 1, 6, {"invalid number '1e999'", "out of the range"});
  // Every form the language accepts.
  const Model m = parse_model(read_model_toml(model_with("dx = 1 + 1.5 + .5 + 1e-3 + 2.5E+3 + 5.\ndy = 1")));
  const double y[2] = {0, 0}, p[1] = {0};
  double f[2];
  evaluate_rhs(m, 0, y, p, f);
  EXPECT_EQ(f[0], 1 + 1.5 + .5 + 1e-3 + 2.5E+3 + 5.);
}

TEST(ModelErrors, ConditionsOnlyInIfelse) {
  expect_equation_error("dx = x < 1\ndy = 1", 1, 8,
                        {"a condition", "only allowed as the first argument of ifelse"});
  expect_equation_error("dx = 1 + (x < 1 or y > 2)\ndy = 1", 1, 17, {"only allowed as the first argument"});
  expect_equation_error("dx = ifelse(x, 1, 2)\ndy = 1", 1, 13,
                        {"expected a condition", "first argument of ifelse"});
  expect_equation_error("dx = ifelse(x < 1 and y, 1, 2)\ndy = 1", 1, 23,
                        {"expected a condition after 'and'"});
  expect_equation_error("dx = ifelse(0 < x < 1, 1, 2)\ndy = 1", 1, 19, {"comparisons cannot be chained"});
  expect_equation_error("dx = ifelse(x < 1, y > 1, 2)\ndy = 1", 1, 22,
                        {"only allowed as the first argument"});
}

TEST(ModelErrors, NestingIsBounded) {
  // A hostile file cannot exhaust the stack: deep parentheses and very long chains are refused.
  expect_equation_error("dx = " + std::string(300, '(') + "x" + std::string(300, ')') + "\ndy = 1", 1, 206,
                        {"nested too deeply"});
  std::string chain = "dx = x";
  for (int i = 0; i < 1200; ++i) chain += " + x";
  expect_equation_error(chain + "\ndy = 1", 1, 4004, {"expression too deep", "auxiliaries"});
  // 150 levels are fine.
  const Model m = parse_model(read_model_toml(
      model_with("dx = " + std::string(150, '(') + "x" + std::string(150, ')') + "\ndy = 1")));
  EXPECT_EQ(m.n_states(), 2u);
}

TEST(ModelErrors, DivisionByALiteralZeroIsTheUsersMath) {
  const Model m = parse_model(read_model_toml(model_with("dx = x / 0\ndy = 0 / 0")));
  const double y[2] = {1, 2}, p[1] = {3};
  double f[2];
  evaluate_rhs(m, 0, y, p, f);
  EXPECT_EQ(f[0], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(f[1]));
}

TEST(ModelErrors, ValuesMustBeFinite) {
  expect_error("name = \"m\"\nequations = \"dx = 1\"\n[states]\nx = nan\n", 4, 1,
               {"state 'x'", "not finite"});
  expect_error("name = \"m\"\nequations = \"dx = 1\"\n[states]\nx = 1\n[constants]\nc = -inf\n", 6, 1,
               {"constant 'c'", "not finite"});
}

TEST(ModelErrors, ModelName) {
  expect_error("name = \"\"\nequations = \"dx = 1\"\n[states]\nx = 1\n", 1, 8, {"name is empty"});
  expect_error("name = \"a\\nb\"\nequations = \"dx = 1\"\n[states]\nx = 1\n", 1, 8, {"control character"});
}

TEST(ModelErrors, DescriptionFromCpp) {
  // No locations: messages name the source, and the equations' lines count from equations_line.
  ModelDescription d;
  d.name = "cpp";
  d.source = "built-in";
  d.equations = "dx = v\ndv = -x + q\n";
  d.states = {{"x", 1.0}, {"v", 0.0}};
  try {
    parse_model(d);
    ADD_FAILURE() << "parsed";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("built-in:2:11: unknown symbol 'q'", 0), 0u) << e.what();
  }
  d.equations_line = 10;
  d.equations_column = 5;
  d.equations = "dx = q\ndv = -x\n";
  try {
    parse_model(d);
    ADD_FAILURE() << "parsed";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("built-in:10:10: unknown symbol 'q'", 0), 0u) << e.what();
  }
  d.equations = "dx = v\ndv = -x\n";
  d.states.push_back({"2x", 0.0});
  try {
    parse_model(d);
    ADD_FAILURE() << "parsed";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "built-in: state name '2x' is not a valid name (a letter or '_', then "
              "letters, digits or '_')");
    EXPECT_EQ(e.where().line, 0u);
  }
  d.states.pop_back();
  d.parameters = {{"v", 1.0}};
  EXPECT_THROW(parse_model(d), ModelError);
  d.parameters.clear();
  d.states.clear();
  try {
    parse_model(d);
    ADD_FAILURE() << "parsed";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("no states"), std::string::npos) << e.what();
  }
}

TEST(ModelErrors, IsAnInvalidInput) {
  // Callers that catch batchode::InvalidInput see model errors too.
  EXPECT_THROW(parse_model(read_model_toml(model_with("dx = w\ndy = 1"))), batchode::InvalidInput);
}

}  // namespace
