// solver/setup/: how a solve's summary metrics (SolveOptions::summaries; kernels/outputs/summaries.hpp
// accumulates them) are laid out in a window, and what they make of the integrator's points: the names asked
// for, checked and resolved against the system's states and observables, the cadence checked, each
// metric's values placed. One layout serves the kernel's plan (make_run_settings), the result's
// accessors and the writers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/outputs/summaries.hpp"
#include "batchode/solver/setup/options.hpp"

namespace batchode {

/// One summary a result holds, as it was asked for: its kinds side by side, `width` values per
/// variable (1 each; peaks[n] n), the chosen variables' blocks one after another from `offset`.
struct SummaryOutput {
  std::string name;                ///< without the count: "peaks" for "peaks[3]"
  std::vector<SummaryKind> kinds;  ///< in the order of its values ("extrema": max, min)
  std::size_t width = 0;           ///< values per variable
  std::size_t offset = 0;          ///< of its first value in a window
  /// The names of its values per variable ("max", "min"; "peaks[0]" ...): where width > 1.
  std::vector<std::string> value_names;
};

/// A solve's summaries, resolved. Empty (windows == 0) when none were asked for.
struct SummaryLayout {
  std::vector<SummaryOutput> outputs;       ///< in the order asked for
  std::vector<std::size_t> variables;       ///< chosen: state v (v < n_states), else observable v - n_states
  std::vector<std::string> variable_names;  ///< theirs, in that order
  std::size_t windows = 0;                  ///< whole windows in the span
  std::size_t samples = 0;                  ///< samples per window
  std::size_t slots = 0;                    ///< values per window and run
  double window_length = 0;                 ///< summarise_every
  double sample_period = 0;                 ///< sample_summaries_every
  std::size_t points = 0;          ///< the integrator's points: samples and series saves, t0 included
  std::uint32_t series_every = 0;  ///< points per series save (0: no series)

  bool empty() const noexcept { return windows == 0; }
  /// Summary values each run keeps (0 without summaries).
  std::size_t values_per_run() const noexcept { return windows * slots; }
  /// The summary asked for as `name` ("mean", "peaks" or "peaks[3]"). Throws std::out_of_range naming
  /// those there are.
  const SummaryOutput& output(const std::string& name) const;
  /// The end of window w: t0 + (w + 1) summarise_every (the last sample's time, up to rounding).
  double window_end(double t0, std::size_t w) const {
    return t0 + static_cast<double>(w + 1) * window_length;
  }
};

/// Checks SolveOptions::summaries without the system: the metric names, the cadence against the span
/// and the series. Throws InvalidInput naming the problem. (validate() calls it.)
void validate_summaries(const SolveOptions& options);

/// The cadence of a validated solve's summaries (window_length, sample_period, samples, windows,
/// points, series_every) and its outputs' names and widths, without variables or offsets (those need
/// the system: plan_summaries). Empty when no summaries were asked for.
SummaryLayout summary_cadence(const SolveOptions& options);

/// The layout of a validated solve's summaries for a system with these states and observables (the
/// variables resolved by name). Throws InvalidInput for an unknown variable, one named twice, or more
/// than summary_variable_limit of them. Empty when no summaries were asked for.
SummaryLayout plan_summaries(const SolveOptions& options, const std::vector<std::string>& state_names,
                             const std::vector<std::string>& observable_names);

/// Points `plan` at a layout's samples: the integrator's points become them (save_every: the sample
/// spacing, n_saves: every point), the series every series_every-th, and the kernel's summary fields
/// the layout's. Nothing for an empty layout.
template <class T>
void apply_summaries(const SummaryLayout& layout, std::size_t n_series, RunSettings<T>& plan) {
  if (layout.empty()) return;
  plan.save_every = static_cast<T>(layout.sample_period);
  plan.n_saves = static_cast<std::uint32_t>(layout.points);
  plan.series_every = layout.series_every;
  plan.n_series = static_cast<std::uint32_t>(n_series);
  plan.summary_windows = static_cast<std::uint32_t>(layout.windows);
  plan.summary_samples = static_cast<std::uint32_t>(layout.samples);
  plan.summary_slots = static_cast<std::uint32_t>(layout.slots);
  plan.summary_metrics = 0;
  for (const SummaryOutput& out : layout.outputs) {
    std::size_t at = out.offset;
    for (SummaryKind kind : out.kinds) {
      const auto k = static_cast<std::uint32_t>(kind);
      plan.summary_metrics |= summary_bit(kind);
      plan.summary_offset[k] = static_cast<std::uint32_t>(at);
      plan.summary_stride[k] = static_cast<std::uint32_t>(out.width);
      at += kind == SummaryKind::peaks || kind == SummaryKind::negative_peaks ? out.width : 1;
      if (kind == SummaryKind::peaks) plan.summary_peaks = static_cast<std::uint32_t>(out.width);
      if (kind == SummaryKind::negative_peaks)
        plan.summary_negative_peaks = static_cast<std::uint32_t>(out.width);
    }
  }
  plan.summary_variables = 0;
  for (std::size_t v : layout.variables) plan.summary_variables |= std::uint64_t{1} << v;
}

}  // namespace batchode
