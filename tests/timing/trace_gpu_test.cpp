// tests/timing/: the trace of a chunked GPU solve (device machine). Beyond what the CPU trace test
// checks (trace_test.cpp), the GPU parts: one per phase with a GPU time, on the track of the stream
// it ran on, placed by the device clock after its host event began and inside the run that holds
// it; phases of one stream never overlap, and uploads or downloads on one stream overlap kernels on
// the other (the chunk pipeline's point). Compiled by the GPU compiler; skips where no GPU is usable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "require_gpu.hpp"
#include "test_systems.hpp"
#include "trace_checks.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;

// The device clock is placed on the host's by an anchor whose host time is read when a wait for it
// returns: GPU times may be late by that wake-up, a few microseconds; 100 us is a generous bound.
constexpr double anchor_tolerance_us = 100.0;

TEST(TraceGpu, ChunkedSolveShowsEachPhaseOnItsStreamAndTheOverlap) {
  BATCHODE_REQUIRE_GPU();
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  register_solver_events(log);
  const std::size_t runs = std::size_t{1} << 20;
  std::vector<float> y0(runs * 3), params(runs * 3);
  for (std::size_t i = 0; i < runs; ++i) {
    y0[3 * i] = 1.0f;
    params[3 * i] = 10.0f;
    params[3 * i + 1] = 21.0f * static_cast<float>(i) / static_cast<float>(runs);
    params[3 * i + 2] = 8.0f / 3.0f;
  }
  SolveOptions options;
  options.method = Method::rk4;
  options.dt = 1e-3;
  options.backend = Backend::gpu;
  options.gpu.chunks = 8;
  Solver<Lorenz, float> solver(Lorenz{}, options, log);
  (void)solver.solve(y0, params);  // warm-up: module load and first allocations stay out of the trace
  log.reset();
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("batchode-trace-gpu-" + std::to_string(::getpid()) + ".json"))
                               .string();
  log.start_trace(path);
  const SolveResult<float> result = solver.solve(y0, params);
  ASSERT_TRUE(result.all_succeeded());
  ASSERT_EQ(log.stop_trace(), path);
  const trace_checks::Trace trace = trace_checks::read_trace(path);
  trace_checks::expect_matches_logger(trace, log);
  if (const char* keep = std::getenv("BATCHODE_TRACE_TEST_COPY"))
    std::filesystem::copy_file(path, keep, std::filesystem::copy_options::overwrite_existing);
  std::remove(path.c_str());

  // One GPU part per occurrence with a GPU time, with that time as its duration.
  std::map<std::size_t, const trace_checks::Span*> host_by_id;
  for (const trace_checks::Span& span : trace.host)
    host_by_id[static_cast<std::size_t>(span.args["id"].number)] = &span;
  std::size_t with_gpu = 0;
  for (const Occurrence& o : log.occurrences()) with_gpu += o.gpu_ms.has_value();
  ASSERT_EQ(trace.gpu.size(), with_gpu);
  ASSERT_GT(with_gpu, 8u * 3u) << "each chunk uploads, runs and downloads";
  const Occurrence run = log.occurrences(events::kernel_run_execution).at(0);
  const trace_checks::Span& run_span = *host_by_id.at(run.id);
  std::map<int, std::vector<const trace_checks::Span*>> by_track;
  for (const trace_checks::Span& gpu : trace.gpu) {
    const auto id = static_cast<std::size_t>(gpu.args["id"].number);
    const Occurrence o = log.occurrence(id);
    ASSERT_TRUE(o.gpu_ms.has_value());
    EXPECT_EQ(gpu.name, o.label);
    EXPECT_NEAR(gpu.dur_us / 1000.0, *o.gpu_ms, 1e-9);
    const trace_checks::Span& host = *host_by_id.at(id);
    EXPECT_GE(gpu.ts_us, host.ts_us - 1.0) << gpu.name << ": ran on the device before it was enqueued";
    EXPECT_GE(gpu.ts_us, run_span.ts_us - 1.0) << gpu.name;
    EXPECT_LE(gpu.end_us(), run_span.end_us() + anchor_tolerance_us) << gpu.name << " ended after its run";
    EXPECT_EQ(trace.track_names.at(gpu.track).rfind("gpu:0 stream ", 0), 0u)
        << trace.track_names.at(gpu.track);
    by_track[gpu.track].push_back(&gpu);
  }
  ASSERT_EQ(by_track.size(), 2u) << "chunks alternate between two streams";
  for (auto& [track, spans] : by_track) {
    std::sort(spans.begin(), spans.end(), [](auto* a, auto* b) { return a->ts_us < b->ts_us; });
    for (std::size_t i = 1; i < spans.size(); ++i) {
      // A stream runs its work in order; event timestamps have about 0.5 us resolution.
      EXPECT_GE(spans[i]->ts_us, spans[i - 1]->end_us() - 2.0)
          << spans[i]->name << " overlaps " << spans[i - 1]->name << " on " << trace.track_names.at(track);
    }
  }
  // The pipeline's overlap: some copy on one stream runs while a kernel runs on the other.
  std::size_t overlapping_copies = 0;
  for (const trace_checks::Span& copy : trace.gpu) {
    if (copy.name == events::kernel_launch) continue;
    for (const trace_checks::Span& kernel : trace.gpu) {
      if (kernel.name != events::kernel_launch || kernel.track == copy.track) continue;
      if (copy.ts_us < kernel.end_us() && kernel.ts_us < copy.end_us()) {
        ++overlapping_copies;
        break;
      }
    }
  }
  EXPECT_GT(overlapping_copies, 0u) << "no copy overlapped a kernel on the other stream";
  std::printf("[trace] %zu host events, %zu GPU parts on %zu streams, %zu copies overlapping a kernel\n",
              trace.host.size(), trace.gpu.size(), by_track.size(), overlapping_copies);
}

}  // namespace
