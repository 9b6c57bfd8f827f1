// solver/results/: outputs chosen by name, in CuBIE's one list (`output_types`): "state", "observables",
// "time", "iteration_counters", "status" and summary metric names ("mean", "peaks[3]", ...). The
// command line and the Python package take the list; this is where it becomes SolveOptions.
#pragma once

#include <string>
#include <vector>

#include "batchode/solver/setup/options.hpp"

namespace batchode {

/// Sets `options` from an output_types list:
///  - "state": the series at the save times (save_every or save_at must be set; the final state is
///    always kept). Without "state" or "observables" no series is kept: save_every and save_at are
///    dropped (summaries are sampled by sample_summaries_every, never by them), unless ensemble
///    statistics are asked for (options.statistics, set first): they are then taken at the save times
///    and the result keeps no series (OutputSelection::series off).
///  - "observables": the system's observables at the save times. The series holds the states and
///    the observables together, so either name keeps both; SolveOptions::save_variables chooses
///    among them by name.
///  - "time": the save times (kept with any series; accepted for CuBIE's lists).
///  - "iteration_counters": per-run step and evaluation counters (OutputSelection::counters).
///  - "status": per-run statuses (always kept; accepted).
///  - any summary name (SummaryOptions::metrics): kept per window.
/// Throws InvalidInput naming an unknown entry, one listed twice, an empty list, "state" without
/// save times, or a list without a series while options.save_variables chooses its variables.
void apply_output_types(const std::vector<std::string>& output_types, SolveOptions& options);

/// The names apply_output_types takes besides summary names.
const std::vector<std::string>& direct_output_types();

}  // namespace batchode
