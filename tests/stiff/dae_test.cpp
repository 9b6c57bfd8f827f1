// Semi-explicit index-1 DAEs (a system's n_algebraic: kernels/core/system.hpp) solved by the methods
// built for a mass matrix (rodas4, rodas5p, radau5), on the CPU path: a nonlinear algebraic equation with a
// closed-form solution, Robertson written with its conservation law as the algebraic equation (its
// solution is the ODE's, whose published values tests/stiff/reference_test.cpp uses), the consistent
// start computed from a wrong guess, the runs that cannot start (no solution of g = 0, dg/dz singular)
// ending with their status at t0, and the methods that cannot solve a DAE refused by name.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "expect_invalid_input.hpp"
#include "stiff_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::RobertsonDae;

/// y' = z - y, 0 = z^2 - y (z > 0): with u = sqrt(y), u' = (1 - u) / 2, so
/// z(t) = 1 - (1 - sqrt(y0)) e^{-t/2} and y = z^2. p = {}; the algebraic state z is the last.
struct SquareRootDae {
  static constexpr std::size_t n_states = 2, n_params = 0, n_algebraic = 1;
  static constexpr Method compiled_methods[] = {Method::rodas4,   Method::rodas5p, Method::radau5,
                                                Method::rodas4p2, Method::dopri5,  Method::ros3p};
  static constexpr const char* state_names[] = {"y", "z"};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T*, T* out) const {
    out[0] = y[1] - y[0];
    out[1] = y[1] * y[1] - y[0];
  }
};

/// 0 = z^2 + c: no real z when c > 0 (Newton cannot converge); c = 0 has z = 0, where dg/dz = 0.
/// And y' = -y beside it. p = {c}.
struct NoSolutionDae {
  static constexpr std::size_t n_states = 2, n_params = 1, n_algebraic = 1;
  static constexpr Method compiled_methods[] = {Method::rodas4};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* out) const {
    out[0] = -y[0];
    out[1] = y[1] * y[1] + p[0];
  }
};

/// 0 = y - 1: the algebraic equation does not read z, so dg/dz is exactly singular.
struct SingularDae {
  static constexpr std::size_t n_states = 2, n_params = 0, n_algebraic = 1;
  static constexpr Method compiled_methods[] = {Method::rodas5p};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T*, T* out) const {
    out[0] = -y[0];
    out[1] = y[0] - T(1);
  }
};

/// A heat chain x0 .. x8 (x_-1 = 1) whose far end z is algebraic, z = x8 / 2: 10 states, bandwidths 1 and 1,
/// so with Banded the Rosenbrock methods keep J and W in band storage (kernels/linalg/band.hpp), whose
/// algebraic row has no 1 / (gamma h) on its diagonal either.
template <bool Banded>
struct ChainDae {
  static constexpr std::size_t n_states = 10, n_params = 0, n_algebraic = 1;
  static constexpr std::size_t jacobian_lower_bandwidth = Banded ? 1 : 9;
  static constexpr std::size_t jacobian_upper_bandwidth = Banded ? 1 : 9;
  static constexpr Method compiled_methods[] = {Method::rodas4, Method::radau5};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T*, T* out) const {
    for (std::size_t i = 0; i < 9; ++i) out[i] = (i == 0 ? T(1) : y[i - 1]) - T(2) * y[i] + y[i + 1];
    out[9] = y[9] - y[8] / T(2);
  }
};

SolveOptions dae_options(Method m, double t_end, double tol) {
  SolveOptions o;
  o.method = m;
  o.t_end = t_end;
  o.rtol = o.atol = tol;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.max_steps = 100000;
  return o;
}

double closed_form_z(double y0, double t) { return 1 - (1 - std::sqrt(y0)) * std::exp(-t / 2); }

class DaeMethods : public ::testing::TestWithParam<Method> {};

// Three runs start from y0 = 0.25, 1, 4 with a guess z = 3 (consistent: 0.5, 1, 2); saves every 0.5 and
// the final state at t = 4 against the closed form, within the tolerance (global error: 20 times the
// local tolerance, far below what a step that treated z as a differential state would give), and the
// save at t0 holds the consistent z, not the guess.
TEST_P(DaeMethods, NonlinearAlgebraicEquationFollowsItsClosedForm) {
  SolveOptions o = dae_options(GetParam(), 4.0, 1e-8);
  o.save_every = 0.5;
  const std::vector<double> y0s{0.25, 1.0, 4.0};
  std::vector<double> y0;
  for (double y : y0s) y0.insert(y0.end(), {y, 3.0});
  const SolveResult<double> r = solve_ivp(SquareRootDae{}, y0, {}, o);
  for (std::size_t run = 0; run < y0s.size(); ++run) {
    ASSERT_EQ(r.status(run), Status::success) << to_string(GetParam()) << " run " << run;
    EXPECT_NEAR(r.state_at(run, 0, 1), std::sqrt(y0s[run]), 1e-10) << "the consistent z at t0, run " << run;
    EXPECT_EQ(r.state_at(run, 0, 0), y0s[run]) << "the differential state is held at t0";
    for (std::size_t k = 0; k < r.n_saves(); ++k) {
      const double t = r.time(run, k), z = closed_form_z(y0s[run], t);
      EXPECT_NEAR(r.state_at(run, k, 1), z, 20 * 1e-8 * (1 + z)) << "run " << run << " t " << t;
      EXPECT_NEAR(r.state_at(run, k, 0), z * z, 20 * 1e-8 * (1 + z * z)) << "run " << run << " t " << t;
    }
  }
}

