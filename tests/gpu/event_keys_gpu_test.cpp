// tests/gpu/: the metadata keys of the timing design on the GPU path (issue 19), pinned: transfers
// carry nbytes, chunk_index, chunk_slice and is_chunked; kernel launches chunk_index, numruns,
// chunk_slice and, once their GPU time is known, gpu_time_ms; kernel_run_execution backend,
// num_chunks and total_runs, the same keys as the CPU path's (tests/timing/solve_timing_test.cpp).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <string>
#include <vector>

#include "require_gpu.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;

TEST(GpuEventKeys, TransfersLaunchesAndRunsCarryTheDesignsKeys) {
  BATCHODE_REQUIRE_GPU();
  const std::size_t runs = 3000;
  GridBuilder<float> grid({1.f, 0.f, 0.f}, {10.f, 28.f, 8.f / 3});
  grid.param(1, linspace<float>(0.0, 21.0, runs));
  const Batch<float> batch = grid.build(GridKind::verbatim);
  SolveOptions o;
  o.method = Method::rk4;
  o.dt = 1e-3;
  o.backend = Backend::gpu;
  o.gpu.chunks = 3;
  TimeLogger log(nullptr, Verbosity::normal);
  const SolveResult<float> r = solve_ivp(Lorenz{}, batch, o, log);
  ASSERT_TRUE(r.all_succeeded());

  const std::vector<Occurrence> launches = log.occurrences(events::kernel_launch);
  ASSERT_EQ(launches.size(), 3u);
  std::int64_t launched = 0;
  for (std::size_t c = 0; c < launches.size(); ++c) {
    const Metadata& m = launches[c].metadata;  // launches outlives m
    ASSERT_NE(m.find(keys::chunk_index), nullptr);
    ASSERT_NE(m.find(keys::numruns), nullptr);
    ASSERT_NE(m.find(keys::chunk_slice), nullptr);
    ASSERT_NE(m.find(keys::gpu_time_ms), nullptr) << "the solve resolves its GPU times before returning";
    EXPECT_GT(m.find(keys::gpu_time_ms)->as_double(), 0.0);
    launched += m.find(keys::numruns)->as_int();
  }
  EXPECT_EQ(launched, static_cast<std::int64_t>(runs));
  for (const char* label : {events::h2d_transfer_initial_values, events::h2d_transfer_parameters,
                            events::d2h_transfer_state, events::d2h_transfer_status_codes}) {
    SCOPED_TRACE(label);
    const std::vector<Occurrence> transfers = log.occurrences(label);
    ASSERT_EQ(transfers.size(), 3u);
    for (const Occurrence& t : transfers) {
      ASSERT_NE(t.metadata.find(keys::nbytes), nullptr);
      EXPECT_GT(t.metadata.find(keys::nbytes)->as_int(), 0);
      ASSERT_NE(t.metadata.find(keys::chunk_index), nullptr);
      ASSERT_NE(t.metadata.find(keys::chunk_slice), nullptr);
      ASSERT_NE(t.metadata.find(keys::is_chunked), nullptr);
      EXPECT_EQ(t.metadata.find(keys::is_chunked)->as_int(), 1);
    }
  }
  const std::vector<Occurrence> run = log.occurrences(events::kernel_run_execution);
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(run[0].metadata.find(keys::backend)->as_string(), "gpu:0");
  EXPECT_EQ(run[0].metadata.find(keys::num_chunks)->as_int(), 3);
  EXPECT_EQ(run[0].metadata.find(keys::total_runs)->as_int(), static_cast<std::int64_t>(runs));
  for (const char* outer : {events::solve_ivp_execution, events::solver_solve_execution}) {
    const std::vector<Occurrence> found = log.occurrences(outer);
    ASSERT_EQ(found.size(), 1u) << outer;
    EXPECT_EQ(found[0].metadata.find(keys::num_chunks)->as_int(), 3) << outer;
    EXPECT_EQ(found[0].metadata.find(keys::total_runs)->as_int(), static_cast<std::int64_t>(runs)) << outer;
  }
}

}  // namespace
