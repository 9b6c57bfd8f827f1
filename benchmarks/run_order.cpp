// run_order: what ordering each GPU chunk's runs by their inputs (SolveOptions::run_order, issue 18)
// gives back on uneven sweeps, against the hand-sorted optimum, and what it costs where it cannot
// help. For each sweep, on one GPU, end to end (Solver::solve, inputs on the host to results on the
// host, final states and statuses) and kernel time (sum of the chunks' kernel_launch GPU times):
//   shuffled   the sweep in random order, RunOrder::off (what a user gets today)
//   automatic  the same shuffled batch, RunOrder::automatic (the default)
//   sorted     the same runs sorted by hand by their step counts (from a counting solve), RunOrder::off
// "first" is the median of fresh Solvers' first solves (--first-reps of each, 3 unless told); the
// others are medians of repeated solves, the three configurations taking turns. The automatic and
// off results are checked bitwise equal.
//   Sweeps: Lorenz, dopri5, rtol = atol = 1e-6, rho uniform over [0, 100], y0 = (1, 0, 0);
//           Robertson, rodas4, t in [0, 40], k3 log-uniform over [1e2, 1e9];
//           an even one: Lorenz, rho = 28, x0 over [1, 1.001] shuffled (every run takes the same
//           steps: ordering runs and cannot help); the Lorenz sweep in its own order (kept as it is).
// With --backend automatic the sweeps are solved under Backend::automatic (the default) instead of
// Backend::gpu: every solve then pays the cost model's probe of 16 runs, whose step counts also
// decide whether ordering can pay (an even sweep's probed runs take the same steps: not ordered).
// With --split (several GPUs): the same sweep in its own order over every GPU as the cost model
// splits it (Backend::automatic, the GPUs sharing their runs), in equal run counts (forced parts,
// nothing shared), and on one GPU.
// RUN_ORDER_TRACE=<prefix>: a trace of one more solve of each configuration, written to
// <prefix>_f32_20.json etc. with --split, else <prefix>_<sweep number>_f32_20_<configuration>.json
// (TimeLogger::start_trace: host events and every GPU part by stream).
// The "paired" columns are the median [quartiles] of the ratios of solves of the same round, which
// see the same state of the machine: on the even sweep, off / hand-sorted is the same work twice
// (the noise floor), and off / automatic is what ordering costs where it cannot help.
// --even-only: the even sweep only (many rounds of it are cheap). --split --max-log2 23 adds 2^23 runs.
// Usage: run_order_bench [--reps R] [--first-reps F] [--max-log2 K] [--backend gpu|automatic] [--even-only]
//                        [--split [--t-end T]]
//        (GPU builds; run on the device)
#include <algorithm>
#include <batchode/batchode.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lorenz_rho.hpp"

namespace {

using Lorenz = batchode_bench::LorenzRho;

batchode::Backend bench_backend = batchode::Backend::gpu;  // --backend
double split_t_end = 1.0;                                   // --t-end (the split's sweep)
bool even_only = false;                                     // --even-only
int first_reps = 3;                                         // --first-reps
int sweeps_compared = 0;  // by compare(), in every precision: numbers the traces (RUN_ORDER_TRACE)

struct Robertson {
  static constexpr std::size_t n_states = 3;
  static constexpr std::size_t n_params = 1;  // k3
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    const T r1 = T(0.04) * y[0], r2 = T(3e7) * y[1] * y[1], r3 = p[0] * y[1] * y[2];
    dydt[0] = -r1 + r3;
    dydt[1] = r1 - r2 - r3;
    dydt[2] = r2;
  }
  template <class T>
  BATCHODE_HOST_DEVICE void jacobian(T, const T* y, const T* p, T* J) const {
    J[0] = T(-0.04), J[1] = p[0] * y[2], J[2] = p[0] * y[1];
    J[3] = T(0.04), J[4] = T(-6e7) * y[1] - p[0] * y[2], J[5] = -p[0] * y[1];
    J[6] = 0, J[7] = T(6e7) * y[1], J[8] = 0;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// The quantile q of v (nearest rank).
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

/// a[i] / b[i] for the solves of one round: two configurations solved back to back see the same state
/// of the machine (clocks, other work), so the ratios of pairs spread less than the ratio of medians.
/// "median [first quartile, third quartile]".
std::string paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> r;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) r.push_back(a[i] / b[i]);
  char text[64];
  std::snprintf(text, sizeof text, "%.3f [%.3f, %.3f]", median(r), quantile(r, 0.25), quantile(r, 0.75));
  return text;
}

