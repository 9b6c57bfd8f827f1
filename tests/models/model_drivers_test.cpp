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

/// The error of a [drivers] table whose one line (line 6 of the file) is `line`, as "line:col: message".
std::string driver_error(const std::string& line) {
  const ModelError e =
      error_of("name = \"m\"\nequations = \"dy = -y + u\"\n[states]\ny = 1.0\n[drivers]\n" + line + "\n");
  return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
}

TEST(ModelDrivers, SamplesThatASolveWouldRefuseAreNamedAtTheKeyOrEntryAtFault) {
  // Issue 44: `batchode check` passed these nine and the solve refused them without a place.
  EXPECT_EQ(driver_error("u = { times = [0.0, 0.75, 0.5], values = [1.0, 2.0, 3.0] }"),
            "6:27: driver 'u': times[2] = 0.5 is not after times[1] = 0.75: times must increase");
  EXPECT_EQ(driver_error("u = { dt = 0.5, values = [1.0, nan, 3.0] }"),
            "6:32: driver 'u': values[1] = nan is not finite");
  EXPECT_EQ(driver_error("u = { dt = 0, values = [1.0, 2.0] }"),
            "6:12: driver 'u': dt = 0 is not positive and finite");
  EXPECT_EQ(driver_error("u = { dt = -0.5, values = [1.0, 2.0] }"),
            "6:12: driver 'u': dt = -0.5 is not positive and finite");
  EXPECT_EQ(driver_error("u = { dt = inf, values = [1.0, 2.0] }"),
            "6:12: driver 'u': dt = inf is not positive and finite");
  EXPECT_EQ(driver_error("u = { dt = 0.5, values = [1.0, 2.0], order = 2 }"),
            "6:46: driver 'u': order = 2 is not 1 (linear) or 3 (cubic spline)");
  EXPECT_EQ(driver_error("u = { dt = 0.5, times = [0.0, 1.0], values = [1.0, 2.0] }"),
            "6:12: driver 'u': both dt and times are set: give one (uniform samples, or their times)");
  EXPECT_EQ(driver_error("u = { times = [0.0, 1.0, 2.0], values = [1.0, 2.0] }"),
            "6:15: driver 'u': times has 3 entries for 2 samples: one time per sample");
  EXPECT_EQ(driver_error("u = { dt = 0.5, values = [1.0, 2.0, 3.0], order = 3, end = \"bogus\" }"),
            "6:60: driver 'u': end = 'bogus' is not one of natural, clamped, periodic, not-a-knot");
  // The rest of the fit's rules that need no solve.
  EXPECT_EQ(driver_error("u = { values = [1.0, 2.0] }"),
            "6:1: driver 'u': give the samples' times or dt (neither is set)");
  EXPECT_EQ(driver_error("u = { dt = 0.5, values = [1.0] }"),
            "6:26: driver 'u': values has 1 sample; linear interpolation needs at least 2");
  EXPECT_EQ(
      driver_error("u = { dt = 0.5, values = [0.0, 1.0, 2.0, 3.0], order = 3, end = \"periodic\" }"),
      "6:42: driver 'u': values[3] = 3 is not values[0] = 0: periodic ends need the first and last samples "
      "equal");
  EXPECT_EQ(driver_error("u = { dt = 1e308, values = [1.0, 2.0, 3.0] }"),
            "6:12: driver 'u': dt = 1e+308 over 3 samples spans no finite interval");
  // A driver written as a table of its own: its entries on their own lines.
  const ModelError e = error_of(
      "name = \"m\"\nequations = \"dy = -y + u\"\n[states]\ny = 1.0\n[drivers.u]\nvalues = [1.0, 2.0, 3.0]\n"
      "times = [\n  0.0,\n  1.0,\n  1.0,\n]\n");
  EXPECT_EQ(std::string(e.what()),
            "m.toml:10:3: driver 'u': times[2] = 1 is not after times[1] = 1: times must increase");
  // Valid samples still read, and an end is read by either spelling.
  EXPECT_NO_THROW(parse_model(read_model_toml(kForced, "m.toml")));
  EXPECT_NO_THROW(parse_model(
      read_model_toml("name = \"m\"\nequations = \"dy = -y + u\"\n[states]\ny = 1.0\n[drivers]\n"
                      "u = { dt = 0.5, values = [0.0, 1.0, 2.0, 0.0], order = 3, end = \"not_a_knot\" }\n",
                      "m.toml")));
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
  const support::RunResult r = support::build_and_run(dir, "run.cpp", {"-O0"});
  ASSERT_EQ(r.exit_code, 0) << r.output << "\nprogram:\n" << program;
  double dydt = 0, J = 0, drive = 0;
  ASSERT_EQ(std::sscanf(r.output.c_str(), "%lf %lf %lf", &dydt, &J, &drive), 3) << r.output;
  EXPECT_EQ(dydt, -0.5 * 0.5 + (2.0 * 0.25 + -1.0));
  EXPECT_EQ(J, -0.5);
  EXPECT_EQ(drive, 2.0 * 0.25 + -1.0);
}

}  // namespace
