// solver/results/: write_h5, the HDF5 file of a SolveResult (layout in result_h5.hpp): what the file holds,
// checked before it is touched. The tools it is built with are apart (result_h5_writer.hpp, .cpp; the
// /summaries group, result_h5_summaries.hpp); only these files include hdf5.h.
//
// HDF5 writes only the file's structure (metadata: a few KiB); the arrays are written by us, with
// pwrite, at the addresses HDF5 reserved for them (contiguous datasets allocated at creation, never
// filled: H5Dget_offset exists for such direct access). Why: HDF5 1.10 does not survive a failed
// write well. A dataset write that fails (a full disk) leaves the file open inside the library, its
// H5Fclose fails too, and the library crashed at exit (H5F__close_cb, SIGSEGV, seen with Debian's
// 1.10.8 under `ulimit -f`); a failed superblock write (/dev/full) leaks and prints "infinite loop
// closing library" at exit. So the disk is probed before HDF5 opens the file (room for the whole file
// reserved with fallocate, or 4 KiB written where that is not supported) and every large write is
// ours, with the OS error in its message. The file is written beside its destination and moved into
// place once complete (files::AtomicFile), so no file of zeros passes for a result and an old file
// survives a failed write. HDF5's own error printing is off while we run, and every failed HDF5
// call becomes a std::runtime_error naming the file and what HDF5 reported.
#include "batchode/solver/results/result_h5.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "batchode/checks/checked_size.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/files/atomic_file.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/solver/results/ensemble_statistics.hpp"
#include "batchode/solver/results/result_io.hpp"
#include "result_h5_summaries.hpp"
#include "result_h5_writer.hpp"

#ifndef BATCHODE_VERSION_STRING
#error "BATCHODE_VERSION_STRING (the project's version) is defined by solver/CMakeLists.txt"
#endif

