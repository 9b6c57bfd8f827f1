// tests/models: generated C++. Its text (the contract's shape, literals, parentheses); that it
// compiles with the host compiler given only kernels/include, warnings as errors, as a batchode system
// with or without the symbolic Jacobian (and that such a check can fail); that a program built from it
// computes exactly what the reference interpreter computes, and that forward AD through its call
// operator (dual numbers) agrees with its symbolic Jacobian; and that NVRTC and hipRTC compile it
// into the batch kernel, where those compilers were found.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#if BATCHODE_HAVE_NVRTC
#include <nvrtc.h>
#endif
#if BATCHODE_HAVE_HIPRTC
#include <hip/hiprtc.h>
#endif

#include "batchode/models/codegen.hpp"
#include "batchode/models/component_shapes.hpp"
#include "batchode/models/evaluate.hpp"
#include "batchode/models/model.hpp"
#include "bruss_model.hpp"
#include "compile_support.hpp"
#include "lorenz96_text.hpp"
#include "pollu_model.hpp"

namespace {

using namespace batchode::models;
namespace support = batchode::models::testing;

Model load(const std::string& file) { return load_model(support::data_dir() + "/" + file); }
Model parse(const std::string& toml) { return parse_model(read_model_toml(toml, "test.toml")); }

constexpr const char* kVanDerPol = R"(name = "van_der_pol"
equations = """
dx = v
dv = mu * (1 - x^2) * v - x
"""
[states]
x = 2
v = 0
[parameters]
mu = 1
)";

// No parameters, t used, a chain of auxiliaries.
constexpr const char* kChain = R"(name = "chain"
equations = """
a = x * y
b = sin(a) + t * a
c = b^2 - a / (1 + t)
dx = c - x
dy = b * x + exp(-t) * y
"""
[states]
x = 0.4
y = -0.7
)";

// Nothing used: y, p and t are all unused in every function.
constexpr const char* kConstant = R"(name = "constant"
equations = "dx = 1"
[states]
x = 0
[parameters]
unused = 1
)";

// Operators whose grouping matters: the generated text must keep the tree's grouping and order.
constexpr const char* kPrecedence = R"(name = "precedence"
equations = """
dx = (x - (y - z)) - -x + x / (y / z) - x / y / z + -x^2 + (-x)^2 + 2^-y + x^y^0.5 + - - x
dy = (x + (y + z)) * (x * (y * z)) - x * y * z + x - y + z - (x + y) - ifelse(x < y, x - y, y - x)
dz = ifelse(not (x < 1) and (y >= 2 or z != 0) or x == y, 1e-300 * x, 2.5e+300 / (1 + y^2)) - 0.1 - .5e1
"""
[states]
x = 1.25
y = 1.5
z = 0.75
)";

/// Lorenz-96 with n states (above 16 the generated Jacobian writes its zeros with a loop).
// rhs_component's three kinds of member test: listed members (x0, x1, x4), a progression (x2, x5) and
// the rest (x3, x6, x7, x8); an auxiliary read inline; t and a parameter.
constexpr const char* kShapes = R"(name = "shapes"
equations = """
w = k * t
dx0 = -x0 * w
dx1 = -x1 * w
dx2 = x3 - x1
dx3 = sin(x3) + x2
dx4 = -x4 * w
dx5 = x6 - x4
dx6 = sin(x6) + x5
dx7 = sin(x7) + x6
dx8 = sin(x8) + x7
"""
[states]
x0 = 1
x1 = 1
x2 = 1
x3 = 1
x4 = 1
x5 = 1
x6 = 1
x7 = 1
x8 = 1
[parameters]
k = 1
)";

struct Generated {
  std::string type;  // the struct's name
  Model model;
  bool jacobian;
  LinearSolver linear_solver = LinearSolver::automatic;
  std::size_t sparse_lu_loops_from = batchode::models::CodegenOptions::default_sparse_lu_loops_from;
  std::size_t sparse_lu_solve_loops_from = batchode::models::CodegenOptions::default_sparse_lu_solve_loops_from;
};

std::vector<Generated> models_for_compilation() {
  return {{"Lorenz", load("lorenz.toml"), true},
          {"VanDerPol", parse(kVanDerPol), false},
          {"EveryFunction", load("every_function.toml"), true},
          {"Chain", parse(kChain), true},
          {"Constant", parse(kConstant), true},
          {"Precedence", parse(kPrecedence), true},
          {"Lorenz96", parse(batchode::testing::lorenz96_toml(20)), true},
          {"Bruss", parse(batchode::testing::bruss_toml(8)), true, LinearSolver::band},
          {"BrussSparse", parse(batchode::testing::bruss_toml(8)), true},
          {"Pollu", load_model(batchode::testing::pollu_model_path()), true},
          {"BrussLoops", parse(batchode::testing::bruss_toml(16)), true, LinearSolver::automatic, 0, 0}};
}

/// True for the models whose generated code declares a Jacobian band (kernels/linalg/band.hpp).
bool banded(const Generated& g) { return g.jacobian && g.type == "Bruss"; }
/// True for the types whose generated code (with the Jacobian, layout automatic) has a sparse LU
/// (kernels/linalg/sparse_lu.hpp): it costs fewer operations than the band (BRUSS), or than the dense LU
/// where there is no band (Lorenz-96 wraps around, POLLU's chemistry). Small systems keep the dense LU
/// (Lorenz: 17 operations either way; a tie goes to partial pivoting).
bool sparse_type(const std::string& type) {
  return type == "BrussSparse" || type == "Pollu" || type == "BrussLoops" || type == "Lorenz96";
}
bool sparse(const Generated& g) { return g.jacobian && sparse_type(g.type); }

