// backends/cpu/: the CPU path: every run of a batch slice integrated by integrate_run with Boost.Odeint's
// steppers (explicit methods, rosenbrock4) or the host+device Rosenbrock stepper of kernels/ (rodas4,
// ros3p: the very code the GPU runs), spread over all cores. Runs are independent, so workers share nothing
// mutable but an atomic block counter; each writes only its own runs' rows of the result.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "batchode/arrays/host_workers.hpp"
#include "batchode/arrays/stop_request.hpp"
#include "batchode/backends/cpu/run_range.hpp"
#include "batchode/backends/cpu/runtime_entry.hpp"
#include "batchode/kernels/linalg/jacobian.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/kernels/loop/run_integrator.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/kernels/outputs/observables.hpp"
#include "batchode/timing/timed_events.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode::cpu {

/// Why the GPU path cannot run `method` for System in precision T ("" when it can): rosenbrock4 is
/// CPU-only, and a Rosenbrock method needs a system it can linearise. Solver::run asks this first.
template <class System, class T>
std::string gpu_unavailable_for_method(Method method) {
  if (cpu_only(method)) return cpu_only_reason(method);
  if (is_stiff(method) && !can_linearize_v<integrated_system_t<System, T>, T>) {
    return "method " + to_string(method) + " needs a call operator templated on the number type (for the Jacobian)";
  }
  return "";
}

/// Why a compiled-in System cannot run `method`: not among its compiled_methods (method_registry.hpp).
template <class System>
std::string method_not_compiled_message(Method method) {
  std::string listed;
  if constexpr (declares_compiled_methods_v<System>) {
    for (Method m : System::compiled_methods) listed += (listed.empty() ? "" : ", ") + to_string(m);
  }
  return "method " + to_string(method) + " is not compiled for this system: its compiled_methods lists " +
         listed + " (add the method there to build its code)";
}

/// The stack a run may take on a CPU thread: 6 MiB of the 8 MiB glibc gives a thread under the usual
/// `ulimit -s` (8192), the rest left to the system's own code. The stepper itself is on the heap
/// (integrate_batch), so a run's stack grows with its state count, never with its square.
inline constexpr std::size_t run_stack_budget = std::size_t{6} << 20;

/// Bytes of a thread's stack a run takes per state: its vectors (the state, the stage arguments, the
/// error, the first step's probes), counted as 8 values a state for explicit methods and 16 for
/// Rosenbrock ones, and, for a system differentiated by AD, two arrays of `dual_bytes` numbers. Measured
/// (g++ 12 -O3, 500 against 1000 states): explicit 2 (rk4) to 7 (fehlberg78) values a state, Rosenbrock
/// 5 (rodas4) to 13 (ros3p: a doubled step keeps five vectors more) besides the duals.
inline std::size_t run_stack_bytes_per_state(Method method, std::size_t value_bytes, std::size_t dual_bytes) {
  return (is_stiff(method) ? 16 : 8) * value_bytes + 2 * dual_bytes;
}

/// Why the CPU path cannot run `method` for a system of n_states states in values of value_bytes ("" when
/// it can): its run would not fit in run_stack_budget.
inline std::string run_stack_problem(std::size_t n_states, Method method, std::size_t value_bytes,
                                     std::size_t dual_bytes) {
  const std::size_t per_state = run_stack_bytes_per_state(method, value_bytes, dual_bytes);
  const std::size_t most = run_stack_budget / per_state;
  if (n_states <= most) return "";
  return "the system has " + std::to_string(n_states) + " states, more than the " + std::to_string(most) +
         " that method " + to_string(method) + " in " + (value_bytes == 4 ? "float" : "double") +
         " can take on the CPU: a run keeps " + std::to_string(per_state) +
         " bytes a state on its thread's stack" +
         (dual_bytes > 0 ? " (with the dual numbers of its Jacobian by AD)" : "") + ", of which " +
         std::to_string(run_stack_budget >> 20) + " MiB may be used";
}

