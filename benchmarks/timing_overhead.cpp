// benchmarks/: what timing costs the code it times. One TimeLogger start/stop pair, enabled
// (normal level, nested under an open parent so no summary prints) and disabled (Verbosity::none,
// which must stay an inline early-out). Targets: enabled < 200 ns per pair, disabled < 5 ns.
// Also what a trace costs while on (each pair written to a file as it ends), and the profiler
// ranges (NVTX in CUDA builds: one pointer check per call with no profiler attached).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include <batchode/timing/timed_events.hpp>
#include <batchode/timing/kernel_timer.hpp>
#include <batchode/timing/time_logger.hpp>

namespace {

// Occurrences are kept until reset(); clearing them now and then (untimed) keeps memory flat so
// the benchmark measures recording, not page faults of an ever-growing vector.
constexpr std::int64_t reset_every = 1 << 16;

// Times start/stop pairs of an enabled logger, nested in an open parent (no summary per pair):
// `with_metadata` adds two entries to each stop, `trace` writes each pair to a trace file as it
// ends, `ranges` opens a profiler range per pair.
struct Setting {
  bool with_metadata = false;
  bool trace = false;
  bool ranges = false;
};

void time_pairs(benchmark::State& state, Setting setting) {
  std::ostringstream out;
  batchode::TimeLogger log(&out, batchode::Verbosity::normal);
  batchode::register_solver_events(log);
  const std::string path = (std::filesystem::temp_directory_path() / "batchode-timing-overhead.json").string();
  if (setting.trace) log.start_trace(path);
  log.set_profiler_ranges(setting.ranges);
  log.start_event(batchode::events::solve_ivp_execution);  // the open parent
  std::int64_t n = 0;
  for (auto _ : state) {
    log.start_event(batchode::events::d2h_transfer_state);
    if (setting.with_metadata) {
      log.stop_event(batchode::events::d2h_transfer_state, {{"nbytes", n}, {"chunk_index", 3}});
    } else {
      log.stop_event(batchode::events::d2h_transfer_state);
    }
    if (++n % reset_every == 0) {
      state.PauseTiming();
      log.reset();
      state.ResumeTiming();
    }
  }
  log.stop_event(batchode::events::solve_ivp_execution);
  if (setting.trace) {
    (void)log.stop_trace();
    std::remove(path.c_str());
  }
  state.SetItemsProcessed(state.iterations());
}

void StartStopEnabled(benchmark::State& state) { time_pairs(state, {}); }
BENCHMARK(StartStopEnabled);
void StartStopEnabledWithMetadata(benchmark::State& state) { time_pairs(state, {true, false, false}); }
BENCHMARK(StartStopEnabledWithMetadata);
void StartStopTracedWithMetadata(benchmark::State& state) { time_pairs(state, {true, true, false}); }
BENCHMARK(StartStopTracedWithMetadata);
void StartStopProfilerRanges(benchmark::State& state) { time_pairs(state, {false, false, true}); }
BENCHMARK(StartStopProfilerRanges);

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
