// tests/models: semi-explicit index-1 DAEs in model text ([algebraic] and `0 = <expr>` lines): the
// algebraic variables as the last states, the residuals' rows matched to their variables (every
// algebraic row with a structurally nonzero diagonal), each mistake at its line and column, the
// interpreter's residuals, and the generated code: n_algebraic and a sparse LU of W = M diag - J that
// adds diag to the differential rows only, compiled and checked against a dense solve done here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <utility>
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

constexpr const char* kRobertson = R"(name = "robertson_dae"
equations = """
dy1 = -k1 * y1 + k3 * y2 * y3
dy2 = k1 * y1 - k3 * y2 * y3 - k2 * y2^2
0 = y1 + y2 + y3 - 1
"""
[states]
y1 = 1.0
y2 = 0.0
[algebraic]
y3 = 0.0
[parameters]
k1 = 0.04
k2 = 3e7
k3 = 1e4
)";

Model parse(const std::string& toml) { return parse_model(read_model_toml(toml, "m.toml")); }

/// The file's layout: equations from line 3; [states] x; [algebraic] `algebraic` (name = value lines);
/// [parameters] k; [constants] c.
std::string dae_with(const std::string& equations, const std::string& algebraic = "z = 0.5") {
  return "name = \"m\"\nequations = \"\"\"\n" + equations + "\n\"\"\"\n[states]\nx = 1\n" +
         (algebraic.empty() ? "" : "[algebraic]\n" + algebraic + "\n") +
         "[parameters]\nk = 3\n[constants]\nc = 4\n";
}
constexpr std::size_t kFirstLine = 3;

/// The line of `[algebraic]` in dae_with's file for `n_equation_lines` lines of equations.
std::size_t algebraic_table_line(std::size_t n_equation_lines) { return kFirstLine + n_equation_lines + 3; }

TEST(ModelDae, RobertsonParsesWithTheAlgebraicVariableLast) {
  const Model m = parse(kRobertson);
  EXPECT_EQ(m.n_states(), 3u);
  EXPECT_EQ(m.n_algebraic(), 1u);
  ASSERT_EQ(m.states().size(), 3u);
  EXPECT_EQ(m.states()[0].name, "y1");
  EXPECT_EQ(m.states()[1].name, "y2");
  EXPECT_EQ(m.states()[2].name, "y3");
  EXPECT_EQ(m.states()[0].value, 1.0);
  EXPECT_EQ(m.states()[2].value, 0.0);
  ASSERT_EQ(m.description().algebraic.size(), 1u);
  EXPECT_EQ(m.description().states.size(), 2u);
  ASSERT_EQ(m.equations().rhs.size(), 3u);
  // The residual row starts at its 0: line 5, column 1; the table and the entry are located.
  EXPECT_EQ(m.equations().rhs_where[2].line, 5u);
  EXPECT_EQ(m.equations().rhs_where[2].column, 1u);
  EXPECT_EQ(m.description().locations.at("algebraic.y3").line, 11u);
  EXPECT_EQ(m.description().locations.at("algebraic").line, 10u);
  // Row 2 is the conservation law: d/dy of y1 + y2 + y3 - 1 is 1 everywhere.
  const auto nonzeros = m.jacobian_nonzeros();
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_NE(std::find(nonzeros.begin(), nonzeros.end(), std::make_pair(std::size_t{2}, j)), nonzeros.end())
        << j;
  }
  const std::string sparsity = describe_sparsity(m);
  EXPECT_NE(sparsity.find("rows [y3] are algebraic"), std::string::npos) << sparsity;
  EXPECT_NE(sparsity.find("  [y3] ***  depends on y1, y2, y3\n"), std::string::npos) << sparsity;
  EXPECT_NE(sparsity.find("  dy1  ***  depends on y1, y2, y3\n"), std::string::npos) << sparsity;
}

