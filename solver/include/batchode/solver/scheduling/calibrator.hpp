// solver/scheduling/: the measurements behind Backend::automatic. Per solve it probes the batch's steps per
// run, gives the planner each backend's predicted cost from the cost model (cost_model.hpp),
// calibrating a (system, method, precision, device) the model has not seen, and after the solve
// folds each part's measured time back into the model. Calibration samples runs of the batch; a
// sample holding a NaN or an infinity is refused as the whole batch's check would refuse it.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/backends/cpu/cpu_backend.hpp"
#include "batchode/checks/finite.hpp"
#include "batchode/solver/setup/backend_id.hpp"
#include "batchode/solver/scheduling/cost_model.hpp"
#include "batchode/solver/setup/input_checks.hpp"
#include "batchode/solver/results/result.hpp"
#include "batchode/solver/setup/backend_settings.hpp"
#include "batchode/solver/scheduling/scheduler.hpp"
#include "batchode/solver/scheduling/solve_context.hpp"
#include "batchode/solver/systems/system_key.hpp"
#include "batchode/solver/systems/system_traits.hpp"

namespace batchode::detail {

/// `o` for runs sampled from the batch (the probe, calibration): each run's own save times become
/// one list for all, the first run's: as many saves, and about the same cost, whichever runs were
/// sampled.
inline SolveOptions options_for_samples(SolveOptions o) {
  if (saves_per_run(o)) {
    const std::vector<double>& times = o.save_at_per_run.times();
    o.save_at.assign(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(o.save_at_per_run.n_saves()));
    o.save_at_per_run = PerRunSaveTimes();
  }
  return o;
}

/// The batch run that sample i of n spread over `runs` runs is (cycling when n > runs).
inline std::size_t sampled_run(std::size_t i, std::size_t n, std::size_t runs) {
  return n <= runs ? i * (runs / n) : i % runs;
}

/// Copies `n` runs spread over the batch's `runs` (cycling when n > runs) into y and p. Throws the
/// batch's InvalidInput when a copied value is not finite: samples run before the batch is checked.
template <class T>
void sample_runs(const T* y0, const T* params, std::size_t runs, std::size_t n, std::size_t n_states,
                 std::size_t n_params, std::vector<T>& y, std::vector<T>& p, arrays::HostWorkers& workers) {
  y.resize(n * n_states);
  p.resize(n * n_params);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = sampled_run(i, n, runs);
    std::copy(y0 + r * n_states, y0 + (r + 1) * n_states, y.begin() + static_cast<std::ptrdiff_t>(i * n_states));
    if (n_params > 0) {
      std::copy(params + r * n_params, params + (r + 1) * n_params,
                p.begin() + static_cast<std::ptrdiff_t>(i * n_params));
    }
  }
  if (checks::first_non_finite_in(y.data(), 0, y.size()) != y.size() ||
      checks::first_non_finite_in(p.data(), 0, p.size()) != p.size()) {
    check_finite_runs(y0, params, 0, runs, n_states, n_params, workers);  // throws: it names the first bad run
  }
}

template <class System, class T>
class Calibrator {
 public:
  using Context = SolveContext<System, T>;

  CostModel& model() noexcept { return model_; }

  /// Forgets the previous solve's keys and estimates.
  void begin_solve() {
    keys_.clear();
    first_use_.clear();
    probed_runs_.clear();
  }

  /// A probed run: its index in the batch and the steps it took.
  struct ProbedRun {
    std::size_t run = 0;
    double steps = 0;
  };
  /// The runs a probe of a batch integrates: 16 spread over it (fewer in a smaller batch), their values.
  struct ProbeSamples {
    std::size_t runs = 0;  // the batch's
    std::vector<T> y, p;
    bool operator==(const ProbeSamples& o) const { return runs == o.runs && y == o.y && p == o.p; }
  };

