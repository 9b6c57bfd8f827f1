// Stiff methods against published reference solutions, on the CPU path: Robertson at t = 40 and 1e5
// and the Bari test set's ROBER (t = 1e11), HIRES (t = 321.8122) and VDPOL (mu = 1000 scaled, t = 2).
// A final state must lie within the error its tolerance promises: |y - y_ref| <= K (atol + rtol |y_ref|)
// with K = 50 for global error accumulated over the run (local tolerances do not bound it exactly).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "stiff_systems.hpp"

namespace {

using namespace batchode;
using namespace batchode::testing;

constexpr double kGlobalFactor = 50;

SolveOptions stiff_options(Method m, double t_end, double rtol, double atol) {
  SolveOptions o;
  o.outputs.counters = true;  // read below (counters are off by default)
  o.method = m;
  o.t_end = t_end;
  o.rtol = rtol;
  o.atol = atol;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.max_steps = 200000;
  return o;
}

template <class System>
void expect_reference(const System& sys, const std::vector<double>& y0, const std::vector<double>& p,
                      const std::vector<double>& ref, const SolveOptions& o, const char* what) {
  const SolveResult<double> r = solve_ivp(sys, y0, p, o);
  ASSERT_EQ(r.status(0), Status::success) << what << " " << to_string(o.method);
  double worst = 0;
  for (std::size_t s = 0; s < ref.size(); ++s) {
    const double err = std::fabs(r.final_state(0, s) - ref[s]);
    const double allowed = o.atol + o.rtol * std::fabs(ref[s]);
    worst = std::max(worst, err / allowed);
    EXPECT_LE(err, kGlobalFactor * allowed) << what << " " << to_string(o.method) << " state " << s << ": "
                                            << r.final_state(0, s) << " vs " << ref[s];
  }
  // Printed so the achieved accuracy is on record in the test log.
  std::printf("[ %s %s rtol=%g ] worst error / (atol + rtol |ref|) = %.3g, steps %u accepted %u rejected\n", what,
              to_string(o.method).c_str(), o.rtol, worst, r.counters(0).accepted_steps, r.counters(0).rejected_steps);
}

const std::vector<double> kRobertsonY0{1, 0, 0};
const std::vector<double> kRobertsonK{0.04, 3e7, 1e4};

// Robertson at t = 40 and 1e5: Hairer & Wanner, Solving ODEs II, IV.1 give y(40) = (0.7158270687,
// 9.185534764e-6, 0.2841637457); the 16-digit values are RADAU5-class references (Radau IIA at
// rtol 1e-12, atol 1e-18, confirmed by BDF to 1e-11) agreeing with those digits.
const std::vector<double> kRobertson40{0.7158270687194048, 9.185534764557822e-06, 0.2841637457458297};
const std::vector<double> kRobertson1e5{0.01786592114210887, 7.274751468440222e-08, 0.9821340061103758};
// Bari test set (F. Mazzia, C. Magherini, Test Set for IVP Solvers, release 2.4, Univ. of Bari), ROBER
// at t = 1e11, HIRES at t = 321.8122, VDPOL (eps = 1e-6) at t = 2: computed there with RADAU5 at
// rtol = atol = 1.1e-18 in extended precision.
const std::vector<double> kRober1e11{0.2083340149701255e-07, 0.8333360770334713e-13, 0.9999999791665050};
const std::vector<double> kHires{0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4,
                                 0.1175651343283149e-2, 0.2386356198831331e-2, 0.6238968252742796e-2,
                                 0.2849998395185769e-2, 0.2850001604814231e-2};
const std::vector<double> kVdp{0.1706167732170483e1, -0.8928097010247975e0};

// BRUSS (tests/support/bruss_model.hpp) on 16 points, 32 states, A = 1, at t = 1: scipy 1.10's Radau at
// rtol = 1e-12, atol = 1e-14 (benchmarks/large_systems/bruss_reference.py 32 1.0; the same at 1e-13
// to 1.5e-14). rodas4 and ros3p solve it in band storage (kernels/linalg/band.hpp), rosenbrock4 (Boost's)
// dense.
const std::vector<double> kBruss32{
    1.4174623662515193, 2.3571607306701274, 1.7025832197334791, 1.8880477981888284, 1.8444423618183372,
    1.6230759028532378, 1.8929258220011624, 1.5116186923117423, 1.8848928680768446, 1.5084927911943682,
    1.82683317178408,   1.5995094619302639, 1.7025202177126613, 1.7944269439529328, 1.4936507781677595,
    2.1020129539468884, 1.2144366638672606, 2.4915032946959204, 0.92825696522953327, 2.8788474026911475,
    0.70445421970671385, 3.1800427537867071, 0.57085534038917274, 3.3650973437405405, 0.52186686138854399,
    3.4460794229278089, 0.54616821029822749, 3.4415180425805794, 0.63894080432889233, 3.3598031631369216,
    0.79647816323722553, 3.2056230091051297};

class StiffReference : public ::testing::TestWithParam<Method> {};

TEST_P(StiffReference, BrussWith32StatesAt1) {
  expect_reference(Bruss<16>{}, bruss_initial_state(16), {1.0}, kBruss32, stiff_options(GetParam(), 1, 1e-8, 1e-8),
                   "bruss 32 states t=1");
}

TEST_P(StiffReference, RobertsonAt40) {
  expect_reference(Robertson{}, kRobertsonY0, kRobertsonK, kRobertson40,
                   stiff_options(GetParam(), 40, 1e-8, 1e-14), "robertson t=40");
}

TEST_P(StiffReference, RobertsonAt1e5) {
  expect_reference(Robertson{}, kRobertsonY0, kRobertsonK, kRobertson1e5,
                   stiff_options(GetParam(), 1e5, 1e-8, 1e-14), "robertson t=1e5");
}

TEST_P(StiffReference, BariRoberAt1e11) {
  expect_reference(Robertson{}, kRobertsonY0, kRobertsonK, kRober1e11,
                   stiff_options(GetParam(), 1e11, 1e-7, 1e-20), "bari rober t=1e11");
}

TEST_P(StiffReference, BariHires) {
  expect_reference(Hires{}, {1, 0, 0, 0, 0, 0, 0, 0.0057}, {}, kHires,
                   stiff_options(GetParam(), 321.8122, 1e-8, 1e-12), "bari hires");
}

TEST_P(StiffReference, BariVanDerPolMu1000) {
  expect_reference(VanDerPolScaled{}, {2, 0}, {1e-6}, kVdp, stiff_options(GetParam(), 2, 1e-8, 1e-8),
                   "bari vdpol");
}

TEST_P(StiffReference, AnalyticJacobianGivesTheSameSolution) {
  const SolveOptions o = stiff_options(GetParam(), 40, 1e-8, 1e-14);
  const auto ad = solve_ivp(Robertson{}, kRobertsonY0, kRobertsonK, o);
  const auto by_hand = solve_ivp(RobertsonWithJacobian{}, kRobertsonY0, kRobertsonK, o);
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_NEAR(ad.final_state(0, s), by_hand.final_state(0, s), 1e-12 * std::fabs(kRobertson40[s]) + 1e-20);
  }
}

