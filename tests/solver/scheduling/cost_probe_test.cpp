// The cost probe (solver/scheduling/calibrator.hpp): 16 runs spread over a batch, integrated on one CPU
// thread, whose step counts size Backend::automatic's parts and decide whether a GPU solve orders its runs.
// Its steps are those a CPU solve of the same runs counts; a repeated solve of the same batch recalls
// them without integrating, another batch does not; a probe stopped on the way (the one Backend::gpu
// runs beside its GPU parts, stopped when they end first) is not recalled, but the runs it integrated
// are resumed by the next probe of the same batch, which then finds what an uninterrupted one does.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <batchode/batchode.hpp>
#include <batchode/solver/scheduling/calibrator.hpp>
#include <batchode/solver/scheduling/solve_context.hpp>
#include <cstddef>
#include <vector>

#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;
using ProbedRun = detail::Calibrator<Lorenz, double>::ProbedRun;

/// Lorenz with rho over [0, 100] in sweep order: runs of very different step counts.
Batch<double> rho_sweep(std::size_t runs) {
  Batch<double> b;
  b.n_runs = runs;
  for (std::size_t r = 0; r < runs; ++r) {
    b.y0.insert(b.y0.end(), {1.0, 0.0, 0.0});
    b.params.insert(b.params.end(),
                    {10.0, 100.0 * static_cast<double>(r) / static_cast<double>(runs - 1), 8.0 / 3});
  }
  return b;
}

struct Probe : ::testing::Test {
  Probe() {
    options.method = Method::dopri5;
    options.rtol = options.atol = 1e-8;
    options.t_end = 1.0;
    options.backend = Backend::cpu;
  }
  detail::SolveContext<Lorenz, double> context() {
    return detail::SolveContext<Lorenz, double>{system, options, logger, workers, memory, gpus};
  }
  Lorenz system;
  SolveOptions options;
  TimeLogger logger{nullptr, Verbosity::none};
  arrays::HostWorkers workers{1};
  ResultMemoryPool memory;
  detail::GpuRunners<Lorenz, double> gpus;
  detail::Calibrator<Lorenz, double> calibrator;
};

TEST_F(Probe, TakesTheStepsACpuSolveOfTheSampledRunsCounts) {
  const Batch<double> batch = rho_sweep(1000);
  const auto ctx = context();
  const auto samples = calibrator.sample_probe(ctx, batch.y0.data(), batch.params.data(), batch.n_runs);
  ASSERT_EQ(samples.y.size(), 16u * 3u);
  std::vector<ProbedRun> found;
  ASSERT_TRUE(calibrator.integrate_probe(ctx, samples, nullptr, found));
  const std::vector<ProbedRun>* along = &found;
  ASSERT_EQ(along->size(), 16u);

  // The reference: a CPU solve of the same 16 runs, with counters.
  Batch<double> sampled;
  sampled.n_runs = 16;
  sampled.y0 = samples.y;
  sampled.params = samples.p;
  SolveOptions counting = options;
  counting.outputs.counters = true;
  SolveResult<double> reference = solve_ivp(Lorenz{}, sampled, counting, logger);
  double fewest = 1e300, most = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    const RunCounters& c = reference.counters(i);
    EXPECT_EQ((*along)[i].steps, static_cast<double>(c.accepted_steps + c.rejected_steps)) << "sample " << i;
    EXPECT_EQ((*along)[i].run, i * (1000 / 16)) << "samples spread evenly over the batch";
    fewest = std::min(fewest, (*along)[i].steps), most = std::max(most, (*along)[i].steps);
  }
  EXPECT_GT(most, 1.1 * fewest) << "the sweep is uneven: ordering its runs can pay";
}

