// python/: Solver32 / Solver64 (a Solver over a runtime model in float or double, options fixed at
// construction), build_grid (named sweeps into run-major arrays, by the C++ GridBuilder) and the
// result of a solve as numpy arrays over batchode's own memory. python/batchode/ wraps them in the
// scipy/CuBIE vocabulary.
//
// Inputs: a C-contiguous array of the solve's dtype is read where it lies (its pointer goes to the
// solver); anything else is converted once, timed as python_input_conversion with its bytes.
// Outputs: final states, series, statuses and counters are views of the SolveResult (result_arrays.hpp);
// each summary is its own C-contiguous array (SolveResult::summary: the run-major window rows cut per
// summary), owned by the array, small beside the series.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "batchode/checks/checked_size.hpp"
#include "batchode/checks/fits_precision.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/distributed/distributed_solve.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/solver/setup/grid.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/results/output_types.hpp"
#include "batchode/solver/results/ensemble_statistics.hpp"
#include "batchode/solver/results/result.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "batchode/solver/solver.hpp"
#include "batchode/solver/setup/summary_layout.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "bindings.hpp"
#include "interruptible.hpp"
#include "py_model.hpp"
#include "result_arrays.hpp"

namespace py = pybind11;

namespace batchode::python {

namespace {

constexpr const char* input_conversion_event = "python_input_conversion";

/// Registered once on the default logger, beside the solver's events.
void register_events() {
  TimeLogger& logger = default_timelogger();
  if (!logger.is_registered(input_conversion_event)) {
    logger.register_event(input_conversion_event, event_category::runtime,
                          "the Python package copying an input array that was not C-contiguous or not of the "
                          "solve's dtype");
  }
}

/// `value` in T; when T cannot hold it (a NaN, an infinity, beyond float32's range), InvalidInput in
/// checks::narrow_to's words, placed by where() ("run 3"), which is called only then.
template <class T, class Where>
T narrow(double value, const std::string& what, Where&& where) {
  // Strictly inside T's range: the common case, cast at once (a million values in a few ms, where
  // building narrow_to's arguments for each took ten times that). NaN, infinities and values from T's
  // largest on are narrow_to's to judge.
  if (std::fabs(value) < static_cast<double>(std::numeric_limits<T>::max())) return static_cast<T>(value);
  return checks::narrow_to<T>(value, what, where());
}

/// How messages name a column: "state x", "parameter k".
std::string column_name(bool is_parameter, const std::string& name) {
  return (is_parameter ? "parameter " : "state ") + name;
}

std::vector<std::string> column_names(bool is_parameter, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) out.push_back(column_name(is_parameter, name));
  return out;
}

/// `values` (runs, columns) as a C-contiguous array of T, each value checked in double before it is
/// narrowed: numpy's cast would make 1e39 an inf that the solve's check then calls "not finite".
template <class T>
py::array_t<T> narrowed(const py::array_t<double>& values, const std::vector<std::string>& columns) {
  const auto in = values.template unchecked<2>();
  py::array_t<T> out({in.shape(0), in.shape(1)});
  auto o = out.template mutable_unchecked<2>();
  for (py::ssize_t r = 0; r < in.shape(0); ++r) {
    for (py::ssize_t c = 0; c < in.shape(1); ++c) {
      o(r, c) = narrow<T>(in(r, c), columns[static_cast<std::size_t>(c)],
                          [&] { return "run " + std::to_string(r); });
    }
  }
  return out;
}

/// `object` as a C-contiguous (runs, columns) array of T: the same array when it already is one (no
/// copy), else converted once and timed. `what` names it in errors ("y0", "parameters"); `names` are
/// its columns' (the model's states or, `is_parameter`, parameters).
template <class T>
py::array_t<T> as_input(const py::object& object, const std::vector<std::string>& names, const char* what,
                        bool is_parameter) {
  const std::size_t columns = names.size();
  if (py::isinstance<py::array_t<T>>(object)) {
    py::array_t<T> array = py::reinterpret_borrow<py::array_t<T>>(object);
    const bool contiguous = (array.flags() & py::array::c_style) != 0;
    // NPY_ARRAY_ALIGNED (0x0100): numpy's flag; pybind11 names only the contiguity flags.
    const bool aligned = (array.flags() & 0x0100) != 0;
    if (contiguous && aligned && array.ndim() == 2 && static_cast<std::size_t>(array.shape(1)) == columns) {
      return array;
    }
  }
  // Anything else: the shape checked (and named) here, then converted.
  py::array any = py::array::ensure(object);
  if (!any) throw InvalidInput(std::string(what) + " is not an array of numbers");
  if (any.ndim() != 2 || static_cast<std::size_t>(any.shape(1)) != columns) {
    std::string shape;
    for (py::ssize_t d = 0; d < any.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(any.shape(d));
    throw InvalidInput(std::string(what) + " has shape (" + shape + "); the model needs (n_runs, " +
                       std::to_string(columns) + ")");
  }
  const char kind = any.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    throw InvalidInput(std::string(what) + " has dtype " + py::str(any.dtype()).cast<std::string>() +
                       "; give real numbers");
  }
  ScopedTimer timer(default_timelogger(), input_conversion_event);
  timer.add_metadata("input", what);
  timer.add_metadata("from_dtype", py::str(any.dtype()).cast<std::string>());
  timer.add_metadata("nbytes", static_cast<std::int64_t>(any.nbytes()));
  if (kind == 'f' && any.dtype().itemsize() > static_cast<py::ssize_t>(sizeof(T))) {
    return narrowed<T>(py::array_t<double, py::array::forcecast>::ensure(any),
                       column_names(is_parameter, names));
  }
  return py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(any);
}

py::object counters_dtype() {
  py::list fields;
  for (const char* name : {"accepted_steps", "rejected_steps", "rhs_evaluations"}) {
    fields.append(py::make_tuple(name, "<u4"));
  }
  return py::module_::import("numpy").attr("dtype")(fields);
}

/// The summaries of `r` into `out`: "summaries" {name: (n_runs, windows, variables) for a summary of
/// one value per variable, (n_runs, windows, variables, width) for a combined one (extrema: max, min)
/// and peaks[n]}, "summary_value_names" {name: the names along that last axis, [] for none},
/// "summary_variables" and "summary_window_ends" ((windows,): t0 + (w + 1) summarise_every). Empty
/// without summaries.
template <class T>
void add_summaries(const SolveResult<T>& r, double t0, py::dict& out) {
  py::dict summaries, value_names;
  const SummaryLayout* layout = r.summary_layout();
  const std::size_t windows = r.n_summary_windows();
  py::array_t<T> ends(static_cast<py::ssize_t>(windows));
  if (layout != nullptr) {
    for (std::size_t w = 0; w < windows; ++w) {
      ends.mutable_at(static_cast<py::ssize_t>(w)) = static_cast<T>(layout->window_end(t0, w));
    }
    const std::vector<py::ssize_t> rows = {static_cast<py::ssize_t>(r.n_runs()),
                                           static_cast<py::ssize_t>(windows),
                                           static_cast<py::ssize_t>(layout->variables.size())};
    for (const SummaryOutput& output : layout->outputs) {
      std::vector<py::ssize_t> shape = rows;
      // A last axis wherever the values are named: combined summaries and peaks[n] (even peaks[1]).
      const bool named_values = !output.value_names.empty();
      if (named_values) shape.push_back(static_cast<py::ssize_t>(output.width));
      // The dense copy SolveResult::summary makes, owned by its array (no second copy).
      auto values = std::make_shared<std::vector<T>>(r.summary(output.name));
      summaries[py::str(output.name)] = view_of<T>(std::move(shape), values->data(), keep_alive(values));
      value_names[py::str(output.name)] = output.value_names;
    }
  }
  out["summaries"] = summaries;
  out["summary_value_names"] = value_names;
  out["summary_variables"] = r.summary_variables();
  out["summary_window_ends"] = ends;
}

/// The ensemble statistics of `r` into `out`: "statistics" {name: (n_saves, n_variables) array, with a
/// last axis for quantiles and histogram; "histogram_edges", "histogram_below", "histogram_above",
/// "quantile_levels", "quantile_rank_error"}, "statistics_variables" and "statistics_t"; {} / [] / None
/// without statistics. Copies: the statistics are small (no run axis).
template <class T>
void add_statistics(const SolveResult<T>& r, py::dict& out) {
  py::dict stats;
  const EnsembleStatistics* s = r.statistics();
  if (s == nullptr) {
    out["statistics"] = stats;
    out["statistics_variables"] = std::vector<std::string>{};
    out["statistics_t"] = py::none();
    return;
  }
  const auto saves = static_cast<py::ssize_t>(s->n_saves()), vars = static_cast<py::ssize_t>(s->n_variables());
  auto array = [&](const auto& values, std::vector<py::ssize_t> shape) {
    using V = typename std::decay_t<decltype(values)>::value_type;
    py::array_t<V> a(shape);
    std::copy(values.begin(), values.end(), a.mutable_data());
    return a;
  };
  const StatisticsPlan& plan = s->plan();
  if (plan.count) stats["count"] = array(s->count(), {saves, vars});
  if (plan.mean) stats["mean"] = array(s->mean(), {saves, vars});
  if (plan.var) stats["var"] = array(s->var(), {saves, vars});
  if (plan.std_dev) stats["std"] = array(s->std_dev(), {saves, vars});
  if (plan.min) stats["min"] = array(s->min(), {saves, vars});
  if (plan.max) stats["max"] = array(s->max(), {saves, vars});
  if (!plan.quantiles.empty()) {
    const auto levels = static_cast<py::ssize_t>(plan.quantiles.size());
    stats["quantiles"] = array(s->quantiles(), {saves, vars, levels});
    stats["quantile_levels"] = array(plan.quantiles, {levels});
    stats["quantile_rank_error"] = s->quantile_rank_error();
  }
  if (plan.histogram_bins > 0) {
    const auto bins = static_cast<py::ssize_t>(plan.histogram_bins);
    stats["histogram"] = array(s->histogram(), {saves, vars, bins});
    stats["histogram_edges"] = array(s->histogram_edges(), {saves, vars, bins + 1});
    stats["histogram_below"] = array(s->histogram_below(), {saves, vars});
    stats["histogram_above"] = array(s->histogram_above(), {saves, vars});
  }
  out["statistics"] = stats;
  out["statistics_variables"] = s->variables();
  out["statistics_t"] = array(s->times(), {saves});
}

/// The result as a dict of numpy views (and plain values) that python/batchode/_result.py reads; t0
/// places the summaries' windows.
template <class T>
py::dict result_dict(std::shared_ptr<SolveResult<T>> owner, double t0) {
  const SolveResult<T>& r = *owner;
  const py::capsule base = keep_alive(owner);
  const auto runs = static_cast<py::ssize_t>(r.n_runs());
  const auto states = static_cast<py::ssize_t>(r.n_states());
  const auto saves = static_cast<py::ssize_t>(r.n_saves());
  // The series' columns: every state, or those save_variables chose (None when it chose none).
  const auto saved_states = static_cast<py::ssize_t>(r.n_series_states());
  py::dict out;
  out["final_state"] = view_of<T>({runs, states}, r.final_state().data(), base);
  out["state"] = saves > 0 && saved_states > 0
                     ? py::object(view_of<T>({runs, saves, saved_states}, r.series().data(), base))
                     : py::object(py::none());
  // Their names, and their indices in the system for a result made without the names (one gathered
  // from MPI processes, say: _result.py names them from the indices then).
  out["saved_state_names"] = r.series_state_names();
  out["saved_states"] = r.series_states();
  // The save times: (n_saves,), or (n_runs, n_saves) when each run has its own (a view, as the series).
  if (r.times_per_run()) {
    out["t"] = view_of<T>({runs, saves}, r.times().data(), base);
  } else {
    py::array_t<T> times(saves);
    for (py::ssize_t k = 0; k < saves; ++k) times.mutable_at(k) = r.times()[static_cast<std::size_t>(k)];
    out["t"] = times;
  }
  // Observables (n_runs, n_saves, n_observables), a view; None without saves or observables.
  const auto n_observables = static_cast<py::ssize_t>(r.n_observables());
  out["observables"] = saves > 0 && n_observables > 0
                           ? py::object(view_of<T>({runs, saves, n_observables}, r.observables().data(), base))
                           : py::object(py::none());
  out["observable_names"] = r.observable_names();
  add_summaries(r, t0, out);
  add_statistics(r, out);
  static_assert(sizeof(Status) == sizeof(std::int32_t), "statuses are viewed as int32");
  out["status"] = r.statuses().empty() ? py::object(py::none())
                                       : py::object(view_of<std::int32_t>(
                                             {runs}, reinterpret_cast<const std::int32_t*>(r.statuses().data()), base));
  // Each run's stop time, kept with the statuses (None without them, as status).
  out["t_stop"] = r.stop_times().empty() ? py::object(py::none())
                                         : py::object(view_of<T>({runs}, r.stop_times().data(), base));
  static_assert(sizeof(RunCounters) == 3 * sizeof(std::uint32_t), "counters are viewed as three uint32");
  out["counters"] = r.counters().empty()
                        ? py::object(py::none())
                        : py::object(view(py::reinterpret_borrow<py::dtype>(counters_dtype()), {runs},
                                          r.counters().data(), base));
  // Events: every run's records (n_runs, n_events, slots, 1 + n_states: time, then the state) and
  // counts (n_runs, n_events); _result.py cuts each event's columns out of them (views, no copy).
  const auto n_events = static_cast<py::ssize_t>(r.n_events());
  if (n_events > 0) {
    out["events"] = view_of<T>({runs, n_events, static_cast<py::ssize_t>(r.event_slots()), states + 1},
                               r.events().data(), base);
    out["event_counts"] = view_of<std::uint32_t>({runs, n_events}, r.event_counts().data(), base);
    py::list names, max, terminal;
    for (std::size_t e = 0; e < r.n_events(); ++e) {
      names.append(r.event_names()[e]);
      max.append(r.event_max(e));
      terminal.append(r.event_terminal(e));
    }
    out["event_names"] = names;
    out["event_max"] = max;
    out["event_terminal"] = terminal;
    if (!r.statuses().empty()) {
      py::array_t<std::int32_t> stopping(runs);
      for (py::ssize_t i = 0; i < runs; ++i) {
        const std::size_t e = r.stopping_event(static_cast<std::size_t>(i));
        stopping.mutable_at(i) = e < r.n_events() ? static_cast<std::int32_t>(e) : -1;
      }
      out["stopping_event"] = stopping;
    }
  } else {
    out["events"] = py::none();
  }
  out["method"] = to_string(r.method());
  py::list execution;
  for (const ExecutionRecord& e : r.execution()) {
    py::dict part;
    part["backend"] = to_string(e.backend);
    part["reason"] = sched::to_string(e.reason);
    part["first_run"] = e.first_run;
    part["runs"] = e.runs;
    part["wall_ms"] = e.wall_ms;
    part["predicted_ms"] = e.predicted_ms ? py::object(py::float_(*e.predicted_ms)) : py::object(py::none());
    part["chunks"] = e.chunks;
    part["detail"] = e.detail;
    part["instruction_set"] = e.instruction_set;
    execution.append(part);
  }
  out["execution"] = execution;
  return out;
}

/// A Solver over a model in T. The stop flag is a member, so the options the Solver copies point at
/// it for the object's whole life (pybind11 keeps the object where it was made).
template <class T>
class PySolver {
 public:
  PySolver(std::shared_ptr<PyModel> model, SolveOptions options)
      : model_(std::move(model)), solver_(model_->runtime<T>(), with_stop(std::move(options), &stop_)) {
    register_events();
  }

