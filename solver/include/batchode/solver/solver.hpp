// solver/: Solver (built once, solve() many times) and solve_ivp (one call). They validate the
// batch, choose the backend, run it, and time every phase in the TimeLogger.
//
// Backend choice (scheduler.hpp): Backend::cpu runs on the CPU and Backend::gpu on device
// options.gpu.device or throws (reason user_preference). Backend::automatic runs on the CPU when no
// GPU is usable (not compiled into this translation unit, none found: reason gpu_unavailable, with a
// one-line notice); otherwise the measured cost model (cost_model.hpp, calibrated once per system,
// method, precision and device, cached; a GPU this Solver has not run on yet is charged its buffer
// setup) picks the CPU, one GPU, or a split over every visible GPU
// (plus the CPU when that shortens the predicted time by 10%), parts running concurrently on their
// own host threads into disjoint rows of the one result (reason cost_model). A GPU part failing at
// run time is run again on the CPU under automatic when options.gpu.allow_cpu_fallback (reason
// cpu_fallback). Every part is an ExecutionRecord, an ExecutionTelemetry event and an
// execution_part event in the TimeLogger; at Verbosity::debug the telemetry summary is printed.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <typeinfo>
#include <thread>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/checks/finite.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/solver/cost_model.hpp"
#include "batchode/backends/cpu/cpu_backend.hpp"
#include "batchode/solver/grid.hpp"
#include "batchode/solver/options.hpp"
#include "batchode/solver/result.hpp"
#include "batchode/solver/run_settings.hpp"
#include "batchode/solver/scheduler.hpp"
#include "batchode/kernels/system.hpp"
#include "batchode/solver/telemetry.hpp"
#include "batchode/timing/events.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"

#if BATCHODE_GPU_COMPILER && BATCHODE_HAS_GPU_RUNTIME
#include "batchode/backends/gpu/gpu_runner.hpp"
#define BATCHODE_GPU_PATH 1
#else
#define BATCHODE_GPU_PATH 0
#endif

namespace batchode {

/// True when this translation unit carries the GPU path (compiled by hipcc/nvcc in a GPU build).
inline constexpr bool gpu_path_compiled = BATCHODE_GPU_PATH;

/// No GPU path can run a solve that asked for Backend::gpu.
class GpuUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// The level of one solve: BATCHODE_VERBOSITY when it names one (it overrides both the solve's and
/// the logger's), else the solve's own; std::nullopt: the logger's.
inline std::optional<Verbosity> solve_verbosity(std::optional<Verbosity> wanted) {
  if (const std::optional<Verbosity> from_environment = environment_verbosity()) return from_environment;
  return wanted;
}

/// A solve's timing on the calling thread for its duration: its level (solve_verbosity()) on this
/// thread alone, never set on the logger that other threads share, and timing problems dropped
/// rather than failing the solve (TimeLogger::CallScope).
class VerbosityScope {
 public:
  VerbosityScope(TimeLogger& logger, std::optional<Verbosity> wanted)
      : scope_(logger, solve_verbosity(wanted)) {}

 private:
  TimeLogger::CallScope scope_;
};

/// Registers the solver's events on `logger` (idempotent). Never throws: a label its owner
/// registered in another category stays theirs and is still timed; a logger without memory left
/// for a registration loses that event's timing (dropped by the solve's CallScope), not the solve.
inline void register_events_for_solve(TimeLogger& logger) noexcept {
  try {
    register_solver_events(logger);
  } catch (...) {
    // see above: nothing here may fail a solve
  }
}

/// Index of the first NaN or infinity in values[0, n), or n. Blocks are tested branch-free, so the
/// common all-finite case vectorises; large inputs are split over threads (10^7 runs' inputs are
/// hundreds of MB, which one thread reads in tens of milliseconds).
template <class T>
std::size_t first_non_finite(const T* values, std::size_t n) {
  auto scan = [values](std::size_t begin, std::size_t end) { return checks::first_non_finite_in(values, begin, end); };
  const unsigned threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  if (n < (std::size_t(1) << 22) || threads == 1) return scan(0, n);
  std::vector<std::size_t> found(threads, n);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
      const std::size_t i = scan(begin, end);
      found[t] = i == end ? n : i;
    });
  }
  for (std::thread& t : pool) t.join();
  return *std::min_element(found.begin(), found.end());
}

