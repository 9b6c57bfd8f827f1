// The GPU kernel's per-thread body (kernels::integrate_chunk_run: register stepper, device layout,
// device series sink) run on the host against the CPU path (Boost.Odeint steppers): the GPU path's
// numerics are checked in CI, where no GPU exists. The device run repeats the check (gpu_vs_cpu_test).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <batchode/kernels/launch/lane_group_kernel.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "gpu_compare.hpp"
#include "kernel_body_on_host.hpp"
#include "lorenz96.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;

template <class T>
class KernelBody : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KernelBody, Precisions);

TYPED_TEST(KernelBody, MatchesCpuPathForEveryMethod) {
  using T = TypeParam;
  GridBuilder<T> grid({T(1), T(0), T(0)}, {T(10), T(28), T(8.0 / 3)});
  grid.param(1, linspace<T>(0.0, 21.0, 64));
  const Batch<T> batch = grid.build(GridKind::verbatim);
  for (Method m : all_methods) {
    SolveOptions o;
    o.outputs.counters = true;  // read below (counters are off by default)
    o.method = m;
    o.verbosity = Verbosity::none;
    o.backend = Backend::cpu;
    o.rtol = o.atol = std::is_same_v<T, float> ? 1e-5 : 1e-8;
    if (!method_info(m).adaptive) o.dt = 1e-3;
    o.save_every = 0.125;
    const SolveResult<T> cpu = solve_ivp(Lorenz{}, batch, o);
    const SolveResult<T> body = batchode::testing::run_kernel_body_on_host(Lorenz{}, batch, o);
    batchode::testing::expect_runs_agree(body, cpu, batchode::testing::agreement_bound<T>(m, o.rtol, 1000),
                                         to_string(m));
    // Step sequences: in double both paths make the same decisions up to rounding. In float the two
    // arithmetic orders (odeint's scale_sum vs the register stepper) flip an accept/reject decision
    // now and then (seen: 19 vs 23 steps), after which the sequences differ while both honour rtol;
    // the states above are what must agree there.
    if (std::is_same_v<T, double>) {
      for (std::size_t r = 0; r < batch.n_runs; ++r) {
        const RunCounters& a = body.counters(r);
        const RunCounters& b = cpu.counters(r);
        EXPECT_NEAR(double(a.accepted_steps), double(b.accepted_steps), 2.0) << to_string(m) << " run " << r;
        // The register stepper reuses FSAL stages that odeint's generic stepper cannot.
        EXPECT_LE(a.rhs_evaluations, b.rhs_evaluations + 2 * method_info(m).stages)
            << to_string(m) << " run " << r;
        EXPECT_GE(a.rhs_evaluations, a.accepted_steps) << to_string(m);
      }
    }
  }
}

/// One chunk's final states, statuses and counters on the host, viewed in the device layout.
template <class T>
struct HostOutputs {
  std::vector<T> final_state;
  std::vector<std::int32_t> status;
  std::vector<std::uint32_t> counts;  // accepted, rejected and rhs evaluations, a run-long block each
  HostOutputs(std::size_t runs, std::size_t n) : final_state(runs * n), status(runs), counts(3 * runs) {}
  kernels::DeviceOutputs<T> view() {
    const std::size_t runs = status.size();
    return {final_state.data(),
            nullptr,
            status.data(),
            counts.data(),
            counts.data() + runs,
            counts.data() + 2 * runs,
            runs,
            0};
  }
};

