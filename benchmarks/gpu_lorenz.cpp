// benchmarks/gpu_lorenz: the GPU ODE benchmarks' protocol on batchode's GPU path, against a plain
// hand-written RK4 Lorenz kernel in the same run (no library, state in registers, final state only).
// Lorenz, rho = linspace(0, 21, N), sigma = 10, beta = 8/3, y0 = (1, 0, 0), RK4, dt = 1e-3,
// t in [0, 1], final state only; float and double; N = 2^10 .. 2^24. Medians of --reps repetitions
// after a warm-up. Kernel times from GPU events; end to end = a Solver::solve call, inputs on the host
// before and results on the host after (buffers kept by the Solver, as in repeated solves).
// Also an adaptive case (dopri5, rtol = atol = 1e-6) on the same sweep, and its saved series: steps
// landing on save times against dense output (save_at), kernel time and steps per run; and the
// kernel's cost of one event function.
//
//   gpu_lorenz [--reps R] [--max-log2 K] [--min-log2 K] [--only summaries|save_variables]
#include <batchode/backends/gpu/launch.hpp>
#include <batchode/gpu/buffers.hpp>
#include <batchode/batchode.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "lorenz_rho.hpp"

namespace {

// The swept parameter is rho; sigma and beta are the system's constants, as in the baseline kernel
// (and in the GPU ODE benchmarks' Lorenz): one parameter per run crosses the bus.
using Lorenz = batchode_bench::LorenzRho;

// The baseline: what one writes by hand for this benchmark.
template <class T>
__global__ void baseline_rk4_lorenz(const T* rho, T* out, std::size_t n, int steps, T dt) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T s = 10, r = rho[i], b = T(8.0 / 3.0);
  T x = 1, y = 0, z = 0;
  for (int k = 0; k < steps; ++k) {
    const T k1x = s * (y - x), k1y = x * (r - z) - y, k1z = x * y - b * z;
    T xa = x + dt / 2 * k1x, ya = y + dt / 2 * k1y, za = z + dt / 2 * k1z;
    const T k2x = s * (ya - xa), k2y = xa * (r - za) - ya, k2z = xa * ya - b * za;
    xa = x + dt / 2 * k2x, ya = y + dt / 2 * k2y, za = z + dt / 2 * k2z;
    const T k3x = s * (ya - xa), k3y = xa * (r - za) - ya, k3z = xa * ya - b * za;
    xa = x + dt * k3x, ya = y + dt * k3y, za = z + dt * k3z;
    const T k4x = s * (ya - xa), k4y = xa * (r - za) - ya, k4z = xa * ya - b * za;
    x += dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    y += dt / 6 * (k1y + 2 * k2y + 2 * k3y + k4y);
    z += dt / 6 * (k1z + 2 * k2z + 2 * k3z + k4z);
  }
  out[i] = x;
  out[n + i] = y;
  out[2 * n + i] = z;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

template <class T>
double baseline_kernel_ms(std::size_t n, int reps) {
  const std::vector<T> rho = batchode::linspace<T>(0.0, 21.0, n);
  batchode::gpu::DeviceBuffer<T> d_rho(n), d_out(3 * n);
  batchode::gpu::Stream stream;
  batchode::gpu::copy_to_device_async(d_rho.data(), rho.data(), n * sizeof(T), stream.get());
  batchode::gpu::Event start, stop;
  std::vector<double> times;
  for (int rep = -1; rep < reps; ++rep) {
    start.record(stream.get());
    baseline_rk4_lorenz<T><<<unsigned((n + 127) / 128), 128, 0, batchode::gpu::native_stream(stream.get())>>>(
        d_rho.data(), d_out.data(), n, 1000, T(1e-3));
    batchode::gpu::check_last_launch("baseline_rk4_lorenz", __FILE__, __LINE__);
    stop.record(stream.get());
    stop.synchronize();
    if (rep >= 0) times.push_back(batchode::gpu::elapsed_ms(start, stop));
  }
  return median(times);
}

struct Measured {
  double kernel_ms, e2e_ms, first_ms;
  std::size_t chunks;
  double mean_steps;  ///< accepted steps per run (0 unless the options ask for counters)
};

template <class T, class System = Lorenz>
Measured batchode_ms(std::size_t n, int reps, batchode::Method method, std::size_t chunks = 0,
                     const std::function<void(batchode::SolveOptions&)>& tweak = {}) {
  std::ostringstream quiet;
  batchode::TimeLogger log(&quiet, batchode::Verbosity::normal);
  batchode::register_solver_events(log);
  batchode::SolveOptions o;
  o.method = method;
  o.t_end = 1.0;
  if (method == batchode::Method::rk4) o.dt = 1e-3;
  o.rtol = o.atol = 1e-6;
  o.backend = batchode::Backend::gpu;
  o.outputs.counters = false;  // final state (and status) only, as the protocol asks
  o.gpu.chunks = chunks;
  if (tweak) tweak(o);
  batchode::GridBuilder<T> grid({T(1), T(0), T(0)}, {T(28)});
  grid.param(0, batchode::linspace<T>(0.0, 21.0, n));
  const batchode::Batch<T> batch = grid.build(batchode::GridKind::verbatim);
  batchode::Solver<System, T> solver(System{}, o, log);
  std::vector<double> kernel, e2e;
  double first = 0;
  std::size_t launched = 0;
  double mean_steps = 0;
  for (int rep = -1; rep < reps; ++rep) {
    log.reset();
    const auto t0 = std::chrono::steady_clock::now();
    const auto result = solver.solve(batch);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!result.all_succeeded()) std::fprintf(stderr, "warning: %zu runs failed\n", n - result.count(batchode::Status::success));
    const auto stats = log.stats(batchode::events::kernel_launch);
    launched = stats.count;
    if (o.outputs.counters) {
      double sum = 0;
      for (const auto& c : result.counters()) sum += c.accepted_steps;
      mean_steps = sum / double(n);
    }
    if (rep < 0) {
      first = ms;
      continue;
    }
    kernel.push_back(stats.total_gpu_ms);
    e2e.push_back(ms);
  }
  if (n == (std::size_t(1) << 22) && method == batchode::Method::rk4 && chunks == 0) {
    std::fprintf(stderr, "\n--- where the last %s solve of 2^22 runs went ---\n%s\n", sizeof(T) == 4 ? "float" : "double",
                 log.summary().c_str());
    if (const char* dir = std::getenv("BATCHODE_TIMELINE_DIR")) {  // every occurrence, for a timeline
      std::ofstream(std::string(dir) + (sizeof(T) == 4 ? "/timeline_f32.json" : "/timeline_f64.json")) << log.to_json();
    }
  }
  return {median(kernel), median(e2e), first, launched, mean_steps};
}