TEST(ModelDae, TheInterpreterGivesTheResidualsAndTheirDerivatives) {
  const Model m = parse(kRobertson);
  const double y[] = {0.5, 0.25, 0.125}, p[] = {0.04, 3e7, 1e4};
  double f[3], J[9], ft[3];
  evaluate_rhs(m, 0.0, y, p, f);
  EXPECT_EQ(f[0], -p[0] * y[0] + p[2] * y[1] * y[2]);
  EXPECT_EQ(f[2], y[0] + y[1] + y[2] - 1);
  EXPECT_EQ(f[2], -0.125);
  evaluate_jacobian(m, 0.0, y, p, J, ft);
  EXPECT_EQ(J[6], 1.0);
  EXPECT_EQ(J[7], 1.0);
  EXPECT_EQ(J[8], 1.0);
  EXPECT_EQ(J[2], p[2] * y[1]);  // d f_1 / d y3: the algebraic variable reads like a state
  EXPECT_EQ(ft[2], 0.0);
  // Consistent values make it zero.
  const double consistent[] = {0.5, 0.25, 0.25};
  evaluate_rhs(m, 0.0, consistent, p, f);
  EXPECT_EQ(f[2], 0.0);
}

/// Row n_diff + k of m: its residual at y.
double residual(const Model& m, std::size_t k, const std::vector<double>& y) {
  std::vector<double> f(m.n_states());
  const double p[] = {3};
  evaluate_rhs(m, 0.0, y.data(), p, f.data());
  return f[m.n_states() - m.n_algebraic() + k];
}

void expect_diagonal(const Model& m) {
  const auto nonzeros = m.jacobian_nonzeros();
  for (std::size_t i = m.n_states() - m.n_algebraic(); i < m.n_states(); ++i) {
    EXPECT_NE(std::find(nonzeros.begin(), nonzeros.end(), std::make_pair(i, i)), nonzeros.end())
        << "row " << i << " has no diagonal entry";
  }
}

TEST(ModelDae, ResidualRowsAreMatchedToTheirVariables) {
  // Written in the "wrong" order: the first line determines w, the second z.
  const Model swapped = parse(dae_with("dx = -x + z\n0 = w - 2 * x\n0 = z - x", "z = 0\nw = 0"));
  expect_diagonal(swapped);
  const std::vector<double> y = {1.5, 10, 100};       // x, z, w
  EXPECT_EQ(residual(swapped, 0, y), 10 - 1.5);       // z's row: z - x (line 5)
  EXPECT_EQ(residual(swapped, 1, y), 100 - 2 * 1.5);  // w's row: w - 2 x (line 4)
  EXPECT_EQ(swapped.equations().rhs_where[1].line, 5u);
  EXPECT_EQ(swapped.equations().rhs_where[2].line, 4u);
  // The Jacobian's rows moved with them: row z has d/dx = -1 and d/dz = 1.
  std::vector<double> J(9);
  const double p[] = {3};
  evaluate_jacobian(swapped, 0.0, y.data(), p, J.data(), nullptr);
  EXPECT_EQ(J[3], -1.0);
  EXPECT_EQ(J[4], 1.0);
  EXPECT_EQ(J[5], 0.0);
  EXPECT_EQ(J[6], -2.0);
  EXPECT_EQ(J[8], 1.0);

  // An augmenting path: z's own line also reads w, and only it does; z must take the other line.
  const Model path = parse(dae_with("dx = -x\n0 = z + w - x\n0 = z - 1", "z = 0\nw = 0"));
  expect_diagonal(path);
  EXPECT_EQ(residual(path, 0, y), 10 - 1.0);
  EXPECT_EQ(residual(path, 1, y), 10 + 100 - 1.5);

  // A written order that already matches is kept.
  const Model kept = parse(dae_with("dx = -x\n0 = z + w - x\n0 = w - 1", "z = 0\nw = 0"));
  expect_diagonal(kept);
  EXPECT_EQ(residual(kept, 0, y), 10 + 100 - 1.5);
  EXPECT_EQ(residual(kept, 1, y), 100 - 1.0);
}

