// A system's compiled_methods (kernels/methods/method_registry.hpp): code is built for the listed methods
// only, they solve as they do for a system that lists none (the same bits), and any other method is
// refused before any work with an error that names it and the list. This file's build instantiates two
// methods for the system with the list (every method for the plain one: the comparison needs it).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <batchode/kernels/methods/method_registry.hpp>
#include <string>
#include <vector>

#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;

struct LorenzTwoMethods : Lorenz {
  static constexpr Method compiled_methods[] = {Method::rk4, Method::rodas4};
};

static_assert(compiles_method<LorenzTwoMethods>(Method::rk4));
static_assert(compiles_method<LorenzTwoMethods>(Method::rodas4));
static_assert(!compiles_method<LorenzTwoMethods>(Method::dopri5));
static_assert(!compiles_method<LorenzTwoMethods>(Method::ros3p));
static_assert(compiles_method<Lorenz>(Method::dopri5), "no list: every method");
static_assert(declares_compiled_methods_v<LorenzTwoMethods> && !declares_compiled_methods_v<Lorenz>);
static_assert(tableau::method_of<tableau::Rodas4>::value == Method::rodas4);
static_assert(tableau::method_of<tableau::OdeintRosenbrock4>::value == Method::rosenbrock4);

SolveOptions options(Method m) {
  SolveOptions o;
  o.method = m;
  o.t_end = 1;
  o.dt = 1e-3;
  o.rtol = o.atol = 1e-8;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.outputs.counters = true;
  return o;
}

const std::vector<double> y0{1, 1, 1, 2, 0, 1};
const std::vector<double> params{10, 28, 8.0 / 3, 10, 21, 8.0 / 3};

TEST(CompiledMethods, ListedMethodsSolveAsWithoutTheListBitForBit) {
  for (Method m : {Method::rk4, Method::rodas4}) {
    const SolveResult<double> listed = solve_ivp(LorenzTwoMethods{}, y0, params, options(m));
    const SolveResult<double> plain = solve_ivp(Lorenz{}, y0, params, options(m));
    for (std::size_t r = 0; r < 2; ++r) {
      ASSERT_EQ(listed.status(r), Status::success) << to_string(m);
      EXPECT_EQ(listed.counters(r).accepted_steps, plain.counters(r).accepted_steps) << to_string(m);
      EXPECT_GT(listed.counters(r).accepted_steps, 10u) << to_string(m);
      for (std::size_t s = 0; s < 3; ++s)
        EXPECT_EQ(listed.final_state(r, s), plain.final_state(r, s)) << to_string(m);
    }
  }
}

TEST(CompiledMethods, AnotherMethodIsRefusedByName) {
  for (Method m : {Method::dopri5, Method::ros3p, Method::rosenbrock4}) {
    for (Backend b : {Backend::cpu, Backend::automatic}) {
      SolveOptions o = options(m);
      o.backend = b;
      try {
        (void)solve_ivp(LorenzTwoMethods{}, y0, params, o);
        ADD_FAILURE() << to_string(m) << " was not refused";
      } catch (const InvalidInput& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("method " + to_string(m) + " is not compiled for this system"), std::string::npos)
            << what;
        EXPECT_NE(what.find("rk4, rodas4"), std::string::npos) << what;
      }
    }
  }
}

}  // namespace