/// Writes each model's source to `dir`/<type>.hpp; returns the lines that include them.
std::string write_sources(const support::TempDir& dir, const std::vector<Generated>& models) {
  std::string includes;
  for (const Generated& g : models) {
    batchode::models::CodegenOptions o{g.type, g.jacobian, g.linear_solver};
    o.sparse_lu_loops_from = g.sparse_lu_loops_from;
    o.sparse_lu_solve_loops_from = g.sparse_lu_solve_loops_from;
    support::write_file(dir.file(g.type + ".hpp"), generate_system(g.model, o));
    includes += "#include \"" + dir.file(g.type + ".hpp") + "\"\n";
  }
  return includes;
}

/// Traits and explicit instantiations (double, float, dual numbers) of each model's members.
std::string checks_of(const std::vector<Generated>& models) {
  std::string s =
      "#include \"batchode/kernels/linalg/jacobian.hpp\"\n#include \"batchode/kernels/core/system.hpp\"\n"
      "using batchode::kernels::Dual;\nusing batchode::kernels::RunPack;\n";
  for (const Generated& g : models) {
    const std::string& M = g.type;
    const std::string analytic = g.jacobian ? "" : "!";
    s += "static_assert(batchode::is_ode_system_v<" + M + ", double> && batchode::is_ode_system_v<" + M +
         ", float>);\n";
    s += "static_assert(" + M + "::n_states == " + std::to_string(g.model.n_states()) + " && " + M +
         "::n_params == " + std::to_string(g.model.n_params()) + ");\n";
    s += "static_assert(" + analytic + "batchode::has_jacobian_v<" + M + ", double>);\n";
    s +=
        "static_assert(" + analytic + "batchode::has_analytic_linearization_v<" + M + ", float>);\n";
    s += "static_assert(batchode::can_linearize_v<" + M + ", double>);\n";
    // The band where the symbolic Jacobian has one: declared, given, and what a Rosenbrock step uses.
    const std::string band = banded(g) ? "" : "!";
    s += "static_assert(" + band + "batchode::has_band_jacobian_v<" + M + ", double>);\n";
    s += "static_assert(" + band + "batchode::kernels::RosenbrockShape<" + M + ", float>::banded);\n";
    if (banded(g)) {
      s += "static_assert(" + M + "::jacobian_lower_bandwidth == 2 && " + M + "::jacobian_upper_bandwidth == 2);\n";
    }
    // The sparse LU where automatic found it cheapest: given, and what a Rosenbrock step uses.
    const std::string sparse_lu = sparse(g) ? "" : "!";
    s += "static_assert(" + sparse_lu + "batchode::has_sparse_lu_v<" + M + ", double>);\n";
    s += "static_assert(" + sparse_lu + "batchode::kernels::RosenbrockShape<" + M + ", float>::sparse);\n";
    if (sparse(g)) {
      for (const std::string T : {"double", "float"}) {
        s += "template void " + M + "::sparse_jacobian<" + T + ">(" + T + ", const " + T + "*, const " + T +
             "*, " + T + "*) const;\n";
        s += "template bool " + M + "::sparse_lu_factor<" + T + ">(" + T + ", const " + T + "*, " + T + "*) const;\n";
        s += "template void " + M + "::sparse_lu_solve<" + T + ">(const " + T + "*, " + T + "*) const;\n";
      }
    }
    // Packs of runs (the CPU's blocks, kernels/core/run_pack.hpp) where the call operator compares no value.
    const bool compares = g.type == "EveryFunction" || g.type == "Precedence";
    s += "static_assert(" + std::string(compares ? "!" : "") + "batchode::simd_runs_v<" + M + ">);\n";
    // A sparse LU with its linearisation takes packs too (the Rosenbrock methods' blocks), its
    // factorisation telling which lanes kept their pivots.
    const bool packed_lu = sparse(g) && !compares;
    s += "static_assert(" + std::string(packed_lu ? "" : "!") + "batchode::simd_linearization_v<" + M +
         ">);\n";
    for (const std::string T : {"RunPack<double, 16>", "RunPack<float, 8>"}) {
      if (!packed_lu) break;
      s += "template void " + M + "::sparse_jacobian<" + T + ">(" + T + ", const " + T + "*, const " + T +
           "*, " + T + "*) const;\n";
      s += "template void " + M + "::time_derivative<" + T + ">(" + T + ", const " + T + "*, const " + T +
           "*, " + T + "*) const;\n";
      s += "template batchode::kernels::PivotsKept<" + T + "> " + M + "::sparse_lu_factor<" + T + ">(" + T +
           ", const " + T + "*, " + T + "*) const;\n";
      s += "template void " + M + "::sparse_lu_solve<" + T + ">(const " + T + "*, " + T + "*) const;\n";
    }
    std::vector<std::string> numbers = {"double", "float", "Dual<double, 4>", "Dual<float, 2>"};
    if (!compares) numbers.insert(numbers.end(), {"RunPack<double, 16>", "RunPack<float, 8>"});
    for (const std::string& T : numbers) {
      s += "template void " + M + "::operator()<" + T + ">(" + T + ", const " + T + "*, const " + T + "*, " +
           T + "*) const;\n";
      if (g.jacobian && T.rfind("RunPack", 0) != 0) {
        s += "template void " + M + "::jacobian<" + T + ">(" + T + ", const " + T + "*, const " + T + "*, " +
             T + "*) const;\n";
        s += "template void " + M + "::time_derivative<" + T + ">(" + T + ", const " + T + "*, const " + T +
             "*, " + T + "*) const;\n";
      }
      if (banded(g) && T.rfind("RunPack", 0) != 0) {
        s += "template void " + M + "::band_jacobian<" + T + ">(" + T + ", const " + T + "*, const " + T + "*, " +
             T + "*) const;\n";
      }
    }
  }
  return s;
}

