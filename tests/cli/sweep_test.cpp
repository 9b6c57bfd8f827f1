// The --sweep parser and the grid it builds (cli/src/sweep.hpp), without the binary: every form's
// values (numpy's linspace/logspace conventions: both ends exact, logspace's a and b are exponents),
// every error with the flag's text in its message, and the grids (combinatorial order, verbatim,
// states and parameters, values float32 cannot hold).
#include "sweep.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using batchode::GridKind;
using batchode::cli::build_grid;
using batchode::cli::GridDefaults;
using batchode::cli::parse_sweep;
using batchode::cli::parse_sweeps;
using batchode::cli::Sweep;
using batchode::cli::UsageError;

std::vector<double> values(const std::string& text) { return parse_sweep(text).values; }

/// The UsageError message parse_sweep(text) throws, or "no error".
std::string error_of(const std::string& text) {
  try {
    parse_sweep(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepParse, Linspace) {
  const Sweep s = parse_sweep("rho=linspace(0,50,6)");
  EXPECT_EQ(s.name, "rho");
  EXPECT_EQ(s.text, "rho=linspace(0,50,6)");
  EXPECT_EQ(s.values, (std::vector<double>{0, 10, 20, 30, 40, 50}));
  EXPECT_EQ(values("rho=linspace(2.5, -1, 1)"), (std::vector<double>{2.5}));  // n = 1: a, as numpy
  const std::vector<double> v = values("x=linspace(0.1,0.3,3)");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v.front(), 0.1);
  EXPECT_EQ(v.back(), 0.3);  // exactly b, although 0.1 + (0.3 - 0.1) is not 0.3 in double
  EXPECT_DOUBLE_EQ(v[1], 0.2);
  EXPECT_EQ(values("  k_2 =  linspace ( -1 , 1 , 3 )  "), (std::vector<double>{-1, 0, 1}));
  EXPECT_EQ(values("rho=linspace(+1,1e1,2)"), (std::vector<double>{1, 10}));
}

TEST(SweepParse, LogspaceTakesExponents) {
  const std::vector<double> v = values("k=logspace(-2,2,5)");
  ASSERT_EQ(v.size(), 5u);
  const double expected[] = {0.01, 0.1, 1, 10, 100};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(v[i], expected[i]) << i;
  EXPECT_EQ(values("k=logspace(3,9,1)"), (std::vector<double>{1000}));
}

TEST(SweepParse, Lists) {
  EXPECT_EQ(values("rho=1,2.5,-3e-2"), (std::vector<double>{1, 2.5, -3e-2}));
  EXPECT_EQ(values("rho=5"), (std::vector<double>{5}));
  EXPECT_EQ(values("rho = 1 , 2 "), (std::vector<double>{1, 2}));
  EXPECT_EQ(values("_r0=+4"), (std::vector<double>{4}));
}

TEST(SweepParse, EveryErrorNamesTheFlagAndSaysWhat) {
  const std::pair<const char*, const char*> cases[] = {
      {"rho", "no '='; expected NAME=linspace(a,b,n), NAME=logspace(a,b,n) or NAME=v1,v2,..."},
      {"=1,2", "no name before '='"},
      {"1x=1", "'1x' is not a name"},
      {"r-ho=1", "'r-ho' is not a name"},
      {"rho=", "no values after '='"},
      {"rho=  ", "no values after '='"},
      {"rho=linspace(0,1)", "linspace takes 3 arguments (a, b, n), got 2"},
      {"rho=logspace()", "logspace takes 3 arguments (a, b, n), got 0"},
      {"rho=linspace(0,1,2,3)", "got 4"},
      {"rho=linspace(0,1,0)", "n must be at least 1, got 0"},
      {"rho=linspace(0,1,2.5)", "n must be a whole number of values (at least 1), got '2.5'"},
      {"rho=linspace(0,1,-3)", "got '-3'"},
      {"rho=linspace(0,1,)", "got ''"},
      {"rho=linspace(0,1,3", "no ')' closes linspace("},
      {"rho=linspace(0,1,3)x", "unexpected 'x' after linspace(...)"},
      {"rho=geomspace(1,2,3)", "unknown function 'geomspace': linspace(a,b,n) or logspace(a,b,n)"},
      {"rho=1,,2", "value 2 of the list is empty"},
      {"rho=1,2,", "value 3 of the list is empty"},
      {"rho=abc", "'abc' is not a number"},
      {"rho=1.5.2", "'1.5.2' is not a number"},
      {"rho=linspace(a,1,2)", "'a' is not a number"},
      {"rho=1e400", "'1e400' is out of a double's range"},
      {"rho=nan", "'nan' is not a finite number"},
      {"rho=1,inf", "'inf' is not a finite number"},
      {"rho=logspace(0,400,2)", "10^400 is too large for a double"},
      {"rho=linspace(0,1,99999999999999999999)", "got '99999999999999999999'"},
  };
  for (const auto& [text, why] : cases) {
    const std::string message = error_of(text);
    EXPECT_EQ(message.rfind(std::string("--sweep '") + text + "': ", 0), 0u) << text << " -> " << message;
    EXPECT_NE(message.find(why), std::string::npos) << text << " -> " << message;
  }
}

TEST(SweepParse, NameSweptTwice) {
  try {
    parse_sweeps({"rho=1,2", "x=1", "rho=linspace(0,1,3)"});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--sweep 'rho=linspace(0,1,3)': 'rho' is already swept by --sweep 'rho=1,2'");
  }
  EXPECT_EQ(parse_sweeps({"rho=1,2", "x=3"}).size(), 2u);
  EXPECT_TRUE(parse_sweeps({}).empty());
}

template <class T>
GridDefaults<T> lorenz() {
  return {{"x", "y", "z"}, {"rho", "sigma"}, {T(1), T(1), T(1)}, {T(28), T(10)}};
}

template <class T>
std::string grid_error(const std::vector<std::string>& texts, GridKind kind) {
  try {
    build_grid<T>(parse_sweeps(texts), kind, lorenz<T>());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

template <class T>
class SweepGrid : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SweepGrid, Precisions);

// The first sweep varies slowest; a state's sweep sets its initial value.
TYPED_TEST(SweepGrid, CombinatorialOverStatesAndParameters) {
  using T = TypeParam;
  const batchode::Batch<T> b =
      build_grid<T>(parse_sweeps({"rho=1,2", "x=linspace(5,7,3)"}), GridKind::combinatorial, lorenz<T>());
  ASSERT_EQ(b.n_runs, 6u);
  const T rho[] = {1, 1, 1, 2, 2, 2};
  const T x[] = {5, 6, 7, 5, 6, 7};
  for (std::size_t r = 0; r < 6; ++r) {
    EXPECT_EQ(b.params[r * 2 + 0], rho[r]) << r;
    EXPECT_EQ(b.params[r * 2 + 1], T(10)) << r;
    EXPECT_EQ(b.y0[r * 3 + 0], x[r]) << r;
    EXPECT_EQ(b.y0[r * 3 + 1], T(1)) << r;
    EXPECT_EQ(b.y0[r * 3 + 2], T(1)) << r;
  }
}

TYPED_TEST(SweepGrid, VerbatimPairsTheValues) {
  using T = TypeParam;
  const batchode::Batch<T> b =
      build_grid<T>(parse_sweeps({"z=3,4", "sigma=logspace(0,1,2)"}), GridKind::verbatim, lorenz<T>());
  ASSERT_EQ(b.n_runs, 2u);
  EXPECT_EQ(b.y0, (std::vector<T>{1, 1, 3, 1, 1, 4}));
  EXPECT_EQ(b.params, (std::vector<T>{28, 1, 28, 10}));
}

TYPED_TEST(SweepGrid, NoSweepIsOneRunOfTheDefaults) {
  using T = TypeParam;
  for (GridKind kind : {GridKind::combinatorial, GridKind::verbatim}) {
    const batchode::Batch<T> b = build_grid<T>({}, kind, lorenz<T>());
    EXPECT_EQ(b.n_runs, 1u);
    EXPECT_EQ(b.y0, (std::vector<T>{1, 1, 1}));
    EXPECT_EQ(b.params, (std::vector<T>{28, 10}));
  }
}

TYPED_TEST(SweepGrid, UnknownNameListsTheModelsNames) {
  EXPECT_EQ(grid_error<TypeParam>({"rho=1", "beta=1,2"}, GridKind::combinatorial),
            "--sweep 'beta=1,2': 'beta' is neither a state nor a parameter of the model (states: x, y, z; "
            "parameters: rho, sigma)");
}

TYPED_TEST(SweepGrid, VerbatimSweepsOfDifferentLengths) {
  EXPECT_EQ(
      grid_error<TypeParam>({"rho=1,2,3", "x=1,2"}, GridKind::verbatim),
      "--sweep 'x=1,2' has 2 values but --sweep 'rho=1,2,3' has 3: a verbatim grid takes the i-th value "
      "of every sweep, so all need as many");
  EXPECT_EQ(grid_error<TypeParam>({"rho=1,2,3", "x=1,2"}, GridKind::combinatorial), "no error");
}

TEST(SweepGrid, ValueBeyondFloat32) {
  EXPECT_EQ(grid_error<float>({"rho=1,1e50"}, GridKind::combinatorial),
            "--sweep 'rho=1,1e50': rho = 1e+50 does not fit float32 (largest 3.4028235e+38)");
  EXPECT_EQ(grid_error<double>({"rho=1,1e50"}, GridKind::combinatorial), "no error");
}

TEST(SweepGrid, RunCountBeyondSizeT) {
  // Four axes of 2^16 values: 2^64 runs, refused before anything that large is allocated.
  const std::string axis = "=linspace(0,1,65536)";
  const std::string message =
      grid_error<double>({"x" + axis, "y" + axis, "z" + axis, "rho" + axis}, GridKind::combinatorial);
  EXPECT_EQ(message.rfind("--sweep: ", 0), 0u) << message;
  EXPECT_NE(message.find("run count"), std::string::npos) << message;
}

}  // namespace