  /// Mean steps per run of a few runs spread over the batch, integrated on one CPU thread. Few,
  /// because every automatic solve pays for them: 32 Lorenz runs took 0.2 ms, as long as a warm CPU
  /// solve of a hundred runs (and 16 runs to t = 10, 800 steps each, 1-2 ms). A solve whose sampled
  /// runs are those of the previous probe (a repeated solve of the same batch: a Solver's options do
  /// not change) takes its step counts: the same integration gives the same steps.
  double probe_steps(const Context& ctx, const T* y0, const T* params, std::size_t runs) {
    ProbeSamples samples = sample_probe(ctx, y0, params, runs);
    if (recall_probe(samples)) return steps_estimate_;
    std::vector<ProbedRun> along = resume_probe(samples);
    (void)integrate_probe(ctx, samples, nullptr, along);  // without a stop flag it completes
    return remember_probe(std::move(samples), std::move(along));
  }

  /// The samples a probe of this batch integrates. Throws the batch's InvalidInput when one holds a
  /// value that is not finite (sample_runs).
  ProbeSamples sample_probe(const Context& ctx, const T* y0, const T* params, std::size_t runs) const {
    ProbeSamples samples;
    samples.runs = runs;
    sample_runs(y0, params, runs, probe_size(runs), n_states_of(ctx.system), n_params_of(ctx.system),
                samples.y, samples.p, ctx.workers);
    return samples;
  }

  /// When the last probe integrated these very samples (a repeated solve of the same batch), this
  /// solve's probed runs are its, with no integration: true. Else false, and nothing changes.
  bool recall_probe(const ProbeSamples& samples) {
    if (!last_probe_ || !(last_probe_->samples == samples)) return false;
    probed_runs_ = last_probe_->along;
    steps_estimate_ = mean_steps(probed_runs_);
    return true;
  }

  /// Integrates the samples `along` does not hold yet (from sample along.size() on), one at a time on
  /// the calling thread, appending each one's steps; true when every sample is done, false when
  /// `stop` (null: never) was set first (read before each sample, so a set flag ends the probe within
  /// one run). Each sample is its own integration, so a probe resumed from a stopped one's runs
  /// (resume_probe) finds what an uninterrupted one does. Reads no member, so it may run on another
  /// thread while the Solver's GPU parts run (run_order_probe.hpp: the probe that decides the next
  /// Backend::gpu solve's run order).
  bool integrate_probe(const Context& ctx, const ProbeSamples& samples, const std::atomic<bool>* stop,
                       std::vector<ProbedRun>& along) const {
    const std::size_t n = probe_size(samples.runs);
    SolveOptions o = options_for_samples(ctx.options);
    o.cpu_threads = 1;
    o.outputs.counters = true;
    TimeLogger quiet(nullptr, Verbosity::none);
    // With the solve's summaries: their samples are points adaptive steps land on.
    SolveResult<T> scratch(n, n_states_of(ctx.system), count_saves(o), o, nullptr, ctx.saved_observable_names(),
                           ctx.summaries, ctx.series);
    const RunSettings<T> settings = scratch_settings(ctx, o, scratch);
    for (std::size_t i = along.size(); i < n; ++i) {
      if (stop != nullptr && stop->load(std::memory_order_relaxed)) return false;
      integrate_on_cpu(ctx.system, samples.y.data(), samples.p.empty() ? nullptr : samples.p.data(), i, 1,
                       o.method, settings, o.cpu_threads, scratch.view(), quiet, ctx.workers);
      const RunCounters& c = scratch.counters()[i];
      along.push_back(
          {sampled_run(i, n, samples.runs), static_cast<double>(c.accepted_steps + c.rejected_steps)});
    }
    return true;
  }

  /// The runs a stopped probe of these very samples integrated (keep_stopped_probe), handed over to
  /// be resumed; none when the last stopped probe was of other samples, or there was none.
  std::vector<ProbedRun> resume_probe(const ProbeSamples& samples) {
    std::vector<ProbedRun> along;
    if (stopped_probe_ && stopped_probe_->samples == samples) along = std::move(stopped_probe_->along);
    stopped_probe_.reset();
    return along;
  }

