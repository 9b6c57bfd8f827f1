// benchmarks/: what timing costs the code it times. One TimeLogger start/stop pair, enabled
// (normal level, nested under an open parent so no summary prints) and disabled (Verbosity::none,
// which must stay an inline early-out). Targets: enabled < 200 ns per pair, disabled < 5 ns.
#include <benchmark/benchmark.h>

#include <sstream>

#include <batchode/timing/events.hpp>
#include <batchode/timing/kernel_timer.hpp>
#include <batchode/timing/time_logger.hpp>

namespace {

// Occurrences are kept until reset(); clearing them now and then (untimed) keeps memory flat so
// the benchmark measures recording, not page faults of an ever-growing vector.
constexpr std::int64_t reset_every = 1 << 16;

void StartStopEnabled(benchmark::State& state) {
  std::ostringstream out;
  batchode::TimeLogger log(&out, batchode::Verbosity::normal);
  batchode::register_solver_events(log);
  log.start_event(batchode::events::solve_ivp_execution);  // the open parent: no summary per pair
  std::int64_t n = 0;
  for (auto _ : state) {
    log.start_event(batchode::events::kernel_launch);
    log.stop_event(batchode::events::kernel_launch);
    if (++n % reset_every == 0) {
      state.PauseTiming();
      log.reset();
      state.ResumeTiming();
    }
  }
  log.stop_event(batchode::events::solve_ivp_execution);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(StartStopEnabled);

void StartStopEnabledWithMetadata(benchmark::State& state) {
  std::ostringstream out;
  batchode::TimeLogger log(&out, batchode::Verbosity::normal);
  batchode::register_solver_events(log);
  log.start_event(batchode::events::solve_ivp_execution);
  std::int64_t n = 0;
  for (auto _ : state) {
    log.start_event(batchode::events::d2h_transfer_state);
    log.stop_event(batchode::events::d2h_transfer_state, {{"nbytes", n}, {"chunk_index", 3}});
    if (++n % reset_every == 0) {
      state.PauseTiming();
      log.reset();
      state.ResumeTiming();
    }
  }
  log.stop_event(batchode::events::solve_ivp_execution);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(StartStopEnabledWithMetadata);

void StartStopNone(benchmark::State& state) {
  std::ostringstream out;
  batchode::TimeLogger log(&out, batchode::Verbosity::none);
  batchode::register_solver_events(log);
  for (auto _ : state) {
    log.start_event(batchode::events::kernel_launch);
    log.stop_event(batchode::events::kernel_launch);
    benchmark::ClobberMemory();  // keep the compiler from merging iterations
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(StartStopNone);

void KernelTimerCpuMode(benchmark::State& state) {
  batchode::KernelTimer timer("cpu");
  for (auto _ : state) {
    timer.start_cpu();
    timer.stop_cpu();
    benchmark::DoNotOptimize(timer.elapsed_ms());
  }
}
BENCHMARK(KernelTimerCpuMode);

}  // namespace

BENCHMARK_MAIN();
