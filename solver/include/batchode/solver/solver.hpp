// solver/: Solver (built once, solve() many times) and solve_ivp (one call). They validate the
// batch, choose the backend, run it, and time every phase in the TimeLogger.
//
// Backend choice (until the scheduler decides by cost): Backend::cpu runs on the CPU;
// Backend::gpu runs on the GPU or throws; Backend::automatic uses the GPU when this translation unit
// was compiled by the GPU compiler (batchode_target_gpu) and a device is usable, else the CPU, with a
// one-line notice at verbosity default and above. A GPU failure at run time falls back to the CPU
// under automatic when options.gpu.allow_cpu_fallback (the default), and says so.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
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
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/solver/cpu_backend.hpp"
#include "batchode/solver/grid.hpp"
#include "batchode/solver/options.hpp"
#include "batchode/solver/result.hpp"
#include "batchode/solver/system.hpp"
#include "batchode/timing/events.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"

#if BATCHODE_GPU_COMPILER && BATCHODE_HAS_GPU_RUNTIME
#include "batchode/kernels/gpu_runner.hpp"
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

/// Applies a solve's verbosity for its duration (BATCHODE_VERBOSITY, when set, wins).
class VerbosityScope {
 public:
  VerbosityScope(TimeLogger& logger, std::optional<Verbosity> wanted) : logger_(logger), saved_(logger.verbosity()) {
    if (wanted && std::getenv("BATCHODE_VERBOSITY") == nullptr) logger_.set_verbosity(*wanted);
  }
  ~VerbosityScope() { logger_.set_verbosity(saved_); }
  VerbosityScope(const VerbosityScope&) = delete;
  VerbosityScope& operator=(const VerbosityScope&) = delete;

 private:
  TimeLogger& logger_;
  Verbosity saved_;
};

/// Index of the first NaN or infinity in values[0, n), or n. Blocks are tested branch-free, so the
/// common all-finite case vectorises; large inputs are split over threads (10^7 runs' inputs are
/// hundreds of MB, which one thread reads in tens of milliseconds).
template <class T>
std::size_t first_non_finite(const T* values, std::size_t n) {
  auto scan = [values](std::size_t begin, std::size_t end) {
    constexpr std::size_t block = 1024;
    for (std::size_t b = begin; b < end; b += block) {
      const std::size_t e = std::min(end, b + block);
      bool bad = false;
      for (std::size_t i = b; i < e; ++i) bad |= !(std::fabs(values[i]) <= std::numeric_limits<T>::max());
      if (bad) {
        for (std::size_t i = b; i < e; ++i) {
          if (!(std::fabs(values[i]) <= std::numeric_limits<T>::max())) return i;
        }
      }
    }
    return end;
  };
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

template <class T>
void check_finite_inputs(const T* values, std::size_t n_runs, std::size_t width, const char* what) {
  const std::size_t i = first_non_finite(values, n_runs * width);
  if (i == n_runs * width) return;
  throw InvalidInput(std::string(what) + " of run " + std::to_string(i / width) + " (index " +
                     std::to_string(i % width) + ") is " + std::to_string(static_cast<double>(values[i])) +
                     ": inputs must be finite");
}

}  // namespace detail

/// A reusable batch solver for one system and one set of options. Device buffers and plans are kept
/// between solve() calls. Not thread-safe: use one Solver per thread.
template <class System, class T = double>
class Solver {
  static_assert(std::is_floating_point_v<T>, "batchode solves in float or double");
  static_assert(is_ode_system_v<System, T>,
                "System needs static n_states (> 0), n_params and a const call operator "
                "(T t, const T* y, const T* p, T* dydt): see batchode/solver/system.hpp");

 public:
  static constexpr std::size_t n_states = System::n_states;
  static constexpr std::size_t n_params = System::n_params;

  /// Throws InvalidInput for bad options.
  explicit Solver(System system, SolveOptions options, TimeLogger& logger = default_timelogger())
      : system_(std::move(system)), options_(std::move(options)), logger_(&logger) {
    validate(options_);
  }