  /// Keeps what a probe stopped on the way had integrated, for the next solve of the same batch to
  /// resume (resume_probe): a batch whose probe takes longer than one GPU solve is probed over a few
  /// solves, each paying at most the one run in progress when its GPU parts end.
  void keep_stopped_probe(ProbeSamples samples, std::vector<ProbedRun> along) {
    stopped_probe_ = Probe{std::move(samples), std::move(along)};
  }

  /// Keeps what a probe of `samples` found: this solve's probed runs, and the last probe (which a
  /// repeated solve of the batch recalls). Returns the mean steps per run.
  double remember_probe(ProbeSamples samples, std::vector<ProbedRun> along) {
    probed_runs_ = along;
    last_probe_ = Probe{std::move(samples), std::move(along)};
    return steps_estimate_ = mean_steps(probed_runs_);
  }

  /// This solve's probed runs in batch order; empty when this solve did not probe (Backend::cpu,
  /// forced parts; Backend::gpu until the probe run beside its parts ends, or recalled).
  const std::vector<ProbedRun>& probed_runs() const noexcept { return probed_runs_; }

  /// The last probe's steps per run (what a part without counters is assumed to have taken).
  double steps_estimate() const noexcept { return steps_estimate_; }

  /// `backend`'s predicted cost for this batch (`device_name`: the GPU's name, or "cpu x<threads>"),
  /// from the model or calibrated now and stored. `first_use`: this Solver has not run there yet, so
  /// the prediction includes its setup.
  sched::LinearCost cost(const Context& ctx, BackendId backend, const std::string& device_name, bool first_use,
                         const T* y0, const T* params, std::size_t runs, double steps, std::size_t saves) {
    const double bytes = static_cast<double>(ctx.run_footprint(saves).result_bytes_per_run);
    const std::string key =
        cost_key(cost_name_of(ctx.system), ctx.options.method, std::is_same_v<T, double>, device_name);
    std::optional<CostCoefficients> c = model_.find(key);
    if (!c || (saves > 0 && c->ns_per_byte < 0)) {
      c = calibrate(ctx, backend, y0, params, runs, steps);
      model_.store(key, *c);
    }
    keys_[backend] = key;
    first_use_[backend] = first_use;
    return sched::LinearCost{c->predict_ms(0, steps, bytes, first_use), c->per_run_ns(steps, bytes) * 1e-6};
  }

  /// Folds a part that ran `runs` runs of `steps` steps writing `bytes` bytes each in `wall_ms` into
  /// its backend's coefficients, when this solve predicted it from the model.
  void learn(BackendId backend, std::size_t runs, double steps, double bytes, double wall_ms, bool grew_buffers) {
    const auto key = keys_.find(backend);
    if (key == keys_.end()) return;
    const bool first_use = first_use_[backend];
    // A solve that grew a runner's buffers (but was not its first) paid allocations no later solve
    // of that size pays: learning from it put predictions 3x too high (10^6 runs after 50000).
    if (grew_buffers && !first_use) return;
    model_.refine(key->second, runs, steps, bytes, wall_ms, first_use);
  }

 private:
  using Runner = GpuRunnerOf<System, T>;

  /// The settings of a scratch run (the probe's, calibration's timings), pointing at `scratch`'s save
  /// times. Not the solve's one RunSettings (the executor's): scratch runs come before the solve's
  /// result, whose save times that one points at, and run under other options: one list of save times
  /// for every sampled run (options_for_samples), or none (calibration's timing without saves).
  static RunSettings<T> scratch_settings(const Context& ctx, const SolveOptions& o,
                                         const SolveResult<T>& scratch) {
    return make_run_settings<T>(o, scratch.times().data(), scratch.summary_layout(), ctx.drivers.get(),
                                scratch.series_layout());
  }

