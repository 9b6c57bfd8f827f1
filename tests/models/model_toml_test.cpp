// tests/models: reading TOML model files: the Lorenz file round trip (names, defaults, order, the
// equations' place in the file, sparsity), the file's own mistakes (TOML syntax, unknown keys, wrong
// types, missing entries) each at its line and column, and files that cannot be read.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "batchode/models/model.hpp"
#include "compile_support.hpp"

namespace {

using namespace batchode::models;

ModelError toml_error(const std::string& text) {
  try {
    parse_model(read_model_toml(text, "m.toml"));
  } catch (const ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "no ModelError for:\n" << text;
  return ModelError({}, "");
}

void expect_error_at(const std::string& text, std::size_t line, std::size_t column,
                     const std::vector<std::string>& words) {
  const ModelError e = toml_error(text);
  EXPECT_EQ(e.where().source, "m.toml");
  EXPECT_EQ(e.where().line, line) << e.what();
  EXPECT_EQ(e.where().column, column) << e.what();
  const std::string prefix = "m.toml:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
  for (const std::string& w : words)
    EXPECT_NE(e.message().find(w), std::string::npos) << w << " in: " << e.what();
}

TEST(ModelToml, LorenzFileRoundTrip) {
  const Model m = load_model(batchode::models::testing::data_dir() + "/lorenz.toml");
  EXPECT_EQ(m.name(), "lorenz");
  ASSERT_EQ(m.n_states(), 3u);
  ASSERT_EQ(m.n_params(), 1u);
  const std::vector<std::pair<std::string, double>> states = {{"x", 1.0}, {"y", 0.0}, {"z", 0.0}};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(m.states()[i].name, states[i].first);
    EXPECT_EQ(m.states()[i].value, states[i].second);
  }
  EXPECT_EQ(m.parameters()[0].name, "rho");
  EXPECT_EQ(m.parameters()[0].value, 28.0);
  ASSERT_EQ(m.constants().size(), 2u);
  EXPECT_EQ(m.constants()[0].name, "sigma");
  EXPECT_EQ(m.constants()[0].value, 10.0);
  EXPECT_EQ(m.constants()[1].name, "beta");
  EXPECT_EQ(m.constants()[1].value, 2.6666666666666665);
  EXPECT_TRUE(m.observables().empty());
  EXPECT_TRUE(m.auxiliary_names().empty());
  const ModelDescription& d = m.description();
  EXPECT_EQ(d.source, batchode::models::testing::data_dir() + "/lorenz.toml");
  EXPECT_EQ(d.equations_line, 4u);  // the line after `equations = """` (line 3)
  EXPECT_EQ(d.equations_column, 1u);
  EXPECT_EQ(d.equations, "dx = sigma * (y - x)\ndy = x * (rho - z) - y\ndz = x * y - beta * z\n");
  // dx does not depend on z; everything else is structurally nonzero.
  const std::vector<std::pair<std::size_t, std::size_t>> expected = {{0, 0}, {0, 1}, {1, 0}, {1, 1},
                                                                     {1, 2}, {2, 0}, {2, 1}, {2, 2}};
  EXPECT_EQ(m.jacobian_nonzeros(), expected);
  const std::string sparsity = describe_sparsity(m);
  EXPECT_NE(sparsity.find("3 x 3, 8 of 9 entries structurally nonzero"), std::string::npos) << sparsity;
  EXPECT_NE(sparsity.find("dx **.  depends on x, y\n"), std::string::npos) << sparsity;
  EXPECT_NE(sparsity.find("dz ***  depends on x, y, z\n"), std::string::npos) << sparsity;
}

TEST(ModelToml, CopiesShareTheTrees) {
  const Model m = load_model(batchode::models::testing::data_dir() + "/lorenz.toml");
  const Model copy = m;
  EXPECT_EQ(&copy.equations(), &m.equations());
  EXPECT_EQ(&copy.derivatives(), &m.derivatives());
  const Model empty;
  EXPECT_EQ(empty.n_states(), 0u);
  EXPECT_TRUE(empty.name().empty());
}

TEST(ModelToml, StatesKeepTheFilesOrder) {
  // toml++ keeps a table sorted by key; the state vector follows the file.
  const Model m = parse_model(read_model_toml(R"(name = "order"
equations = """
dz = -z
da = z
dm = a - m
"""
[states]
z = 3
a = 1
m = 2
[parameters]
zeta = 1
alpha = 2
)"));
  ASSERT_EQ(m.n_states(), 3u);
  EXPECT_EQ(m.states()[0].name, "z");
  EXPECT_EQ(m.states()[1].name, "a");
  EXPECT_EQ(m.states()[2].name, "m");
  EXPECT_EQ(m.states()[0].value, 3.0);
  EXPECT_EQ(m.parameters()[0].name, "zeta");
  EXPECT_EQ(m.parameters()[1].name, "alpha");
}

TEST(ModelToml, EquationsPlaceInTheFile) {
  // """ on the same line: the equations start right after the delimiter (column 16 here; q is at 22).
  const std::string same_line = "name = \"m\"\nequations = \"\"\"dx = -q\"\"\"\n[states]\nx = 1\n";
  const ModelDescription d = read_model_toml(same_line, "m.toml");
  EXPECT_EQ(d.equations_line, 2u);
  EXPECT_EQ(d.equations_column, 16u);
  expect_error_at(same_line, 2, 22, {"unknown symbol 'q'"});
  // A one-line basic string: after its quote.
  expect_error_at("name = \"m\"\nequations = \"dx = -q\"\n[states]\nx = 1\n", 2, 20, {"unknown symbol 'q'"});
  // A literal multi-line string whose delimiter ends its line: the next line, column 1.
  expect_error_at("name = \"m\"\nequations = '''\n\ndx = -q\n'''\n[states]\nx = 1\n", 4, 7,
                  {"unknown symbol 'q'"});
  // Windows line endings.
  expect_error_at("name = \"m\"\r\nequations = \"\"\"\r\ndx = -q\r\n\"\"\"\r\n[states]\r\nx = 1\r\n", 3, 7,
                  {"unknown symbol 'q'"});
  // Characters before the error count as characters, not bytes (toml++ counts the same way).
  expect_error_at("name = \"é\"\nequations = \"\"\"\n# é è\ndx = -q # ü\n\"\"\"\n[states]\nx = 1\n", 4, 7,
                  {"unknown symbol 'q'"});
}

TEST(ModelToml, SyntaxErrorAtTomlsPlace) {
  expect_error_at("name = \"m\"\nequations = \"\"\"\ndx = -x\n\"\"\"\n[states]\nx = = 1\n", 6, 5,
                  {"TOML syntax error"});
  const ModelError e = toml_error("name = \"unterminated\nequations = \"dx = -x\"\n[states]\nx = 1\n");
  EXPECT_EQ(e.where().line, 1u) << e.what();
  EXPECT_NE(e.message().find("TOML syntax error"), std::string::npos) << e.what();
}

TEST(ModelToml, UnknownTopLevelKey) {
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\nmethod = \"rk4\"\n[states]\nx = 1\n", 3, 1,
                  {"unknown key 'method'", "[states]"});
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\n[states]\nx = 1\n[params]\nk = 1\n", 5, 2,
                  {"unknown key 'params'"});
}

