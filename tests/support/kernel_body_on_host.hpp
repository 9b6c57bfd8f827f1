// The GPU kernel's per-thread body (kernels::integrate_chunk_run: the register or Rosenbrock
// stepper, the device layout, the device series sink) run on the host over a whole batch, so CPU
// tests check the GPU path's numerics where no GPU exists.
#pragma once

#include <algorithm>
#include <batchode/kernels/launch/device_views.hpp>
#include <batchode/arrays/transpose.hpp>
#include <batchode/batchode.hpp>
#include <batchode/kernels/launch/batch_kernel.hpp>
#include <cstdint>
#include <memory>
#include <vector>

namespace batchode::testing {

/// Runs every run of `batch` through the kernel body on the host, in the device layout, and returns
/// what the GPU path would (final states, series, statuses, counters).
template <class System, class T>
SolveResult<T> run_kernel_body_on_host(const System& sys, const Batch<T>& batch, const SolveOptions& options) {
  constexpr std::size_t N = System::n_states, P = System::n_params, E = n_events_v<System>;
  SolveOptions o = options;
  if (o.events.empty()) o.events.resize(E);  // as Solver does
  check_events_for_system(o, E);
  const std::size_t runs = batch.n_runs, saves = count_saves(o);
  std::vector<T> y0 = batch.y0, params = batch.params;  // run-major on the device too (device_views.hpp)
  if (params.empty()) params.resize(std::max<std::size_t>(1, P * runs));
  // The series' columns as Solver resolves them (SolveOptions::save_variables).
  const auto series_layout = std::make_shared<const SeriesLayout>(
      plan_series(o, detail::state_names_of(sys), detail::observable_names_of(sys)));
  const std::size_t W = series_layout->states.size(), WO = series_layout->observables.size();
  std::vector<T> final_state(N * runs), series(saves * W * runs);
  std::vector<std::int32_t> status(runs);
  std::vector<std::uint32_t> acc(runs), rej(runs), evals(runs);
  const EventShape shape = event_shape(o);
  std::vector<T> events(shape.values_per_run(N) * runs);
  std::vector<std::uint32_t> event_counts(E * runs);
  // Summaries as Solver lays them out: the summary kernel keeps them (around no series, or one).
  std::shared_ptr<const SummaryLayout> layout;
  if (!o.summaries.empty()) {
    layout = std::make_shared<const SummaryLayout>(
        plan_summaries(o, detail::state_names_of(sys), detail::observable_names_of(sys)));
  }
  SolveResult<T> result(runs, N, saves, o, nullptr, series_layout->observable_names, layout, series_layout);
  const std::size_t summary_values = layout ? layout->values_per_run() : 0;
  std::vector<T> summaries(summary_values * runs);  // windows x values per window x runs, runs fastest
  std::vector<T> observables(saves * WO * runs);  // n_saves x saved observables x runs, runs fastest
  // Each run's own save times, runs fastest, as a chunk's copy on the device (device_views.hpp).
  std::vector<T> own_times(result.times_per_run() ? saves * runs : 0);
  if (!own_times.empty()) arrays::pack_runs_fastest(result.times().data(), runs, saves, own_times.data(), runs);
  const kernels::DeviceInputs<T> in{y0.data(), params.data(), runs, nullptr,
                                    own_times.empty() ? nullptr : own_times.data()};
  std::vector<T> stop_time(runs);
  const kernels::DeviceOutputs<T> out{final_state.data(), saves * W > 0 ? series.data() : nullptr, status.data(), acc.data(),
                                     rej.data(), evals.data(), runs, static_cast<std::uint32_t>(saves),
                                     E > 0 ? events.data() : nullptr, E > 0 ? event_counts.data() : nullptr,
                                     saves * WO > 0 ? observables.data() : nullptr,
                                     summary_values > 0 ? summaries.data() : nullptr, stop_time.data()};
  // Drivers as Solver fits them (the plan points to this table's pieces).
  std::unique_ptr<const DriverTable<T>> drivers;
  if (n_drivers_v<System> > 0) {
    drivers = std::make_unique<const DriverTable<T>>(
        fit_drivers(o.drivers, detail::driver_names_of(sys), n_drivers_v<System>, o.t0, o.t_end));
    check_driver_sets(drivers->fitted(), runs);
  }
  RunSettings<T> plan = make_run_settings<T>(o, result.times().data(), result.summary_layout(), drivers.get(),
                                             result.series_layout());
  if (!own_times.empty()) plan.save_times = nullptr;  // as ChunkPipeline: the runs' own come with the inputs
  tableau::dispatch(o.method, [&](auto tag) {
    using Tab = typename decltype(tag)::type;
    for (std::size_t r = 0; r < runs; ++r) {
      // The summary kernel GpuRunner picks: built for the kinds the system declares when the solve
      // keeps exactly those, else for every kind.
      if (summary_values > 0 && runs_declared_summary_kernel<System>(plan.summary_metrics)) {
        kernels::integrate_chunk_run<Tab, true, System, T, summary_kinds_v<System>>(sys, plan, in, out, r);
      } else if (summary_values > 0) {
        kernels::integrate_chunk_run<Tab, true, System, T, all_summary_kinds>(sys, plan, in, out, r);
      } else if (saves) {
        kernels::integrate_chunk_run<Tab, true>(sys, plan, in, out, r);
      } else {
        kernels::integrate_chunk_run<Tab, false>(sys, plan, in, out, r);
      }
    }
  });
  std::copy(final_state.begin(), final_state.end(), result.final_state_data());
  if (saves * W > 0) arrays::unpack_to_run_major(series.data(), runs, runs, saves * W, result.series_data());
  if (saves * WO > 0) {
    arrays::unpack_to_run_major(observables.data(), runs, runs, saves * WO, result.view().observables);
  }
  if (summary_values > 0) {
    arrays::unpack_to_run_major(summaries.data(), runs, runs, summary_values, result.view().summaries);
  }
  if (E > 0) {
    const ResultView<T> view = result.view();
    arrays::unpack_to_run_major(events.data(), runs, runs, shape.values_per_run(N), view.events);
    arrays::unpack_to_run_major(event_counts.data(), runs, runs, E, view.event_counts);
  }
  for (std::size_t r = 0; r < runs; ++r) {
    result.status_data()[r] = static_cast<Status>(status[r]);
    result.stop_time_data()[r] = stop_time[r];
    result.counters_data()[r] = RunCounters{acc[r], rej[r], evals[r]};
  }
  return result;
}

}  // namespace batchode::testing