  /// Wall time (ms) of `n` runs of (y, p) on `backend`, outputs as in `options`. A GPU runs them on
  /// `gpu_runner`: calibration's own, so the buffers of this Solver's runners stay as they are.
  double time_once(const Context& ctx, BackendId backend, Runner* gpu_runner, const std::vector<T>& y,
                   const std::vector<T>& p, std::size_t n, const SolveOptions& options) {
    TimeLogger quiet(nullptr, Verbosity::none);
    SolveResult<T> scratch(n, n_states_of(ctx.system), count_saves(options), options, nullptr,
                           ctx.saved_observable_names(), ctx.summaries, ctx.series);
    const T* params = p.empty() ? nullptr : p.data();
    const RunSettings<T> settings = scratch_settings(ctx, options, scratch);
    const auto start = std::chrono::steady_clock::now();
    if (!backend.is_gpu()) {
      integrate_on_cpu(ctx.system, y.data(), params, 0, n, options.method, settings, options.cpu_threads,
                       scratch.view(), quiet, ctx.workers);
    } else {
      SolveOptions o = options;
      o.gpu.device = backend.device;
      gpu_runner->run(ctx.system, make_gpu_run_request(o), settings, y.data(), params, n, scratch.view(),
                      quiet, 0);
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  /// The fastest of three timings: the first at a new size pays buffer growth (pinned allocations
  /// take milliseconds), which a Solver's later solves of that size do not.
  double time_warm(const Context& ctx, BackendId backend, Runner* gpu_runner, const std::vector<T>& y,
                   const std::vector<T>& p, std::size_t n, const SolveOptions& options) {
    double best = time_once(ctx, backend, gpu_runner, y, p, n, options);
    for (int i = 0; i < 2; ++i) best = std::min(best, time_once(ctx, backend, gpu_runner, y, p, n, options));
    return best;
  }

  /// Measures `backend`'s coefficients on runs sampled from the batch (cost: tens of milliseconds).
  ///  - GPU one-time costs of the process (context, module load) are paid by a throw-away warm-up
  ///    solve and appear in no coefficient.
  ///  - setup_ms: a fresh runner's first solve (its construction included) minus the same size warm.
  ///  - fixed_ms and the per-run slope: warm timings at a small size n1 (latency-bound) and a large
  ///    one n2 (a GPU: >= 2^16 runs, enough to fill it, grown until the solve takes >= 5 ms or
  ///    2^20 runs; the CPU: >= 64 runs per thread, grown until >= 10 ms or 2^16 runs).
  ///  - ns_per_byte (only when the solve saves a series): the same n2 without saves.
  ///  - ns_per_run_step: the slope divided by the probed steps per run.
  CostCoefficients calibrate(const Context& ctx, BackendId backend, const T* y0, const T* params, std::size_t runs,
                             double steps_per_run) {
    const bool is_gpu = backend.is_gpu();
    const std::size_t threads = cpu::worker_count(ctx.options.cpu_threads, std::size_t(1) << 20);
    const std::size_t max_n = std::size_t(1) << (is_gpu ? 20 : 16);
    const double enough_ms = is_gpu ? 5.0 : 10.0;
    std::vector<T> y, p;
    auto sample = [&](std::size_t n) { sample_runs(y0, params, runs, n, n_states_of(ctx.system), n_params_of(ctx.system), y, p, ctx.workers); };
    SolveOptions o = options_for_samples(ctx.options);
    o.verbosity = Verbosity::none;
    const std::size_t n1 = is_gpu ? 4096 : 4 * threads;
    std::size_t n2 = is_gpu ? (std::size_t(1) << 16) : 64 * threads;
    CostCoefficients c;
    std::unique_ptr<Runner> gpu_runner;
    if (is_gpu) {
      {
        Runner warm_up;
        sample(256);
        time_once(ctx, backend, &warm_up, y, p, 256, o);
      }
      gpu_runner = std::make_unique<Runner>();
    }
    double t2 = 0;
    for (;;) {  // grow the large sample until its time dwarfs timer noise and the fixed cost
      sample(n2);
      t2 = time_warm(ctx, backend, gpu_runner.get(), y, p, n2, o);
      if (t2 >= enough_ms || n2 >= max_n) break;
      n2 *= 4;
    }
    sample(n1);
    const double t1 = time_warm(ctx, backend, gpu_runner.get(), y, p, n1, o);
    if (is_gpu) {
      // After the fit, so process-wide first-time costs are behind us: the fastest of three fresh
      // runners' first solves (construction included) minus the same solve warm. Measured on a
      // small batch, where setup decides between CPU and GPU (on large ones the kernels dwarf it),
      // and because setup grows with the batch (pinned staging): at 4096 runs it read 0.85-1.07 ms
      // on the H100, where fresh Solvers of a few hundred runs measured 0.5 ms. The fastest of
      // three, because the slower ones carry interference (page reclaim, thread start-up).
      constexpr std::size_t n_setup = 256;
      sample(n_setup);
      const double warm_small = time_warm(ctx, backend, gpu_runner.get(), y, p, n_setup, o);
      std::vector<double> first;
      for (int i = 0; i < 3; ++i) {
        std::unique_ptr<Runner> fresh;
        const auto start = std::chrono::steady_clock::now();
        fresh = std::make_unique<Runner>();
        const double construct_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        first.push_back(construct_ms + time_once(ctx, backend, fresh.get(), y, p, n_setup, o));
      }
      const double first_ms = *std::min_element(first.begin(), first.end());
      c.setup_ms = std::max(0.0, first_ms - warm_small);
    }
    const double slope = std::max(1e-9, (t2 - t1) / static_cast<double>(n2 - n1));
    c.fixed_ms = std::max(1e-3, t1 - slope * static_cast<double>(n1));
    c.ns_per_byte = -1;  // unknown until a solve with a saved series calibrates it
    double variable = slope;
    const std::size_t saves = count_saves(o);
    if (saves > 0) {
      SolveOptions plain = o;
      plain.save_every.reset();
      plain.save_at.clear();
      sample(n2);
      const double t_plain = time_warm(ctx, backend, gpu_runner.get(), y, p, n2, plain);
      // The saved columns' bytes (states and observables: every one, or those save_variables chose);
      // the timed runs share their save times (options_for_samples), so none of a run's own.
      auto result_bytes = [&](std::size_t n) {
        return arrays::run_footprint(n_states_of(ctx.system), n_params_of(ctx.system), n, sizeof(T), o.outputs, {},
                                     false, ctx.saved_observable_names().size(), 0, ctx.series_states())
            .result_bytes_per_run;
      };
      const double extra = static_cast<double>(result_bytes(saves) - result_bytes(0));
      c.ns_per_byte = std::max(0.0, (t2 - t_plain) * 1e6 / (static_cast<double>(n2) * extra));
      variable = std::max(1e-9, slope - extra * c.ns_per_byte * 1e-6);
    }
    c.ns_per_run_step = variable * 1e6 / std::max(1.0, steps_per_run);
    c.observations = 1;
    return c;
  }

  CostModel model_;
  std::map<BackendId, std::string> keys_;  // backend -> cost-model key used in this solve
  std::map<BackendId, bool> first_use_;    // backend -> its prediction included setup_ms
  double steps_estimate_ = 1.0;
  std::vector<ProbedRun> probed_runs_;
  /// A probe: the batch size and the sampled runs' values, and the steps of those it integrated.
  struct Probe {
    ProbeSamples samples;
    std::vector<ProbedRun> along;
  };

  static std::size_t probe_size(std::size_t runs) { return std::min<std::size_t>(runs, 16); }

  /// Mean steps of probed runs, at least 1.
  static double mean_steps(const std::vector<ProbedRun>& probed) {
    double steps = 0;
    for (const ProbedRun& r : probed) steps += r.steps;
    return std::max(1.0, steps / static_cast<double>(std::max<std::size_t>(1, probed.size())));
  }
  std::optional<Probe> last_probe_;     // the last complete probe (recall_probe)
  std::optional<Probe> stopped_probe_;  // the last stopped one, to be resumed (resume_probe)
};

}  // namespace batchode::detail