TEST(ModelDae, CountsOfResidualLines) {
  // One too many: at the surplus line's 0.
  expect_error(dae_with("dx = -x\n0 = z - x\n  0 = z + 1"), kFirstLine + 2, 3,
               {"one `0 =` equation too many", "1 algebraic variable (z)"});
  // Too few: at the [algebraic] table.
  expect_error(dae_with("dx = -x\n0 = z - x", "z = 0\nw = 0"), algebraic_table_line(2), 1,
               {"2 algebraic variables (z, w) but 1 `0 =` equation", "one line `0 = <expr>` per"});
  expect_error(dae_with("dx = -x"), algebraic_table_line(1), 1,
               {"1 algebraic variable (z) but 0 `0 =` equations"});
  // A `0 =` line in a model without algebraic variables.
  expect_error(dae_with("dx = -x\n 0 = x - 1", ""), kFirstLine + 1, 2,
               {"`0 = ...` is an algebraic equation", "no algebraic variables", "[algebraic]"});
}

TEST(ModelDae, TheLeftSideOfAResidualIsZero) {
  expect_error(dae_with("dx = -x\n1 = z - x"), kFirstLine + 1, 1,
               {"found '1'", "the left side of an algebraic equation is the literal 0"});
  expect_error(dae_with("dx = -x\n   2.5 = z"), kFirstLine + 1, 4, {"found '2.5'"});
  // 0.0 is zero too.
  EXPECT_EQ(parse(dae_with("dx = -x\n0.0 = z - x")).n_algebraic(), 1u);
}

TEST(ModelDae, AnAlgebraicVariableHasNoDEquation) {
  expect_error(dae_with("dx = -x\n0 = z - x\n  dz = 1"), kFirstLine + 2, 3,
               {"z is algebraic: it has no d equation; write `0 = ...`"});
  // Even before its residual, and in place of it.
  expect_error(dae_with("dz = x\ndx = -x"), kFirstLine, 1, {"z is algebraic"});
}

TEST(ModelDae, AlgebraicNamesAreChecked) {
  // [algebraic] is on line 7 with one line of equations, its first entry on line 8.
  expect_error(dae_with("dx = -x", "x = 0"), 8, 1,
               {"'x' is declared twice: as a state and as an algebraic variable"});
  // Parameters and constants are checked after the algebraic variables: at theirs.
  expect_error(dae_with("dx = -x", "k = 0"), 10, 1,
               {"'k' is declared twice: as an algebraic variable and as a parameter"});
  expect_error(dae_with("dx = -x", "c = 0"), 12, 1,
               {"'c' is declared twice: as an algebraic variable and as a constant"});
  expect_error(dae_with("dx = -x", "sin = 0"), 8, 1,
               {"'sin' is a reserved word", "cannot name an algebraic variable"});
  expect_error(dae_with("dx = -x", "t = 0"), 8, 1, {"'t' is a reserved word"});
  expect_error(dae_with("dx = -x\n0 = z - x", "z = nan"), 9, 1,
               {"algebraic variable 'z' has a value that is not finite"});
  expect_error(dae_with("dx = -x\n0 = z - x", "z = inf"), 9, 1, {"not finite"});
  // An auxiliary of the same name.
  expect_error(dae_with("dx = -x\n0 = z - x\n z = 2 * x"), kFirstLine + 2, 2,
               {"'z' is already declared as an algebraic variable", "'0 = ...'"});
  // Not a function, and named among the known symbols.
  expect_error(dae_with("dx = -z(x)\n0 = z - x"), kFirstLine, 7,
               {"'z' is an algebraic variable, not a function"});
  expect_error(dae_with("dx = -q\n0 = z - x"), kFirstLine, 7,
               {"unknown symbol 'q'", "algebraic variables z"});
}

TEST(ModelDae, EveryAlgebraicVariableMustBeDetermined) {
  // No residual reads w: at w's [algebraic] entry (line 11: three lines of equations and z before it).
  expect_error(dae_with("dx = -x\n0 = z - x\n0 = z + x", "z = 0\nw = 0"), 11, 1,
               {"algebraic variable w: no `0 =` equation depends on it (the algebraic equations must "
                "determine every algebraic variable: index 1)"});
  // Structurally: z - z has the derivative 0 in z.
  expect_error(dae_with("dx = -x\n0 = z - z + x"), 9, 1,
               {"algebraic variable z: no `0 =` equation depends on it"});
  // Two variables, one residual reads both and the other neither (a constraint on x: index 2).
  expect_error(dae_with("dx = -x\n0 = z + w - x\n0 = x - 1", "z = 0\nw = 0"), 11, 1,
               {"algebraic variables w, z: only 1 `0 =` equation (line 4) depends on them",
                "the `0 =` equation on line 5 depends on no algebraic variable"});
  // Three variables, two lines read all three, one reads none: the Hall set is named at v, the one left.
  expect_error(dae_with("dx = -x\n0 = z + w\n0 = z - v\n0 = x", "z = 0\nw = 0\nv = 0"), 13, 1,
               {"algebraic variables v, w, z: only 2 `0 =` equations (lines 4, 5) depend on them",
                "the `0 =` equation on line 6 depends on no algebraic variable"});
}

