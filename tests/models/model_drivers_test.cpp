// tests/models: drivers (issue 11) in model text: the [drivers] table read (names, samples, every key),
// its mistakes at their line and column, names that clash; the equations read a driver by name; the
// generated code (n_drivers, driver_names, u before every member's output, no symbolic df/dt, which
// no tree can hold) compiled by the host compiler and run against the interpreter given the same u.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/models/codegen.hpp"
#include "batchode/models/evaluate.hpp"
#include "batchode/models/model.hpp"
#include "compile_support.hpp"

namespace {

using namespace batchode::models;
namespace support = batchode::models::testing;

const char* kForced = R"(name = "forced"
equations = """
drive = b * u + v
dy = -a * y + drive
"""
observables = ["drive"]
[states]
y = 1.0
[parameters]
a = 0.5
b = 2.0
[drivers]
u = {}
v = { times = [0.0, 1.0, 3.0], values = [1.0, 2.0, 0.5], order = 3, end = "clamped", wrap = true }
)";

ModelError error_of(const std::string& text) {
  try {
    parse_model(read_model_toml(text, "m.toml"));
  } catch (const ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "no ModelError for:\n" << text;
  return ModelError({}, "");
}

TEST(ModelDrivers, TheTableIsReadInOrderWithItsSamples) {
  const Model m = parse_model(read_model_toml(kForced, "m.toml"));
  ASSERT_EQ(m.drivers().size(), 2u);
  EXPECT_EQ(m.drivers()[0].name, "u");
  EXPECT_TRUE(m.drivers()[0].values.empty());
  const DriverDescription& v = m.drivers()[1];
  EXPECT_EQ(v.name, "v");
  EXPECT_EQ(v.times, (std::vector<double>{0.0, 1.0, 3.0}));
  EXPECT_EQ(v.values, (std::vector<double>{1.0, 2.0, 0.5}));
  EXPECT_EQ(v.order, 3);
  EXPECT_EQ(v.end, "clamped");
  EXPECT_TRUE(v.wrap);
  EXPECT_FALSE(v.dt.has_value());
}

TEST(ModelDrivers, MistakesAreNamedWhereTheyAre) {
  const std::string head = "name = \"m\"\nequations = \"dy = -y + u\"\n[states]\ny = 1.0\n";
  ModelError e = error_of(head + "[drivers]\nu = { dt = 0.1, valuez = [1.0] }\n");
  EXPECT_EQ(e.where().line, 6u);
  EXPECT_EQ(e.where().column, 17u);
  EXPECT_NE(e.message().find("driver 'u': unknown key 'valuez'"), std::string::npos) << e.what();
  e = error_of(head + "[drivers]\nu = 3.0\n");
  EXPECT_EQ(e.where().line, 6u);
  EXPECT_NE(e.message().find("driver 'u' must be a table"), std::string::npos) << e.what();
  e = error_of(head + "[drivers]\nu = { values = [1.0, \"x\"] }\n");
  EXPECT_NE(e.message().find("values must hold numbers, not a string"), std::string::npos) << e.what();
  e = error_of(head + "[drivers]\nu = { order = 3.5 }\n");
  EXPECT_NE(e.message().find("order must be 1 or 3"), std::string::npos) << e.what();
  e = error_of(head + "[parameters]\nu = 1.0\n[drivers]\nu = {}\n");
  EXPECT_NE(e.message().find("'u' is declared twice: as a parameter and as a driver"), std::string::npos)
      << e.what();
  e = error_of(head + "[drivers]\nu = { dt = 0.1, order = 3 }\n");  // settings the solve's samples would drop
  EXPECT_EQ(e.where().line, 6u);
  EXPECT_NE(e.message().find("driver 'u' has settings but no values"), std::string::npos) << e.what();
  e = error_of(head + "[drivers]\nexp = {}\n");
  EXPECT_NE(e.message().find("reserved word"), std::string::npos) << e.what();
  // Without the table, u is unknown, and the message lists the drivers among the names.
  e = error_of(head);
  EXPECT_NE(e.message().find("'u'"), std::string::npos) << e.what();
}

TEST(ModelDrivers, TheGeneratedCodeTakesTheDriversAndHasNoSymbolicTimeDerivative) {
  const Model m = parse_model(read_model_toml(kForced, "m.toml"));
  const std::string code = generate_system(m, {"Forced", true});
  EXPECT_NE(code.find("static constexpr batchode::port::size_t n_drivers = 2;"), std::string::npos) << code;
  EXPECT_NE(code.find("driver_names[] = {\"u\", \"v\"}"), std::string::npos) << code;
  EXPECT_NE(code.find("operator()(T t, const T* y, const T* p, const T* u, T* dydt)"), std::string::npos) << code;
  EXPECT_NE(code.find("jacobian(T t, const T* y, const T* p, const T* u, T* J)"), std::string::npos) << code;
  EXPECT_NE(code.find("observables(T t, const T* y, const T* p, const T* u, T* out)"), std::string::npos) << code;
  EXPECT_EQ(code.find("time_derivative"), std::string::npos) << code;
  // The interpreter reads u as given, and refuses a driven model's symbolic df/dt.
  const double y[1] = {0.5}, p[2] = {0.5, 2.0}, u[2] = {0.25, -1.0};
  double dydt[1], J[1], f_t[1];
  evaluate_rhs(m, 0.0, y, p, dydt, u);
  EXPECT_EQ(dydt[0], -0.5 * 0.5 + (2.0 * 0.25 + -1.0));
  evaluate_jacobian(m, 0.0, y, p, J, nullptr, u);
  EXPECT_EQ(J[0], -0.5);
  EXPECT_THROW(evaluate_jacobian(m, 0.0, y, p, J, f_t, u), std::logic_error);
  EXPECT_THROW(evaluate_rhs(m, 0.0, y, p, dydt), std::logic_error);
}

TEST(ModelDrivers, TheHostCompilerBuildsAndRunsTheGeneratedCode) {
  const Model m = parse_model(read_model_toml(kForced, "m.toml"));
  const std::string program = generate_system(m, {"Forced", true}) + R"(
#include <cstdio>
int main() {
  const double y[1] = {0.5}, p[2] = {0.5, 2.0}, u[2] = {0.25, -1.0};
  double dydt[1], J[1], out[1];
  Forced f;
  f(0.0, y, p, u, dydt);
  f.jacobian(0.0, y, p, u, J);
  f.observables(0.0, y, p, u, out);
  std::printf("%.17g %.17g %.17g\n", dydt[0], J[0], out[0]);
  return 0;
}
)";
  support::TempDir dir;
  support::write_file(dir.file("run.cpp"), program);
  const support::RunResult built =
      support::compile({dir.file("run.cpp")}, {"-O0", "-o", dir.file("run")}, dir.file("build.txt"));
  ASSERT_EQ(built.exit_code, 0) << built.output << "\nprogram:\n" << program;
  const support::RunResult r = support::run_program({dir.file("run")}, dir.file("out.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  double dydt = 0, J = 0, drive = 0;
  ASSERT_EQ(std::sscanf(r.output.c_str(), "%lf %lf %lf", &dydt, &J, &drive), 3) << r.output;
  EXPECT_EQ(dydt, -0.5 * 0.5 + (2.0 * 0.25 + -1.0));
  EXPECT_EQ(J, -0.5);
  EXPECT_EQ(drive, 2.0 * 0.25 + -1.0);
}

}  // namespace