// dopri5 (rtol = atol = 1e-6, t in [0, 1]) with a saved series: none, 101 or 1001 points landed on
// (steps end there) or interpolated (dense output: the steps of the solve without saves). One chunk,
// so the kernel times add up one launch's work.
template <class T>
void saved_series(int reps, int log2) {
  const std::size_t n = std::size_t(1) << log2;
  std::printf("\n## %s, dopri5 rtol=atol=1e-6, 2^%d runs: saved series, landed vs interpolated\n",
              sizeof(T) == 4 ? "float32" : "float64", log2);
  std::printf("| saves | mode | batchode kernel ms | x no saves | accepted steps per run |\n|---|---|---|---|---|\n");
  double plain_ms = 0;
  for (std::size_t points : {0, 101, 1001}) {
    // Variant 2: the same times given to each run as its own (save_at_per_run): the same work, read
    // from each run's column of the chunk's copy instead of one list, uploaded with the chunk.
    for (int variant : {0, 1, 2}) {
      const batchode::SaveMode mode = variant == 0 ? batchode::SaveMode::land : batchode::SaveMode::interpolate;
      if (points == 0 && variant > 0) continue;
      const Measured m = batchode_ms<T>(n, reps, batchode::Method::dopri5, 1, [&](batchode::SolveOptions& o) {
        o.outputs.counters = true;
        o.save_mode = mode;
        for (std::size_t k = 0; k < points; ++k) o.save_at.push_back(double(k) / double(points - 1));
        if (variant == 2) {
          std::vector<double> own;
          own.reserve(n * points);
          for (std::size_t r = 0; r < n; ++r) own.insert(own.end(), o.save_at.begin(), o.save_at.end());
          o.save_at.clear();
          o.save_at_per_run = batchode::PerRunSaveTimes(points, std::move(own));
        }
      });
      if (points == 0) plain_ms = m.kernel_ms;
      const std::string name = !points ? "-" : batchode::to_string(mode) + (variant == 2 ? ", per run" : "");
      std::printf("| %zu | %s | %.3f | %.3f | %.1f |\n", points, name.c_str(), m.kernel_ms, m.kernel_ms / plain_ms,
                  m.mean_steps);
      std::fflush(stdout);
    }
    if (points > 0) {  // the same interpolated saves with two observables beside each
      const Measured m = batchode_ms<T, batchode_bench::LorenzRhoObserved>(
          n, reps, batchode::Method::dopri5, 1, [&](batchode::SolveOptions& o) {
            o.outputs.counters = true;
            o.save_mode = batchode::SaveMode::interpolate;
            for (std::size_t k = 0; k < points; ++k) o.save_at.push_back(double(k) / double(points - 1));
          });
      std::printf("| %zu | interpolate, 2 observables | %.3f | %.3f | %.1f |\n", points, m.kernel_ms,
                  m.kernel_ms / plain_ms, m.mean_steps);
      std::fflush(stdout);
    }
  }
}

