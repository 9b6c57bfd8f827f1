// solver/setup/: the options of a batch solve and their validation.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "batchode/arrays/outputs.hpp"
#include "batchode/checks/fits_precision.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/solver/setup/driver_inputs.hpp"
#include "batchode/timing/verbosity.hpp"

namespace batchode {

/// Where a batch runs. `cpu` always works; `gpu` fails (throws) if no GPU path can run;
/// `automatic` uses the GPU when one is usable and falls back to the CPU otherwise.
enum class Backend { automatic, cpu, gpu };
std::string to_string(Backend b);

/// Which thread of a GPU chunk integrates which run. Results are bitwise the same either way.
enum class RunOrder {
  /// Adaptive and stiff methods on the GPU: each chunk's runs are ordered by their inputs on the
  /// device (kernels/launch/run_order_kernels.hpp, planned by arrays/run_order.hpp), so the runs sharing a
  /// warp cost about the same and finish together; a batch already in input order (a sweep in its
  /// own order) is left as it is, and so is one whose cost probe (16 runs spread over it:
  /// Backend::automatic's before each solve; under Backend::gpu the earlier solves' of the same batch, run
  /// beside the GPU) took the same steps to within 10%. Timed as run_ordering. Fixed-step methods
  /// and the CPU: the batch's order (nothing to gain: fixed steps cost the same in every run, and CPU
  /// threads take blocks of runs as they finish). Costs and gains on the H100: benchmarks/RESULTS.md.
  automatic,
  off,  ///< the batch's order everywhere
};
std::string to_string(RunOrder order);

/// The PI step-size controller of adaptive methods (Hairer, Norsett & Wanner II.4; Gustafsson).
/// After a step with error norm err (<= 1 accepted) the next step is
///   h * clamp(safety * err^(-ki/k) * err_prev^(kp/k), min_factor, max_factor),  k = error_order + 1.
/// The default gains are those of Hairer's DOPRI5 code (err^-0.17 * err_prev^0.04 for k = 5); in steady
/// state they aim at err = safety^(k / (ki - kp)), about 0.45. Gustafsson's ki = 0.7, kp = 0.4 aim at
/// about 0.17, i.e. at a tighter accuracy than asked, and cost more at matched error on the CPU Lorenz
/// sweep at loose tolerances (benchmarks/cpu_work_precision).
struct StepControl {
  double safety = 0.9;
  double min_factor = 0.2;   ///< smallest shrink factor per step
  double max_factor = 10.0;  ///< largest growth factor per step
  double ki = 0.85;          ///< integral gain (scaled by 1/k)
  double kp = 0.2;           ///< proportional gain (scaled by 1/k); 0 gives the classic I controller
  double dt_min = 0.0;       ///< below this a run fails with step_size_underflow (0: rounding level)
  double dt_max = std::numeric_limits<double>::infinity();
};

/// GPU resource settings: the device-memory budget that sizes chunks (memory_fraction, memory_bytes,
/// chunks: arrays::MemoryBudget), the device and the block size.
struct GpuOptions : arrays::MemoryBudget {
  int device = 0;                ///< device index
  /// The GPUs Backend::automatic may split a batch over (indices); empty: every visible GPU. One MPI
  /// process per GPU of a node gives each its own (batchode/mpi's for_local_rank).
  std::vector<int> devices;
  int block_size = 128;          ///< threads per block
  /// Runs of a system that gives rhs_component may be split over several threads of a warp where that
  /// is faster (kernels/launch/lane_group.hpp: lanes_per_run); false keeps one thread per run. Same results.
  bool split_runs = true;
  bool allow_cpu_fallback = true;  ///< under Backend::automatic: fall back to CPU if the GPU fails
};

/// How saved points are computed.
enum class SaveMode {
  automatic,    ///< save_every: land; save_at: interpolate where the method's dense output is at most one
                ///< order below it (dopri5, tsit5, bogacki_shampine32, euler, rk4, the Rosenbrock methods),
                ///< land otherwise (cash_karp54, fehlberg78: the Hermite cubic would not keep up)
  land,         ///< steps land on every save time: saved values are the method's own (a dense grid
                ///< of saves then shortens the steps)
  interpolate,  ///< steps are those of a solve without saves; each saved point is interpolated from
                ///< the step that passes it (dense output: dopri5's and tsit5's own, fourth order;
                ///< rodas4's own, third order; the cubic Hermite, third order, for the other methods)
};

/// Which zero crossings of an event function count (kernels/loop/events.hpp).
enum class EventDirection {
  both,     ///< either way
  rising,   ///< g from < 0 to >= 0
  falling,  ///< g from > 0 to <= 0
};
/// What a crossing does.
enum class EventAction {
  record,    ///< its time and state are stored (the first `max` per run); the run goes on
  terminal,  ///< the run ends there (Status::stopped_by_event), with the state at the crossing
};
/// One event function g_e of the system (its events() member writes g[e]).
struct EventSpec {
  std::string name;  ///< names it in results and files; empty: "event<e>"
  EventDirection direction = EventDirection::both;
  EventAction action = EventAction::record;
  std::uint32_t max = 1;  ///< crossings stored per run (the first ones; the count goes on past it)
};

/// Save times of each run (SolveOptions::save_at_per_run): run r saves at times()[r * n_saves + k],
/// k < n_saves (run-major, as the batch's initial values). Empty (no times): not set. The times are
/// held immutably and shared, so copies of the options (the Solver's, the scheduler's) copy none.
class PerRunSaveTimes {
 public:
  PerRunSaveTimes() = default;
  /// `times`: n_runs x n_saves values, run-major.
  PerRunSaveTimes(std::size_t n_saves, std::vector<double> times)
      : n_saves_(n_saves), times_(std::make_shared<const std::vector<double>>(std::move(times))) {}
  std::size_t n_saves() const noexcept { return n_saves_; }
  /// Every run's times, run-major (empty when not set).
  const std::vector<double>& times() const noexcept { return times_ ? *times_ : no_times(); }
  bool empty() const noexcept { return times().empty(); }
  /// The runs the times are given for (times().size() / n_saves; 0 when empty or n_saves is 0).
  std::size_t n_runs() const noexcept { return n_saves_ == 0 ? 0 : times().size() / n_saves_; }