  const SolveOptions& options() const { return solver_.options(); }

  /// Solves the batch y0 (n_runs, n_states) and parameters (n_runs, n_params; None when the model has
  /// none). Returns (result dict, y0 as solved, parameters as solved): the arrays given when they were
  /// used in place, else their converted copies.
  py::tuple solve(const py::object& y0, const py::object& params) {
    const Busy busy(*this);
    const Inputs in = inputs(y0, params);
    std::shared_ptr<SolveResult<T>> result = run_interruptible(thread_, stop_, [&] {
      return std::make_shared<SolveResult<T>>(solver_.solve(in.y_data, in.p_data, in.runs));
    });
    return py::make_tuple(result_dict<T>(std::move(result), solver_.options().t0), in.y,
                          in.p ? py::object(*in.p) : py::object(py::none()));
  }

  /// solve() over the processes of `c` (an mpi4py communicator wrapped in python/batchode/_mpi.py),
  /// each process passing the same batch: the results gathered to `root`, or written into `h5_path`
  /// by all. Returns (result dict, y0, parameters, first run, runs of the result, ranks, runs not
  /// solved, the job's report to print (timing across processes, warnings), the timing as JSON). No Ctrl-C
  /// here: a process leaving a collective call would leave the others waiting; the launcher's signal ends the
  /// job.
  py::tuple solve_distributed(distributed::Collective& c, const py::object& y0, const py::object& params,
                              const std::string& h5_path, int root) {
    const Busy busy(*this);
    const Inputs in = inputs(y0, params);
    const std::size_t n_states = solver_.n_states(), n_params = solver_.n_params();
    distributed::DistributedOptions how;
    how.h5_path = h5_path;
    how.root = root;
    how.print_summary = false;  // printed by the package, through sys.stderr
    if (!h5_path.empty() && c.rank() == root) {  // a copy of the grid: only the root writes it
      const RuntimeModel<T>& model = model_->runtime<T>();
      how.h5_meta.state_names = model.state_names();
      how.h5_meta.parameter_names = model.parameter_names();
      how.h5_meta.y0.assign(in.y_data, in.y_data + in.runs * n_states);
      if (in.p_data != nullptr) how.h5_meta.parameters.assign(in.p_data, in.p_data + in.runs * n_params);
      how.h5_meta.model_name = model.model().name();
    }
    const distributed::LocalSolver<T> local = distributed::local_solver(solver_);
    std::optional<distributed::DistributedResult<T>> r;
    {
      py::gil_scoped_release released;  // the Collective's calls take it back
      r.emplace(distributed::solve_distributed<T>(
          c, local, distributed::BatchInput<T>{in.y_data, in.runs * n_states, in.p_data, in.p_data ? in.runs * n_params : 0},
          solver_.options(), how, default_timelogger()));
    }
    flush_python_output();  // what the logger printed while the GIL was released
    py::list ranks;
    for (const distributed::RankReport& rank : r->ranks) {
      py::dict d;
      d["rank"] = rank.rank;
      d["host"] = rank.host;
      d["first_run"] = rank.share.first_run;
      d["runs"] = rank.share.runs;
      py::list takeovers;
      for (const distributed::RunRange& piece : rank.takeovers) takeovers.append(py::make_tuple(piece.first_run, piece.runs));
      d["takeovers"] = takeovers;
      d["predicted_ms"] = rank.predicted_ms;
      d["solve_ms"] = rank.solve_ms;
      d["where"] = rank.where;
      d["capability"] = rank.capability;
      d["error"] = rank.error;
      ranks.append(d);
    }
    auto owner = std::make_shared<SolveResult<T>>(std::move(r->result));
    return py::make_tuple(result_dict<T>(std::move(owner), solver_.options().t0), in.y,
                          in.p ? py::object(*in.p) : py::object(py::none()),
                          r->local.first_run, r->local.runs, ranks, r->not_solved,
                          distributed::job_report(r->timing, r->ranks, r->not_solved), r->timing.to_json());
  }