// Robertson with y3 algebraic from the guess y3 = 0.5 (consistent: 0) at t = 40 and 1e5 against the
// ODE's published values (reference_test.cpp's), within 50 times the tolerance as there, and the
// algebraic equation held at every accepted point to rounding.
TEST_P(DaeMethods, RobertsonWithItsConservationLawMatchesTheOdeReferences) {
  const std::vector<double> k{0.04, 3e7, 1e4};
  const std::vector<double> ref40{0.7158270687194048, 9.185534764557822e-06, 0.2841637457458297};
  const std::vector<double> ref1e5{0.01786592114210887, 7.274751468440222e-08, 0.9821340061103758};
  for (const auto& [t_end, ref] : {std::pair{40.0, ref40}, std::pair{1e5, ref1e5}}) {
    SolveOptions o = dae_options(GetParam(), t_end, 1e-8);
    o.atol = 1e-12;
    o.save_every = t_end / 4;
    const SolveResult<double> r = solve_ivp(RobertsonDae{}, std::vector<double>{1.0, 0.0, 0.5}, k, o);
    ASSERT_EQ(r.status(0), Status::success) << to_string(GetParam()) << " t " << t_end;
    EXPECT_EQ(r.state_at(0, 0, 2), 0.0) << "y3 made consistent at t0";
    for (std::size_t s = 0; s < 3; ++s) {
      EXPECT_NEAR(r.final_state(0, s), ref[s], 50 * (o.atol + o.rtol * ref[s]))
          << "t " << t_end << " y" << s + 1;
    }
    for (std::size_t j = 0; j < r.n_saves(); ++j) {
      const double sum = r.state_at(0, j, 0) + r.state_at(0, j, 1) + r.state_at(0, j, 2);
      EXPECT_NEAR(sum, 1.0, 1e-14) << "the algebraic equation at save " << j;
    }
  }
}

// The same in float at rtol 1e-4, atol 1e-8: early on y3 = 1 - y1 - y2 is below float's rounding of y1 (the
// algebraic equation's residual is noise of 6e-8), which radau5's Newton test and error estimate must not
// wait for or take as an error (kernels/methods/radau_stepper.hpp). Every run of a k3 sweep succeeds, and
// the run with k3 = 1e4 is within 50 times the tolerance of the double reference at t = 40.
TEST_P(DaeMethods, RobertsonInFloatNearItsRoundingSucceeds) {
  std::vector<float> y0, k;
  for (int r = 0; r < 64; ++r) {
    y0.insert(y0.end(), {1.0f, 0.0f, 0.5f});
    k.insert(k.end(), {0.04f, 3e7f, r == 0 ? 1e4f : float(5e3 + 1.5e4 * r / 63.0)});
  }
  SolveOptions o = dae_options(GetParam(), 40.0, 1e-4);
  o.atol = 1e-8;
  const SolveResult<float> r = solve_ivp(RobertsonDae{}, y0, k, o);
  for (std::size_t run = 0; run < r.n_runs(); ++run) {
    ASSERT_EQ(r.status(run), Status::success)
        << to_string(GetParam()) << " run " << run << " ended at t " << r.stop_time(run);
  }
  const std::vector<double> ref40{0.7158270687194048, 9.185534764557822e-06, 0.2841637457458297};
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_NEAR(r.final_state(0, s), ref40[s], 50 * (o.atol + o.rtol * ref40[s])) << "y" << s + 1;
  }
}

INSTANTIATE_TEST_SUITE_P(MassMatrixMethods, DaeMethods,
                         ::testing::Values(Method::rodas4, Method::rodas5p, Method::radau5, Method::rodas4p2),
                         [](const ::testing::TestParamInfo<Method>& p) { return to_string(p.param); });