TEST(ModelDae, OdeModelsAreUnchanged) {
  const Model m = parse("name = \"m\"\nequations = \"dx = -x\"\n[states]\nx = 1\n");
  EXPECT_EQ(m.n_algebraic(), 0u);
  EXPECT_EQ(m.n_states(), 1u);
  const std::string source = generate_system(m, {"Ode", true, LinearSolver::sparse});
  EXPECT_EQ(source.find("n_algebraic"), std::string::npos) << source;
  EXPECT_NE(source.find("W[0] = diag - Js[0];"), std::string::npos) << source;
  EXPECT_EQ(describe_sparsity(m).find("algebraic"), std::string::npos);
}

/// The lines of `source` that contain `text`.
std::vector<std::string> lines_with(const std::string& source, const std::string& text) {
  std::vector<std::string> found;
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) {
    if (line.find(text) != std::string::npos) found.push_back(line);
  }
  return found;
}

TEST(ModelDae, GeneratedSparseLuAddsDiagToDifferentialRowsOnly) {
  const Model m = parse(kRobertson);
  const std::string source = generate_system(m, {"RobertsonDae", true, LinearSolver::sparse});
  EXPECT_NE(source.find("static constexpr batchode::port::size_t n_algebraic = 1;"), std::string::npos)
      << source;
  EXPECT_NE(source.find("W = M diag - J"), std::string::npos) << source;
  // diag enters the two differential pivots' slots and their terms, and nowhere in y3's row.
  std::size_t diag_slots = lines_with(source, " = diag - Js[").size() + lines_with(source, " = diag;").size();
  EXPECT_EQ(diag_slots, 2u) << source;
  const std::vector<std::string> algebraic_terms = lines_with(source, "// row y3 (algebraic)");
  ASSERT_EQ(algebraic_terms.size(), 1u) << source;
  EXPECT_EQ(algebraic_terms[0].find("diag"), std::string::npos) << algebraic_terms[0];
  EXPECT_NE(algebraic_terms[0].find("kl::magnitude(Js["), std::string::npos) << algebraic_terms[0];
  EXPECT_EQ(lines_with(source, "terms = kl::magnitude(diag)").size(), 2u) << source;
  // The dense layout declares n_algebraic too (the kernels factorise it).
  EXPECT_NE(generate_system(m, {"RobertsonDense", true, LinearSolver::dense}).find("n_algebraic = 1;"),
            std::string::npos);
}

/// x = A^-1 b by Gaussian elimination with partial pivoting (n small): the reference for the solve.
std::vector<double> dense_solve(std::vector<double> A, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t pivot = k;
    for (std::size_t i = k + 1; i < n; ++i) {
      if (std::fabs(A[i * n + k]) > std::fabs(A[pivot * n + k])) pivot = i;
    }
    for (std::size_t j = 0; j < n; ++j) std::swap(A[k * n + j], A[pivot * n + j]);
    std::swap(b[k], b[pivot]);
    for (std::size_t i = k + 1; i < n; ++i) {
      const double l = A[i * n + k] / A[k * n + k];
      for (std::size_t j = k; j < n; ++j) A[i * n + j] -= l * A[k * n + j];
      b[i] -= l * b[k];
    }
  }
  std::vector<double> x(n);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t j = i + 1; j < n; ++j) s -= A[i * n + j] * x[j];
    x[i] = s / A[i * n + i];
  }
  return x;
}

