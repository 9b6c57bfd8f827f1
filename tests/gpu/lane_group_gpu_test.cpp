// Runs split over several lanes of a warp (kernels/launch/lane_group.hpp) on the device: for every explicit
// method, the final states, statuses and counters are those of one thread per run bit for bit
// (GpuOptions::split_runs off), and the CPU's within the agreement bounds, over three chunks of a
// shuffled sweep (the chunks' runs ordered), with a run that overflows and adaptive solves that run
// out of steps. Lorenz-96 on 8 states over a declared 4 lanes (float and double: 2 states a lane), and on 32
// states in double where the rule chooses (dopri5, tsit5, cash_karp54, fehlberg78 over 8 lanes; the
// others one thread per run). The kernel's first load says how many lanes it splits a run over.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_compare.hpp"
#include "lorenz96.hpp"
#include "require_gpu.hpp"

namespace {

using namespace batchode;

/// F over [6, 10] in a shuffled order, states near 8; run 7 starts at a value whose square overflows.
template <class System, class T>
Batch<T> lorenz96_sweep(std::size_t runs) {
  constexpr std::size_t N = System::n_states;
  std::vector<std::size_t> order(runs);
  for (std::size_t r = 0; r < runs; ++r) order[r] = r;
  std::mt19937_64 rng(7);
  std::shuffle(order.begin(), order.end(), rng);
  Batch<T> batch;
  batch.n_runs = runs;
  batch.y0.resize(runs * N);
  batch.params.resize(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    batch.params[r] = T(6 + 4 * double(order[r]) / double(runs - 1));
    for (std::size_t i = 0; i < N; ++i)
      batch.y0[r * N + i] = T(8 + 0.5 * std::sin(0.7 * double(i) + 0.01 * double(r)));
  }
  batch.y0[7 * N + 1] = std::is_same_v<T, float> ? T(1e30) : T(1e200);
  return batch;
}

template <class System, class T>
void expect_split_runs_are_one_thread_runs() {
  const Batch<T> batch = lorenz96_sweep<System, T>(1500);
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-8;
  for (Method m : all_methods) {
    if (cpu_only(m)) continue;
    const std::size_t lanes = tableau::dispatch(m, [](auto tag) {
      using Tab = typename decltype(tag)::type;
      if constexpr (tableau::runs_on_gpu_v<Tab> && !tableau::is_stiff_v<Tab>) {
        return kernels::lanes_per_run<Tab, System, T>();
      } else {
        return std::size_t{0};
      }
    });
    for (std::uint64_t max_steps : {std::uint64_t{20000}, std::uint64_t{2}}) {
      // (A fixed-step solve whose steps exceed max_steps is refused before it starts.)
      if (max_steps == 2 && !method_info(m).adaptive) continue;
      const std::string what = to_string(m) + " on " + std::to_string(System::n_states) +
                               " states, max_steps " + std::to_string(max_steps) + ", " +
                               std::to_string(lanes) + " lanes";
      SolveOptions o;
      o.method = m;
      o.t_end = 0.5;
      o.rtol = o.atol = tol;
      if (!method_info(m).adaptive) o.dt = 1.0 / 256;
      o.max_steps = max_steps;
      o.outputs.counters = true;
      o.backend = Backend::gpu;
      o.gpu.chunks = 3;
      TimeLogger log(nullptr, Verbosity::normal);
      const SolveResult<T> split = solve_ivp(System{}, batch, o, log);
      if (max_steps == 20000) {
        // The final-state kernel is loaded on the method's first solve (this one): it names its lanes.
        const std::vector<Occurrence> loads = log.occurrences(events::kernel_compile);
        ASSERT_EQ(loads.size(), 1u) << what;
        ASSERT_NE(loads[0].metadata.find("lanes_per_run"), nullptr) << what;
        EXPECT_EQ(loads[0].metadata.find("lanes_per_run")->as_int(), static_cast<std::int64_t>(lanes))
            << what;
      }
      o.gpu.split_runs = false;
      const SolveResult<T> one = solve_ivp(System{}, batch, o);
      ASSERT_EQ(split.execution().at(0).backend, BackendId::gpu(0)) << what;
      std::size_t differing = 0;
      for (std::size_t r = 0; r < batch.n_runs; ++r) {
        EXPECT_EQ(split.status(r), one.status(r)) << what << " run " << r;
        EXPECT_EQ(split.counters(r).accepted_steps, one.counters(r).accepted_steps) << what << " run " << r;
        EXPECT_EQ(split.counters(r).rejected_steps, one.counters(r).rejected_steps) << what << " run " << r;
        EXPECT_EQ(split.counters(r).rhs_evaluations, one.counters(r).rhs_evaluations) << what << " run " << r;
        for (std::size_t s = 0; s < System::n_states; ++s) {
          const T a = split.final_state(r, s), b = one.final_state(r, s);
          differing += std::memcmp(&a, &b, sizeof(T)) != 0;
        }
      }
      EXPECT_EQ(differing, 0u) << what << ": final values that differ from one thread per run";
      EXPECT_NE(split.status(7), Status::success) << what << " (run 7 overflows)";
      if (max_steps == 2) {
        EXPECT_EQ(split.status(0), Status::max_steps_reached) << what;
      } else {
        EXPECT_EQ(split.status(0), Status::success) << what;
      }
      o.backend = Backend::cpu;
      const SolveResult<T> cpu = solve_ivp(System{}, batch, o);
      // Against the CPU: the adaptive bound for every method. A fixed-step method's rounding (8 eps a
      // step) grows through Lorenz-96's chaos past the fixed-step bound (rk4: 1e-12 after 128 steps
      // in double, one thread per run as much as split runs); the bits are pinned above.
      batchode::testing::expect_runs_agree(
          split, cpu, batchode::testing::agreement_bound<T>(Method::dopri5, tol, 0), what);
    }
  }
}

template <class T>
class LaneGroupGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LaneGroupGpu, Precisions);

TYPED_TEST(LaneGroupGpu, DeclaredLanesGiveTheOneThreadRunsBitForBit) {
  BATCHODE_REQUIRE_GPU();
  using System = batchode::testing::Lorenz96<8, 4>;
  static_assert(kernels::lanes_per_run<tableau::Rk4, System, TypeParam>() == 4);
  expect_split_runs_are_one_thread_runs<System, TypeParam>();
}

TEST(LaneGroupGpu, TheRulesLanesGiveTheOneThreadRunsBitForBit) {
  BATCHODE_REQUIRE_GPU();
  using System = batchode::testing::Lorenz96<32>;
  static_assert(kernels::lanes_per_run<tableau::Dopri5, System, double>() == 8);
  static_assert(kernels::lanes_per_run<tableau::Rk4, System, double>() == 1);
  expect_split_runs_are_one_thread_runs<System, double>();
}

}  // namespace