// The cost of one event function (x = 0, both directions, the first 4 crossings of each run recorded;
// 2^22 runs over t in [0, 1]): the kernel with it against the same kernel without, RK4 and dopri5.
template <class T>
void event_cost(int reps, int log2) {
  const std::size_t n = std::size_t(1) << log2;
  std::printf("\n## %s, one event function (x = 0, recorded, max 4), 2^%d runs\n",
              sizeof(T) == 4 ? "float32" : "float64", log2);
  std::printf("| method | kernel ms without | kernel ms with the event | ratio |\n|---|---|---|---|\n");
  for (batchode::Method m : {batchode::Method::rk4, batchode::Method::dopri5}) {
    const Measured plain = batchode_ms<T>(n, reps, m, 1);
    const Measured with = batchode_ms<T, batchode_bench::LorenzRhoEvent>(n, reps, m, 1, [](batchode::SolveOptions& o) {
      o.events = {{"x_zero", batchode::EventDirection::both, batchode::EventAction::record, 4}};
    });
    std::printf("| %s | %.3f | %.3f | %.3f |\n", batchode::to_string(m).c_str(), plain.kernel_ms, with.kernel_ms,
                with.kernel_ms / plain.kernel_ms);
    std::fflush(stdout);
  }
}

// The series' variables chosen by name (save_variables, issue 11): RK4 dt = 1e-3 over [0, 1], 2^log2
// runs of Lorenz with 2 observables, 101 saves, chunked as the solver chooses: every state and
// observable (5 columns) against z alone (1 column) and none of the series (the final state). The
// chosen series takes 1/5 of the device buffers, staging, transfers and result.
template <class T>
void chosen_series(int reps, int log2) {
  const std::size_t n = std::size_t(1) << log2;
  std::printf("\n## %s, RK4 dt=1e-3, 2^%d runs, 101 saves of Lorenz with 2 observables: save_variables\n",
              sizeof(T) == 4 ? "float32" : "float64", log2);
  std::printf("| series | columns | kernel ms | x final state only | end-to-end ms | x final state only | chunks |\n"
              "|---|---|---|---|---|---|---|\n");
  const Measured none = batchode_ms<T, batchode_bench::LorenzRhoObserved>(n, reps, batchode::Method::rk4);
  std::printf("| final state only | 0 | %.3f | 1 | %.3f | 1 | %zu |\n", none.kernel_ms, none.e2e_ms, none.chunks);
  for (const std::vector<std::string>& chosen : {std::vector<std::string>{}, std::vector<std::string>{"y2"}}) {
    const Measured m = batchode_ms<T, batchode_bench::LorenzRhoObserved>(
        n, reps, batchode::Method::rk4, 0, [&](batchode::SolveOptions& o) {
          o.save_every = 0.01;
          o.save_variables = chosen;
        });
    std::printf("| %s | %d | %.3f | %.3f | %.3f | %.3f | %zu |\n", chosen.empty() ? "every variable" : "z alone",
                chosen.empty() ? 5 : 1, m.kernel_ms, m.kernel_ms / none.kernel_ms, m.e2e_ms, m.e2e_ms / none.e2e_ms,
                m.chunks);
    std::fflush(stdout);
  }
}

