// solver/results/: writing a SolveResult as one HDF5 file that a reader can interpret without batchode (h5py,
// MATLAB, HDFView): every array with its shape, the names of its columns, the grid that was solved and
// the options of the solve. The HDF5 library is used only in solver/src/results/result_h5.cpp; this header
// names none of its types.
//
// Layout of the file (arrays C-ordered, run-major; floats in the solve's precision, 32-bit IEEE for
// SolveResult<float> and 64-bit for SolveResult<double>, the grid included; the host's byte order,
// which the file records, so readers anywhere convert):
//
//   /final_state        (n_runs, n_states)           attribute state_names
//   /series             (n_runs, n_saves, n_states)  only when a series was saved (save_every set);
//                                                    attribute state_names; NaN where a run never got
//   /t                  (n_saves) or (n_runs, n_saves)  the save times, only with /series (per run: each
//                                                    run's own, SolveOptions::save_at_per_run)
//   /observables        (n_runs, n_saves, n_obs)     a system's observables, only with /series; attribute
//                                                    observable_names
//   /status             (n_runs) int32               only when statuses were kept (outputs.status);
//                                                    attribute status_names: the name of code k at k
//                                                    ("success", "max_steps_reached", ...)
//   /t_stop             (n_runs)                     with /status: the time of each run's final state
//                                                    (t_end, a terminal event's, or where it failed)
//   /counters           (n_runs, 3) uint32           only when counters were kept (outputs.counters);
//                                                    attribute columns: accepted_steps, rejected_steps,
//                                                    rhs_evaluations
//   /events             group, only when the solve had events; attribute names (in order)
//   /events/<name>/t    (n_runs, max)                the times of the first `max` crossings, NaN
//                                                    where a run met fewer
//   /events/<name>/state (n_runs, max, n_states)     the states there; attribute state_names
//   /events/<name>/count (n_runs) uint32             the crossings met (above max: not all stored);
//                                                    group attributes direction, action, max
//   /summaries          group, only when the solve kept summaries (SolveOptions::summaries); attributes
//                                                    names (the outputs, in order), summary_variables,
//                                                    summarise_every, sample_summaries_every (float64) and
//                                                    window_ends (float64, t0 + (w + 1) summarise_every)
//   /summaries/<name>   (n_runs, n_windows, n_variables)  summary <name> ("mean", "extrema", "peaks" for
//                       or (n_runs, n_windows, n_variables, width)  peaks[n]) of each summarised variable
//                                                    in each window; with named values (extrema, peaks[n],
//                                                    even peaks[1]) the last axis and an attribute
//                                                    value_names ("max", "min"; "peaks[0]" ...);
//                                                    NaN where a run never completed the window
//   /statistics         group, only when the solve asked for ensemble statistics (SolveOptions::statistics);
//                                                    attributes names (as asked), variables, t (float64:
//                                                    the save times they are at)
//   /statistics/<name>  (n_saves, n_variables) float64  mean, var, std, min, max; count uint64
//   /statistics/quantiles (n_saves, n_variables, n_levels) float64, attributes levels and rank_error
//   /statistics/histogram (n_saves, n_variables, bins) uint64, with histogram_edges (.., bins + 1)
//                                                    float64, histogram_below and histogram_above uint64
//   /grid/y0            (n_runs, n_states)           the initial values solved, when H5Metadata.y0 is
//                                                    given; attribute state_names
//   /grid/parameters    (n_runs, n_params)           the parameters solved, when H5Metadata.parameters is
//                                                    given; attribute parameter_names
//
// Root attributes (strings are variable-length UTF-8, string lists 1-D arrays of them):
//   batchode_version  "0.1.0"           state_names, parameter_names  string lists (may be empty)
//   method            "dopri5", ...     precision   "float32" | "float64"
//   t0, t_end, rtol, atol               float64
//   dt, save_every                      float64, only when set
//   max_steps                           uint64
//   backend           the option asked for: "automatic" | "cpu" | "gpu"
//   execution         string list, one per part of the batch: "cpu: runs [0, 1000), gpu_unavailable",
//                     its detail after it in parentheses when it has one (a distributed solve's
//                     "(rank 1 on node7)", a fallback's GPU error)
//   model_name, model_source, grid_kind strings, only when not empty (model_source: e.g. the TOML text)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/results/result.hpp"