 private:
  static const std::vector<double>& no_times() {
    static const std::vector<double> none;
    return none;
  }
  std::size_t n_saves_ = 0;
  std::shared_ptr<const std::vector<double>> times_;
};

/// Summary metrics kept per run and window, accumulated as the run goes (kernels/outputs/summaries.hpp;
/// solver/setup/summary_layout.hpp lays them out). CuBIE's names and cadence.
struct SummaryOptions {
  /// "mean", "std", "rms", "max", "min", "max_magnitude", "max_time", "min_time", "extrema" (max, min),
  /// "mean_std", "std_rms", "mean_std_rms", "dxdt_max", "dxdt_min", "dxdt_extrema", "d2xdt2_max",
  /// "d2xdt2_min", "d2xdt2_extrema", "peaks[n]", "negative_peaks[n]" (the times of the first n).
  /// Empty: no summaries.
  std::vector<std::string> metrics;
  /// Window length: windows (t0 + w T, t0 + (w + 1) T] up to t_end. Unset: the whole span.
  std::optional<double> summarise_every;
  /// Spacing of the samples the metrics are of (t0 + j dt; the state at t0 only starts the history):
  /// a whole number of them per window. Unset: summarise_every / 10, or the span / 100 when
  /// summarise_every is unset too (CuBIE's defaults).
  std::optional<double> sample_summaries_every;
  /// States and observables summarised, by name (kept in the system's order: states, then
  /// observables). Empty: all of them.
  std::vector<std::string> variables;
  bool empty() const noexcept { return metrics.empty(); }
};

/// Statistics across the runs of a batch at every save time (solver/results/ensemble_statistics.hpp):
/// of each variable the series keeps (every state and observable, or those save_variables chose),
/// accumulated slice by slice so that their memory does not grow with the number of runs.
struct EnsembleStatisticsOptions {
  /// "count", "mean", "var" (population variance, numpy's ddof = 0), "std", "min", "max",
  /// "quantiles[q1,q2,...]" (levels in [0, 1]), "histogram[bins]" (the range of the first slice's
  /// values at each save time and variable) or "histogram[bins,low,high]". Empty: none.
  std::vector<std::string> metrics;
  /// The quantiles' rank error: each returned quantile's rank among the runs' values lies within
  /// quantile_rank_error * n of the asked one (n: the runs with a value there). In (0, 0.5).
  double quantile_rank_error = 1e-3;
  /// Runs solved at a time when the result keeps no series (OutputSelection::series false): their
  /// series alone are held, reduced and dropped. 0: as many as 1 GiB of series holds (at least 1024).
  std::size_t runs_per_slice = 0;
  bool empty() const noexcept { return metrics.empty(); }
};

/// Everything a solve needs besides the system and the batch.
struct SolveOptions {
  double t0 = 0.0;
  double t_end = 1.0;
  Method method = Method::dopri5;
  /// Fixed step (euler, rk4: required) or first step of an adaptive method (unset: Hairer's guess).
  std::optional<double> dt;
  double rtol = 1e-6;
  double atol = 1e-6;
  /// Save the state every save_every, at t0 + k * save_every (k = 0, 1, ...) up to t_end. Steps land
  /// exactly on save times (unless save_mode is interpolate), so saved values carry no interpolation
  /// error. Unset: final state only.
  std::optional<double> save_every;
  /// Save the state at these times: strictly increasing, in [t0, t_end], shared by every run; not
  /// with save_every. Empty: no such list. Interpolated unless save_mode is land.
  std::vector<double> save_at;
  /// Save each run at its own times: every run's n_saves times strictly increasing in [t0, t_end];
  /// not with save_every or save_at. The batch must have save_at_per_run.n_runs() runs (a solve of
  /// another size is refused by name). Interpolated unless save_mode is land (then each run's steps
  /// land on its own times). A distributed (MPI) solve gives each process its runs' rows.
  PerRunSaveTimes save_at_per_run;
  SaveMode save_mode = SaveMode::automatic;
  /// The states and observables the series keeps, by name (CuBIE's save_variables), kept in the
  /// system's order whatever order they are named in: only these take memory on the device, in
  /// staging and in the result (solver/setup/series_layout.hpp). Empty: every state and observable. Needs
  /// saves; the final state, events and summaries keep every variable.
  std::vector<std::string> save_variables;
  /// Summary metrics per run and window (SummaryOptions). With a series too, save_every must be a
  /// whole number of samples (the series is saved at the samples that fall on it); not with save_at.
  SummaryOptions summaries;
  /// Statistics across runs at every save time (EnsembleStatisticsOptions); needs save_every or save_at.
  /// With outputs.series false the result keeps them and no per-run series.
  EnsembleStatisticsOptions statistics;
  /// The time-varying inputs of a system that reads drivers (kernels/outputs/driven_system.hpp), one per
  /// driver, by name (the system's driver_names, when it has them; else in its order). Fitted once
  /// per Solver over [t0, t_end] (solver/setup/driver_inputs.hpp). A system without drivers: none.
  std::vector<DriverSpec> drivers;
  /// One spec per event function of the system, in its order. Empty for a system with events: a
  /// runtime model's own ([events]), a compiled-in system's each recorded once, in both directions
  /// (Solver fills them in). A system without events: none.
  std::vector<EventSpec> events;
  /// A crossing is located to this width in t (absolute). Unset: 100 ulps of the span's larger end
  /// in the solve's precision (at least 100 ulps of 1).
  std::optional<double> event_tolerance;
  std::uint64_t max_steps = 1'000'000;  ///< per run, accepted + rejected
  Backend backend = Backend::automatic;
  /// Overrides the TimeLogger's level for this solve (BATCHODE_VERBOSITY overrides both).
  std::optional<Verbosity> verbosity;
  StepControl step_control;
  OutputSelection outputs;
  GpuOptions gpu;
  RunOrder run_order = RunOrder::automatic;
  unsigned cpu_threads = 0;  ///< 0: all hardware threads
  /// A flag the caller owns (null: none). Setting it stops the solve early, on the CPU within about a
  /// thousand steps of each run in progress and on a GPU before the next chunk, and the solve throws
  /// SolveInterrupted
  /// (arrays/stop_request.hpp): Ctrl-C in the Python package, a signal handler or another thread in C++.
  const std::atomic<bool>* stop = nullptr;
};

/// Checks every field; throws InvalidInput naming the first bad one.
void validate(const SolveOptions& options);
/// Checks that the options fit a batch of n_runs runs (save_at_per_run gives one row per run); throws
/// InvalidInput naming both sizes.
void check_options_for_batch(const SolveOptions& options, std::size_t n_runs);
/// Whether the solve's runs have save times of their own (save_at_per_run).
inline bool saves_per_run(const SolveOptions& options) { return !options.save_at_per_run.empty(); }

/// validate(), then the checks that depend on the solve's precision T (float or double): times, steps
/// and tolerances as they are once rounded to T (a span, a save spacing or a tolerance that rounds
/// to nothing, a time beyond T's range). Solver calls it on construction.
template <class T>
void validate_for(const SolveOptions& options);
extern template void validate_for<float>(const SolveOptions&);
extern template void validate_for<double>(const SolveOptions&);

/// The smallest relative tolerance an adaptive solve in precision T is held to: 1e-6 in float32 (8.4
/// of its eps), 1e-15 in float64 (4.5 eps). Below a few eps the error estimate is rounding noise and
/// the steps shrink until their rounding errors add up to more than was asked: dx = -x in float32 at
/// rtol 1e-12 took 93,636 steps and ended 9e-6 off (10^6 times the tolerance). MATLAB and scipy floor
/// rtol at 100 eps; these keep float32's common 1e-6 (the default) allowed.
template <class T>
constexpr double rtol_floor() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  return std::is_same_v<T, float> ? 1e-6 : 1e-15;
}