/// Throws InvalidInput naming the first NaN or infinity of runs [first_run, first_run + count) of a
/// run-major array of `width` values per run (`what`: "initial value" or "parameter").
template <class T>
void check_finite_inputs(const T* values, std::size_t first_run, std::size_t count, std::size_t width,
                         const char* what) {
  const T* range = values + first_run * width;
  const std::size_t i = first_non_finite(range, count * width);
  if (i == count * width) return;
  throw non_finite_input(what, first_run + i / width, i % width, static_cast<double>(range[i]));
}

}  // namespace detail

/// A reusable batch solver for one system and one set of options. Device buffers and plans are kept
/// between solve() calls. Not thread-safe: use one Solver per thread.
template <class System, class T = double>
class Solver {
  static_assert(std::is_floating_point_v<T>, "batchode solves in float or double");
  static_assert(is_ode_system_v<System, T>,
                "System needs static n_states (> 0), n_params and a const call operator "
                "(T t, const T* y, const T* p, T* dydt): see batchode/kernels/system.hpp");

 public:
  static constexpr std::size_t n_states = System::n_states;
  static constexpr std::size_t n_params = System::n_params;

  /// Throws InvalidInput for bad options. Registers the solver's events on `logger` (any logger
  /// will do; registering again changes nothing).
  explicit Solver(System system, SolveOptions options, TimeLogger& logger = default_timelogger())
      : system_(std::move(system)), options_(std::move(options)), logger_(&logger) {
    validate_for<T>(options_);
    detail::register_events_for_solve(*logger_);
  }

  const SolveOptions& options() const noexcept { return options_; }

  /// Where this Solver's solves ran: one event per part, per-backend statistics, summary.
  const ExecutionTelemetry& telemetry() const noexcept { return telemetry_; }
  /// The measured cost model behind Backend::automatic (its cache file: cost_model().path()).
  CostModel& cost_model() noexcept { return cost_model_; }
  /// For tests and experiments: later solves run exactly these parts ("cpu" or "gpu:<i>", covering
  /// the batch in run order, recorded with reason user_preference) instead of the scheduler's plan.
  /// An empty list restores the scheduler. solve() throws InvalidInput when the parts do not cover it.
  void force_parts(std::vector<sched::Part> parts) { forced_parts_ = std::move(parts); }

  /// Solves a batch given run-major initial values (n_runs x n_states) and parameters
  /// (n_runs x n_params). Throws InvalidInput for wrong sizes, an empty batch or non-finite values;
  /// GpuUnavailable when Backend::gpu cannot run; GpuError for a GPU failure without fallback.
  SolveResult<T> solve(const std::vector<T>& y0, const std::vector<T>& params) {
    if (y0.empty()) throw InvalidInput("empty batch: no initial values given");
    if (y0.size() % n_states != 0) {
      throw InvalidInput("initial values: " + std::to_string(y0.size()) + " values is not a multiple of n_states = " +
                         std::to_string(n_states));
    }
    const std::size_t runs = y0.size() / n_states;
    const std::size_t param_values = checks::checked_mul(runs, n_params, "parameters (n_runs x n_params)");
    if (params.size() != param_values) {
      throw InvalidInput("parameters: expected n_runs x n_params = " + std::to_string(runs) + " x " +
                         std::to_string(n_params) + " = " + std::to_string(param_values) + " values, got " +
                         std::to_string(params.size()));
    }
    return solve(y0.data(), params.empty() ? nullptr : params.data(), runs);
  }

  /// Solves a batch built by GridBuilder.
  SolveResult<T> solve(const Batch<T>& batch) { return solve(batch.y0, batch.params); }

