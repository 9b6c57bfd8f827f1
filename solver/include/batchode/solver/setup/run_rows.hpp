// solver/setup/: the options of some of a batch's runs. A solve's options may hold a row per run (each run's
// own save times, SolveOptions::save_at_per_run; each run's own driver samples, DriverSpec with n_samples
// set): runs [first_run, first_run + runs) of the batch, solved as a batch of their own (a distributed
// solve's share), take those rows and give, run by run, what the whole batch would.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/solver/setup/options.hpp"

namespace batchode {

/// Whether driver `d` has a set of samples per run (n_samples values each), not one for the batch.
inline bool per_run_driver(const DriverSpec& d) { return d.n_samples != 0 && d.values.size() > d.n_samples; }

/// Whether `options` hold rows of a batch's runs (per-run save times or drivers): a sub-range of the
/// runs needs options_for_runs.
inline bool has_run_rows(const SolveOptions& options) {
  if (saves_per_run(options)) return true;
  for (const DriverSpec& d : options.drivers) {
    if (per_run_driver(d)) return true;
  }
  return false;
}

namespace detail {
/// Rows [first_run, first_run + runs) of `values`, `width` values a row. Throws InvalidInput when they
/// are not there (the range past the runs the values are for), naming `what` and both sizes.
inline std::vector<double> run_rows(const std::vector<double>& values, std::size_t width, std::size_t first_run,
                                    std::size_t runs, const std::string& what) {
  if (width == 0 || first_run + runs > values.size() / width) {
    throw InvalidInput(what + " has rows for " + std::to_string(width == 0 ? 0 : values.size() / width) +
                       " runs; runs [" + std::to_string(first_run) + ", " + std::to_string(first_run + runs) +
                       ") were asked for");
  }
  const auto begin = values.begin() + static_cast<std::ptrdiff_t>(first_run * width);
  return std::vector<double>(begin, begin + static_cast<std::ptrdiff_t>(runs * width));
}
}  // namespace detail

/// `options` with the per-run save times of runs [first_run, first_run + runs) only, and no drivers:
/// what a result of those runs is shaped by (a result reads no driver). Throws as options_for_runs.
inline SolveOptions result_options_for_runs(const SolveOptions& options, std::size_t first_run, std::size_t runs) {
  SolveOptions part = options;
  part.drivers.clear();
  if (saves_per_run(options)) {
    const std::size_t n = options.save_at_per_run.n_saves();
    part.save_at_per_run = PerRunSaveTimes(
        n, detail::run_rows(options.save_at_per_run.times(), n, first_run, runs, "SolveOptions.save_at_per_run"));
  }
  return part;
}

/// `options` for runs [first_run, first_run + runs) of their batch solved alone: those runs' rows of the
/// per-run save times and drivers (everything else as it is). Throws InvalidInput when the rows are
/// not there (the range past the runs the options are for), naming the option and both sizes.
inline SolveOptions options_for_runs(const SolveOptions& options, std::size_t first_run, std::size_t runs) {
  SolveOptions part = result_options_for_runs(options, first_run, runs);
  part.drivers = options.drivers;
  for (DriverSpec& d : part.drivers) {
    if (per_run_driver(d)) {
      d.values = detail::run_rows(d.values, d.n_samples, first_run, runs, "drivers['" + d.name + "']");
    }
  }
  return part;
}

}  // namespace batchode