  const SolveOptions& options() const noexcept { return options_; }

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
    if (params.size() != runs * n_params) {
      throw InvalidInput("parameters: expected n_runs x n_params = " + std::to_string(runs) + " x " +
                         std::to_string(n_params) + " = " + std::to_string(runs * n_params) + " values, got " +
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
    detail::VerbosityScope verbosity(*logger_, options_.verbosity);
    ScopedTimer timer(*logger_, events::solver_solve_execution);
    timer.add_metadata("runs", static_cast<std::int64_t>(runs));
    timer.add_metadata("method", to_string(options_.method));
    const std::size_t saves = count_saves(options_);
    {
      ScopedTimer validation(*logger_, events::input_validation);
      detail::check_finite_inputs(y0, runs, n_states, "initial value");
      if (n_params > 0) detail::check_finite_inputs(params, runs, n_params, "parameter");
      // The result is allocated in full before any work: refuse a batch whose outputs cannot fit.
      arrays::check_host_memory(runs * (n_states * (1 + saves) * sizeof(T) + sizeof(Status) + sizeof(RunCounters)),
                                arrays::available_host_memory());
    }
    std::optional<SolveResult<T>> allocated;
    {
      ScopedTimer allocation(*logger_, events::result_allocation);
      allocated.emplace(runs, n_states, saves, options_);
    }
    SolveResult<T>& result = *allocated;
    run(y0, params, runs, result);
    logger_->resolve_gpu_times();
    return std::move(result);
  }

 private:
  void notice(const std::string& line) const {
    if (logger_->verbosity() != Verbosity::none) std::cerr << "batchode: " << line << '\n';
  }

  void run_cpu(const T* y0, const T* params, std::size_t runs, SolveResult<T>& result, const char* reason,
               std::string detail) {
    const auto start = std::chrono::steady_clock::now();
    {
      ScopedTimer timer(*logger_, events::kernel_run_execution);
      timer.add_metadata("backend", "cpu");
      timer.add_metadata("runs", static_cast<std::int64_t>(runs));
      cpu::integrate_batch(system_, y0, params, 0, runs, options_, result, *logger_);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result.add_execution({"cpu", reason, 0, runs, ms, std::move(detail)});
  }

  void run(const T* y0, const T* params, std::size_t runs, SolveResult<T>& result) {
    if (options_.backend == Backend::cpu) {
      run_cpu(y0, params, runs, result, "user_preference", "");
      return;
    }
    const gpu::Discovery& found = gpu::discover();
    std::string unavailable;
    if (!found.available) {
      unavailable = found.reason;
    } else if (!gpu_path_compiled) {
      unavailable = std::string("this translation unit was not compiled by the GPU compiler (build backend '") +
                    gpu::compiled_backend() + "'; use batchode_target_gpu() on the target)";
    } else if (options_.gpu.device >= static_cast<int>(found.devices.size())) {
      unavailable = "device " + std::to_string(options_.gpu.device) + " requested but only " +
                    std::to_string(found.devices.size()) + " found";
    }
    if (!unavailable.empty()) {
      if (options_.backend == Backend::gpu) throw GpuUnavailable("Backend::gpu requested, but " + unavailable);
      notice("no usable GPU (" + unavailable + "); running on the CPU");
      run_cpu(y0, params, runs, result, "gpu_unavailable", unavailable);
      return;
    }
#if BATCHODE_GPU_PATH
    const auto start = std::chrono::steady_clock::now();
    try {
      if (!gpu_) gpu_ = std::make_unique<GpuRunner<System, T>>();
      gpu_->run(system_, options_, y0, params, runs, result, *logger_);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      result.add_execution({"gpu:" + std::to_string(options_.gpu.device), "gpu_available", 0, runs, ms, ""});
    } catch (const GpuError& e) {
      if (options_.backend == Backend::gpu || !options_.gpu.allow_cpu_fallback) throw;
      gpu_.reset();  // buffers may be in an unknown state
      notice(std::string("GPU run failed (") + e.what() + "); falling back to the CPU");
      run_cpu(y0, params, runs, result, "cpu_fallback", e.what());
    }
#endif
  }

  System system_;
  SolveOptions options_;
  TimeLogger* logger_;
#if BATCHODE_GPU_PATH
  std::unique_ptr<GpuRunner<System, T>> gpu_;
#endif
};

/// One-call batch solve: Solver(system, options).solve(y0, params), timed as solve_ivp_execution.
/// y0: n_runs x n_states, params: n_runs x n_params, both run-major. See Solver::solve for errors.
template <class System, class T>
SolveResult<T> solve_ivp(const System& system, const std::vector<T>& y0, const std::vector<T>& params,
                         const SolveOptions& options, TimeLogger& logger = default_timelogger()) {
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