const std::vector<std::string> kStrict = {"-fsyntax-only", "-Wpedantic"};

TEST(Codegen, FormatNumberRoundTrips) {
  EXPECT_EQ(format_number(10), "10");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(2.6666666666666665), "2.6666666666666665");
  EXPECT_EQ(format_number(1e-300), "1e-300");
  EXPECT_EQ(format_number(-2.5), "-2.5");
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(-0.0), "-0.0");
  EXPECT_EQ(format_number(123456789012345680000.0).find_first_not_of("0123456789"),
            std::string("123456789012345680000").size())
      << format_number(123456789012345680000.0);  // never an all-digit literal too large for long long
  std::uint64_t s = 7;
  for (int k = 0; k < 20000; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double v = 0;
    std::memcpy(&v, &s, sizeof v);
    if (!std::isfinite(v)) continue;
    const std::string text = format_number(v);
    double back = 0;
    std::from_chars(text.data(), text.data() + text.size(), back);
    ASSERT_EQ(std::memcmp(&back, &v, sizeof v), 0) << text;
    ASSERT_LE(text.size(), 26u) << text;
    const bool integer_literal = text.find_first_of(".eE") == std::string::npos;
    ASSERT_TRUE(!integer_literal || text.size() <= 10) << text;
  }
}

TEST(Codegen, LorenzSourceFollowsTheContract) {
  const std::string src = generate_system(load("lorenz.toml"), {"BatchodeModel", true});
  EXPECT_EQ(src.rfind("// Generated by batchode from model 'lorenz' (" + support::data_dir() +
                          "/lorenz.toml). Do not edit.\n",
                      0),
            0u)
      << src;
  for (const char* line :
       {"struct BatchodeModel {\n",
        "  static constexpr batchode::port::size_t n_states = 3;\n",
        "  static constexpr batchode::port::size_t n_params = 1;\n",
        "  static constexpr bool simd_runs = true;  // the call operator compares no values\n",
        "  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* dydt) const {\n",
        "    (void)t;\n",
        "    const T s_x = y[0];\n",
        "    const T p_rho = p[0];\n",
        "    const T c_sigma = T(10);\n",
        "    const T c_beta = T(2.6666666666666665);\n",
        "    dydt[0] = c_sigma * (s_y - s_x);\n",
        "    dydt[1] = s_x * (p_rho - s_z) - s_y;\n",
        "    dydt[2] = s_x * s_y - c_beta * s_z;\n",
        "  BATCHODE_HOST_DEVICE void jacobian(T t, const T* y, const T* p, T* J) const {\n",
        "    J[0] = -c_sigma;\n",
        "    J[2] = T(0);\n",
        "    J[3] = p_rho - s_z;\n",
        "    J[4] = T(-1);\n",
        "    J[5] = -s_x;\n",
        "  BATCHODE_HOST_DEVICE void time_derivative(T t, const T* y, const T* p, T* f_t) const {\n",
        "    f_t[0] = T(0);\n"}) {
    EXPECT_NE(src.find(line), std::string::npos) << "missing: " << line << "in:\n" << src;
  }
  // Above 16 states the structural zeros are written by a loop, the rest one by one.
  const std::string big = generate_system(parse(batchode::testing::lorenz96_toml(20)), {"L96", true});
  EXPECT_NE(big.find("    for (batchode::port::size_t k = 0; k < n_states * n_states; ++k) J[k] = T(0);\n"),
            std::string::npos);
  const std::regex zero_entry(R"(J\[[0-9]+\] = T\(0\);)");  // no zero entry assigned on its own
  EXPECT_FALSE(std::regex_search(big, zero_entry)) << big;
  EXPECT_TRUE(std::regex_search(src, zero_entry)) << src;
  EXPECT_NE(big.find("    J[1] = s_x19;\n"), std::string::npos) << big;
  EXPECT_EQ(src.find("for ("), std::string::npos);
  // Without the Jacobian option: the call operator only.
  const std::string plain = generate_system(load("lorenz.toml"));
  EXPECT_EQ(plain.find("jacobian"), std::string::npos);
  EXPECT_EQ(plain.find("time_derivative"), std::string::npos);
}

// A banded symbolic Jacobian (BRUSS: f_i reads y_j for j - i in [-2, 2]) is declared with its band and
// written over it, row by row (Jb[i * 5 + (j - i + 2)]); a wider one (Lorenz-96 wraps around: x0 reads
// x18 and x19) and a small one (Lorenz, 3 states: a band no narrower than dense) declare none.
TEST(Codegen, DeclaresTheBandOfASymbolicJacobian) {
  const std::string src =
      generate_system(parse(batchode::testing::bruss_toml(8)), {"Bruss", true, LinearSolver::band});
  for (const char* line : {"  static constexpr batchode::port::size_t jacobian_lower_bandwidth = 2;\n",
                           "  static constexpr batchode::port::size_t jacobian_upper_bandwidth = 2;\n",
                           "  BATCHODE_HOST_DEVICE void band_jacobian(T t, const T* y, const T* p, T* Jb) const {\n",
                           "    Jb[2] = (s_u1 + s_u1) * s_v1 - T(4) + T(-3.24);\n",  // d f_u1 / d u1: row 0
                           "    Jb[4] = T(1.62);\n",                                   // d f_u1 / d u2
                           "    Jb[77] = T(-3.24) - s_u8 * s_u8;\n"}) {  // d f_v8 / d v8: row 15
    EXPECT_NE(src.find(line), std::string::npos) << "missing: " << line << "in:\n" << src;
  }
  // Slots of columns outside the matrix (before column 0, after column 15) are not written.
  for (const char* absent : {"Jb[0]", "Jb[1] ", "Jb[5]", "Jb[78]", "Jb[79]"}) {
    EXPECT_EQ(src.find(absent), std::string::npos) << absent << " in:\n" << src;
  }
  for (const std::string& other :
       {generate_system(parse(batchode::testing::lorenz96_toml(20)), {"L96", true}),
        generate_system(load("lorenz.toml"), {"Lorenz", true}),
        generate_system(parse(batchode::testing::bruss_toml(8)), {"Bruss", false}),
        generate_system(parse(batchode::testing::bruss_toml(8)), {"Bruss", true})}) {
    EXPECT_EQ(other.find("bandwidth"), std::string::npos) << other;
    EXPECT_EQ(other.find("band_jacobian"), std::string::npos) << other;
  }
}