struct Timing {
  double e2e_ms = 0, kernel_ms = 0, first_ms = 0, ordering_ms = 0, ordering_gpu_ms = 0;
};

/// One configuration: a Solver with its own logger, solving one batch.
template <class System, class T>
struct Config {
  Config(const batchode::Batch<T>& b, batchode::SolveOptions o, batchode::RunOrder order)
      : batch(b), log(&quiet, batchode::Verbosity::normal), options([&] {
          o.run_order = order;
          return o;
        }()) {
    batchode::register_solver_events(log);
    solver.emplace(System{}, options, log);
  }
  /// One solve, timed; its result kept in `last`.
  void solve(bool first) {
    log.reset();
    last = batchode::SolveResult<T>();  // its memory back to the pool first, as repeated solves do
    const auto start = std::chrono::steady_clock::now();
    last = solver->solve(batch);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (first) {
      timing.first_ms = ms;
      return;
    }
    e2e.push_back(ms);
    kernel.push_back(log.stats(batchode::events::kernel_launch).total_gpu_ms);
    ordering.push_back(log.stats(batchode::events::run_ordering).total_ms);
    ordering_gpu.push_back(log.stats(batchode::events::run_ordering).total_gpu_ms);
  }
  Timing medians() {
    timing.e2e_ms = median(e2e);
    timing.kernel_ms = median(kernel);
    timing.ordering_ms = median(ordering);
    timing.ordering_gpu_ms = median(ordering_gpu);
    return timing;
  }
  const batchode::Batch<T>& batch;
  std::ostringstream quiet;
  batchode::TimeLogger log;
  batchode::SolveOptions options;
  std::optional<batchode::Solver<System, T>> solver;
  batchode::SolveResult<T> last;
  std::vector<double> e2e, kernel, ordering, ordering_gpu;
  Timing timing;
};

/// The batch's runs sorted by their step counts in `counted` (a solve of the same batch with counters).
template <class T>
batchode::Batch<T> sorted_by_steps(const batchode::Batch<T>& batch, const batchode::SolveResult<T>& counted,
                                   std::size_t n_states, std::size_t n_params) {
  std::vector<std::size_t> order(batch.n_runs);
  std::iota(order.begin(), order.end(), 0);
  auto steps = [&](std::size_t r) {
    return counted.counters(r).accepted_steps + counted.counters(r).rejected_steps;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return steps(a) < steps(b); });
  batchode::Batch<T> sorted;
  sorted.n_runs = batch.n_runs;
  for (std::size_t r : order) {
    sorted.y0.insert(sorted.y0.end(), batch.y0.begin() + r * n_states, batch.y0.begin() + (r + 1) * n_states);
    sorted.params.insert(sorted.params.end(), batch.params.begin() + r * n_params,
                         batch.params.begin() + (r + 1) * n_params);
  }
  return sorted;
}