// The cost of summaries (issue 11): RK4 dt = 1e-3 over [0, 1] (1000 steps), 2^log2 runs, one chunk,
// no series; the kernel keeping `mean, max, peaks[3]` of the 3 states against the plain kernel, with a
// sample every 10 steps and every step, and every metric every 10 steps.
template <class T>
void summary_cost(int reps, int log2) {
  const std::size_t n = std::size_t(1) << log2;
  std::printf("\n## %s, RK4 dt=1e-3, 2^%d runs: summaries of the 3 states (no series), one chunk\n",
              sizeof(T) == 4 ? "float32" : "float64", log2);
  std::printf("| summaries | sample every | windows | kernel ms | x plain |\n|---|---|---|---|---|\n");
  const Measured plain = batchode_ms<T>(n, reps, batchode::Method::rk4, 1);
  std::printf("| none | - | - | %.3f | 1.000 |\n", plain.kernel_ms);
  const std::vector<std::string> all = {"mean",          "std",      "rms",      "extrema",      "max_magnitude",
                                        "max_time",      "min_time", "dxdt_extrema", "d2xdt2_extrema", "peaks[3]",
                                        "negative_peaks[3]"};
  struct Row {
    std::vector<std::string> metrics;
    double sample;
    const char* name;
  };
  for (const Row& row : {Row{{"mean", "max", "peaks[3]"}, 1e-2, "mean, max, peaks[3]"},
                         Row{{"mean", "max", "peaks[3]"}, 1e-3, "mean, max, peaks[3]"},
                         Row{all, 1e-2, "all 11 (18 values per state)"}}) {
    const Measured m = batchode_ms<T>(n, reps, batchode::Method::rk4, 1, [&](batchode::SolveOptions& o) {
      o.summaries.metrics = row.metrics;
      o.summaries.sample_summaries_every = row.sample;
      o.summaries.summarise_every = 0.1;
    });
    std::printf("| %s | %g (%d steps) | 10 | %.3f | %.3f |\n", row.name, row.sample, int(row.sample / 1e-3 + 0.5),
                m.kernel_ms, m.kernel_ms / plain.kernel_ms);
    std::fflush(stdout);
  }
  // The kernel built for mean, max and peaks only (the system's summary_kinds), as a runtime model's is.
  for (double sample : {1e-2, 1e-3}) {
    const Measured m = batchode_ms<T, batchode_bench::LorenzRhoSummarised>(
        n, reps, batchode::Method::rk4, 1, [&](batchode::SolveOptions& o) {
          o.summaries.metrics = {"mean", "max", "peaks[3]"};
          o.summaries.sample_summaries_every = sample;
          o.summaries.summarise_every = 0.1;
        });
    std::printf("| mean, max, peaks[3], kernel built for them | %g (%d steps) | 10 | %.3f | %.3f |\n", sample,
                int(sample / 1e-3 + 0.5), m.kernel_ms, m.kernel_ms / plain.kernel_ms);
    std::fflush(stdout);
  }
}

