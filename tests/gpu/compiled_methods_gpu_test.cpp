// On the device: a system's compiled_methods (kernels/methods/method_registry.hpp) and the dense Jacobian by
// AD in column groups (kernels/linalg/jacobian.hpp, past 16 states). BRUSS on 12 points (24 states) without
// its band, listing rodas4 and ros3p: the GPU gives the CPU's final states within the agreement bound
// and the band path's (BRUSS with its band declared) bit for bit; another method is refused by name on
// the GPU backend. The build instantiates two methods for each system (seconds, not minutes).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "bruss_model.hpp"
#include "gpu_compare.hpp"
#include "require_gpu.hpp"

namespace {

using namespace batchode;

struct DenseBruss : batchode::testing::Bruss<12, false> {
  static constexpr Method compiled_methods[] = {Method::rodas4, Method::ros3p};
};
struct BandBruss : batchode::testing::Bruss<12> {
  static constexpr Method compiled_methods[] = {Method::rodas4, Method::ros3p};
};
static_assert(!kernels::RosenbrockShape<DenseBruss, double>::banded &&
              kernels::RosenbrockShape<BandBruss, double>::banded);
static_assert(kernels::detail::DenseColumns<24>::calls == 3, "the dense J in three AD calls");

SolveOptions options(Method m, Backend b) {
  SolveOptions o;
  o.method = m;
  o.t_end = 1;
  o.rtol = o.atol = 1e-6;
  o.backend = b;
  o.verbosity = Verbosity::none;
  o.outputs.counters = true;
  o.gpu.chunks = 2;
  return o;
}

TEST(CompiledMethodsGpu, DenseJacobianInColumnGroupsGivesTheBandsBitsAndTheCpusStates) {
  BATCHODE_REQUIRE_GPU();
  const std::vector<double> y1 = batchode::testing::bruss_initial_state(12);
  const std::size_t runs = 300;
  std::vector<double> y0, a;
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), y1.begin(), y1.end());
    a.push_back(0.9 + 0.4 * double(r) / double(runs - 1));
  }
  for (Method m : {Method::rodas4, Method::ros3p}) {
    const std::string what = to_string(m) + ", 24 states, dense J by AD in 3 calls";
    const SolveResult<double> dense = solve_ivp(DenseBruss{}, y0, a, options(m, Backend::gpu));
    const SolveResult<double> band = solve_ivp(BandBruss{}, y0, a, options(m, Backend::gpu));
    const SolveResult<double> cpu = solve_ivp(DenseBruss{}, y0, a, options(m, Backend::cpu));
    ASSERT_EQ(dense.execution().at(0).backend, BackendId::gpu(0)) << what;
    std::size_t differing = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      ASSERT_EQ(dense.status(r), Status::success) << what << " run " << r;
      EXPECT_EQ(dense.status(r), band.status(r)) << what << " run " << r;
      EXPECT_EQ(dense.counters(r).accepted_steps, band.counters(r).accepted_steps) << what << " run " << r;
      EXPECT_GT(dense.counters(r).accepted_steps, 5u) << what << " run " << r;
      for (std::size_t s = 0; s < y1.size(); ++s) {
        const double x = dense.final_state(r, s), y = band.final_state(r, s);
        differing += std::memcmp(&x, &y, sizeof x) != 0;
      }
    }
    EXPECT_EQ(differing, 0u) << what << ": final values that differ from the band path's";
    batchode::testing::expect_runs_agree(dense, cpu, batchode::testing::agreement_bound<double>(m, 1e-6, 0),
                                         what);
  }
}

TEST(CompiledMethodsGpu, AnotherMethodIsRefusedByName) {
  BATCHODE_REQUIRE_GPU();
  const std::vector<double> y0 = batchode::testing::bruss_initial_state(12);
  try {
    (void)solve_ivp(DenseBruss{}, y0, std::vector<double>{1.0}, options(Method::dopri5, Backend::gpu));
    ADD_FAILURE() << "dopri5 was not refused";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("method dopri5 is not compiled for this system"), std::string::npos)
        << e.what();
  }
}

}  // namespace