  /// For benchmarks/python_overhead.py: the wall time in ms of each of `reps` solves of the batch
  /// timed in C++ around Solver::solve alone (each result dropped at once, as runtime_solve.cpp
  /// does), so the same process compares the Python call with the bare C++ one, interleaved.
  std::vector<double> time_solves_in_cpp(const py::object& y0, const py::object& params, int reps) {
    const Busy busy(*this);
    const Inputs in = inputs(y0, params);
    std::vector<double> ms;
    py::gil_scoped_release released;
    for (int i = 0; i < reps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      { (void)solver_.solve(in.y_data, in.p_data, in.runs); }
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return ms;
  }

 private:
  /// One call at a time: the GIL is released while solving, so another Python thread could call in
  /// (batchode's Solver is one per thread). And none in a process forked since the Solver was made:
  /// its work thread was not copied into the child.
  class Busy {
   public:
    explicit Busy(PySolver& solver) : solver_(solver) {
      if (getpid() != solver.pid_) {
        throw std::runtime_error("this Solver was made before the process forked: make a new one in the child");
      }
      bool idle = false;
      if (!solver.busy_.compare_exchange_strong(idle, true)) {
        throw std::runtime_error("this Solver is solving in another thread: use one Solver per thread");
      }
    }
    ~Busy() { solver_.busy_.store(false); }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    PySolver& solver_;
  };

  struct Inputs {
    py::array_t<T> y;
    std::optional<py::array_t<T>> p;
    const T* y_data = nullptr;  // read with the GIL released: the pointers, taken while it is held
    const T* p_data = nullptr;
    std::size_t runs = 0;
  };

  Inputs inputs(const py::object& y0, const py::object& params) const {
    // A conversion is timed at the solve's level (verbosity="none": not at all).
    const detail::VerbosityScope level(default_timelogger(), solver_.options().verbosity);
    const std::size_t n_params = solver_.n_params();
    const RuntimeModel<T>& model = model_->runtime<T>();
    py::array_t<T> y = as_input<T>(y0, model.state_names(), "y0", false);
    const std::size_t runs = static_cast<std::size_t>(y.shape(0));
    std::optional<py::array_t<T>> p;
    if (!params.is_none()) {
      p = as_input<T>(params, model.parameter_names(), "parameters", true);
      if (static_cast<std::size_t>(p->shape(0)) != runs) {
        throw InvalidInput("y0 has " + std::to_string(runs) + " runs but parameters has " +
                           std::to_string(p->shape(0)) + "; give one row per run in both");
      }
    } else if (n_params > 0) {
      throw InvalidInput("the model has " + std::to_string(n_params) + " parameters; give parameters");
    }
    const T* p_data = p && n_params > 0 ? p->data() : nullptr;
    const T* y_data = y.data();
    return Inputs{std::move(y), std::move(p), y_data, p_data, runs};
  }

  static SolveOptions with_stop(SolveOptions options, const std::atomic<bool>* stop) {
    options.stop = stop;
    return options;
  }

  std::shared_ptr<PyModel> model_;  // keeps the runtime model the Solver refers to alive
  std::atomic<bool> stop_{false};
  std::atomic<bool> busy_{false};
  const pid_t pid_ = getpid();
  Solver<RuntimeModel<T>, T> solver_;
  WorkThread thread_;  // runs the solves; last, so it stops before the Solver goes
};

/// One driver as the Python package passes it (_api.py's _drivers): name, samples (1-D: shared; 2-D
/// (n_runs, n_samples): each run's own), times (empty with dt), dt, order, end, wrap, land.
using PyDriver = std::tuple<std::string, py::array_t<double, py::array::c_style | py::array::forcecast>,
                            std::vector<double>, std::optional<double>, int, std::string, bool, bool>;

DriverSpec driver_spec(const PyDriver& d) {
  const auto& [name, samples, times, dt, order, end, wrap, land] = d;
  DriverSpec spec;
  spec.name = name;
  if (samples.ndim() != 1 && samples.ndim() != 2) {
    throw InvalidInput("drivers['" + name + "'] must be a 1-D array of samples (shared) or a 2-D array (n_runs, "
                       "n_samples), got " + std::to_string(samples.ndim()) + " dimensions");
  }
  spec.values.assign(samples.data(), samples.data() + samples.size());
  if (samples.ndim() == 2) spec.n_samples = static_cast<std::size_t>(samples.shape(1));
  spec.times = times;
  spec.dt = dt;
  spec.order = order;
  spec.end = parse_spline_end(end);
  spec.wrap = wrap;
  spec.land = land;
  return spec;
}

/// SolveOptions from the Python package's keywords (already named and checked for type there);
/// validate() runs in the Solver's constructor, and the Solver resolves summarise_variables and
/// save_variables against the model. output_types (CuBIE's list: apply_output_types) is applied last,
/// over the other settings; summaries names metrics directly, as an alternative to listing them in
/// output_types. max_step (scipy's name) is step_control.dt_max; validate()'s messages call it
/// max_step (errors.cpp).
SolveOptions make_options(
    double t0, double t_end, const std::string& method, double rtol, double atol, std::optional<double> dt,
    std::optional<double> save_every, const std::vector<double>& save_at,
    const std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>>& save_at_per_run,
    const std::string& save_mode, std::uint64_t max_steps, const std::string& backend,
    const std::optional<std::string>& verbosity, bool counters, const std::string& run_order,
    unsigned cpu_threads, std::optional<double> memory_fraction, std::size_t chunks,
    std::optional<double> event_tolerance, const std::optional<std::vector<std::string>>& output_types,
    const std::vector<std::string>& summaries, std::optional<double> summarise_every,
    std::optional<double> sample_summaries_every, const std::vector<std::string>& summarise_variables,
    const std::vector<PyDriver>& drivers, const std::vector<std::string>& save_variables,
    std::optional<double> max_step, bool split_runs, const std::vector<std::string>& ensemble_statistics,
    double quantile_rank_error, std::size_t runs_per_slice) {
  SolveOptions o;
  // Before output_types: a list without a series keeps the save times for the statistics.
  o.statistics.metrics = ensemble_statistics;
  o.statistics.quantile_rank_error = quantile_rank_error;
  o.statistics.runs_per_slice = runs_per_slice;
  for (const PyDriver& d : drivers) o.drivers.push_back(driver_spec(d));
  o.t0 = t0;
  o.t_end = t_end;
  o.method = parse_method(method);
  o.rtol = rtol;
  o.atol = atol;
  o.dt = dt;
  o.save_every = save_every;
  o.save_at = save_at;
  if (save_at_per_run) {  // (n_runs, n_saves): each run's own times (checked 2-D in _api.py)
    const auto& a = *save_at_per_run;
    if (a.ndim() != 2 || a.shape(0) == 0 || a.shape(1) == 0) {
      throw InvalidInput("save_at per run must be a 2-D array (n_runs, n_saves) of at least one run and one time, "
                         "got " + std::to_string(a.ndim()) + " dimensions, " + std::to_string(a.size()) + " values");
    }
    o.save_at_per_run = PerRunSaveTimes(static_cast<std::size_t>(a.shape(1)),
                                        std::vector<double>(a.data(), a.data() + a.size()));
  }
  o.save_mode = parse_save_mode(save_mode);
  o.save_variables = save_variables;
  o.max_steps = max_steps;
  if (max_step) o.step_control.dt_max = *max_step;  // None: no limit (the default, infinity)
  if (backend == "auto" || backend == "automatic") {
    o.backend = Backend::automatic;
  } else if (backend == "cpu") {
    o.backend = Backend::cpu;
  } else if (backend == "gpu") {
    o.backend = Backend::gpu;
  } else {
    throw InvalidInput("backend '" + backend + "': use 'auto', 'cpu' or 'gpu'");
  }
  if (verbosity) o.verbosity = parse_verbosity(*verbosity);
  o.outputs.counters = counters;
  if (run_order == "auto" || run_order == "automatic") {
    o.run_order = RunOrder::automatic;
  } else if (run_order == "off") {
    o.run_order = RunOrder::off;
  } else {
    throw InvalidInput("run_order '" + run_order + "': use 'auto' or 'off'");
  }
  o.cpu_threads = cpu_threads;
  if (memory_fraction) o.gpu.memory_fraction = *memory_fraction;
  o.gpu.chunks = chunks;
  o.gpu.split_runs = split_runs;
  o.event_tolerance = event_tolerance;
  o.summaries.summarise_every = summarise_every;
  o.summaries.sample_summaries_every = sample_summaries_every;
  o.summaries.variables = summarise_variables;
  if (output_types) apply_output_types(*output_types, o);
  if (!summaries.empty()) {
    if (!o.summaries.metrics.empty()) {
      std::string listed;
      for (const std::string& m : o.summaries.metrics) listed += (listed.empty() ? "'" : ", '") + m + "'";
      throw InvalidInput("summaries are listed both in output_types (" + listed +
                         ") and in summaries=: give them in one of the two");
    }
    o.summaries.metrics = summaries;
  }
  return o;
}

/// Run-major y0 and parameters of a grid over `model`'s defaults (overridden by `y0_defaults` /
/// `param_defaults` when given), with `axes` [(is_parameter, name, values)], as two arrays over one
/// Batch (no copy on the way out). Every value is checked in double before it becomes a T (narrow), and
/// named as the user wrote it: "parameter k = 1e+39 (run 0) does not fit float32", "parameter rho (run
/// 1) is NaN"; a default, used by every run, without a run.
template <class T>
py::tuple build_grid(const PyModel& model, const std::vector<double>& y0_defaults,
                     const std::vector<double>& param_defaults,
                     const std::vector<std::tuple<bool, std::string, std::vector<double>>>& axes,
                     const std::string& kind) {
  const RuntimeModel<T>& runtime = model.runtime<T>();
  GridKind grid_kind = GridKind::combinatorial;
  if (kind == "verbatim") {
    grid_kind = GridKind::verbatim;
  } else if (kind != "combinatorial") {
    throw InvalidInput("grid_type '" + kind + "': use 'combinatorial' or 'verbatim'");
  }
  const std::vector<std::string> state_names = runtime.state_names(), param_names = runtime.parameter_names();
  auto swept = [&](bool is_parameter, const std::string& name) {
    return std::any_of(axes.begin(), axes.end(), [&](const auto& axis) {
      return std::get<0>(axis) == is_parameter && std::get<1>(axis) == name;
    });
  };
  auto defaults = [&](const std::vector<double>& values, bool is_parameter) {
    const std::vector<std::string>& names = is_parameter ? param_names : state_names;
    std::vector<T> out(values.size());  // a count other than the model's: GridBuilder::names refuses it
    for (std::size_t i = 0; i < std::min(values.size(), names.size()); ++i) {
      // A swept column's default is never used (every run takes the axis' value): not checked.
      if (swept(is_parameter, names[i])) continue;
      out[i] = narrow<T>(values[i], column_name(is_parameter, names[i]), [] { return std::string(); });
    }
    return out;
  };
  GridBuilder<T> builder(defaults(y0_defaults, false), defaults(param_defaults, true));
  builder.names(state_names, param_names);
  // The first run that takes value i of axis a, for a message: GridBuilder's order (verbatim: run i;
  // combinatorial: the first axis slowest, so i times the runs of the axes after a).
  auto first_run = [&](std::size_t a, std::size_t i) {
    if (grid_kind == GridKind::verbatim) return "run " + std::to_string(i);
    std::size_t later = 1;
    for (std::size_t b = a + 1; b < axes.size(); ++b) {
      later = checks::checked_mul(later, std::get<2>(axes[b]).size(), "combinatorial grid: the run count");
    }
    return "run " + std::to_string(checks::checked_mul(i, later, "combinatorial grid: the run count"));
  };
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const auto& [is_parameter, name, values] = axes[a];
    const std::string what = column_name(is_parameter, name);
    std::vector<T> narrowed_values(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      narrowed_values[i] = narrow<T>(values[i], what, [&] { return first_run(a, i); });
    }
    if (is_parameter) {
      builder.param(name, std::move(narrowed_values));
    } else {
      builder.state(name, std::move(narrowed_values));
    }
  }
  auto batch = std::make_shared<Batch<T>>(builder.build(grid_kind));
  const py::capsule base = keep_alive(batch);
  const auto runs = static_cast<py::ssize_t>(batch->n_runs);
  return py::make_tuple(view_of<T>({runs, static_cast<py::ssize_t>(runtime.n_states())}, batch->y0.data(), base),
                        view_of<T>({runs, static_cast<py::ssize_t>(runtime.n_params())},
                                   batch->params.empty() ? nullptr : batch->params.data(), base));
}

template <class T>
void bind_solver(py::module_& m, const char* name) {
  py::class_<PySolver<T>>(m, name)
      .def(py::init<std::shared_ptr<PyModel>, SolveOptions>(), py::arg("model"), py::arg("options"))
      .def("solve", &PySolver<T>::solve, py::arg("y0"), py::arg("parameters"))
      .def("solve_distributed", &PySolver<T>::solve_distributed, py::arg("collective"), py::arg("y0"),
           py::arg("parameters"), py::arg("h5_path"), py::arg("root"))
      .def("time_solves_in_cpp", &PySolver<T>::time_solves_in_cpp, py::arg("y0"), py::arg("parameters"),
           py::arg("reps"))
      .def_property_readonly("method", [](const PySolver<T>& s) { return to_string(s.options().method); });
  m.def((std::string("build_grid") + (std::is_same_v<T, float> ? "32" : "64")).c_str(), &build_grid<T>,
        py::arg("model"), py::arg("y0_defaults"), py::arg("param_defaults"), py::arg("axes"), py::arg("kind"));
}

}  // namespace