// A run on one lane of the lane-group layout (kernels/launch/lane_group_kernel.hpp with L = 1) is the
// one-thread kernel body's run, bit for bit, for every explicit method, runs that overflow or run out of
// steps included: the integrator's sums and tests over a run's states go through the share
// (kernels/loop/loop_parts.hpp's is_state_share), and where the share is the whole run they must change
// nothing. lane_group_gpu_test checks several lanes on the device.
TYPED_TEST(KernelBody, OneLaneOfTheLaneGroupLayoutIsTheOneThreadRun) {
  using T = TypeParam;
  using System = batchode::testing::Lorenz96<16>;
  // 8 runs of 16 states: different forcings, one overflowing in its first step (two huge neighbours:
  // with one, the adaptive methods followed it for 20000-80000 steps before it overflowed, 108 s of a
  // sanitized -O0 build; now under a second).
  constexpr std::size_t N = System::n_states, runs = 8;
  std::vector<T> y0(runs * N), f(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    f[r] = T(6 + 4 * double(r) / double(runs - 1));
    for (std::size_t i = 0; i < N; ++i)
      y0[r * N + i] = T(8 + 0.5 * std::sin(0.4 * double(i) + 0.1 * double(r)));
  }
  // x_7' = (x_8 - x_5) x_6 - ...: overflows, so the run fails.
  y0[3 * N + 5] = y0[3 * N + 6] = std::is_same_v<T, float> ? T(1e30) : T(1e200);
  for (Method m : all_methods) {
    if (cpu_only(m)) continue;
    for (std::uint64_t max_steps : {std::uint64_t{100000}, std::uint64_t{7}}) {
      SolveOptions o;
      o.method = m;
      o.rtol = o.atol = 1e-6;
      if (!method_info(m).adaptive) o.dt = 1e-2;
      o.max_steps = max_steps;
      const RunSettings<T> plan = make_run_settings<T>(o);
      tableau::dispatch(m, [&](auto tag) {
        using Tab = typename decltype(tag)::type;
        if constexpr (kernels::splits_over_lanes_v<Tab>) {  // (dispatch's other tags)
          HostOutputs<T> one(runs, N), lane(runs, N);
          const kernels::DeviceInputs<T> in{y0.data(), f.data(), runs};
          T shared[N];
          for (std::size_t r = 0; r < runs; ++r) {
            kernels::integrate_chunk_run<Tab, false, System, T>(System{}, plan, in, one.view(), r);
            kernels::integrate_lane_share<Tab, System, T, 1>(System{}, plan, in, lane.view(), r, shared, 0,
                                                             0);
          }
          const std::string what = to_string(m) + ", max_steps " + std::to_string(max_steps);
          EXPECT_EQ(std::memcmp(one.final_state.data(), lane.final_state.data(),
                                one.final_state.size() * sizeof(T)),
                    0)
              << what;
          EXPECT_EQ(one.status, lane.status) << what;
          EXPECT_EQ(one.counts, lane.counts) << what;
          EXPECT_NE(lane.status[3], static_cast<std::int32_t>(Status::success))
              << what;  // (adaptive: underflow)
          if (max_steps == 7) {
            EXPECT_EQ(lane.status[0], static_cast<std::int32_t>(Status::max_steps_reached)) << what;
          } else {
            EXPECT_EQ(lane.status[0], static_cast<std::int32_t>(Status::success)) << what;
          }
        }
      });
    }
  }
}

// Which runs are split over lanes, and over how many (kernels/launch/lane_group.hpp's rule: a run's arrays,
// the state, the stages and two temporaries, over 512 words are split until a lane's share is at most
// 128 words; a declared lanes_per_run wins; no rhs_component, events, drivers or a Rosenbrock method:
// one thread per run).
using batchode::kernels::lanes_per_run;
static_assert(lanes_per_run<tableau::Rk4, batchode::testing::Lorenz, double>() == 1);  // no rhs_component
static_assert(lanes_per_run<tableau::Rk4, batchode::testing::Lorenz96<32>, double>() == 1);  // 448 words
static_assert(lanes_per_run<tableau::Rk4, batchode::testing::Lorenz96<64>, double>() ==
              8);                                                                           // 896: 112 a lane
static_assert(lanes_per_run<tableau::Rk4, batchode::testing::Lorenz96<64>, float>() == 1);  // 448
static_assert(lanes_per_run<tableau::Dopri5, batchode::testing::Lorenz96<32>, double>() == 8);  // 640: 80
static_assert(lanes_per_run<tableau::Dopri5, batchode::testing::Lorenz96<256>, double>() ==
              32);                                                                             // at most 32
static_assert(lanes_per_run<tableau::Rk4, batchode::testing::Lorenz96<4, 2>, double>() == 2);  // declared
static_assert(lanes_per_run<tableau::Rk4, batchode::testing::Lorenz96<48>, double>() == 8);  // 672: 84 a lane
static_assert(lanes_per_run<tableau::Rk4, batchode::testing::Lorenz96<50>, double>() == 2);  // 50 = 2 x 25
// dop853 sums over the run's states in its step (its combined estimate): one thread per run
static_assert(lanes_per_run<tableau::Dop853, batchode::testing::Lorenz96<64>, double>() == 1);

// The split kernel's block (lane_group_kernel.hpp): 128 threads halved until its runs' N + L values
// each fit 48 KiB; past that even one run in a block of 32 threads does not (GpuRunner refuses it).
using batchode::kernels::lane_group_block;
using batchode::kernels::lane_group_shared_bytes;
using batchode::kernels::lane_group_shared_limit;
static_assert(lane_group_block<batchode::testing::Lorenz96<256, 32>, double, 32>(128) == 128);  // 4 x 2304 B
static_assert(lane_group_block<batchode::testing::Lorenz96<2048, 32>, double, 32>(128) == 64);  // 2 x 16640 B
static_assert(lane_group_block<batchode::testing::Lorenz96<8192, 32>, double, 32>(128) == 32 &&
              lane_group_shared_bytes<batchode::testing::Lorenz96<8192, 32>, double, 32>(32) >
                  lane_group_shared_limit);  // 65792 B for one run

}  // namespace
