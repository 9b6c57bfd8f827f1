// solver/scheduling/: whether a GPU solve orders its runs, from the calibrator's cost probe
// (calibrator.hpp): its runs' steps say whether ordering can pay, and under Backend::gpu, where no probe
// runs before the solve, the probe behind the next solve's order runs beside this solve's GPU parts on
// a thread of its own (RunOrderProbe). The executor (executor.hpp) asks these before and after its parts.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/solver/scheduling/calibrator.hpp"
#include "batchode/solver/scheduling/scheduler.hpp"
#include "batchode/solver/scheduling/solve_context.hpp"
#include "batchode/solver/setup/backend_settings.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/systems/system_traits.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "batchode/timing/timed_events.hpp"

namespace batchode::detail {

/// Why ordering a GPU part's runs cannot pay, or empty: the cost probe's runs (this solve's, under
/// Backend::automatic; the last solve's of the same batch, under Backend::gpu) took the same steps
/// to within 10%, where ordering costs its kernel and wins nothing. Without a probe the runs are
/// ordered.
template <class System, class T>
std::string order_cannot_pay(const Calibrator<System, T>& calibrator) {
  const auto& probed = calibrator.probed_runs();
  if (probed.empty()) return {};
  const auto [fewest, most] = std::minmax_element(
      probed.begin(), probed.end(), [](const auto& a, const auto& b) { return a.steps < b.steps; });
  if (most->steps > 1.1 * fewest->steps) return {};
  return fmt::format("not ordered: the cost probe's runs took {} to {} steps", fewest->steps, most->steps);
}

/// Under Backend::gpu no cost probe runs before the solve, so what decides whether ordering can pay
/// is the last probe of the same batch, which a repeated solve (the common case) recalls here. The
/// samples to probe when there is none (this solve then orders its runs, as a first solve must), or
/// nullopt: not Backend::gpu, no ordering asked, this solve probed (Backend::automatic), or recalled.
template <class System, class T>
std::optional<typename Calibrator<System, T>::ProbeSamples> recall_order_probe(
    const SolveContext<System, T>& ctx, Calibrator<System, T>& calibrator, const sched::Selection& selection,
    const T* y0, const T* params, std::size_t runs) {
  const bool on_gpu = std::any_of(selection.parts.begin(), selection.parts.end(),
                                  [](const sched::Part& p) { return p.backend.is_gpu(); });
  if (ctx.options.backend != Backend::gpu || !on_gpu || !orders_runs(ctx.options) ||
      !calibrator.probed_runs().empty()) {
    return std::nullopt;
  }
  try {
    auto samples = calibrator.sample_probe(ctx, y0, params, runs);
    if (calibrator.recall_probe(samples)) return std::nullopt;
    return samples;
  } catch (const InvalidInput&) {
    return std::nullopt;  // a sample that is not finite: the GPU's staging names it
  }
}

/// The probe behind the next Backend::gpu solve's order, run beside this solve's GPU parts on a
/// thread of its own (one CPU core, 16 runs), so that it costs a first solve no wall time. The
/// parts never wait for it: when they end first it is stopped (within one run: it reads the flag
/// before each) and the runs it integrated are kept for the next solve of the same batch to
/// resume, so a batch whose probe takes longer than its GPU solve (a stiff method's runs on one
/// core) is probed over a few solves, each paying at most the run in progress at its end, and stays
/// ordered until the probe is complete. A runtime model whose CPU code is not compiled (a model solved
/// on the GPU alone) is not probed: the compile would take the host compiler seconds (10 s more for the
/// first build of its prelude) that the solve would wait for at its end, to save the order kernel's
/// fraction of a millisecond; its runs are ordered, as a first solve's are. Timed as run_order_probe,
/// nested in the solve (metadata: completed, the samples integrated so far, and skipped: 1 where the
/// CPU code was not there). Joined by finish() or the destructor.
template <class System, class T>
class RunOrderProbe {
 public:
  using Samples = typename Calibrator<System, T>::ProbeSamples;

  /// Starts the probe of `samples` (none: nothing to probe, finish() does nothing).
  RunOrderProbe(const SolveContext<System, T>& ctx, Calibrator<System, T>& calibrator,
                std::optional<Samples> samples)
      : ctx_(ctx), calibrator_(calibrator), samples_(std::move(samples)) {
    if (!samples_) return;
    along_ = calibrator_.resume_probe(*samples_);
    thread_ = std::thread([this, timing = ctx_.logger.context()] {
      TimeLogger& logger = ctx_.logger;
      const TimeLogger::CallScope scope(logger, timing);
      std::optional<ScopedTimer> event;
      if (logger.enabled() && logger.is_registered(events::run_order_probe)) {
        event.emplace(logger, events::run_order_probe);
      }
      bool skipped = false;
      try {
        skipped = !cpu_code_ready(ctx_.system, ctx_.options.method, logger);
        if (!skipped) complete_ = calibrator_.integrate_probe(ctx_, *samples_, &stop_, along_);
      } catch (...) {
        along_.clear();  // the next solve starts the probe again, and orders its runs as this one does
      }
      if (event) {
        event->add_metadata("completed", std::int64_t{complete_ ? 1 : 0});
        event->add_metadata("samples_done", static_cast<std::int64_t>(along_.size()));
        event->add_metadata("skipped", std::int64_t{skipped ? 1 : 0});
      }
    });
  }
  RunOrderProbe(const RunOrderProbe&) = delete;
  RunOrderProbe& operator=(const RunOrderProbe&) = delete;
  ~RunOrderProbe() { join(); }

  /// Stops the probe if it is still running, waits for it, and keeps what it found for the next
  /// solve: the probe when complete, else the runs it integrated, to be resumed.
  void finish() {
    join();
    if (!samples_) return;
    if (complete_) {
      calibrator_.remember_probe(std::move(*samples_), std::move(along_));
    } else if (!along_.empty()) {
      calibrator_.keep_stopped_probe(std::move(*samples_), std::move(along_));
    }
    samples_.reset();
  }

 private:
  void join() {
    if (!thread_.joinable()) return;
    stop_.store(true, std::memory_order_relaxed);
    thread_.join();
  }

  const SolveContext<System, T>& ctx_;
  Calibrator<System, T>& calibrator_;
  std::optional<Samples> samples_;
  std::vector<typename Calibrator<System, T>::ProbedRun> along_;  // written by thread_ until joined
  bool complete_ = false;                                         // written by thread_
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace batchode::detail