void bind_solvers(py::module_& m) {
  py::class_<SolveOptions>(m, "SolveOptions");
  m.def("for_local_rank", &distributed::for_local_rank, py::arg("options"), py::arg("local_rank"),
        py::arg("local_size"), "The options for one of local_size processes on a node: one GPU each");
  m.def("make_options", &make_options, py::arg("t0"), py::arg("t_end"), py::arg("method"), py::arg("rtol"),
        py::arg("atol"), py::arg("dt"), py::arg("save_every"), py::arg("save_at"), py::arg("save_at_per_run"),
        py::arg("save_mode"), py::arg("max_steps"), py::arg("backend"), py::arg("verbosity"),
        py::arg("counters"), py::arg("run_order"), py::arg("cpu_threads"), py::arg("memory_fraction"),
        py::arg("chunks"), py::arg("event_tolerance"), py::arg("output_types") = py::none(),
        py::arg("summaries") = std::vector<std::string>{}, py::arg("summarise_every") = py::none(),
        py::arg("sample_summaries_every") = py::none(),
        py::arg("summarise_variables") = std::vector<std::string>{},
        py::arg("drivers") = std::vector<PyDriver>{}, py::arg("save_variables") = std::vector<std::string>{},
        py::arg("max_step") = py::none(), py::arg("split_runs") = true,
        py::arg("ensemble_statistics") = std::vector<std::string>{}, py::arg("quantile_rank_error") = 1e-3,
        py::arg("runs_per_slice") = 0);
  bind_solver<float>(m, "Solver32");
  bind_solver<double>(m, "Solver64");

  m.def("methods", [] {
    py::list methods;
    for (const MethodInfo& info : method_registry) {
      py::dict d;
      d["name"] = info.name;
      d["order"] = info.order;
      d["adaptive"] = info.adaptive;
      d["stiff"] = info.stiff;
      d["dae"] = info.dae;
      d["gpu"] = info.gpu;
      methods.append(d);
    }
    return methods;
  });
  m.def("status_names", [] {
    std::vector<std::string> names;
    for (int code = 0; code <= static_cast<int>(last_status); ++code) {
      names.push_back(to_string(static_cast<Status>(code)));
    }
    return names;
  });
  m.def(
      "gpu_unavailable",
      [](const PyModel& model, const std::string& method, const std::string& precision) {
        const Method parsed = parse_method(method);
        std::string why = precision == "float32" ? model.runtime<float>().gpu_unavailable(parsed)
                                                 : model.runtime<double>().gpu_unavailable(parsed);
        if (why.empty() && !gpu::discover().available) why = gpu::discover().reason;
        return why;
      },
      py::arg("model"), py::arg("method"), py::arg("precision"),
      "Why `method` cannot run on a GPU for this model here ('' when it can).");
  m.def("compiled_gpu_backend", [] { return std::string(gpu::compiled_backend()); });
}

}  // namespace batchode::python