namespace batchode {

/// What a reader needs, besides the result and the options, to interpret the file without batchode.
/// Every field may be left empty; a field that is given must match the result's shape.
struct H5Metadata {
  std::vector<std::string> state_names;      ///< empty or n_states names
  std::vector<std::string> parameter_names;  ///< empty or n_params names
  /// The grid actually solved, run-major: y0 is n_runs x n_states, parameters n_runs x n_params (with
  /// n_params = parameter_names.size() when names are given, else parameters.size() / n_runs).
  std::vector<double> y0, parameters;
  std::string model_name;    ///< e.g. "lorenz"
  std::string model_source;  ///< e.g. the model file's text
  std::string grid_kind;     ///< "combinatorial" | "verbatim" | ""
};

/// Writes `r` to the HDF5 file `path` (created, or replaced when it exists) with the layout above,
/// whole or not at all: written beside `path` and moved into place once complete (files::AtomicFile).
/// Throws InvalidInput when a metadata field does not match the result's shape (before the file is
/// touched); std::runtime_error naming the path and the OS error (or what HDF5 reported) when the
/// file cannot be created or written (an unwritable folder, a full disk, a file-size limit), and then
/// an old file at `path` is as it was and nothing partial is left. HDF5's own printing of errors is off while
/// it runs (the caller's handler is put back). Not thread-safe with other HDF5 use in the process unless
/// the HDF5 library was built thread-safe.
template <class T>
void write_h5(const SolveResult<T>& r, const std::string& path, const SolveOptions& options,
              const H5Metadata& meta = {});

/// Where the per-run arrays of an .h5 file start (bytes from the start of the file), for writers that
/// fill the rows themselves: row r of /final_state at final_state + r * n_states * sizeof(T), of
/// /series at series + r * n_saves * columns * sizeof(T) (columns: the series' states, all of them or
/// the save_variables chosen), of /observables at observables + r * n_saves * n_observables * sizeof(T)
/// (the observables kept), of /status at status + 4 r, of /t_stop at t_stop + r * sizeof(T), of
/// /counters at counters + 12 r; of event e's `/events/<name>/t` at event_t[e] + r * max_e * sizeof(T),
/// of its state at event_state[e] + r * max_e * n_states * sizeof(T), of its count at event_count[e] + 4 r
/// (empty without events). std::nullopt for an array the file does not have (or one of no bytes).
struct H5RowOffsets {
  std::optional<std::uint64_t> final_state, series, status, counters;
  std::optional<std::uint64_t> observables;
  std::vector<std::uint64_t> event_t, event_state, event_count;
  std::optional<std::uint64_t> t_stop;  ///< with status
  /// Each summary output's `/summaries/<name>` (SummaryLayout::outputs' order): row r at summaries[o] + r *
  /// windows * variables * width * sizeof(T) (SolveResult::summary's dense rows); empty without summaries.
  std::vector<std::uint64_t> summaries;
};

/// The file write_h5 would write for a result of `n_runs` runs of `n_states` states solved with
/// `options` (its save times, statuses, counters and events as the options select; `execution`: where
/// its parts ran), with every array written except the per-run ones, which are reserved (the disk
/// space included) and left unfilled for the caller to fill at the returned offsets: a distributed
/// solve's processes each write their own runs into the one file (batchode/mpi). `observable_names`:
/// the saved observables, reserved beside the series. `series`: the series' columns (null: every
/// state); `summaries`: the summaries' layout (null: none), both as the Solver resolved them. Per-run
/// save times (the options' rows) are written whole, as write_h5 writes them. Same errors as write_h5;
/// InvalidInput for options with summaries or save_variables given without their layout.
/// `path` is written as it is: the caller makes it whole or removes it (a temporary file of a
/// files::AtomicFile, moved into place once every row is in); `name`, the path its messages give
/// (the destination; empty: `path`). `statistics`: the ensemble statistics of every run (the processes'
/// merged), written whole as /statistics; a series that fed them alone (OutputSelection::series off) is
/// not in the file, as write_h5 leaves it out.
template <class T>
H5RowOffsets write_h5_layout(std::size_t n_runs, std::size_t n_states, const std::vector<ExecutionRecord>& execution,
                             const std::string& path, const SolveOptions& options, const H5Metadata& meta = {},
                             const std::vector<std::string>& observable_names = {}, const std::string& name = {},
                             const SeriesLayout* series = nullptr, const SummaryLayout* summaries = nullptr,
                             const EnsembleStatistics* statistics = nullptr);

extern template void write_h5<float>(const SolveResult<float>&, const std::string&, const SolveOptions&,
                                     const H5Metadata&);
extern template void write_h5<double>(const SolveResult<double>&, const std::string&, const SolveOptions&,
                                      const H5Metadata&);
extern template H5RowOffsets write_h5_layout<float>(std::size_t, std::size_t, const std::vector<ExecutionRecord>&,
                                                    const std::string&, const SolveOptions&, const H5Metadata&,
                                                    const std::vector<std::string>&, const std::string&,
                                                    const SeriesLayout*, const SummaryLayout*,
                                                    const EnsembleStatistics*);
extern template H5RowOffsets write_h5_layout<double>(std::size_t, std::size_t, const std::vector<ExecutionRecord>&,
                                                     const std::string&, const SolveOptions&, const H5Metadata&,
                                                     const std::vector<std::string>&, const std::string&,
                                                    const SeriesLayout*, const SummaryLayout*,
                                                    const EnsembleStatistics*);

}  // namespace batchode