void expect_band_chain_equals_dense(Method m) {
  SolveOptions o = dae_options(m, 50.0, 1e-8);
  o.save_every = 10;
  const std::vector<double> y0(10, 0.0);
  const SolveResult<double> band = solve_ivp(ChainDae<true>{}, y0, {}, o);
  const SolveResult<double> dense = solve_ivp(ChainDae<false>{}, y0, {}, o);
  ASSERT_EQ(band.status(0), Status::success);
  ASSERT_EQ(dense.status(0), Status::success);
  for (std::size_t k = 0; k < band.n_saves(); ++k) {
    for (std::size_t s = 0; s < 10; ++s) {
      EXPECT_NEAR(band.state_at(0, k, s), dense.state_at(0, k, s), 1e-13) << "save " << k << " state " << s;
    }
    EXPECT_NEAR(band.state_at(0, k, 9), band.state_at(0, k, 8) / 2, 1e-15) << "save " << k;
  }
  EXPECT_GT(band.final_state(0, 9), 0.05);  // heat has reached the far end (0.088 at t = 50)
}

// The band layout's DAE rows: the chain in band storage against the same chain dense (the band path
// leaves out operations on exact zeros only: the same numbers to rounding), z = x8 / 2 at every save;
// radau5's complex E2 in band storage too.
TEST(Dae, TheBandLayoutAgreesWithTheDenseOne) {
  static_assert(kernels::JacobianBand<ChainDae<true>>::banded &&
                !kernels::JacobianBand<ChainDae<false>>::banded);
  for (Method m : {Method::rodas4, Method::radau5}) {
    SCOPED_TRACE(to_string(m));
    expect_band_chain_equals_dense(m);
  }
}

// No real z solves z^2 + 1 = 0, and at c = 0 the root z = 0 makes dg/dz = 2z vanish: Newton ends
// without a consistent start in both. Those runs end at t0 with inconsistent_initial_values and no
// save; their neighbour with c = -4 (z = +-2) runs to the end.
TEST(Dae, RunsWithoutAConsistentStartEndAtT0WithTheirStatus) {
  SolveOptions o = dae_options(Method::rodas4, 1.0, 1e-6);
  o.save_every = 0.25;
  const std::vector<double> y0{1.0, 1.0, 1.0, 1.0, 1.0, 1.0}, c{1.0, -4.0, 0.0};
  const SolveResult<double> r = solve_ivp(NoSolutionDae{}, y0, c, o);
  EXPECT_EQ(r.status(0), Status::inconsistent_initial_values);
  EXPECT_EQ(r.stop_time(0), 0.0);
  for (std::size_t k = 0; k < r.n_saves(); ++k) EXPECT_TRUE(std::isnan(r.state_at(0, k, 0))) << "save " << k;
  EXPECT_EQ(r.status(1), Status::success);
  EXPECT_NEAR(r.final_state(1, 1), 2.0, 1e-12);
  EXPECT_NEAR(r.final_state(1, 0), std::exp(-1.0), 1e-5);
  // z -> 0 as 1 / 2^k: the updates stay large against the tolerance near 0, so Newton stops after its
  // iterations; a run that ended with z = 1e-3 as its "consistent" value would be a silent error.
  EXPECT_EQ(r.status(2), Status::inconsistent_initial_values);
  EXPECT_EQ(to_string(Status::inconsistent_initial_values), "inconsistent_initial_values");

  const SolveResult<double> singular =
      solve_ivp(SingularDae{}, std::vector<double>{1.0, 0.0}, {}, dae_options(Method::rodas5p, 1, 1e-6));
  EXPECT_EQ(singular.status(0), Status::inconsistent_initial_values);
  EXPECT_EQ(singular.stop_time(0), 0.0);
}

// An explicit method, or a Rosenbrock method not built for a mass matrix, would integrate the residual
// as if it were a derivative: refused before any work, naming the algebraic state and the methods that
// can.
TEST(Dae, MethodsNotBuiltForAMassMatrixAreRefusedByName) {
  for (Method m : {Method::dopri5, Method::ros3p}) {
    const std::string message = batchode::testing::invalid_input_message([&] {
      (void)solve_ivp(SquareRootDae{}, std::vector<double>{1.0, 1.0}, {}, dae_options(m, 1.0, 1e-6));
    });
    EXPECT_NE(message.find("method " + to_string(m)), std::string::npos) << message;
    EXPECT_NE(message.find("algebraic states (z"), std::string::npos) << message;
    EXPECT_NE(message.find("rodas4, rodas5p"), std::string::npos) << message;
  }
  EXPECT_TRUE(solves_dae(Method::rodas4) && solves_dae(Method::rodas5p) && solves_dae(Method::radau5) &&
              solves_dae(Method::rodas4p2));
  EXPECT_FALSE(solves_dae(Method::ros3p) || solves_dae(Method::rosenbrock4) || solves_dae(Method::dopri5));
}

}  // namespace