// Where the sparse LU costs the fewest operations (POLLU's chemistry: no band, 20 states), the struct
// declares its sizes and writes J's nonzeros, the factorisation in the planned order with its pivot
// checks, and the solve (kernels/linalg/sparse_lu.hpp, included for the checks). A layout asked for is
// written, or refused by name where it cannot be.
TEST(Codegen, WritesTheSparseLuWhereItIsCheapest) {
  const Model pollu = load_model(batchode::testing::pollu_model_path());
  const std::string src = generate_system(pollu, {"Pollu", true});
  const std::string nonzeros = std::to_string(pollu.jacobian_nonzeros().size());
  for (const std::string& line :
       {std::string("#include \"batchode/kernels/linalg/sparse_lu.hpp\"\n"),
        "  static constexpr batchode::port::size_t jacobian_nonzeros = " + nonzeros + ";\n",
        std::string(
            "  BATCHODE_HOST_DEVICE void sparse_jacobian(T t, const T* y, const T* p, T* Js) const {\n"),
        std::string(
            "  BATCHODE_HOST_DEVICE batchode::kernels::PivotsKept<T> sparse_lu_factor(T diag, const T* Js, "
            "T* W) const {\n"),
        std::string("    kl::PivotsKept<T> kept(true);\n"), std::string("    return kept;\n"),
        std::string("  BATCHODE_HOST_DEVICE void sparse_lu_solve(const T* W, T* b) const {\n"),
        std::string("    Js[0] = "),
        "    Js[" + std::to_string(pollu.jacobian_nonzeros().size() - 1) + "] = ",
        std::string("if (kl::pivot_lost(W["), std::string("  // pivots in the order ")}) {
    EXPECT_NE(src.find(line), std::string::npos) << "missing: " << line << "in:\n" << src;
  }
  EXPECT_EQ(src.find("bandwidth"), std::string::npos);
  EXPECT_EQ(generate_system(pollu, {"Pollu", true, LinearSolver::dense}).find("sparse_lu"), std::string::npos);
  EXPECT_EQ(generate_system(pollu, {"Pollu", false}).find("sparse"), std::string::npos);
  try {
    generate_system(pollu, {"Pollu", true, LinearSolver::band});
    ADD_FAILURE() << "a band was written for POLLU";
  } catch (const batchode::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("linear_solver band: the Jacobian of model 'pollu'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(generate_system(parse(kConstant), {"Constant", true, LinearSolver::sparse}), batchode::InvalidInput);
}

// From CodegenOptions::sparse_lu_loops_from slots the factorisation's rows that repeat with their slots and
// states shifted alike are loops (BRUSS: along its chain), the rest straight-line; the solve's from
// sparse_lu_solve_loops_from (default: never), carrying the b values it finished in registers; below,
// straight-line code only. (Their numbers are the same: RuntimeModelTest.ASparseLuWithLoopsGivesThe
// StraightLineNumbers.)
TEST(Codegen, FoldsALargeSparseLusRepeatedRowsIntoLoops) {
  const Model bruss = parse(batchode::testing::bruss_toml(32));
  const std::string loop = "for (batchode::port::size_t t = 0; t < ";
  auto generate = [&](std::size_t factor_from, std::size_t solve_from) {
    batchode::models::CodegenOptions o{"Bruss", true};
    o.sparse_lu_loops_from = factor_from;
    o.sparse_lu_solve_loops_from = solve_from;
    const std::string src = generate_system(bruss, o);
    const std::size_t factor = src.find("sparse_lu_factor(T diag"), solve = src.find("sparse_lu_solve(const T*");
    EXPECT_NE(factor, std::string::npos);
    EXPECT_NE(solve, std::string::npos);
    const std::size_t first_loop = src.find(loop, factor);
    return std::make_pair(first_loop < solve, src.find(loop, solve) != std::string::npos);
  };
  constexpr std::size_t never = static_cast<std::size_t>(-1);
  EXPECT_EQ(generate(0, 0), std::make_pair(true, true));
  EXPECT_EQ(generate(0, never), std::make_pair(true, false));
  EXPECT_EQ(generate(never, 0), std::make_pair(false, true));
  EXPECT_EQ(generate(never, never), std::make_pair(false, false));
  batchode::models::CodegenOptions defaults{"Bruss", true};  // 64 states: past the factorisation's default
  EXPECT_EQ(defaults.sparse_lu_solve_loops_from, never);
  const std::string src = generate_system(bruss, defaults);
  EXPECT_EQ(src.find("T c0_1 = b["), std::string::npos) << "no loop in the default solve";
  EXPECT_LT(src.find(loop), src.find("sparse_lu_solve(const T*"));
  batchode::models::CodegenOptions o{"Bruss", true};
  o.sparse_lu_solve_loops_from = 0;
  EXPECT_NE(generate_system(bruss, o).find("      T c0_1 = b["), std::string::npos) << "the solve carries b";
}

// A sparse LU and its linearisation take packs of runs (simd_linearization: the Rosenbrock methods'
// blocks on the CPU) where J and df/dt compare nothing: POLLU's do; the derivative of |x| chooses on the
// sign of x, so a model with |x| in an equation takes packs in its call operator only.
TEST(Codegen, ASparseLuTakesPacksWhereItsDerivativesCompareNothing) {
  const std::string line = "  static constexpr bool simd_linearization = true;";
  const Model pollu = load_model(batchode::testing::pollu_model_path());
  EXPECT_NE(generate_system(pollu, {"Pollu", true}).find(line), std::string::npos);
  EXPECT_EQ(generate_system(pollu, {"Pollu", true, LinearSolver::dense}).find(line), std::string::npos)
      << "a dense LU pivots: a run's own";
  const std::string with_abs = generate_system(parse(R"(name = "with_abs"
equations = """
dx = -abs(x) + y
dy = -y
dz = x - z
"""
[states]
x = 1
y = 2
z = 3
)"),
                                               {"WithAbs", true, LinearSolver::sparse});
  EXPECT_NE(with_abs.find("simd_runs = true"), std::string::npos) << with_abs;
  EXPECT_NE(with_abs.find("sparse_lu_factor"), std::string::npos) << with_abs;
  EXPECT_EQ(with_abs.find(line), std::string::npos) << with_abs;
}

TEST(Codegen, TextKeepsGroupingAndUsesTheHelpers) {
  const std::string src = generate_system(parse(kPrecedence));
  for (const char* piece :
       {"s_x - (s_y - s_z) - -s_x + s_x / (s_y / s_z) - s_x / s_y / s_z + -mm::ipow<2>(s_x)",
        "mm::ipow<2>(-s_x)", "mm::pow(T(2), -s_y)", "mm::pow(s_x, mm::pow(s_y, T(0.5)))", "-(-s_x)",
        "(s_x + (s_y + s_z)) * (s_x * (s_y * s_z))", "(s_x < s_y ? s_x - s_y : s_y - s_x)",
        "(!(s_x < T(1)) && ((s_y >= T(2)) || (s_z != T(0)))) || (s_x == s_y)", "T(1e-300) * s_x",
        "T(2.5e+300)", "T(0.1) - T(5)"}) {
    EXPECT_NE(src.find(piece), std::string::npos) << "missing: " << piece << "\nin:\n" << src;
  }
  EXPECT_EQ(src.find("simd_runs"), std::string::npos) << "a model that compares values cannot take packs";
}

TEST(Codegen, RefusesUnusableTypeNamesAndEmptyModels) {
  const Model m = load("lorenz.toml");
  for (const char* bad : {"", "2fast", "my model", "int", "class", "a-b"}) {
    EXPECT_THROW(generate_system(m, {bad, false}), batchode::InvalidInput) << bad;
  }
  EXPECT_NO_THROW(generate_system(m, {"_Lorenz2", false}));
  EXPECT_THROW(generate_system(Model{}), batchode::InvalidInput);
}

TEST(Codegen, HostCompilerAcceptsGeneratedCode) {
  support::TempDir dir;
  const std::vector<Generated> models = models_for_compilation();
  const std::string tu = write_sources(dir, models) + checks_of(models);
  support::write_file(dir.file("check.cpp"), tu);
  const support::RunResult r = support::compile({dir.file("check.cpp")}, kStrict, dir.file("log.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.output << "\nsource:\n" << tu;
}

TEST(Codegen, HostCompilerCheckCanFail) {
  // The same check refuses a Jacobian that was not generated: the compile step really checks.
  support::TempDir dir;
  const std::vector<Generated> models = {{"VanDerPol", parse(kVanDerPol), false}};
  const std::string tu =
      write_sources(dir, models) +
      "#include \"batchode/kernels/linalg/jacobian.hpp\"\n"
      "static_assert(batchode::has_jacobian_v<VanDerPol, double>, \"no_jacobian_here\");\n";
  support::write_file(dir.file("check.cpp"), tu);
  const support::RunResult r = support::compile({dir.file("check.cpp")}, kStrict, dir.file("log.txt"));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no_jacobian_here"), std::string::npos) << r.output;
}

// --- A program built from generated code, run, against the interpreter --------------------------

struct Sample {
  double t;
  std::vector<double> y, p;
};

std::string hex(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", v);
  return buffer;
}

std::string array(const std::vector<double>& v) {
  std::string s = "{";
  for (double x : v) s += hex(x) + ", ";
  return s + "0}";  // never empty (no parameters)
}

TEST(Codegen, GeneratedProgramComputesWhatTheInterpreterComputes) {
  struct Case {
    std::string type;
    Model model;
    std::vector<Sample> samples;
    LinearSolver linear_solver = LinearSolver::automatic;
  };
  std::vector<Case> cases = {
      {"EveryFunction",
       load("every_function.toml"),
       {{0.7, {0.5, 1.5, -0.3}, {2}}, {1.3, {1.2, 0.8, 0.4}, {2.5}}, {2.0, {-0.4, 0.9, 1.1}, {0.7}}}},
      {"Chain", parse(kChain), {{0.3, {0.4, -0.7}, {}}, {2.5, {-1.1, 0.2}, {}}}},
      {"Precedence",
       parse(kPrecedence),
       {{0, {1.25, 1.5, 0.75}, {}}, {0, {0.5, 2.5, -1}, {}}, {0, {2, 2, 0.5}, {}}}},
      {"Lorenz", load("lorenz.toml"), {{0, {1, 2, 3}, {28}}, {0, {-8, 7, 27}, {14}}}},
      {"Lorenz96", parse(batchode::testing::lorenz96_toml(20)), {{0, std::vector<double>(20, 0.5), {8}}}},
      {"Bruss",
       parse(batchode::testing::bruss_toml(8)),
       {{0, std::vector<double>(16, 1.5), {1.1}}},
       LinearSolver::band},
      {"BrussSparse", parse(batchode::testing::bruss_toml(8)), {{0, std::vector<double>(16, 1.5), {1.1}}}},
      {"Pollu",
       load_model(batchode::testing::pollu_model_path()),
       {{0, std::vector<double>(20, 0.01), {0.35}}}},
      {"Shapes", parse(kShapes), {{0.5, {0.3, -1.2, 0.7, 2.1, -0.4, 1.6, 0.9, -0.8, 1.1}, {1.5}}}}};
  for (std::size_t i = 0; i < 20; ++i) cases[4].samples[0].y[i] += 0.1 * static_cast<double>(i * i % 7);
  for (std::size_t i = 0; i < 16; ++i) cases[5].samples[0].y[i] += 0.3 * static_cast<double>(i * i % 5);
  for (std::size_t i = 0; i < 16; ++i) cases[6].samples[0].y[i] += 0.3 * static_cast<double>(i * i % 5);
  for (std::size_t i = 0; i < 20; ++i) cases[7].samples[0].y[i] *= 1.0 + static_cast<double>(i % 3);

  support::TempDir dir;
  std::string program = "#include <cstdio>\n";
  for (const Case& c : cases) {
    support::write_file(dir.file(c.type + ".hpp"), generate_system(c.model, {c.type, true, c.linear_solver}));
    program += "#include \"" + dir.file(c.type + ".hpp") + "\"\n";
  }
  program += R"(#include "batchode/kernels/linalg/jacobian.hpp"
#include "batchode/kernels/linalg/lu.hpp"
#include "batchode/kernels/launch/lane_group.hpp"
// The generated call operator alone: kernels::linearize then differentiates it with dual numbers.
template <class M>
struct CallOnly {
  static constexpr batchode::port::size_t n_states = M::n_states;
  static constexpr batchode::port::size_t n_params = M::n_params;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* f) const { M{}(t, y, p, f); }
};
template <class M>
void run(const char* name, int sample, double t, const double* y, const double* p) {
  constexpr batchode::port::size_t N = M::n_states, P = M::n_params;
  double f[N], J[N * N], ft[N], f_ad[N], J_ad[N * N], ft_ad[N];
  M{}(t, y, p, f);
  M{}.jacobian(t, y, p, J);
  M{}.time_derivative(t, y, p, ft);
  batchode::kernels::linearize<N, P>(CallOnly<M>{}, t, y, p, f_ad, J_ad, ft_ad);
  float yf[N], pf[P + 1], ff[N];
  for (batchode::port::size_t i = 0; i < N; ++i) yf[i] = static_cast<float>(y[i]);
  for (batchode::port::size_t i = 0; i < P; ++i) pf[i] = static_cast<float>(p[i]);
  M{}(static_cast<float>(t), yf, pf, ff);
  auto put = [&](const char* what, batchode::port::size_t i, double v) {
    std::printf("%s %d %s %zu %a\n", name, sample, what, static_cast<std::size_t>(i), v);
  };
  for (batchode::port::size_t i = 0; i < N; ++i) {
    put("f", i, f[i]);
    put("ft", i, ft[i]);
    put("ft_ad", i, ft_ad[i]);
    put("f_float", i, static_cast<double>(ff[i]));
  }
  for (batchode::port::size_t k = 0; k < N * N; ++k) {
    put("J", k, J[k]);
    put("J_ad", k, J_ad[k]);
  }
  if constexpr (batchode::has_rhs_component_v<M, double>) {  // one component at a time, y as a pointer
    for (batchode::port::size_t i = 0; i < N; ++i) put("f_component", i, M{}.rhs_component(i, t, y, p));
  }
  if constexpr (batchode::has_sparse_lu_v<M, double>) {
    // J's nonzeros (printed by their index; the test knows their places), and W x = b solved by the
    // generated sparse LU and by kernels/linalg/lu.hpp's dense one, W = diag I - J.
    double Js[M::jacobian_nonzeros], W[M::sparse_lu_size], dense[N * N], x[N], x_dense[N];
    int piv[N];
    M{}.sparse_jacobian(t, y, p, Js);
    for (batchode::port::size_t k = 0; k < M::jacobian_nonzeros; ++k) put("Js", k, Js[k]);
    const double diag = 1e3;
    for (batchode::port::size_t k = 0; k < N * N; ++k) dense[k] = (k % (N + 1) == 0 ? diag : 0.0) - J[k];
    for (batchode::port::size_t i = 0; i < N; ++i) x[i] = x_dense[i] = 1.0 + 0.5 * static_cast<double>(i % 4);
    put("factored", 0, M{}.sparse_lu_factor(diag, Js, W) ? 1.0 : 0.0);
    M{}.sparse_lu_solve(W, x);
    put("factored_dense", 0, batchode::kernels::lu_factor<N>(dense, piv) ? 1.0 : 0.0);
    batchode::kernels::lu_solve<N>(dense, piv, x_dense);
    for (batchode::port::size_t i = 0; i < N; ++i) {
      put("x_sparse", i, x[i]);
      put("x_dense", i, x_dense[i]);
    }
  }
  if constexpr (batchode::has_band_jacobian_v<M, double>) {  // printed at the dense index
    using Shape = batchode::kernels::JacobianBand<M>;
    double Jb[Shape::jacobian_size];
    M{}.band_jacobian(t, y, p, Jb);
    for (batchode::port::size_t i = 0; i < N; ++i) {
      for (batchode::port::size_t c = 0; c < Shape::jacobian_width; ++c) {
        if (c + i >= Shape::lower && c + i - Shape::lower < N) {
          put("J_band", i * N + (c + i - Shape::lower), Jb[i * Shape::jacobian_width + c]);
        }
      }
    }
  }
}
int main() {
)";
  for (const Case& c : cases) {
    for (std::size_t k = 0; k < c.samples.size(); ++k) {
      const Sample& s = c.samples[k];
      program += "  {\n    const double y[] = " + array(s.y) + ", p[] = " + array(s.p) + ";\n";
      program += "    run<" + c.type + ">(\"" + c.type + "\", " + std::to_string(k) + ", " + hex(s.t) +
                 ", y, p);\n  }\n";
    }
  }
  program += "}\n";
  support::write_file(dir.file("run.cpp"), program);
  const support::RunResult ran = support::build_and_run(dir, "run.cpp", {"-O0"});
  ASSERT_EQ(ran.exit_code, 0) << ran.output << "\nprogram:\n" << program;

  std::map<std::tuple<std::string, int, std::string, std::size_t>, double> values;
  std::istringstream lines(ran.output);
  std::string name, kind, number;
  int sample = 0;
  std::size_t index = 0;
  while (lines >> name >> sample >> kind >> index >> number) {
    values[{name, sample, kind, index}] = std::strtod(number.c_str(), nullptr);
  }
  std::size_t compared = 0;
  for (const Case& c : cases) {
    const std::size_t n = c.model.n_states();
    for (std::size_t k = 0; k < c.samples.size(); ++k) {
      const Sample& s = c.samples[k];
      std::vector<double> f(n), J(n * n), ft(n);
      evaluate_rhs(c.model, s.t, s.y.data(), s.p.data(), f.data());
      evaluate_jacobian(c.model, s.t, s.y.data(), s.p.data(), J.data(), ft.data());
      auto at = [&](const char* what, std::size_t i) {
        const auto it = values.find({c.type, static_cast<int>(k), what, i});
        EXPECT_NE(it, values.end()) << c.type << " " << k << " " << what << " " << i << " missing in:\n"
                                    << ran.output;
        ++compared;
        return it == values.end() ? std::nan("") : it->second;
      };
      const std::string where = c.type + " sample " + std::to_string(k);
      for (std::size_t i = 0; i < n; ++i) {
        // The same operations in the same order as the interpreter: the same doubles.
        EXPECT_EQ(at("f", i), f[i]) << where << " f[" << i << "]";
        if (component_shapes(c.model)) {
          EXPECT_EQ(at("f_component", i), f[i]) << where << " rhs_component(" << i << ")";
        }
        EXPECT_EQ(at("ft", i), ft[i]) << where << " f_t[" << i << "]";
        EXPECT_NEAR(at("ft_ad", i), ft[i], 1e-10 * std::max(1.0, std::fabs(ft[i])))
            << where << " AD f_t[" << i << "]";
        // float: the same expressions in float (a loose check that the float instantiation runs them),
        // where the value is within float's range.
        const double f_float = at("f_float", i);
        if (std::fabs(f[i]) < 1e30) {
          EXPECT_NEAR(f_float, f[i], 1e-4 * std::max(1.0, std::fabs(f[i])))
              << where << " float f[" << i << "]";
        }
      }
      if (sparse_type(c.type)) {  // the sparse LU's
        const auto nonzeros = c.model.jacobian_nonzeros();
        for (std::size_t z = 0; z < nonzeros.size(); ++z) {
          EXPECT_EQ(at("Js", z), J[nonzeros[z].first * n + nonzeros[z].second]) << where << " Js[" << z << "]";
        }
        EXPECT_EQ(at("factored", 0), 1.0) << where;
        EXPECT_EQ(at("factored_dense", 0), 1.0) << where;
        for (std::size_t i = 0; i < n; ++i) {
          const double dense = at("x_dense", i);
          EXPECT_NEAR(at("x_sparse", i), dense, 1e-13 * std::fabs(dense)) << where << " x[" << i << "]";
        }
      }
      for (std::size_t e = 0; e < n * n; ++e) {
        EXPECT_EQ(at("J", e), J[e]) << where << " J[" << e << "]";
        if (c.type == "Bruss" && J[e] != 0) {  // every nonzero in the band, as the dense one has it
          EXPECT_EQ(at("J_band", e), J[e]) << where << " band J[" << e << "]";
        }
        EXPECT_NEAR(at("J_ad", e), J[e], 1e-10 * std::max(1.0, std::fabs(J[e])))
            << where << " AD J[" << e << "]";
      }
    }
  }
  EXPECT_GT(compared, 100u);
}

// --- The runtime compilers ------------------------------------------------------------------------

#if BATCHODE_HAVE_NVRTC || BATCHODE_HAVE_HIPRTC
/// Generated systems with the batch kernel instantiated for Rosenbrock methods (through the generated
/// jacobian() and time_derivative()) and an explicit one, in double and float, and a kernel running a
/// call operator on dual numbers. `broken`: one system and a failing static_assert instead, to show
/// that a failure is seen.
std::string runtime_program(bool broken) {
  std::string s =
      "#include \"batchode/kernels/launch/batch_kernel.hpp\"\n#include \"batchode/kernels/methods/tableaux.hpp\"\n"
      "#include \"batchode/kernels/core/system.hpp\"\n";
  if (broken) {
    return s + generate_system(load("lorenz.toml"), {"Lorenz", true}) +
           "static_assert(!batchode::is_ode_system_v<Lorenz, float>, \"batchode_models_negative_check\");\n";
  }
  const std::vector<Generated> models = {
      {"Lorenz", load("lorenz.toml"), true},
      {"EveryFunction", load("every_function.toml"), true},
      {"Chain", parse(kChain), true},
      {"Bruss", parse(batchode::testing::bruss_toml(8)), true},
      {"Pollu", load_model(batchode::testing::pollu_model_path()), true},
      // Events at given times: event_time(), events() without them.
      {"Dosing", load_model(BATCHODE_EXAMPLE_MODELS_DIR "/dosing.toml"), true}};
  for (const Generated& g : models) {
    s += generate_system(g.model, {g.type, g.jacobian}) + "\n";
    s += "static_assert(batchode::has_analytic_linearization_v<" + g.type + ", double>);\n";
    s += "static_assert(batchode::kernels::StepperFor<batchode::tableau::Rodas4, " + g.type +
         ", float>::available);\n";
  }
  s += "static_assert(batchode::time_events_v<Dosing> == 1u);\n";
  // BRUSS and POLLU take the sparse LU (kernels/linalg/sparse_lu.hpp) on the device too.
  s += "static_assert(batchode::kernels::RosenbrockShape<Bruss, double>::sparse && "
       "batchode::kernels::RosenbrockShape<Pollu, float>::sparse);\n";
  struct Kernel {
    const char *tableau, *system, *value;
  };
  for (const Kernel& k : {Kernel{"Rodas4", "Lorenz", "double"}, Kernel{"Rodas4", "EveryFunction", "float"},
                          Kernel{"Ros3p", "Chain", "double"}, Kernel{"Dopri5", "EveryFunction", "double"},
                          Kernel{"Rodas4", "Bruss", "double"}, Kernel{"Ros3p", "Pollu", "float"},
                          Kernel{"Dopri5", "Dosing", "double"}, Kernel{"Rodas4", "Dosing", "float"}}) {
    const std::string value = k.value, system = k.system;
    s += "template __global__ void batchode::kernels::integrate_chunk<batchode::tableau::" +
         std::string(k.tableau) + ", false, " + system + ", " + value + ">(" + system +
         ", batchode::RunSettings<" + value + ">, batchode::kernels::DeviceInputs<" + value +
         ">, batchode::kernels::DeviceOutputs<" + value + ">);\n";
  }
  s += R"(extern "C" __global__ void batchode_models_dual_check(double* out) {
  using D = batchode::kernels::Dual<double, 4>;
  D y[3] = {D::variable(0.5, 0), D::variable(1.5, 1), D::variable(-0.3, 2)}, p[1] = {D(2.0)}, f[3];
  EveryFunction{}(D::variable(0.7, 3), y, p, f);
  for (int i = 0; i < 3; ++i) out[i] = f[i].d[0];
}
)";
  return s;
}
#endif

#if BATCHODE_HAVE_NVRTC
/// Compiles with NVRTC as tests/kernels/nvrtc_core_test does: only the kernels' include folder.
bool nvrtc_compiles(const std::string& source, std::string& log) {
  nvrtcProgram program{};
  if (nvrtcCreateProgram(&program, source.c_str(), "model.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    log = "nvrtcCreateProgram failed";
    return false;
  }
  const std::string include = "-I" + support::kernels_include_dir();
  const char* options[] = {"--std=c++17", "-arch=compute_90", "-default-device", include.c_str()};
  const nvrtcResult compiled = nvrtcCompileProgram(program, 4, options);
  std::size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  log.assign(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  std::size_t ptx = 0;
  if (compiled == NVRTC_SUCCESS) nvrtcGetPTXSize(program, &ptx);
  nvrtcDestroyProgram(&program);
  return compiled == NVRTC_SUCCESS && ptx > 0;
}
#endif

TEST(Codegen, NvrtcCompilesGeneratedCode) {
#if BATCHODE_HAVE_NVRTC
  std::string log;
  EXPECT_TRUE(nvrtc_compiles(runtime_program(false), log)) << "NVRTC log:\n" << log;
  EXPECT_FALSE(nvrtc_compiles(runtime_program(true), log)) << "a failing static_assert compiled";
  EXPECT_NE(log.find("batchode_models_negative_check"), std::string::npos) << log;
#else
  GTEST_SKIP() << "NVRTC not found at configure time: generated code was not compiled by it";
#endif
}

#if BATCHODE_HAVE_HIPRTC
bool hiprtc_compiles(const std::string& source, std::string& log) {
  hiprtcProgram program{};
  if (hiprtcCreateProgram(&program, source.c_str(), "model.hip", 0, nullptr, nullptr) != HIPRTC_SUCCESS) {
    log = "hiprtcCreateProgram failed";
    return false;
  }
  const std::string include = "-I" + support::kernels_include_dir();
  const char* options[] = {"-std=c++17", "--offload-arch=gfx90a", include.c_str()};
  const hiprtcResult compiled = hiprtcCompileProgram(program, 3, options);
  std::size_t size = 0;
  hiprtcGetProgramLogSize(program, &size);
  log.assign(size, '\0');
  if (size > 0) hiprtcGetProgramLog(program, log.data());
  std::size_t code = 0;
  if (compiled == HIPRTC_SUCCESS) hiprtcGetCodeSize(program, &code);
  hiprtcDestroyProgram(&program);
  return compiled == HIPRTC_SUCCESS && code > 0;
}
#endif

TEST(Codegen, HiprtcCompilesGeneratedCode) {
#if BATCHODE_HAVE_HIPRTC
  std::string log;
  EXPECT_TRUE(hiprtc_compiles(runtime_program(false), log)) << "hipRTC log:\n" << log;
  EXPECT_FALSE(hiprtc_compiles(runtime_program(true), log)) << "a failing static_assert compiled";
  EXPECT_NE(log.find("batchode_models_negative_check"), std::string::npos) << log;
#else
  GTEST_SKIP() << "hipRTC not linked (not found at configure time, or a sanitized build: the plain build "
                  "runs this): generated code was not compiled by it";
#endif
}

}  // namespace