template <class System, class T>
void compare(const char* sweep, const batchode::Batch<T>& batch, const batchode::SolveOptions& options,
             int reps, int log2) {
  batchode::SolveOptions counting = options;
  counting.outputs.counters = true;
  Config<System, T> count_steps(batch, counting, batchode::RunOrder::off);
  count_steps.solve(true);
  const batchode::SolveResult<T>& counted = count_steps.last;
  const batchode::Batch<T> sorted = sorted_by_steps(batch, counted, System::n_states, System::n_params);
  std::uint32_t lo = ~0u, hi = 0;
  for (std::size_t r = 0; r < batch.n_runs; ++r) {
    const std::uint32_t s = counted.counters(r).accepted_steps + counted.counters(r).rejected_steps;
    lo = std::min(lo, s), hi = std::max(hi, s);
  }

  // The three configurations take turns, so that drifts of the machine (clocks, other work) fall on
  // all of them alike: first solves, then `reps` rounds.
  Config<System, T> off_config(batch, options, batchode::RunOrder::off);
  Config<System, T> automatic_config(batch, options, batchode::RunOrder::automatic);
  Config<System, T> hand_config(sorted, options, batchode::RunOrder::off);
  Config<System, T>* configs[] = {&off_config, &automatic_config, &hand_config};
  for (Config<System, T>* c : configs) c->solve(true);
  for (int rep = 0; rep < reps; ++rep) {
    for (int i = 0; i < 3; ++i) configs[(rep + i) % 3]->solve(false);
  }
  Timing off = off_config.medians(), automatic = automatic_config.medians(), hand = hand_config.medians();
  // First solves: `first_reps` fresh Solvers of each configuration in all, taking turns; medians.
  std::vector<double> firsts[3];
  Timing* timings[] = {&off, &automatic, &hand};
  for (int i = 0; i < 3; ++i) firsts[i].push_back(timings[i]->first_ms);
  for (int rep = 1; rep < first_reps; ++rep) {
    for (int i = 0; i < 3; ++i) {
      std::optional<Config<System, T>> fresh;
      fresh.emplace(i == 2 ? sorted : batch, options,
                    i == 1 ? batchode::RunOrder::automatic : batchode::RunOrder::off);
      fresh->solve(true);
      firsts[i].push_back(fresh->timing.first_ms);
    }
  }
  for (int i = 0; i < 3; ++i) timings[i]->first_ms = median(firsts[i]);
  batchode::SolveResult<T>& with_order = automatic_config.last;
  batchode::SolveResult<T>& without_order = off_config.last;
  const std::size_t values = batch.n_runs * System::n_states;
  const bool same =
      std::memcmp(with_order.final_state_data(), without_order.final_state_data(), values * sizeof(T)) == 0 &&
      std::memcmp(with_order.status_data(), without_order.status_data(),
                  batch.n_runs * sizeof(batchode::Status)) == 0;
  std::printf(
      "| %s | %s | 2^%d | %u..%u | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %.3f | %.3f | %.3f | %.3f | "
      "%.3f | %s | %s | %s | %.3f | %.2f / %.2f / %.2f | %s |\n",
      sweep, sizeof(T) == 4 ? "float32" : "float64", log2, lo, hi, off.e2e_ms, off.kernel_ms,
      automatic.e2e_ms, automatic.kernel_ms, hand.e2e_ms, hand.kernel_ms, automatic.e2e_ms / hand.e2e_ms,
      automatic.first_ms / hand.first_ms, automatic.ordering_ms, automatic.ordering_gpu_ms,
      off.e2e_ms / automatic.e2e_ms, paired_ratio(automatic_config.e2e, hand_config.e2e).c_str(),
      paired_ratio(off_config.e2e, automatic_config.e2e).c_str(),
      paired_ratio(off_config.e2e, hand_config.e2e).c_str(), off.first_ms / automatic.first_ms, off.first_ms,
      automatic.first_ms, hand.first_ms, same ? "yes" : "NO");
  std::fflush(stdout);
  ++sweeps_compared;
  if (const char* trace = std::getenv("RUN_ORDER_TRACE")) {  // one more solve of each configuration, traced
    const char* names[] = {"off", "automatic", "sorted"};
    for (int i = 0; i < 3; ++i) {
      configs[i]->log.start_trace(std::string(trace) + "_" + std::to_string(sweeps_compared) +
                                  (sizeof(T) == 4 ? "_f32_" : "_f64_") + std::to_string(log2) + "_" +
                                  names[i] + ".json");
      configs[i]->solve(false);
      (void)configs[i]->log.stop_trace();
    }
  }
}