/// Raises options.rtol to rtol_floor<T>() where an adaptive method asks for less, and returns the
/// one-line warning that says so, naming the tolerance asked and the one used ("" when nothing
/// changed). Solver applies it on construction and prints the warning on stderr.
template <class T>
std::string apply_rtol_floor(SolveOptions& options) {
  if (!method_info(options.method).adaptive || !(options.rtol < rtol_floor<T>())) return {};
  const double asked = options.rtol;
  options.rtol = rtol_floor<T>();
  return "rtol = " + checks::shortest_text(asked) + " is below what " + checks::precision_name<T>() +
         " arithmetic can meet; using rtol = " + checks::shortest_text(options.rtol) +
         " (below a few eps the error estimate is rounding noise)";
}

/// The largest max_steps: per-run step counters (RunCounters) are 32-bit.
inline constexpr std::uint64_t max_steps_limit = std::numeric_limits<std::uint32_t>::max();

/// Number of saved points of a solve (0 when none of save_every, save_at, save_at_per_run is set).
std::size_t count_saves(const SolveOptions& options);

/// The event records a solve keeps per run: its events, and the largest of their max.
EventShape event_shape(const SolveOptions& options);
/// The name of event e: events[e].name, or "event<e>".
std::string event_name(const SolveOptions& options, std::size_t e);
/// Checks that the options' events fit a system with `n_events` event functions. Throws InvalidInput.
void check_events_for_system(const SolveOptions& options, std::size_t n_events);

/// The order of a method's dense output: vern9's own 9, vern7's and dop853's 7, dopri5's, tsit5's and
/// rodas5p's own continuous extensions 4, rodas4's own and the Hermite cubic 3.
int dense_output_order(Method method);

/// Whether a solve's saved points are interpolated (SaveMode resolved: automatic interpolates save_at
/// where the method's dense output is at most one order below the method, and lands otherwise).
bool interpolates_saves(const SolveOptions& options);

/// "automatic", "land", "interpolate"; parse_save_mode also takes "auto", and throws InvalidInput
/// naming the choices.
std::string to_string(SaveMode mode);
/// "both", "rising", "falling"; "record", "terminal" (the model file's words).
std::string to_string(EventDirection direction);
std::string to_string(EventAction action);
SaveMode parse_save_mode(const std::string& name);

}  // namespace batchode