TEST(ModelToml, WrongValueTypes) {
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\n[states]\nx = \"one\"\n", 4, 5,
                  {"state 'x' must be a number", "a string"});
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\n[states]\nx = 1\n[parameters]\nk = true\n", 6, 5,
                  {"parameter 'k' must be a number", "a boolean"});
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\n[states]\nx = 1\n[constants]\nc = [1, 2]\n", 6, 5,
                  {"constant 'c' must be a number", "an array"});
  expect_error_at("name = 3\nequations = \"dx = -x\"\n[states]\nx = 1\n", 1, 8, {"'name' must be a string"});
  expect_error_at("name = \"m\"\nequations = [\"dx = -x\"]\n[states]\nx = 1\n", 2, 13,
                  {"'equations' must be a string", "an array"});
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\nstates = 1\n", 3, 10, {"'states' must be a table"});
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\nobservables = \"x\"\n[states]\nx = 1\n", 3, 15,
                  {"'observables' must be an array"});
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\nobservables = [\"a\", 2]\n[states]\nx = 1\n", 3, 21,
                  {"observable must be a name in quotes"});
  // A dotted key under [states] makes a table, not a number.
  expect_error_at("name = \"m\"\nequations = \"dx = -x\"\n[states]\nx = 1\n[states.y]\nz = 1\n", 5, 1,
                  {"state 'y' must be a number", "a table"});
  // Integers are numbers too.
  EXPECT_EQ(read_model_toml("name = \"m\"\nequations = \"dx = -x\"\n[states]\nx = 7\n").states[0].value, 7.0);
}

TEST(ModelToml, MissingEntries) {
  expect_error_at("equations = \"dx = -x\"\n[states]\nx = 1\n", 1, 1, {"missing 'name'"});
  expect_error_at("name = \"m\"\n[states]\nx = 1\n", 1, 1, {"missing 'equations'"});
  expect_error_at("name = \"m\"\nequations = \"\"\n", 1, 1, {"missing [states]"});
  expect_error_at("name = \"m\"\nequations = \"\"\n[states]\n", 3, 1, {"no states"});
}

TEST(ModelToml, UnreadableFiles) {
  const std::string missing = batchode::models::testing::data_dir() + "/no_such_model.toml";
  try {
    load_model(missing);
    ADD_FAILURE() << "a missing file loaded";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.where().source, missing);
    EXPECT_EQ(std::string(e.what()), missing + ": cannot read the model file: No such file or directory");
  }
  try {
    read_model_file(batchode::models::testing::data_dir());
    ADD_FAILURE() << "a directory was read as a model file";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("Is a directory"), std::string::npos) << e.what();
  }
}

TEST(ModelToml, ObservablesAreAuxiliaries) {
  const Model m = load_model(batchode::models::testing::data_dir() + "/every_function.toml");
  EXPECT_EQ(m.observables(), (std::vector<std::string>{"q", "s"}));
  EXPECT_EQ(m.auxiliary_names(), (std::vector<std::string>{"q", "r", "s"}));
  expect_error_at(
      "name = \"m\"\nequations = \"a = 2*x\\ndx = -a\"\nobservables = [\"a\", \"x\"]\n[states]\nx = 1\n", 3,
      21, {"observable 'x' is not an auxiliary", "auxiliaries: a"});
  expect_error_at(
      "name = \"m\"\nequations = \"a = 2*x\\ndx = -a\"\nobservables = [\"a\", \"a\"]\n[states]\nx = 1\n", 3,
      21, {"observable 'a' is listed twice"});
}

}  // namespace
