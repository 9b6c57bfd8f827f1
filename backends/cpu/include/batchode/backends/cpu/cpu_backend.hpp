// backends/cpu/: the CPU path: every run of a batch slice integrated by integrate_run with Boost.Odeint's
// steppers (explicit methods, rosenbrock4) or the host+device Rosenbrock stepper of kernels/ (rodas4,
// ros3p: the very code the GPU runs), spread over all cores. Runs are independent, so workers share nothing mutable but an
// atomic block counter; each writes only its own runs' rows of the result.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "batchode/kernels/jacobian.hpp"
#include "batchode/kernels/rosenbrock_stepper.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/backends/cpu/odeint_steppers.hpp"
#include "batchode/backends/cpu/rosenbrock4_stepper.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/kernels/run_integrator.hpp"
#include "batchode/kernels/method_registry.hpp"
#include "batchode/timing/events.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode::cpu {

/// Writes saved points of one run straight into the result's run-major series.
template <class T>
struct SeriesSink {
  static constexpr bool active = true;
  T* out;  // this run's n_saves x n_states block
  std::size_t n_states;
  void save(std::uint32_t k, T, const T* y) { std::copy(y, y + n_states, out + k * n_states); }
  void mark_unsaved(std::uint32_t k) {
    std::fill(out + k * n_states, out + (k + 1) * n_states, std::numeric_limits<T>::quiet_NaN());
  }
};

/// The CPU stepper of method Tab: odeint's for explicit tables, kernels/rosenbrock_stepper.hpp for
/// Rosenbrock tables, odeint's rosenbrock4 for the CPU-only tag. `available` is false for a stiff
/// method whose system cannot be linearised (integrate_batch then throws InvalidInput).
template <class Tab, class System, class T, bool Rosenbrock = tableau::is_rosenbrock_v<Tab>,
          bool Gpu = tableau::runs_on_gpu_v<Tab>>
struct CpuStepperFor {
  using type = OdeintStepper<Tab, System, T>;
  static constexpr bool available = true;
};
template <class Tab, class System, class T>
struct CpuStepperFor<Tab, System, T, true, true> {
  using type = RosenbrockStepper<Tab, T, System::n_states>;
  static constexpr bool available = kernels::can_linearize_v<System, T>;
};
template <class Tab, class System, class T>
struct CpuStepperFor<Tab, System, T, false, false> {
  using type = OdeintRosenbrock4Stepper<System, T>;
  static constexpr bool available = kernels::can_linearize_v<System, T>;
};

/// Why the GPU path cannot run `method` for System in precision T ("" when it can): rosenbrock4 is
/// CPU-only, and a Rosenbrock method needs a system it can linearise. Solver::run asks this first.
template <class System, class T>
std::string gpu_unavailable_for_method(Method method) {
  if (cpu_only(method)) {
    return "method " + to_string(method) + " has no GPU kernel (it is Boost.Odeint's stepper, CPU only)";
  }
  if (is_stiff(method) && !kernels::can_linearize_v<System, T>) {
    return "method " + to_string(method) + " needs a call operator templated on the number type (for the Jacobian)";
  }
  return "";
}

/// Number of worker threads for `runs` runs under `requested` (0: all hardware threads).
inline unsigned worker_count(unsigned requested, std::size_t runs) {
  unsigned n = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(n, std::max<std::size_t>(1, runs)));
}

/// Integrates runs [first, first + count) of a validated batch with `method` into the same rows of
/// `result`, on `threads` workers (0: all hardware threads), recording one
/// `cpu_integration` event per worker in `logger` (from the calling thread, after the join). The
/// workers are `pool`'s threads (a Solver keeps one: starting 16 threads per solve cost 0.5 ms on the
/// H100 machine's host, more than 100 runs of Lorenz take); one worker runs on the calling thread.
template <class System, class T>
void integrate_batch(const System& sys, const T* y0, const T* params, std::size_t first, std::size_t count,
                     Method method, const RunSettings<T>& plan, unsigned threads, const ResultView<T>& result,
                     TimeLogger& logger, arrays::HostWorkers& pool) {
  constexpr std::size_t N = System::n_states;
  constexpr std::size_t P = System::n_params;
  const unsigned workers = worker_count(threads, count);
  // Blocks small enough to balance runs of very different cost, large enough to keep the counter cold.
  const std::size_t block = std::clamp<std::size_t>(count / (workers * 16), 1, 256);

  std::atomic<std::size_t> next{0};
  std::vector<double> worker_ms(workers, 0.0);
  std::vector<std::size_t> worker_runs(workers, 0);
  std::vector<std::exception_ptr> errors(workers);

  tableau::dispatch(method, [&](auto tag) {
    using Tab = typename decltype(tag)::type;
    using Select = CpuStepperFor<Tab, System, T>;
    if constexpr (!Select::available) {
      throw InvalidInput("method " + to_string(method) +
                         " needs the Jacobian: give the system a call operator templated on the number type "
                         "(for automatic differentiation; with an analytic `jacobian` member still needed for df/dt)");
    } else {
      auto work = [&](unsigned w) {
        const auto start = std::chrono::steady_clock::now();
        try {
          // The worker's own copy: the shared plan is reached through the lambda's captures, and the
          // compiler then has to reload its fields after every store to a state.
          const RunSettings<T> run_plan = plan;
          typename Select::type stepper;
          for (;;) {
            const std::size_t begin = next.fetch_add(block, std::memory_order_relaxed);
            if (begin >= count) break;
            const std::size_t end = std::min(count, begin + block);
            for (std::size_t i = begin; i < end; ++i) {
              const std::size_t r = first + i;
              typename Select::type::state_type y{};
              for (std::size_t s = 0; s < N; ++s) y[s] = y0[r * N + s];
              const T* p = P > 0 ? params + r * P : nullptr;
              RunCounters counters{};
              Status status;
              if (plan.n_saves > 0) {
                SeriesSink<T> sink{result.series + r * plan.n_saves * N, N};
                status = integrate_run(stepper, sys, y, p, run_plan, sink, counters);
              } else {
                NoSeries sink;
                status = integrate_run(stepper, sys, y, p, run_plan, sink, counters);
              }
              for (std::size_t s = 0; s < N; ++s) result.final_state[r * N + s] = y[s];
              if (Status* out = result.status) out[r] = status;
              if (RunCounters* out = result.counters) out[r] = counters;
            }
            worker_runs[w] += end - begin;
          }
        } catch (...) {
          errors[w] = std::current_exception();
          next.store(count);  // stop the other workers early
        }
        worker_ms[w] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      };
      if (workers == 1) {
        work(0);
      } else {
        pool.parallel_parts(workers, workers,
                            [&](std::size_t w, std::size_t, std::size_t) { work(static_cast<unsigned>(w)); });
      }
    }
  });

  for (unsigned w = 0; w < workers; ++w) {
    logger.record_event(events::cpu_integration, worker_ms[w],
                        {{"worker", static_cast<std::int64_t>(w)},
                         {"runs", static_cast<std::int64_t>(worker_runs[w])}});
  }
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace batchode::cpu
