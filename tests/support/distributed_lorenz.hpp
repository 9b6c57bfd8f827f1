// The batch the distributed tests solve (tests/distributed/ on threads, tests/mpi/ under mpiexec):
// Lorenz runs whose rho and z0 vary, dopri5 at 1e-8 with a saved series and counters, on one CPU
// thread per process, so that every run is integrated alone and the results of a distributed solve
// must equal one Solver's bit for bit (expect_runs_equal).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include "batchode/solver/setup/grid.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/results/result.hpp"

namespace batchode::testing {

inline SolveOptions distributed_lorenz_options() {
  SolveOptions o;
  o.t_end = 2;
  o.method = Method::dopri5;
  o.rtol = 1e-8;
  o.atol = 1e-8;
  o.save_every = 0.25;
  o.outputs.counters = true;
  o.backend = Backend::cpu;
  o.cpu_threads = 1;
  o.verbosity = Verbosity::none;
  return o;
}

template <class T>
Batch<T> distributed_lorenz_batch(std::size_t runs) {
  Batch<T> b;
  for (std::size_t i = 0; i < runs; ++i) {
    b.y0.insert(b.y0.end(), {T(1), T(1), T(1) + T(0.01) * T(i)});
    b.params.insert(b.params.end(), {T(10), T(20) + T(0.5) * T(i), T(8) / T(3)});
  }
  return b;
}

/// Runs [first_run, first_run + runs) of `reference` equal `r`'s runs bit for bit: final states,
/// series, statuses, stop times, counters and event records and counts; and the same state names.
template <class T>
void expect_runs_equal(const SolveResult<T>& r, const SolveResult<T>& reference, std::size_t first_run,
                       std::size_t runs) {
  EXPECT_EQ(r.n_runs(), runs);
  if (r.n_runs() != runs) return;
  const std::size_t ns = r.n_states(), saves = r.n_saves();
  EXPECT_EQ(r.state_names(), reference.state_names()) << "the gathered result names its columns as a solve does";
  EXPECT_EQ(0, std::memcmp(r.final_state().data(), reference.final_state().data() + first_run * ns,
                           runs * ns * sizeof(T)));
  ASSERT_EQ(r.series().empty(), reference.series().empty());
  if (!r.series().empty()) {  // (memcmp of an empty array's null data is undefined behaviour)
    EXPECT_EQ(0, std::memcmp(r.series().data(), reference.series().data() + first_run * saves * ns,
                             runs * saves * ns * sizeof(T)));
  }
  for (std::size_t i = 0; i < runs; ++i) {
    EXPECT_EQ(r.status(i), reference.status(first_run + i)) << "run " << first_run + i;
    EXPECT_EQ(r.stop_time(i), reference.stop_time(first_run + i)) << "run " << first_run + i;
    EXPECT_EQ(r.counters(i).accepted_steps, reference.counters(first_run + i).accepted_steps);
    EXPECT_EQ(r.counters(i).rhs_evaluations, reference.counters(first_run + i).rhs_evaluations);
  }
  ASSERT_EQ(r.n_events(), reference.n_events());
  if (r.n_events() == 0) return;
  const std::size_t record = r.n_events() * r.event_slots() * (ns + 1);
  EXPECT_EQ(0, std::memcmp(r.events().data(), reference.events().data() + first_run * record,
                           runs * record * sizeof(T)));
  EXPECT_EQ(0, std::memcmp(r.event_counts().data(), reference.event_counts().data() + first_run * r.n_events(),
                           runs * r.n_events() * sizeof(std::uint32_t)));
}

}  // namespace batchode::testing