// Every run counts its own evaluations: identical runs on one worker thread (which reuses its stepper
// run after run) report identical counters, not sums over the runs before them.
TEST_P(StiffReference, IdenticalRunsReportIdenticalCounters) {
  SolveOptions o = stiff_options(GetParam(), 40, 1e-8, 1e-14);
  o.cpu_threads = 1;
  o.outputs.counters = true;
  std::vector<double> y0, k;
  for (int r = 0; r < 4; ++r) {
    y0.insert(y0.end(), kRobertsonY0.begin(), kRobertsonY0.end());
    k.insert(k.end(), kRobertsonK.begin(), kRobertsonK.end());
  }
  const auto res = solve_ivp(Robertson{}, y0, k, o);
  for (std::size_t r = 1; r < 4; ++r) {
    EXPECT_EQ(res.counters(r).accepted_steps, res.counters(0).accepted_steps) << "run " << r;
    EXPECT_EQ(res.counters(r).rhs_evaluations, res.counters(0).rhs_evaluations) << "run " << r;
  }
  EXPECT_GT(res.counters(0).rhs_evaluations, res.counters(0).accepted_steps);
}

INSTANTIATE_TEST_SUITE_P(Methods, StiffReference,
                         ::testing::Values(Method::rodas4, Method::ros3p, Method::rosenbrock4,
                                           Method::kvaerno5, Method::radau5, Method::kvaerno3,
                                           Method::kencarp4, Method::rodas4p2),
                         [](const ::testing::TestParamInfo<Method>& param_info) {
                           return to_string(param_info.param);
                         });

// Refused under Backend::gpu, naming rodas4 (the same RODAS4 method, with a GPU kernel) rather than
// running it in its place: their step-size choices differ, so would their numbers.
TEST(StiffMethods, RosenbrockFourHasNoGpuKernel) {
  SolveOptions o = stiff_options(Method::rosenbrock4, 1, 1e-6, 1e-10);
  o.backend = Backend::gpu;
  try {
    (void)solve_ivp(Robertson{}, kRobertsonY0, kRobertsonK, o);
    ADD_FAILURE() << "expected GpuUnavailable";
  } catch (const GpuUnavailable& e) {
    EXPECT_NE(
        std::string(e.what()).find("Backend::gpu requested, but method rosenbrock4 is Boost.Odeint's CPU "
                                   "stepper and has no GPU kernel; rodas4 is the same RODAS4 method on the "
                                   "GPU (and the CPU): use --method rodas4"),
        std::string::npos)
        << e.what();
  }
  o.backend = Backend::automatic;
  const auto r = solve_ivp(Robertson{}, kRobertsonY0, kRobertsonK, o);
  EXPECT_EQ(r.execution().at(0).backend, BackendId::cpu());
  EXPECT_EQ(r.status(0), Status::success);
}

TEST(StiffMethods, NamesAndInfo) {
  for (Method m : stiff_methods) {
    EXPECT_EQ(parse_method(to_string(m)), m);
    EXPECT_TRUE(method_info(m).adaptive);
  }
  EXPECT_EQ(method_info(Method::rodas4).order, 4);
  EXPECT_EQ(method_info(Method::ros3p).order, 3);
  EXPECT_EQ(to_string(Status::singular_matrix), "singular_matrix");
}

}  // namespace