  /// Pointer form: y0 holds n_runs x n_states values, params n_runs x n_params (may be null if 0).
  SolveResult<T> solve(const T* y0, const T* params, std::size_t runs) {
    if (runs == 0) throw InvalidInput("empty batch: n_runs is 0");
    if (y0 == nullptr) throw InvalidInput("initial values: null pointer");
    if (n_params > 0 && params == nullptr) throw InvalidInput("parameters: null pointer but n_params > 0");
    // A batch whose arrays' sizes do not fit in size_t is refused naming them (not wrapped).
    (void)checks::checked_mul(runs, n_states, "initial values (n_runs x n_states)");
    (void)checks::checked_mul(runs, n_params, "parameters (n_runs x n_params)");
    detail::VerbosityScope verbosity(*logger_, options_.verbosity);
    ScopedTimer timer(*logger_, events::solver_solve_execution);
    timer.add_metadata("runs", static_cast<std::int64_t>(runs));
    timer.add_metadata("method", to_string(options_.method));
    const std::size_t saves = count_saves(options_);
    {
      // Sizes and memory here; the values are checked by each part as it reads them (run_cpu_range
      // before integrating, the GPU runner while staging), so no pass over the inputs is spent on
      // checking alone.
      ScopedTimer validation(*logger_, events::input_validation);
      // The result is allocated in full before any work: refuse a batch whose outputs cannot fit.
      const std::size_t run_bytes =
          arrays::run_footprint(n_states, n_params, saves, sizeof(T), options_.outputs).result_bytes_per_run;
      arrays::check_host_memory(checks::checked_mul(runs, run_bytes, "result bytes (n_runs x bytes per run)"),
                                arrays::available_host_memory());
    }
    std::optional<SolveResult<T>> allocated;
    {
      ScopedTimer allocation(*logger_, events::result_allocation);
      allocated.emplace(runs, n_states, saves, options_, result_memory_);
    }
    SolveResult<T>& result = *allocated;
    run(y0, params, runs, result);
    logger_->resolve_gpu_times();
    return std::move(result);
  }

 private:
  /// One line on stderr unless this solve is at Verbosity::none (its level on this thread: a part
  /// thread carries its solve's). One write, so lines of concurrent solves do not mix.
  void notice(const std::string& line) const {
    if (logger_->verbosity() != Verbosity::none) std::cerr << ("batchode: " + line + '\n');
  }

  /// Throws InvalidInput naming the first NaN or infinity of runs [first, first + count).
  void check_finite_range(const T* y0, const T* params, std::size_t first, std::size_t count,
                          TimeLogger& logger) const {
    ScopedTimer validation(logger, events::input_validation);
    detail::check_finite_inputs(y0, first, count, n_states, "initial value");
    if (n_params > 0) detail::check_finite_inputs(params, first, count, n_params, "parameter");
  }