namespace batchode {

namespace {

// The writer's tools (result_h5_writer.hpp), by the names this file has always used.
using detail::H5Target;
using detail::H5Writer;
using detail::Handle;
using detail::probe_disk;
using detail::SilenceHdf5Errors;
using detail::write_raw;
using detail::write_summaries;

static_assert(sizeof(Status) == sizeof(std::int32_t), "/status is written straight from the result");
static_assert(sizeof(RunCounters) == 3 * sizeof(std::uint32_t) && std::is_standard_layout_v<RunCounters>,
              "/counters is written straight from the result as (n_runs, 3) uint32");

/// Throws InvalidInput unless `values` is empty or holds `expected` values.
void require_size(std::size_t actual, std::size_t expected, const char* field, const std::string& shape) {
  if (actual != 0 && actual != expected) {
    throw InvalidInput(fmt::format("write_h5: H5Metadata.{} has {} values, expected {} ({})", field, actual,
                                   expected, shape));
  }
}

/// The status names by code: to_string(Status) of 0, 1, ... up to the first code it does not know.
std::vector<std::string> status_names() {
  std::vector<std::string> names;
  for (std::int32_t code = 0;; ++code) {
    std::string name = to_string(static_cast<Status>(code));
    if (name.rfind("unknown_status", 0) == 0) break;
    names.push_back(std::move(name));
  }
  return names;
}

/// names[i] for each i of `chosen`, in that order (the saved states' names).
std::vector<std::string> chosen_names(const std::vector<std::string>& names, const std::vector<std::size_t>& chosen) {
  std::vector<std::string> out;
  for (std::size_t i : chosen) out.push_back(names.at(i));
  return out;
}

/// What the file holds: the result's shape and arrays. A null per-run array (final_state, series,
/// status, counters) is reserved in the file and left to the caller (write_h5_layout).
template <class T>
struct Content {
  std::size_t n_runs = 0, n_states = 0, n_saves = 0;
  const T* final_state = nullptr;
  const T* series = nullptr;
  /// The series' columns (the saved states' indices) when SolveOptions::save_variables chose them;
  /// null: every state.
  const std::vector<std::size_t>* series_states = nullptr;
  const std::vector<T>* times = nullptr;
  bool times_per_run = false;  ///< times holds n_runs x n_saves (each run's own), not n_saves
  /// The observables (n_runs x n_saves x names), when the system has some and a series was saved;
  /// names without values: reserved for the caller (write_h5_layout).
  const T* observables = nullptr;
  const std::vector<std::string>* observable_names = nullptr;
  bool has_status = false, has_counters = false;
  const Status* status = nullptr;
  const T* stop_time = nullptr;  ///< with status
  const RunCounters* counters = nullptr;
  const std::vector<ExecutionRecord>* execution = nullptr;
  /// The events' names and specs, when there are events: the result itself (its records written), or
  /// a result of no runs made from the options (write_h5_layout: the rows reserved for the caller).
  const SolveResult<T>* events = nullptr;
  /// The result, when it kept summaries (written whole).
  const SolveResult<T>* summaries = nullptr;
  /// The summaries' layout without values (write_h5_layout: their rows reserved for the caller).
  const SummaryLayout* summary_rows = nullptr;
  /// The ensemble statistics, when the solve asked for them.
  const EnsembleStatistics* statistics = nullptr;
};

/// The group /statistics (layout in result_h5.hpp): each statistic asked for, (n_saves, n_variables)
/// with a last axis for quantiles and histograms; the variables and times as attributes.
void write_statistics(H5Writer& w, hid_t root, const EnsembleStatistics& s) {
  const Handle group(w.check(H5Gcreate2(root, "statistics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             "creating group statistics"),
                     H5Gclose);
  w.attribute(group.get(), "names", s.plan().metrics);
  w.attribute(group.get(), "variables", s.variables());
  w.attribute(group.get(), "t", s.times());
  const hsize_t saves = s.n_saves(), vars = s.n_variables();
  const StatisticsPlan& plan = s.plan();
  if (plan.count) w.dataset(group.get(), "count", s.count(), {saves, vars});
  if (plan.mean) w.dataset(group.get(), "mean", s.mean(), {saves, vars});
  if (plan.var) w.dataset(group.get(), "var", s.var(), {saves, vars});
  if (plan.std_dev) w.dataset(group.get(), "std", s.std_dev(), {saves, vars});
  if (plan.min) w.dataset(group.get(), "min", s.min(), {saves, vars});
  if (plan.max) w.dataset(group.get(), "max", s.max(), {saves, vars});
  if (!plan.quantiles.empty()) {
    const Handle set = w.dataset(group.get(), "quantiles", s.quantiles(), {saves, vars, plan.quantiles.size()});
    w.attribute(set.get(), "levels", plan.quantiles);
    w.attribute(set.get(), "rank_error", s.quantile_rank_error());
  }
  if (plan.histogram_bins > 0) {
    const hsize_t bins = plan.histogram_bins;
    w.dataset(group.get(), "histogram", s.histogram(), {saves, vars, bins});
    w.dataset(group.get(), "histogram_edges", s.histogram_edges(), {saves, vars, bins + 1});
    w.dataset(group.get(), "histogram_below", s.histogram_below(), {saves, vars});
    w.dataset(group.get(), "histogram_above", s.histogram_above(), {saves, vars});
  }
}

template <class T>
Content<T> content_of(const SolveResult<T>& r, const SolveOptions& options) {
  Content<T> c;
  c.n_runs = r.n_runs();
  c.n_states = r.n_states();
  c.n_saves = r.n_saves();
  c.final_state = r.final_state().data();
  c.series = r.series().data();
  if (!r.saves_every_variable()) c.series_states = &r.series_states();
  c.times = &r.times();
  c.times_per_run = r.times_per_run();
  if (r.n_saves() > 0 && r.n_observables() > 0) {  // (a result of no runs: an empty dataset)
    c.observables = r.observables().data();
    c.observable_names = &r.observable_names();
  }
  c.has_status = !r.statuses().empty() || (options.outputs.status && r.n_runs() == 0);
  c.has_counters = !r.counters().empty() || (options.outputs.counters && r.n_runs() == 0);
  c.status = r.statuses().data();
  c.stop_time = r.stop_times().data();
  c.counters = r.counters().data();
  c.execution = &r.execution();
  if (r.n_events() > 0) c.events = &r;
  if (r.summary_layout() != nullptr) c.summaries = &r;
  c.statistics = r.statistics();
  return c;
}

/// Builds the file with HDF5 (structure and attributes), closes it, then writes the arrays it was
/// given. Returns where the per-run arrays start.
template <class T>
H5RowOffsets write_file(const Content<T>& r, const H5Target& to, const SolveOptions& options,
                        const H5Metadata& meta, std::size_t params) {
  const SilenceHdf5Errors silence;
  H5Writer w(to.name);
  // The 1.8 file format (readable by every HDF5 since 1.8, h5py included) stores attributes larger
  // than 64 KiB (the names of thousands of states) densely, where the 1.6 format would refuse them.
  const Handle access(w.check(H5Pcreate(H5P_FILE_ACCESS), "creating file access properties"), H5Pclose);
  w.check_status(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_V18),
                 "choosing the 1.8 file format");
  Handle file(w.check(H5Fcreate(to.file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), "creating the file"),
              H5Fclose);
  const hid_t root = file.get();
  const hsize_t n_runs = r.n_runs, n_states = r.n_states, n_saves = r.n_saves, n_params = params;

  {
    const Handle set = w.dataset(root, "final_state", r.final_state, {n_runs, n_states});
    if (!meta.state_names.empty()) w.attribute(set.get(), "state_names", meta.state_names);
  }
  // The series' columns: every state, or those save_variables chose (no dataset when it chose none).
  const std::vector<std::string> series_names = r.series_states == nullptr || meta.state_names.empty()
                                                    ? meta.state_names
                                                    : chosen_names(meta.state_names, *r.series_states);
  const hsize_t series_width = r.series_states == nullptr ? n_states : r.series_states->size();
  if (n_saves > 0) {
    if (series_width > 0) {
      const Handle set = w.dataset(root, "series", r.series, {n_runs, n_saves, series_width});
      if (!series_names.empty()) w.attribute(set.get(), "state_names", series_names);
    }
    if (r.times_per_run) {
      w.dataset(root, "t", r.times->data(), {n_runs, n_saves});
    } else {
      w.dataset(root, "t", r.times->data(), {n_saves});
    }
    if (r.observable_names != nullptr) {
      const hsize_t n_observables = r.observable_names->size();
      const Handle observables = w.dataset(root, "observables", r.observables, {n_runs, n_saves, n_observables});
      w.attribute(observables.get(), "observable_names", *r.observable_names);
    }
  }
  if (r.has_status) {
    const Handle set =
        w.dataset(root, "status", reinterpret_cast<const std::int32_t*>(r.status), {n_runs});
    w.attribute(set.get(), "status_names", status_names());
    (void)w.dataset(root, "t_stop", r.stop_time, {n_runs});
  }
  if (r.has_counters) {
    const Handle set =
        w.dataset(root, "counters", reinterpret_cast<const std::uint32_t*>(r.counters), {n_runs, 3});
    w.attribute(set.get(), "columns",
                std::vector<std::string>{"accepted_steps", "rejected_steps", "rhs_evaluations"});
  }
  std::vector<std::uint64_t> event_offsets[3];  // t, state, count of each event, when reserved
  if (r.events != nullptr) {
    const SolveResult<T>& result = *r.events;
    const bool filled = result.n_runs() == r.n_runs;  // else: the rows are the caller's to fill
    const Handle group(
        w.check(H5Gcreate2(root, "events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating group events"),
        H5Gclose);
    w.attribute(group.get(), "names", result.event_names());
    auto reserved = [&](int which, const Handle& set) {
      if (filled || n_runs == 0) return;
      const haddr_t offset = H5Dget_offset(set.get());
      if (offset == HADDR_UNDEF) w.fail("locating an events dataset in the file");
      event_offsets[which].push_back(offset);
    };
    for (std::size_t e = 0; e < result.n_events(); ++e) {
      const std::string& name = result.event_names()[e];
      const Handle event(w.check(H5Gcreate2(group.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                 "creating group events/" + name),
                         H5Gclose);
      const hsize_t k_max = result.event_max(e);
      if (filled) {
        detail::EventColumns<T> columns = detail::event_columns(result, e);
        w.dataset(event.get(), "t", std::move(columns.t), {n_runs, k_max});
        const Handle state = w.dataset(event.get(), "state", std::move(columns.state), {n_runs, k_max, n_states});
        if (!meta.state_names.empty()) w.attribute(state.get(), "state_names", meta.state_names);
        std::vector<std::uint32_t> count(result.n_runs());
        for (std::size_t i = 0; i < result.n_runs(); ++i) count[i] = result.event_count(i, e);
        w.dataset(event.get(), "count", std::move(count), {n_runs});
      } else {
        reserved(0, w.dataset(event.get(), "t", static_cast<const T*>(nullptr), {n_runs, k_max}));
        const Handle state = w.dataset(event.get(), "state", static_cast<const T*>(nullptr), {n_runs, k_max, n_states});
        if (!meta.state_names.empty()) w.attribute(state.get(), "state_names", meta.state_names);
        reserved(1, state);
        reserved(2, w.dataset(event.get(), "count", static_cast<const std::uint32_t*>(nullptr), {n_runs}));
      }
      // The result's own specs: the options a caller passes may name none (the Solver filled them in).
      w.attribute(event.get(), "direction", to_string(result.event_spec(e).direction));
      w.attribute(event.get(), "action", to_string(result.event_spec(e).action));
      w.attribute(event.get(), "max", static_cast<std::uint64_t>(k_max));
    }
  }
  std::vector<std::uint64_t> summary_offsets;  // each output's, when reserved
  if (r.summaries != nullptr) {
    write_summaries(w, root, *r.summaries->summary_layout(), r.n_runs, r.summaries, options.t0, summary_offsets);
  } else if (r.summary_rows != nullptr) {
    write_summaries<T>(w, root, *r.summary_rows, r.n_runs, nullptr, options.t0, summary_offsets);
  }
  if (r.statistics != nullptr) write_statistics(w, root, *r.statistics);
  if (!meta.y0.empty() || !meta.parameters.empty()) {
    const Handle grid(
        w.check(H5Gcreate2(root, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating group grid"),
        H5Gclose);
    // In the solve's precision: the values that were solved.
    if (!meta.y0.empty()) {
      const Handle set =
          w.dataset(grid.get(), "y0", std::vector<T>(meta.y0.begin(), meta.y0.end()), {n_runs, n_states});
      if (!meta.state_names.empty()) w.attribute(set.get(), "state_names", meta.state_names);
    }
    if (!meta.parameters.empty()) {
      const Handle set =
          w.dataset(grid.get(), "parameters", std::vector<T>(meta.parameters.begin(), meta.parameters.end()),
                    {n_runs, n_params});
      if (!meta.parameter_names.empty()) w.attribute(set.get(), "parameter_names", meta.parameter_names);
    }
  }

  w.attribute(root, "batchode_version", std::string(BATCHODE_VERSION_STRING));
  w.attribute(root, "state_names", meta.state_names);
  w.attribute(root, "parameter_names", meta.parameter_names);
  w.attribute(root, "method", to_string(options.method));
  w.attribute(root, "precision", std::string(std::is_same_v<T, float> ? "float32" : "float64"));
  w.attribute(root, "t0", options.t0);
  w.attribute(root, "t_end", options.t_end);
  w.attribute(root, "rtol", options.rtol);
  w.attribute(root, "atol", options.atol);
  if (options.dt) w.attribute(root, "dt", *options.dt);
  if (options.save_every) w.attribute(root, "save_every", *options.save_every);
  if (r.series_states != nullptr) {  // the chosen variables as the columns hold them: the system's order
    std::vector<std::string> chosen = series_names;
    if (r.observable_names != nullptr) chosen.insert(chosen.end(), r.observable_names->begin(), r.observable_names->end());
    w.attribute(root, "save_variables", chosen);
  }
  if (count_saves(options) > 0) {
    w.attribute(root, "save_mode", std::string(interpolates_saves(options) ? "interpolate" : "land"));
  }
  w.attribute(root, "max_steps", static_cast<std::uint64_t>(options.max_steps));
  w.attribute(root, "backend", to_string(options.backend));
  w.attribute(root, "run_order", to_string(options.run_order));
  std::vector<std::string> execution;
  for (const ExecutionRecord& part : *r.execution) {
    execution.push_back(fmt::format("{}: runs [{}, {}), {}{}{}", to_string(part.backend), part.first_run,
                                    part.first_run + part.runs, sched::to_string(part.reason),
                                    part.instruction_set.empty() ? "" : ", SIMD " + part.instruction_set,
                                    part.detail.empty() ? "" : " (" + part.detail + ")"));
  }
  w.attribute(root, "execution", execution);
  if (!meta.model_name.empty()) w.attribute(root, "model_name", meta.model_name);
  if (!meta.model_source.empty()) w.attribute(root, "model_source", meta.model_source);
  if (!meta.grid_kind.empty()) w.attribute(root, "grid_kind", meta.grid_kind);

  w.check_status(H5Fflush(root, H5F_SCOPE_LOCAL), "flushing the file");
  w.check_status(file.close(), "closing the file");
  write_raw(to, w.raw_writes());
  H5RowOffsets offsets;
  if (n_runs > 0) {
    offsets.final_state = w.offset_of("final_state");
    if (n_saves > 0 && series_width > 0) offsets.series = w.offset_of("series");
    if (n_saves > 0 && r.observable_names != nullptr && !r.observable_names->empty()) {
      offsets.observables = w.offset_of("observables");
    }
    if (r.has_status) {
      offsets.status = w.offset_of("status");
      offsets.t_stop = w.offset_of("t_stop");
    }
    if (r.has_counters) offsets.counters = w.offset_of("counters");
    offsets.event_t = event_offsets[0];
    offsets.event_state = event_offsets[1];
    offsets.event_count = event_offsets[2];
    offsets.summaries = summary_offsets;
  }
  return offsets;
}

/// Checks `meta` against the shape (InvalidInput before the file is touched), then writes the file.
/// Returns the offsets of the per-run arrays.
template <class T>
H5RowOffsets write_checked(const Content<T>& c, const H5Target& to, const SolveOptions& options,
                           const H5Metadata& meta) {
  const std::size_t runs = c.n_runs, states = c.n_states;
  // The metadata's shape first: nothing is written when it does not describe this result.
  if (!meta.state_names.empty() && meta.state_names.size() != states) {
    throw InvalidInput(fmt::format("write_h5: H5Metadata.state_names has {} names for {} states",
                                   meta.state_names.size(), states));
  }
  require_size(meta.y0.size(), checks::checked_mul(runs, states, "n_runs x n_states"), "y0",
               fmt::format("{} runs x {} states", runs, states));
  std::size_t params = meta.parameter_names.size();
  if (params == 0 && runs > 0) params = meta.parameters.size() / runs;
  require_size(meta.parameters.size(), checks::checked_mul(runs, params, "n_runs x n_params"), "parameters",
               fmt::format("{} runs x {} parameters", runs, params));

  // Everything the arrays need, plus 1 MiB for HDF5's structures (a few KiB; names of many states).
  const std::uint64_t values = checks::checked_mul(runs, states, "n_runs x n_states") +
                               checks::checked_product({runs, c.n_saves, c.series_states == nullptr ? states : c.series_states->size()},
                                                       "n_runs x n_saves x saved states") +
                               (c.times != nullptr ? c.times->size() : 0) + meta.y0.size() + meta.parameters.size() +
                               (c.observable_names != nullptr ? runs * c.n_saves * c.observable_names->size() : 0);
  const std::uint64_t event_bytes =
      c.events == nullptr ? 0
                          : runs * c.events->n_events() * (c.events->event_slots() * (states + 1) * sizeof(T) +
                                                           sizeof(std::uint32_t));
  const std::uint64_t summary_bytes =
      c.summaries != nullptr      ? c.summaries->summaries().size() * sizeof(T)
      : c.summary_rows != nullptr ? checks::checked_product({runs, c.summary_rows->windows, c.summary_rows->slots},
                                                            "n_runs x summary windows x values") * sizeof(T)
                                  : 0;
  const std::uint64_t bytes = values * sizeof(T) + summary_bytes + (c.has_status ? runs * (sizeof(Status) + sizeof(T)) : 0) +
                              (c.has_counters ? runs * sizeof(RunCounters) : 0) + event_bytes + (1u << 20);
  probe_disk(to, bytes);
  return write_file(c, to, options, meta, params);
}

}  // namespace

template <class T>
void write_h5(const SolveResult<T>& r, const std::string& path, const SolveOptions& options,
              const H5Metadata& meta) {
  // Written beside `path` and moved into place once complete: a failed write leaves an old file as it
  // was and no partial file behind.
  files::AtomicFile file(path);
  (void)write_checked(content_of(r, options), H5Target{file.write_path(), path}, options, meta);
  file.commit();
}

template <class T>
H5RowOffsets write_h5_layout(std::size_t n_runs, std::size_t n_states, const std::vector<ExecutionRecord>& execution,
                             const std::string& path, const SolveOptions& options, const H5Metadata& meta,
                             const std::vector<std::string>& observable_names, const std::string& name,
                             const SeriesLayout* series, const SummaryLayout* summaries,
                             const EnsembleStatistics* statistics) {
  if (!options.summaries.empty() && (summaries == nullptr || summaries->empty())) {
    throw InvalidInput("write_h5_layout: options with summaries (SolveOptions.summaries) need their layout (the "
                       "Solver's summary_layout())");
  }
  if (!options.save_variables.empty() && series == nullptr) {
    throw InvalidInput("write_h5_layout: options choosing the series' variables (SolveOptions.save_variables) need "
                       "the series' layout (the Solver's series_layout())");
  }
  // The save times, no runs: per-run ones are the options' rows, written whole here like shared ones.
  SolveOptions shared_times = options;
  shared_times.save_at_per_run = PerRunSaveTimes();
  if (saves_per_run(options)) shared_times.save_at = std::vector<double>(options.save_at_per_run.n_saves(), 0.0);
  // (Summaries thin the series: its times are every series_every-th sample's.)
  const SolveResult<T> shape(0, n_states, options.outputs.series ? count_saves(options) : 0, shared_times, nullptr, {},
                             std::shared_ptr<const SummaryLayout>(std::shared_ptr<void>(), summaries));
  std::vector<T> per_run_times;
  Content<T> c;
  c.n_runs = n_runs;
  c.n_states = n_states;
  c.n_saves = shape.n_saves();
  c.times = &shape.times();
  if (saves_per_run(options)) {
    check_options_for_batch(options, n_runs);
    const std::vector<double>& own = options.save_at_per_run.times();
    per_run_times.assign(own.begin(), own.end());
    c.times = &per_run_times;
    c.times_per_run = true;
  }
  if (series != nullptr && !series->all) c.series_states = &series->states;
  if (summaries != nullptr && !summaries->empty()) c.summary_rows = summaries;
  if (c.n_saves > 0 && !observable_names.empty()) c.observable_names = &observable_names;  // reserved
  c.has_status = options.outputs.status;
  c.has_counters = options.outputs.counters;
  c.execution = &execution;
  if (shape.n_events() > 0) c.events = &shape;  // names and specs; the rows are reserved
  c.statistics = statistics;
  return write_checked(c, H5Target{path, name.empty() ? path : name}, options, meta);
}

template void write_h5<float>(const SolveResult<float>&, const std::string&, const SolveOptions&,
                              const H5Metadata&);
template void write_h5<double>(const SolveResult<double>&, const std::string&, const SolveOptions&,
                               const H5Metadata&);
template H5RowOffsets write_h5_layout<float>(std::size_t, std::size_t, const std::vector<ExecutionRecord>&,
                                             const std::string&, const SolveOptions&, const H5Metadata&,
                                             const std::vector<std::string>&, const std::string&,
                                             const SeriesLayout*, const SummaryLayout*, const EnsembleStatistics*);
template H5RowOffsets write_h5_layout<double>(std::size_t, std::size_t, const std::vector<ExecutionRecord>&,
                                              const std::string&, const SolveOptions&, const H5Metadata&,
                                              const std::vector<std::string>&, const std::string&,
                                             const SeriesLayout*, const SummaryLayout*, const EnsembleStatistics*);

}  // namespace batchode