// A sweep whose series would fill hundreds of GB, summarised within a 2 GiB device budget: 2^22 runs,
// RK4 dt = 1e-3 over [0, 10] (10^4 steps per run), mean, max, peaks[3] of the 3 states per window of
// 1 (10 windows), sampled every 0.01. End to end, chunked by the budget.
template <class T>
void summary_memory(int reps) {
  const std::size_t n = std::size_t(1) << 22;
  const double series_gb = double(n) * 1e4 * 3 * sizeof(T) / 1e9;
  std::printf("\n## %s, 2^22 runs x 10^4 RK4 steps, summaries only, device budget 2 GiB (the series every step "
              "would be %.0f GB)\n",
              sizeof(T) == 4 ? "float32" : "float64", series_gb);
  const Measured m = batchode_ms<T>(n, std::min(reps, 3), batchode::Method::rk4, 0, [&](batchode::SolveOptions& o) {
    o.t_end = 10.0;
    o.gpu.memory_bytes = std::size_t(2) << 30;
    o.summaries.metrics = {"mean", "max", "peaks[3]"};
    o.summaries.summarise_every = 1.0;
    o.summaries.sample_summaries_every = 0.01;
  });
  const double result_mb = double(n) * 10 * 3 * 5 * sizeof(T) / 1e6;
  std::printf("| chunks | kernel ms | end-to-end ms | summaries in the result |\n|---|---|---|---|\n");
  std::printf("| %zu | %.1f | %.1f | %.0f MB |\n", m.chunks, m.kernel_ms, m.e2e_ms, result_mb);
  std::fflush(stdout);
}

template <class T>
void run_precision(int reps, int min_log2, int max_log2) {
  const char* name = sizeof(T) == 4 ? "float32" : "float64";
  std::printf("\n## %s, RK4 dt=1e-3, 1000 steps\n", name);
  std::printf("| N | baseline kernel ms | batchode kernel ms (1 chunk) | ratio | batchode end-to-end ms (auto chunks) | first solve ms | chunks | run-steps/s (batchode kernel) |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (int k = min_log2; k <= max_log2; k += 2) {
    const std::size_t n = std::size_t(1) << k;
    const double base = baseline_kernel_ms<T>(n, reps);
    // Kernel against kernel: one chunk, like the baseline's one launch. End to end: automatic
    // chunking, which splits large batches so transfers and host copies overlap the kernels.
    const Measured one = batchode_ms<T>(n, reps, batchode::Method::rk4, 1);
    const Measured m = batchode_ms<T>(n, reps, batchode::Method::rk4);
    std::printf("| 2^%d | %.3f | %.3f | %.3f | %.3f | %.3f | %zu | %.3g |\n", k, base, one.kernel_ms, one.kernel_ms / base,
                m.e2e_ms, m.first_ms, m.chunks, double(n) * 1000.0 / (one.kernel_ms * 1e-3));
    std::fflush(stdout);
  }
  std::printf("\n## %s, dopri5 rtol=atol=1e-6 (adaptive)\n", name);
  std::printf("| N | batchode kernel ms | batchode end-to-end ms |\n|---|---|---|\n");
  for (int k : {20, 22}) {
    if (k > max_log2) continue;
    const Measured m = batchode_ms<T>(std::size_t(1) << k, reps, batchode::Method::dopri5);
    std::printf("| 2^%d | %.3f | %.3f |\n", k, m.kernel_ms, m.e2e_ms);
    std::fflush(stdout);
  }
  saved_series<T>(reps, std::min(max_log2, 17));
  event_cost<T>(reps, std::min(max_log2, 22));  // 1001 points x 3 states of 2^17 runs: 3 GB in double
}