  /// Runs runs [first, first + count) on the CPU (after checking their values); returns the wall
  /// time in ms.
  double run_cpu_range(const T* y0, const T* params, std::size_t first, std::size_t count, SolveResult<T>& result,
                       const SolveOptions& options, TimeLogger& logger) {
    const auto start = std::chrono::steady_clock::now();
    check_finite_range(y0, params, first, count, logger);
    {
      ScopedTimer timer(logger, events::kernel_run_execution);
      timer.add_metadata("backend", "cpu");
      timer.add_metadata("runs", static_cast<std::int64_t>(count));
      cpu::integrate_batch(system_, y0, params, first, count, options.method, make_run_settings<T>(options),
                           options.cpu_threads, result.view(), logger, *cpu_workers_);
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  // --- scheduling (see scheduler.hpp, cost_model.hpp, telemetry.hpp) ---------------------------

  /// Why no GPU can run this solve, or empty when one can.
  std::string gpu_unavailable_reason() const {
    std::string method_reason = cpu::gpu_unavailable_for_method<System, T>(options_.method);  // rosenbrock4
    if (!method_reason.empty()) return method_reason;
    const gpu::Discovery& found = gpu::discover();
    if (!found.available) return found.reason;
    if (!gpu_path_compiled) {
      return std::string("this translation unit was not compiled by the GPU compiler (build backend '") +
             gpu::compiled_backend() + "'; use batchode_target_gpu() on the target)";
    }
    if (options_.gpu.device >= static_cast<int>(found.devices.size())) {
      return "device " + std::to_string(options_.gpu.device) + " requested but only " +
             std::to_string(found.devices.size()) + " found";
    }
    return {};
  }

  static sched::Selection single_part(const std::string& backend, sched::Reason reason, std::size_t runs,
                                      std::string detail) {
    sched::Selection s;
    s.backend = backend;
    s.reason = reason;
    s.detail = std::move(detail);
    s.parts.push_back({backend, reason, 0, runs, std::nullopt});
    return s;
  }

  /// The decision for this solve. Throws GpuUnavailable when Backend::gpu cannot run.
  sched::Selection select(const T* y0, const T* params, std::size_t runs, std::size_t saves) {
    if (!forced_parts_.empty()) {
      sched::Selection s;
      s.reason = sched::Reason::user_preference;
      std::size_t next = 0;
      for (sched::Part p : forced_parts_) {
        if (p.first_run != next) throw InvalidInput("forced parts must cover the batch in run order");
        next += p.runs;
        p.reason = sched::Reason::user_preference;
        s.backend += (s.backend.empty() ? "" : "+") + p.backend;
        s.parts.push_back(p);
      }
      if (next != runs) throw InvalidInput("forced parts cover " + std::to_string(next) + " runs, the batch has " +
                                           std::to_string(runs));
      return s;
    }
    if (options_.backend == Backend::cpu) return single_part("cpu", sched::Reason::user_preference, runs, "");
    const std::string unavailable = gpu_unavailable_reason();
    if (!unavailable.empty()) {
      if (options_.backend == Backend::gpu) throw GpuUnavailable("Backend::gpu requested, but " + unavailable);
      notice("no usable GPU (" + unavailable + "); running on the CPU");
      return single_part("cpu", sched::Reason::gpu_unavailable, runs, unavailable);
    }
    if (options_.backend == Backend::gpu) {
      return single_part("gpu:" + std::to_string(options_.gpu.device), sched::Reason::user_preference, runs, "");
    }
#if BATCHODE_GPU_PATH
    return plan_automatic(y0, params, runs, saves);
#else
    (void)y0, (void)params, (void)saves;
    return single_part("cpu", sched::Reason::gpu_unavailable, runs, "GPU path not compiled");
#endif
  }

#if BATCHODE_GPU_PATH
  bool has_runner(int device) const {
    return static_cast<std::size_t>(device) < gpus_.size() && gpus_[static_cast<std::size_t>(device)] != nullptr;
  }

  GpuRunner<System, T>& runner(int device) {
    if (static_cast<std::size_t>(device) >= gpus_.size()) gpus_.resize(static_cast<std::size_t>(device) + 1);
    auto& r = gpus_[static_cast<std::size_t>(device)];
    if (!r) {
      r = std::make_unique<GpuRunner<System, T>>();
      result_memory_->enable_pinning();  // later results take downloads without staging
    }
    return *r;
  }

  /// Wall time (ms) of `n` runs of (y, p) on `backend`, outputs as in `options`. A GPU runs them on
  /// `gpu_runner`: calibration's own, so the buffers of this Solver's runners stay as they are.
  double time_once(const std::string& backend, GpuRunner<System, T>* gpu_runner, const std::vector<T>& y,
                   const std::vector<T>& p, std::size_t n, const SolveOptions& options) {
    TimeLogger quiet(nullptr, Verbosity::none);
    SolveResult<T> scratch(n, n_states, count_saves(options), options);
    const auto start = std::chrono::steady_clock::now();
    if (backend == "cpu") {
      cpu::integrate_batch(system_, y.data(), p.empty() ? nullptr : p.data(), 0, n, options.method,
                           make_run_settings<T>(options), options.cpu_threads, scratch.view(), quiet,
                           *cpu_workers_);
    } else {
      SolveOptions o = options;
      o.gpu.device = std::stoi(backend.substr(4));
      gpu_runner->run(system_, make_gpu_run_request(o), make_run_settings<T>(o), y.data(),
                      p.empty() ? nullptr : p.data(), n, scratch.view(), quiet, 0);
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  /// The fastest of three timings: the first at a new size pays buffer growth (pinned allocations
  /// take milliseconds), which a Solver's later solves of that size do not.
  double time_warm(const std::string& backend, GpuRunner<System, T>* gpu_runner, const std::vector<T>& y,
                   const std::vector<T>& p, std::size_t n, const SolveOptions& options) {
    double best = time_once(backend, gpu_runner, y, p, n, options);
    for (int i = 0; i < 2; ++i) best = std::min(best, time_once(backend, gpu_runner, y, p, n, options));
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
  CostCoefficients calibrate(const std::string& backend, const T* y0, const T* params, std::size_t runs,
                             double steps_per_run) {
    const bool is_gpu = backend != "cpu";
    const std::size_t threads = cpu::worker_count(options_.cpu_threads, std::size_t(1) << 20);
    const std::size_t max_n = std::size_t(1) << (is_gpu ? 20 : 16);
    const double enough_ms = is_gpu ? 5.0 : 10.0;
    std::vector<T> y, p;
    auto sample = [&](std::size_t n) {
      y.resize(n * n_states);
      p.resize(n * n_params);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t r = n <= runs ? i * (runs / n) : i % runs;
        std::copy(y0 + r * n_states, y0 + (r + 1) * n_states, y.begin() + static_cast<std::ptrdiff_t>(i * n_states));
        if (n_params > 0) {
          std::copy(params + r * n_params, params + (r + 1) * n_params,
                    p.begin() + static_cast<std::ptrdiff_t>(i * n_params));
        }
      }
    };
    SolveOptions o = options_;
    o.verbosity = Verbosity::none;
    const std::size_t n1 = is_gpu ? 4096 : 4 * threads;
    std::size_t n2 = is_gpu ? (std::size_t(1) << 16) : 64 * threads;
    CostCoefficients c;
    std::unique_ptr<GpuRunner<System, T>> gpu_runner;
    if (is_gpu) {
      {
        GpuRunner<System, T> warm_up;
        sample(256);
        time_once(backend, &warm_up, y, p, 256, o);
      }
      gpu_runner = std::make_unique<GpuRunner<System, T>>();
    }
    double t2 = 0;
    for (;;) {  // grow the large sample until its time dwarfs timer noise and the fixed cost
      sample(n2);
      t2 = time_warm(backend, gpu_runner.get(), y, p, n2, o);
      if (t2 >= enough_ms || n2 >= max_n) break;
      n2 *= 4;
    }
    sample(n1);
    const double t1 = time_warm(backend, gpu_runner.get(), y, p, n1, o);
    if (is_gpu) {
      // After the fit, so process-wide first-time costs are behind us: the fastest of three fresh
      // runners' first solves (construction included) minus the same solve warm. Measured on a
      // small batch, where setup decides between CPU and GPU (on large ones the kernels dwarf it),
      // and because setup grows with the batch (pinned staging): at 4096 runs it read 0.85-1.07 ms
      // on the H100, where fresh Solvers of a few hundred runs measured 0.5 ms. The fastest of
      // three, because the slower ones carry interference (page reclaim, thread start-up).
      constexpr std::size_t n_setup = 256;
      sample(n_setup);
      const double warm_small = time_warm(backend, gpu_runner.get(), y, p, n_setup, o);
      std::vector<double> first;
      for (int i = 0; i < 3; ++i) {
        std::unique_ptr<GpuRunner<System, T>> fresh;
        const auto start = std::chrono::steady_clock::now();
        fresh = std::make_unique<GpuRunner<System, T>>();
        const double construct_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        first.push_back(construct_ms + time_once(backend, fresh.get(), y, p, n_setup, o));
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
      sample(n2);
      const double t_plain = time_warm(backend, gpu_runner.get(), y, p, n2, plain);
      const double extra = static_cast<double>(
          arrays::run_footprint(n_states, n_params, saves, sizeof(T), o.outputs).result_bytes_per_run -
          arrays::run_footprint(n_states, n_params, 0, sizeof(T), o.outputs).result_bytes_per_run);
      c.ns_per_byte = std::max(0.0, (t2 - t_plain) * 1e6 / (static_cast<double>(n2) * extra));
      variable = std::max(1e-9, slope - extra * c.ns_per_byte * 1e-6);
    }
    c.ns_per_run_step = variable * 1e6 / std::max(1.0, steps_per_run);
    c.observations = 1;
    return c;
  }

  /// Mean steps per run of a few runs spread over the batch, integrated on one CPU thread. Few, because
  /// every automatic solve pays for them: 32 Lorenz runs took 0.2 ms, as long as a warm CPU solve of
  /// a hundred runs.
  double probe_steps(const T* y0, const T* params, std::size_t runs) {
    const std::size_t n = std::min<std::size_t>(runs, 16);
    std::vector<T> y(n * n_states), p(n * n_params);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t r = i * (runs / n);
      std::copy(y0 + r * n_states, y0 + (r + 1) * n_states, y.begin() + static_cast<std::ptrdiff_t>(i * n_states));
      if (n_params > 0) {
        std::copy(params + r * n_params, params + (r + 1) * n_params,
                  p.begin() + static_cast<std::ptrdiff_t>(i * n_params));
      }
    }
    SolveOptions o = options_;
    o.cpu_threads = 1;
    o.outputs.counters = true;
    TimeLogger quiet(nullptr, Verbosity::none);
    SolveResult<T> scratch(n, n_states, count_saves(o), o);
    cpu::integrate_batch(system_, y.data(), p.empty() ? nullptr : p.data(), 0, n, o.method, make_run_settings<T>(o),
                         o.cpu_threads, scratch.view(), quiet, *cpu_workers_);
    double steps = 0;
    for (const RunCounters& c : scratch.counters()) steps += c.accepted_steps + c.rejected_steps;
    return std::max(1.0, steps / static_cast<double>(n));
  }

  /// Backend::automatic with a usable GPU: capabilities of the CPU and every visible GPU, costs from
  /// the (cached or freshly measured) model, then the planner's choice.
  sched::Selection plan_automatic(const T* y0, const T* params, std::size_t runs, std::size_t saves) {
    const gpu::Discovery& found = gpu::discover();
    const arrays::RunFootprint footprint = arrays::run_footprint(n_states, n_params, saves, sizeof(T), options_.outputs);
    const double bytes = static_cast<double>(footprint.result_bytes_per_run);
    const double steps = probe_steps(y0, params, runs);
    last_steps_estimate_ = steps;
    const bool is_double = std::is_same_v<T, double>;
    bool checked = false;
    auto cost_for = [&](const std::string& backend, const std::string& device_name) {
      const std::string key = cost_key(typeid(System).name(), options_.method, is_double, device_name);
      std::optional<CostCoefficients> c = cost_model_.find(key);
      if (!c || (saves > 0 && c->ns_per_byte < 0)) {
        // Calibration samples the batch: its values must be known finite before any sample runs.
        if (!checked) check_finite_range(y0, params, 0, runs, *logger_);
        checked = true;
        c = calibrate(backend, y0, params, runs, steps);
        cost_model_.store(key, *c);
      }
      cost_keys_[backend] = key;
      // A GPU this Solver has not run on yet pays its buffer setup in this solve.
      const bool first_use = backend != "cpu" && !has_runner(std::stoi(backend.substr(4)));
      first_use_[backend] = first_use;
      return sched::LinearCost{c->predict_ms(0, steps, bytes, first_use), c->per_run_ns(steps, bytes) * 1e-6};
    };
    std::vector<sched::BackendCapabilities> caps;
    sched::BackendCapabilities cpu_caps;
    cpu_caps.id = "cpu";
    cpu_caps.device_count = static_cast<int>(found.devices.size());
    cpu_caps.cost = cost_for("cpu", "cpu x" + std::to_string(cpu::worker_count(options_.cpu_threads, 1u << 20)));
    caps.push_back(cpu_caps);
    for (const gpu::DeviceInfo& d : found.devices) {
      sched::BackendCapabilities g;
      g.id = "gpu:" + std::to_string(d.index);
      g.is_gpu = true;
      g.device_count = static_cast<int>(found.devices.size());
      std::size_t free_bytes = d.free_memory, total_bytes = d.total_memory;
      try {
        gpu::memory_info(d.index, free_bytes, total_bytes);
      } catch (const GpuError&) {
        continue;  // a device the runtime cannot query cannot run a part either
      }
      g.memory_bytes = options_.gpu.memory_bytes > 0
                           ? options_.gpu.memory_bytes
                           : static_cast<std::size_t>(options_.gpu.memory_fraction * static_cast<double>(free_bytes));
      if (g.memory_bytes >= footprint.device_bytes_per_run) g.cost = cost_for(g.id, d.name);
      caps.push_back(g);
    }
    sched::Request req;
    req.runs = runs;
    req.method = options_.method;
    req.is_double = is_double;
    req.device_bytes_per_run = footprint.device_bytes_per_run;
    return sched::plan(caps, sched::Strategy::automatic(), req);
  }
#endif

  /// What one part did.
  struct PartOutcome {
    std::string backend;
    sched::Reason reason = sched::Reason::gpu_available;
    double start_ms = 0, wall_ms = 0;
    std::string detail;
    std::exception_ptr error;
    bool grew_buffers = false;  // a GPU part that allocated: its time is not a steady-state sample
  };

  /// Runs one part in the calling thread. A GPU failure falls back to the CPU for this part (when
  /// automatic allows it) with reason cpu_fallback; any other failure is kept in `out.error`.
  void run_part(const sched::Part& part, const T* y0, const T* params, SolveResult<T>& result, PartOutcome& out) {
    out.backend = part.backend;
    out.reason = part.reason;
    out.start_ms = telemetry_.now_ms();
    try {
      if (part.backend == "cpu") {
        out.wall_ms = run_cpu_range(y0, params, part.first_run, part.runs, result, options_, *logger_);
        return;
      }
#if BATCHODE_GPU_PATH
      const int device = std::stoi(part.backend.substr(4));
      const auto start = std::chrono::steady_clock::now();
      try {
        SolveOptions o = options_;
        o.gpu.device = device;
        GpuRunner<System, T>& gpu = runner(device);
        gpu.run(system_, make_gpu_run_request(o), make_run_settings<T>(o), y0, params, part.runs, result.view(),
                *logger_, part.first_run);
        out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        out.grew_buffers = gpu.last_run_grew();
      } catch (const GpuError& e) {
        if (options_.backend == Backend::gpu || !options_.gpu.allow_cpu_fallback || !forced_parts_.empty()) throw;
        gpus_[static_cast<std::size_t>(device)].reset();  // buffers may be in an unknown state
        notice(std::string("GPU run failed (") + e.what() + "); falling back to the CPU");
        out.backend = "cpu";
        out.reason = sched::Reason::cpu_fallback;
        out.detail = e.what();
        out.start_ms = telemetry_.now_ms();
        out.wall_ms = run_cpu_range(y0, params, part.first_run, part.runs, result, options_, *logger_);
      }
#else
      throw GpuUnavailable("part on " + part.backend + " but this translation unit has no GPU path");
#endif
    } catch (...) {
      out.error = std::current_exception();
    }
  }

  /// Mean steps per run of the part, from a sample of its counters (the estimate without counters).
  double observed_steps(const SolveResult<T>& result, const sched::Part& part) const {
    if (result.counters().empty() || part.runs == 0) return last_steps_estimate_;
    const std::size_t stride = std::max<std::size_t>(1, part.runs / 4096);
    double steps = 0;
    std::size_t n = 0;
    for (std::size_t r = part.first_run; r < part.first_run + part.runs; r += stride, ++n) {
      steps += result.counters()[r].accepted_steps + result.counters()[r].rejected_steps;
    }
    return steps / static_cast<double>(n);
  }

  void run(const T* y0, const T* params, std::size_t runs, SolveResult<T>& result) {
    telemetry_.begin_solve();
    cost_keys_.clear();
    first_use_.clear();
    const sched::Selection selection = select(y0, params, runs, result.n_saves());
    std::vector<PartOutcome> outcomes(selection.parts.size());
    if (selection.parts.size() == 1) {
      run_part(selection.parts[0], y0, params, result, outcomes[0]);
    } else {
      // Co-execution: one host thread per part, each writing its own disjoint rows of the result.
#if BATCHODE_GPU_PATH
      // The runners are made here, before the threads: runner() grows gpus_, which two part threads
      // must not do at once (it crashed a two-GPU split on an H200 pair).
      for (const sched::Part& part : selection.parts) {
        if (part.backend.rfind("gpu:", 0) == 0) (void)runner(std::stoi(part.backend.substr(4)));
      }
#endif
      // Each part thread carries this solve's timing context: its level, and its events nest
      // under this solve's, so the solve stays one tree with one summary.
      const TimeLogger::CallContext timing = logger_->context();
      std::vector<std::thread> threads;
      for (std::size_t i = 0; i < selection.parts.size(); ++i) {
        threads.emplace_back([&, i] {
          const TimeLogger::CallScope part_timing(*logger_, timing);
          run_part(selection.parts[i], y0, params, result, outcomes[i]);
        });
      }
      for (std::thread& t : threads) t.join();
    }
    const std::size_t bytes =
        arrays::run_footprint(n_states, n_params, result.n_saves(), sizeof(T), options_.outputs).result_bytes_per_run;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      const sched::Part& part = selection.parts[i];
      const PartOutcome& o = outcomes[i];
      if (o.error) continue;
      const bool fell_back = o.reason == sched::Reason::cpu_fallback;
      const std::optional<double> predicted = fell_back ? std::nullopt : part.predicted_ms;
      std::string detail = o.detail.empty() ? selection.detail : o.detail;
      result.add_execution({o.backend, sched::to_string(o.reason), part.first_run, part.runs, o.wall_ms, detail,
                            predicted});
      telemetry_.record({0, o.start_ms, o.backend, sched::to_string(o.reason), part.first_run, part.runs, predicted,
                         o.wall_ms});
      if (logger_->enabled() && logger_->is_registered(events::execution_part)) {
        Metadata meta{{"backend", o.backend},
                      {"reason", std::string(sched::to_string(o.reason))},
                      {"first_run", static_cast<std::int64_t>(part.first_run)},
                      {"runs", static_cast<std::int64_t>(part.runs)}};
        if (predicted) meta.set("predicted_ms", *predicted);
        logger_->record_event(events::execution_part, o.wall_ms, std::move(meta));
      }
      const auto key = cost_keys_.find(o.backend);
      // A solve that grew a runner's buffers (but was not its first) paid allocations no later solve
      // of that size pays: learning from it put predictions 3x too high (10^6 runs after 50000).
      const bool allocation_skewed = o.grew_buffers && !first_use_[o.backend];
      if (predicted && key != cost_keys_.end() && !allocation_skewed) {
        cost_model_.refine(key->second, part.runs, observed_steps(result, part), static_cast<double>(bytes), o.wall_ms,
                           first_use_[o.backend]);
      }
    }
    if (logger_->verbosity() == Verbosity::debug) telemetry_.print_debug_summary(std::cerr);
    for (const PartOutcome& o : outcomes) {
      if (o.error) std::rethrow_exception(o.error);
    }
  }

  System system_;
  SolveOptions options_;
  TimeLogger* logger_;
  ExecutionTelemetry telemetry_;
  CostModel cost_model_;
  std::vector<sched::Part> forced_parts_;
  std::map<std::string, std::string> cost_keys_;  // backend -> cost-model key used in this solve
  std::map<std::string, bool> first_use_;          // backend -> its prediction included setup_ms
  double last_steps_estimate_ = 1.0;
  // The CPU path's threads, started on first use and kept: one per hardware thread with the caller.
  // (Held by pointer so a Solver stays movable.)
  std::unique_ptr<arrays::HostWorkers> cpu_workers_ =
      std::make_unique<arrays::HostWorkers>(std::max(1u, std::thread::hardware_concurrency()) - 1);
  // Large result arrays come back here when their results die and serve later solves already mapped.
  std::shared_ptr<ResultMemoryPool> result_memory_ = std::make_shared<ResultMemoryPool>();
#if BATCHODE_GPU_PATH
  std::vector<std::unique_ptr<GpuRunner<System, T>>> gpus_;  // one per device, created when first used
#endif
};

/// One-call batch solve: Solver(system, options).solve(y0, params), timed as solve_ivp_execution.
/// y0: n_runs x n_states, params: n_runs x n_params, both run-major. See Solver::solve for errors.
template <class System, class T>
SolveResult<T> solve_ivp(const System& system, const std::vector<T>& y0, const std::vector<T>& params,
                         const SolveOptions& options, TimeLogger& logger = default_timelogger()) {
  detail::register_events_for_solve(logger);  // before the first event (the Solver does it too late)
  detail::VerbosityScope verbosity(logger, options.verbosity);
  ScopedTimer timer(logger, events::solve_ivp_execution);
  Solver<System, T> solver(system, options, logger);
  return solver.solve(y0, params);
}

/// solve_ivp over a batch built by GridBuilder.
template <class System, class T>
SolveResult<T> solve_ivp(const System& system, const Batch<T>& batch, const SolveOptions& options,
                         TimeLogger& logger = default_timelogger()) {
  return solve_ivp(system, batch.y0, batch.params, options, logger);
}

}  // namespace batchode
