// solver/results/: output_types.hpp's names resolved into what a solve keeps.
#include "batchode/solver/results/output_types.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "batchode/solver/setup/summary_layout.hpp"

namespace batchode {

const std::vector<std::string>& direct_output_types() {
  static const std::vector<std::string> names = {"state", "observables", "time", "iteration_counters",
                                                 "status"};
  return names;
}

void apply_output_types(const std::vector<std::string>& output_types, SolveOptions& options) {
  if (output_types.empty()) {
    throw InvalidInput(
        "output_types is empty: list at least one of state, observables, time, iteration_counters, "
        "status or a summary (mean, max, peaks[3], ...)");
  }
  bool series = false;
  std::vector<std::string> metrics;
  for (std::size_t i = 0; i < output_types.size(); ++i) {
    const std::string& name = output_types[i];
    if (std::find(output_types.begin(), output_types.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        output_types.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw InvalidInput(fmt::format("output_types lists '{}' twice", name));
    }
    if (name == "state" || name == "observables") {
      series = true;
    } else if (name == "iteration_counters") {
      options.outputs.counters = true;
    } else if (name == "time" || name == "status") {
      // kept anyway
    } else {
      metrics.push_back(name);
    }
  }
  if (!metrics.empty()) {
    // Checked by name here, so that an unknown entry is named as an output type.
    SolveOptions probe;
    probe.summaries.metrics = metrics;
    try {
      summary_cadence(probe);
    } catch (const InvalidInput& e) {
      throw InvalidInput(
          fmt::format("output_types: {} (or one of: {})", e.what(), fmt::join(direct_output_types(), ", ")));
    }
  }
  const bool has_times = options.save_every || !options.save_at.empty() || !options.save_at_per_run.empty();
  if (series && !has_times) {
    throw InvalidInput(
        "output_types 'state' / 'observables' keep a series: set save_every or save_at (the final "
        "state is always kept)");
  }
  const bool statistics = !options.statistics.empty();
  if (!series && !statistics && !options.save_variables.empty()) {
    throw InvalidInput(
        "save_variables chooses the series' variables, but output_types keeps no series: add 'state' or "
        "'observables' to output_types, or drop save_variables");
  }
  if (!series && statistics) {  // the save times feed the ensemble statistics alone
    options.outputs.series = false;
  } else if (!series) {  // no series asked for: save times would keep one
    options.save_every.reset();
    options.save_at.clear();
    options.save_at_per_run = PerRunSaveTimes();
  }
  options.summaries.metrics = metrics;
}

}  // namespace batchode