TEST_F(Probe, IsRecalledForTheSameBatchOnly) {
  const Batch<double> batch = rho_sweep(1000);
  const auto ctx = context();
  auto samples = calibrator.sample_probe(ctx, batch.y0.data(), batch.params.data(), batch.n_runs);
  EXPECT_FALSE(calibrator.recall_probe(samples)) << "nothing probed yet";
  std::vector<ProbedRun> found;
  ASSERT_TRUE(calibrator.integrate_probe(ctx, samples, nullptr, found));
  calibrator.remember_probe(samples, found);

  calibrator.begin_solve();  // the next solve
  EXPECT_TRUE(calibrator.probed_runs().empty());
  EXPECT_TRUE(
      calibrator.recall_probe(calibrator.sample_probe(ctx, batch.y0.data(), batch.params.data(), 1000)));
  ASSERT_EQ(calibrator.probed_runs().size(), found.size());
  for (std::size_t i = 0; i < found.size(); ++i) EXPECT_EQ(calibrator.probed_runs()[i].steps, found[i].steps);

  Batch<double> other = batch;
  other.params[3 * 496 + 1] = 7.0;  // run 496 is sample 8 (samples 1000 / 16 = 62 runs apart)
  calibrator.begin_solve();
  EXPECT_FALSE(
      calibrator.recall_probe(calibrator.sample_probe(ctx, other.y0.data(), other.params.data(), 1000)))
      << "one sampled value differs";
  EXPECT_TRUE(calibrator.probed_runs().empty());
  EXPECT_FALSE(
      calibrator.recall_probe(calibrator.sample_probe(ctx, batch.y0.data(), batch.params.data(), 999)))
      << "a batch of another size";
}

TEST_F(Probe, StoppedIsNotRecalledButResumedByTheNextProbeOfTheSameBatch) {
  const Batch<double> batch = rho_sweep(1000);
  const auto ctx = context();
  const auto samples = calibrator.sample_probe(ctx, batch.y0.data(), batch.params.data(), batch.n_runs);
  std::vector<ProbedRun> uninterrupted;
  ASSERT_TRUE(calibrator.integrate_probe(ctx, samples, nullptr, uninterrupted));

  std::atomic<bool> stop{true};
  std::vector<ProbedRun> along;
  EXPECT_FALSE(calibrator.integrate_probe(ctx, samples, &stop, along)) << "a set flag stops it before a run";
  EXPECT_TRUE(along.empty());
  // A probe stopped after five runs (the flag is read before each): what it kept.
  along.assign(uninterrupted.begin(), uninterrupted.begin() + 5);
  calibrator.keep_stopped_probe(samples, along);
  EXPECT_FALSE(calibrator.recall_probe(samples)) << "a stopped probe is not a probe to recall";

  Batch<double> other = batch;
  other.params[3 * 496 + 1] = 7.0;  // sample 8 differs
  const auto other_samples = calibrator.sample_probe(ctx, other.y0.data(), other.params.data(), 1000);
  calibrator.keep_stopped_probe(samples, along);
  EXPECT_TRUE(calibrator.resume_probe(other_samples).empty()) << "another batch starts afresh";
  EXPECT_TRUE(calibrator.resume_probe(samples).empty()) << "the kept runs went to the first resume_probe";

  calibrator.keep_stopped_probe(samples, along);
  std::vector<ProbedRun> resumed = calibrator.resume_probe(samples);
  ASSERT_EQ(resumed.size(), 5u);
  stop = false;
  EXPECT_TRUE(calibrator.integrate_probe(ctx, samples, &stop, resumed)) << "an unset flag stops nothing";
  ASSERT_EQ(resumed.size(), uninterrupted.size());
  for (std::size_t i = 0; i < resumed.size(); ++i) {
    EXPECT_EQ(resumed[i].run, uninterrupted[i].run) << "sample " << i;
    EXPECT_EQ(resumed[i].steps, uninterrupted[i].steps) << "sample " << i;
  }
  calibrator.remember_probe(samples, resumed);
  calibrator.begin_solve();
  EXPECT_TRUE(calibrator.recall_probe(samples)) << "completed, the probe is recalled";
}

}  // namespace