template <class T>
std::vector<T> shuffled(std::vector<T> v, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

template <class T>
void run_precision(int reps, int max_log2) {
  using batchode::Method;
  for (int k : {20, 22}) {
    if (k > max_log2) continue;
    const std::size_t n = std::size_t(1) << k;
    batchode::SolveOptions o;
    o.method = Method::dopri5;
    o.rtol = o.atol = 1e-6;
    o.backend = bench_backend;
    batchode::Batch<T> lorenz;
    lorenz.n_runs = n;
    lorenz.params = shuffled(batchode::linspace<T>(0.0, 100.0, n), 1);
    for (std::size_t r = 0; r < n; ++r) lorenz.y0.insert(lorenz.y0.end(), {T(1), T(0), T(0)});
    if (!even_only) compare<Lorenz, T>("Lorenz dopri5, rho over [0, 100]", lorenz, o, reps, k);

    // Even: every run takes the same steps, so ordering (which does run: x0 is shuffled) cannot help.
    batchode::Batch<T> even = lorenz;
    std::fill(even.params.begin(), even.params.end(), T(28));
    const std::vector<T> x0 = shuffled(batchode::linspace<T>(1.0, 1.001, n), 3);
    for (std::size_t r = 0; r < n; ++r) even.y0[3 * r] = x0[r];
    compare<Lorenz, T>("even: Lorenz dopri5, rho = 28, x0 over [1, 1.001]", even, o, reps, k);
    if (even_only) continue;
    // Already in order: the same sweep as the first, unshuffled; the order is planned and kept.
    batchode::Batch<T> in_order = lorenz;
    in_order.params = batchode::linspace<T>(0.0, 100.0, n);
    compare<Lorenz, T>("in order: Lorenz dopri5, rho over [0, 100]", in_order, o, reps, k);
  }
  for (int k : {18, 20}) {
    if (k > max_log2 || even_only) continue;
    const std::size_t n = std::size_t(1) << k;
    batchode::SolveOptions o;
    o.method = Method::rodas4;
    o.t_end = 40;
    o.rtol = sizeof(T) == 4 ? 1e-4 : 1e-6;
    o.atol = sizeof(T) == 4 ? 1e-8 : 1e-10;
    o.max_steps = 100000;
    o.backend = bench_backend;
    batchode::Batch<T> robertson;
    robertson.n_runs = n;
    std::vector<T> k3(n);
    for (std::size_t r = 0; r < n; ++r) k3[r] = static_cast<T>(std::pow(10.0, 2.0 + 7.0 * r / (n - 1.0)));
    robertson.params = shuffled(k3, 2);
    for (std::size_t r = 0; r < n; ++r) robertson.y0.insert(robertson.y0.end(), {T(1), T(0), T(0)});
    compare<Robertson, T>("Robertson rodas4, k3 over [1e2, 1e9]", robertson, o, reps, k);
  }
}

/// Issue 18's split: the uneven Lorenz sweep in its own order (cheap runs first) on every visible GPU
/// under Backend::automatic (the cost model's split), against the same Solver forced to equal run
/// counts per GPU and to one GPU; repeated solves, taking turns.
template <class T>
void split_over_gpus(int reps, int log2) {
  const std::size_t n = std::size_t(1) << log2;
  const int gpus = static_cast<int>(batchode::gpu::discover().devices.size());
  if (gpus < 2) {
    std::printf("split: %d GPU visible, nothing to split\n", gpus);
    return;
  }
  batchode::SolveOptions o;
  o.method = batchode::Method::dopri5;
  o.rtol = o.atol = 1e-6;
  o.t_end = split_t_end;
  batchode::Batch<T> lorenz;
  lorenz.n_runs = n;
  lorenz.params = batchode::linspace<T>(0.0, 100.0, n);
  for (std::size_t r = 0; r < n; ++r) lorenz.y0.insert(lorenz.y0.end(), {T(1), T(0), T(0)});
  std::ostringstream quiet;
  batchode::TimeLogger log(&quiet, batchode::Verbosity::normal);
  batchode::register_solver_events(log);
  batchode::Solver<Lorenz, T> automatic(Lorenz{}, o, log), even(Lorenz{}, o, log), one(Lorenz{}, o, log);
  std::vector<batchode::sched::Part> halves, single{{batchode::BackendId::gpu(0), {}, 0, n, {}}};
  for (int g = 0; g < gpus; ++g) {
    const std::size_t first = n * g / gpus, last = n * (g + 1) / gpus;
    halves.push_back({batchode::BackendId::gpu(g), {}, first, last - first, {}});
  }
  even.force_parts(halves);
  one.force_parts(single);
  batchode::Solver<Lorenz, T>* solvers[] = {&automatic, &even, &one};
  std::vector<double> ms[3];
  std::string parts;
  for (int rep = -2; rep < reps; ++rep) {  // two warm-ups: the first calibrates the cost model
    for (int i = 0; i < 3; ++i) {
      const int k = (rep + 3 + i) % 3;
      const auto start = std::chrono::steady_clock::now();
      const batchode::SolveResult<T> r = solvers[k]->solve(lorenz);
      const double t =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (rep >= 0) ms[k].push_back(t);
      if (k == 0) {
        parts.clear();
        for (const batchode::ExecutionRecord& e : r.execution()) {
          parts += batchode::to_string(e.backend) + " runs " + std::to_string(e.first_run) + ".." +
                   std::to_string(e.first_run + e.runs) + " (" + std::to_string(e.wall_ms).substr(0, 5) +
                   " ms) ";
        }
      }
    }
  }
  // Where one more automatic solve's time goes, by event (every part's events nest in the solve's).
  log.reset();
  const char* trace = std::getenv("RUN_ORDER_TRACE");  // a trace of one more solve of each configuration
  if (trace != nullptr) {
    log.start_trace(std::string(trace) + (sizeof(T) == 4 ? "_f32_" : "_f64_") + std::to_string(log2) +
                    ".json");
  }
  (void)automatic.solve(lorenz);
  const std::string events = log.summary();
  if (trace != nullptr) {
    (void)one.solve(lorenz);
    (void)even.solve(lorenz);
    (void)log.stop_trace();
  }
  const double a = median(ms[0]), e = median(ms[1]), g1 = median(ms[2]);
  std::printf("| %s | 2^%d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n",
              sizeof(T) == 4 ? "float32" : "float64", log2, gpus, g1, e, a, e / g1, a / g1, parts.c_str());
  if (std::getenv("RUN_ORDER_EVENTS") != nullptr) std::printf("%s\n", events.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, max_log2 = 22;
  bool split = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--split") == 0) split = true;
    if (std::strcmp(argv[i], "--even-only") == 0) even_only = true;
    if (i + 1 >= argc) continue;
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--first-reps") == 0) first_reps = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--max-log2") == 0) max_log2 = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--t-end") == 0) split_t_end = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--backend") == 0 && std::strcmp(argv[i + 1], "automatic") == 0) {
      bench_backend = batchode::Backend::automatic;
    }
  }
  const batchode::gpu::Discovery& found = batchode::gpu::discover();
  if (!found.available) {
    std::printf("no usable GPU: %s\n", found.reason.c_str());
    return 0;
  }
  if (split) {
    std::printf("# %zu x %s; medians of %d solves; Lorenz dopri5 1e-6 to t = %g, rho over [0, 100] in order; ms\n",
                found.devices.size(), found.devices[0].name.c_str(), reps, split_t_end);
    std::printf(
        "| precision | N | GPUs | one GPU | equal run counts | automatic | equal counts / one | "
        "automatic / one | automatic's parts (last solve) |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int k : {20, 22, 23}) {  // 2^23: about the 10^7 runs of the scheduler's two-GPU test
      if (k > max_log2) continue;
      split_over_gpus<float>(reps, k);
      split_over_gpus<double>(reps, k);
    }
    return 0;
  }
  std::printf(
      "# device: %s; Backend::%s; medians of %d solves after a first, of %d fresh Solvers' first "
      "solves; e2e / kernel in ms\n",
      found.devices[0].name.c_str(), bench_backend == batchode::Backend::gpu ? "gpu" : "automatic", reps,
      first_reps);
  std::printf(
      "| sweep | precision | N | steps per run | shuffled, off | shuffled, automatic | hand-sorted, off | "
      "automatic / hand-sorted (e2e) | same, first solves | run_ordering host ms | run_ordering GPU ms | off "
      "/ automatic (e2e) | automatic / hand-sorted, paired | off / automatic, paired | off / hand-sorted, "
      "paired | off / automatic, first solves | first solves ms (off / automatic / hand-sorted) | bitwise "
      "equal |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  run_precision<float>(reps, max_log2);
  run_precision<double>(reps, max_log2);
  return 0;
}