TEST(ModelDae, GeneratedSparseLuSolvesWWithTheMassMatrix) {
  // Robertson, and a model whose matching swapped the residuals and whose algebraic block is coupled.
  struct Case {
    std::string type;
    Model model;
    std::vector<double> y, p;
  };
  const std::vector<Case> cases = {
      {"RobertsonDae", parse(kRobertson), {0.9, 2e-5, 0.1}, {0.04, 3e7, 1e4}},
      {"Coupled",
       parse(dae_with("dx = -k * x + z * w\n0 = w * w - x\n0 = z * x - 2 * w + z", "z = 0\nw = 0")),
       {1.5, 0.7, 1.3},
       {3}}};
  const double diag = 250.0;
  const std::vector<double> b = {1.0, -2.0, 0.5};
  support::TempDir dir;
  std::string program = "#include <cstdio>\n";
  for (const Case& c : cases) {
    support::write_file(dir.file(c.type + ".hpp"),
                        generate_system(c.model, {c.type, true, LinearSolver::sparse}));
    program += "#include \"" + dir.file(c.type + ".hpp") + "\"\n";
  }
  program += R"(
template <class M>
void run(const char* name, const double* y, const double* p, double diag, const double* b) {
  double Js[M::jacobian_nonzeros], W[M::sparse_lu_size], x[M::n_states];
  for (batchode::port::size_t i = 0; i < M::n_states; ++i) x[i] = b[i];
  M{}.sparse_jacobian(0.0, y, p, Js);
  const bool factored = M{}.sparse_lu_factor(diag, Js, W);
  M{}.sparse_lu_solve(W, x);
  std::printf("%s factored %d\n", name, factored ? 1 : 0);
  for (batchode::port::size_t i = 0; i < M::n_states; ++i) std::printf("%s x %a\n", name, x[i]);
}
int main() {
  const double b[] = {1.0, -2.0, 0.5};
)";
  for (const Case& c : cases) {
    auto list = [](const std::vector<double>& v) {
      std::string s;
      for (double x : v) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%a, ", x);
        s += buffer;
      }
      return s;
    };
    program += "  { const double y[] = {" + list(c.y) + "}, p[] = {" + list(c.p) + "};\n    run<" + c.type +
               ">(\"" + c.type + "\", y, p, 250.0, b); }\n";
  }
  program += "}\n";
  support::write_file(dir.file("run.cpp"), program);
  const support::RunResult ran = support::build_and_run(dir, "run.cpp", {"-O0"});
  ASSERT_EQ(ran.exit_code, 0) << ran.output << "\nprogram:\n" << program;

  std::map<std::string, std::vector<double>> x;
  std::map<std::string, int> factored;
  std::istringstream lines(ran.output);
  for (std::string name, kind, value; lines >> name >> kind >> value;) {
    if (kind == "factored") factored[name] = std::stoi(value);
    if (kind == "x") x[name].push_back(std::strtod(value.c_str(), nullptr));
  }
  for (const Case& c : cases) {
    const std::size_t n = c.model.n_states(), n_diff = n - c.model.n_algebraic();
    std::vector<double> J(n * n);
    evaluate_jacobian(c.model, 0.0, c.y.data(), c.p.data(), J.data(), nullptr);
    std::vector<double> W(n * n);
    for (std::size_t k = 0; k < n * n; ++k) W[k] = (k % (n + 1) == 0 && k / n < n_diff ? diag : 0.0) - J[k];
    const std::vector<double> expected = dense_solve(W, b);
    EXPECT_EQ(factored[c.type], 1) << c.type << "\n" << ran.output;
    ASSERT_EQ(x[c.type].size(), n) << c.type << "\n" << ran.output;
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_NEAR(x[c.type][i], expected[i], 1e-12 * std::max(1.0, std::fabs(expected[i])))
          << c.type << " x[" << i << "]";
    }
    // With diag on every row the answer differs: the check above can tell the two apart.
    std::vector<double> W_ode = W;
    for (std::size_t i = n_diff; i < n; ++i) W_ode[i * n + i] += diag;
    EXPECT_GT(std::fabs(dense_solve(W_ode, b)[n - 1] - expected[n - 1]), 1e-6) << c.type;
  }
}

}  // namespace