/// run_stack_problem for System in precision T: the dual numbers its Rosenbrock stepper calls it with.
template <class System, class T>
std::string run_stack_problem(Method method) {
  using Integrated = integrated_system_t<System, T>;
  std::size_t dual_bytes = 0;
  if (method == Method::rosenbrock4) {  // odeint's stepper: kernels::linearize, dense whatever the band
    dual_bytes = has_analytic_linearization_v<Integrated, T>
                     ? 0
                     : sizeof(kernels::LinearizeDual<Integrated, T>);
  } else if (is_stiff(method)) {
    dual_bytes = kernels::rosenbrock_dual_bytes<Integrated, T>;
  }
  return run_stack_problem(System::n_states, method, sizeof(T), dual_bytes);
}

/// Number of worker threads for `runs` runs under `requested` (0: all hardware threads).
inline unsigned worker_count(unsigned requested, std::size_t runs) {
  unsigned n = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(n, std::max<std::size_t>(1, runs)));
}

/// Runs `count` runs on `threads` workers (0: all hardware threads) in blocks: each worker calls
/// make_worker() once for its range function, then range(begin, end) (offsets into [0, count)) per
/// block it takes. Each worker times itself as one `cpu_integration` event on its own thread, nested
/// in the caller's innermost event (a CallScope with the caller's context), so a trace shows the
/// workers side by side; the first worker's exception is rethrown. The workers are `pool`'s threads (a
/// Solver keeps one: starting 16 threads per solve cost 0.5 ms on the H100 machine's host, more than
/// 100 runs of Lorenz take); one worker runs on the calling thread. A set `stop` (SolveOptions.stop)
/// ends each worker within its block (the runs look at it every ~1000 steps) and throws
/// SolveInterrupted.
template <class MakeWorker>
void run_on_workers(std::size_t count, unsigned threads, TimeLogger& logger, arrays::HostWorkers& pool,
                    MakeWorker&& make_worker, const std::atomic<bool>* stop = nullptr) {
  const unsigned workers = worker_count(threads, count);
  // Blocks small enough to balance runs of very different cost, large enough to keep the counter cold;
  // whole blocks of runs in SIMD lanes (run_blocks.hpp) where there are runs enough for every worker.
  std::size_t block = std::clamp<std::size_t>(count / (workers * 16), 1, 256);
  if (count >= max_block_runs * workers)
    block = (block + max_block_runs - 1) / max_block_runs * max_block_runs;

  std::atomic<std::size_t> next{0};
  std::vector<std::size_t> worker_runs(workers, 0);
  std::vector<std::exception_ptr> errors(workers);
  const TimeLogger::CallContext context = logger.context();
  const std::thread::id caller = std::this_thread::get_id();
  auto work = [&](unsigned w) {
    std::optional<TimeLogger::CallScope> scope;  // a pool thread joins the caller's call
    if (std::this_thread::get_id() != caller) scope.emplace(logger, context);
    std::optional<ScopedTimer> timed;
    if (logger.enabled()) timed.emplace(logger, events::cpu_integration);
    try {
      auto range = make_worker();
      for (;;) {
        const std::size_t begin = next.fetch_add(block, std::memory_order_relaxed);
        if (begin >= count) break;
        if (arrays::stop_requested(stop)) {
          throw SolveInterrupted("solve stopped on request on the CPU (run " + std::to_string(begin) + " of " +
                                 std::to_string(count) + " next)");
        }
        const std::size_t end = std::min(count, begin + block);
        range(begin, end);
        // A run in progress stops within ~1000 steps of the request (run_integrator.hpp: stop_asked)
        // and ends not_solved: its block is thrown away, never returned as a result.
        if (arrays::stop_requested(stop)) {
          throw SolveInterrupted("solve stopped on request on the CPU (inside runs " + std::to_string(begin) + " to " +
                                 std::to_string(end - 1) + " of " + std::to_string(count) + ")");
        }
        worker_runs[w] += end - begin;
      }
    } catch (...) {
      errors[w] = std::current_exception();
      next.store(count);  // stop the other workers early
    }
    if (timed) {
      timed->add_metadata("worker", static_cast<std::int64_t>(w));
      timed->add_metadata("runs", static_cast<std::int64_t>(worker_runs[w]));
    }
  };
  if (workers == 1) {
    work(0);
  } else {
    pool.parallel_parts(workers, workers,
                        [&](std::size_t w, std::size_t, std::size_t) { work(static_cast<unsigned>(w)); });
  }

  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

/// Integrates runs [first, first + count) of a validated batch with `method` into the same rows of
/// `result`, on `threads` workers (run_on_workers), each with its own stepper, made once on the heap: a
/// Rosenbrock stepper holds N x N matrices (16 MB for a dense 1000-state system in double), more than
/// a thread's stack (8 MiB for the workers, often less for the calling thread).
template <class System, class T>
void integrate_batch(const System& sys, const T* y0, const T* params, std::size_t first, std::size_t count,
                     Method method, const RunSettings<T>& plan, unsigned threads, const ResultView<T>& result,
                     TimeLogger& logger, arrays::HostWorkers& pool, const std::atomic<bool>* stop = nullptr) {
  // A system with events writes its records: the result must have room for them (Solver sees to it).
  if (n_events_v<System> > 0 && (result.events == nullptr || result.n_events != n_events_v<System>)) {
    throw std::logic_error("integrate_batch: the system has event functions but the result holds no event records");
  }
  if (!holds_series(result, plan, System::n_states, n_observables_v<System>)) {
    throw std::logic_error("integrate_batch: the result is not shaped for the series the plan saves (its states "
                           "and observables)");
  }
  if (result.series_moments != nullptr && result.n_saves > 0) {
    throw std::logic_error("integrate_batch: the result's series is reduced on the GPU (series_moments): the CPU "
                           "has no rows to write it to");
  }
  if (!holds_summaries(result, plan.summary_windows, plan.summary_slots)) {
    throw std::logic_error("integrate_batch: the solve keeps summaries but the result has no room for them");
  }
  if (plan.n_drivers != n_drivers_v<System> || (n_drivers_v<System> > 0 && plan.drivers == nullptr)) {
    throw std::logic_error("integrate_batch: the plan does not carry the system's drivers (make_run_settings' "
                           "DriverTable)");
  }
  tableau::dispatch_compiled<System>(
      method,
      [&](auto tag) {
        using Tab = typename decltype(tag)::type;
        using Select = CpuStepperFor<Tab, System, T>;
        if constexpr (!Select::available) {
          throw InvalidInput(
              "method " + to_string(method) +
              " needs the Jacobian: give the system a call operator templated on the number type "
              "(for automatic differentiation; with an analytic `jacobian` member still needed for df/dt)");
        } else {
          run_on_workers(
              count, threads, logger, pool,
              [&] {
                return [&, stepper = std::make_unique<typename Select::type>()](std::size_t begin,
                                                                                std::size_t end) {
                  integrate_run_range<Tab>(sys, y0, params, first + begin, first + end, plan, result,
                                           *stepper);
                };
              },
              stop);
        }
      },
      [&] { throw InvalidInput(method_not_compiled_message<System>(method)); });
}

/// The same for a model compiled at run time: `entry` is its loaded shared object's range function
/// (runtime_abi.hpp), which runs run_range.hpp's loop for the method it was compiled for, with a
/// stepper the object makes on the heap once per worker.
template <class T>
void integrate_batch(const RuntimeEntry<T>& entry, const T* y0, const T* params, std::size_t first,
                     std::size_t count, const RunSettings<T>& plan, unsigned threads, const ResultView<T>& result,
                     TimeLogger& logger, arrays::HostWorkers& pool, const std::atomic<bool>* stop = nullptr) {
  run_on_workers(
      count, threads, logger, pool,
      [&] {
        std::unique_ptr<void, DeleteStepperFunction> stepper(entry.new_stepper(), entry.delete_stepper);
        if (!stepper) {
          throw std::runtime_error("model '" + entry.name +
                                   "' (compiled at run time): no memory for a worker's stepper");
        }
        return [&, stepper = std::move(stepper)](std::size_t begin, std::size_t end) {
          char message[512] = {};
          const RangeCall<T> call{y0,      params,        first + begin, first + end,   &plan,
                                  &result, stepper.get(), message,       sizeof message};
          if (entry.integrate(&call) != 0) {
            throw std::runtime_error("model '" + entry.name + "' (compiled at run time) failed: " + message);
          }
        };
      },
      stop);
}

}  // namespace batchode::cpu