// Divergence cost of adaptive stepping: runs of one warp that need fewer steps wait for the warp's
// slowest. The same runs (Lorenz, dopri5, rho over [0, 100], shuffled) are solved in shuffled order
// and sorted by their step counts; the kernel-time ratio is the cost of divergence, and the
// warp efficiency sum(steps) / sum over warps(32 x max steps in the warp) predicts it.
template <class T>
void divergence(int reps) {
  const std::size_t n = std::size_t(1) << 20;
  std::vector<T> rho = batchode::linspace<T>(0.0, 100.0, n);
  std::uint64_t state = 42;
  for (std::size_t i = n - 1; i > 0; --i) {  // deterministic Fisher-Yates shuffle
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(rho[i], rho[(state >> 33) % (i + 1)]);
  }
  std::ostringstream quiet;
  batchode::TimeLogger log(&quiet, batchode::Verbosity::normal);
  batchode::register_solver_events(log);
  batchode::SolveOptions o;
  o.method = batchode::Method::dopri5;
  o.t_end = 1.0;
  o.rtol = o.atol = 1e-6;
  o.backend = batchode::Backend::gpu;
  o.outputs.counters = true;  // the step counts sort the runs below
  batchode::Solver<Lorenz, T> solver(Lorenz{}, o, log);
  const std::vector<T> y0 = [&] {
    std::vector<T> v;
    for (std::size_t i = 0; i < n; ++i) v.insert(v.end(), {T(1), T(0), T(0)});
    return v;
  }();
  auto time_kernel = [&](const std::vector<T>& params, batchode::SolveResult<T>* keep) {
    std::vector<double> times;
    for (int rep = -1; rep < reps; ++rep) {
      log.reset();
      auto r = solver.solve(y0, params);
      if (rep >= 0) times.push_back(log.stats(batchode::events::kernel_launch).total_gpu_ms);
      if (keep != nullptr) *keep = std::move(r);
    }
    return median(times);
  };
  batchode::SolveResult<T> shuffled_result;
  const double shuffled = time_kernel(rho, &shuffled_result);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return shuffled_result.counters(a).accepted_steps < shuffled_result.counters(b).accepted_steps;
  });
  std::vector<T> sorted_rho(n);
  for (std::size_t i = 0; i < n; ++i) sorted_rho[i] = rho[order[i]];
  const double sorted = time_kernel(sorted_rho, nullptr);
  double steps = 0, warp_steps = 0, min_steps = 1e300, max_steps = 0;
  for (std::size_t w = 0; w < n; w += 32) {
    double worst = 0;
    for (std::size_t i = w; i < w + 32; ++i) {
      const double s = shuffled_result.counters(i).accepted_steps + shuffled_result.counters(i).rejected_steps;
      steps += s;
      worst = std::max(worst, s);
      min_steps = std::min(min_steps, s);
      max_steps = std::max(max_steps, s);
    }
    warp_steps += 32 * worst;
  }
  std::printf("\n## %s, divergence of adaptive steps (dopri5, rho over [0, 100] shuffled, 2^20 runs)\n",
              sizeof(T) == 4 ? "float32" : "float64");
  std::printf("| steps per run (min..max) | shuffled kernel ms | sorted by steps kernel ms | cost of divergence | predicted from warp efficiency |\n|---|---|---|---|---|\n");
  std::printf("| %.0f..%.0f | %.3f | %.3f | %.2fx | %.2fx |\n", min_steps, max_steps, shuffled, sorted, shuffled / sorted,
              warp_steps / steps);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, min_log2 = 10, max_log2 = 24;
  std::string only;  // "summaries": the summary tables alone
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--only") only = argv[i + 1];
    if (a == "--reps") reps = std::stoi(argv[i + 1]);
    if (a == "--max-log2") max_log2 = std::stoi(argv[i + 1]);
    if (a == "--min-log2") min_log2 = std::stoi(argv[i + 1]);
  }
  const auto& found = batchode::gpu::discover();
  if (!found.available) {
    std::printf("gpu_lorenz: skipped, no usable GPU: %s\n", found.reason.c_str());
    return 0;
  }
  std::printf("gpu_lorenz on %s, median of %d repetitions\n", found.devices[0].name.c_str(), reps);
  try {
    if (only == "summaries") {
      for (int k = min_log2; k <= max_log2; k += 2) {
        summary_cost<float>(reps, k);
        summary_cost<double>(reps, k);
      }
      summary_memory<float>(reps);
      return 0;
    }
    if (only == "save_variables") {
      chosen_series<float>(reps, 21);
      chosen_series<double>(reps, 21);
      return 0;
    }
    run_precision<float>(reps, min_log2, max_log2);
    run_precision<double>(reps, min_log2, max_log2);
    divergence<float>(reps);
    divergence<double>(reps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_lorenz: %s\n", e.what());
    return 1;
  }
  return 0;
}
