// solver/setup/: summary_layout.hpp's metric names resolved and laid out in a window.
#include "batchode/solver/setup/summary_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/solver/setup/series_layout.hpp"

namespace batchode {

namespace {

struct NamedSummary {
  const char* name;
  std::vector<SummaryKind> kinds;
  std::vector<const char*> value_names;  // empty: one value, the summary's name
};

/// CuBIE's names (and ours: max_time, min_time), with the kinds each is made of.
const std::vector<NamedSummary>& named_summaries() {
  using K = SummaryKind;
  static const std::vector<NamedSummary> table = {
      {"mean", {K::mean}, {}},
      {"std", {K::std}, {}},
      {"rms", {K::rms}, {}},
      {"max", {K::max}, {}},
      {"min", {K::min}, {}},
      {"max_magnitude", {K::max_magnitude}, {}},
      {"max_time", {K::max_time}, {}},
      {"min_time", {K::min_time}, {}},
      {"extrema", {K::max, K::min}, {"max", "min"}},
      {"mean_std", {K::mean, K::std}, {"mean", "std"}},
      {"std_rms", {K::std, K::rms}, {"std", "rms"}},
      {"mean_std_rms", {K::mean, K::std, K::rms}, {"mean", "std", "rms"}},
      {"dxdt_max", {K::dxdt_max}, {}},
      {"dxdt_min", {K::dxdt_min}, {}},
      {"dxdt_extrema", {K::dxdt_max, K::dxdt_min}, {"dxdt_max", "dxdt_min"}},
      {"d2xdt2_max", {K::d2xdt2_max}, {}},
      {"d2xdt2_min", {K::d2xdt2_min}, {}},
      {"d2xdt2_extrema", {K::d2xdt2_max, K::d2xdt2_min}, {"d2xdt2_max", "d2xdt2_min"}},
      {"peaks", {K::peaks}, {}},
      {"negative_peaks", {K::negative_peaks}, {}},
  };
  return table;
}

bool counted(SummaryKind kind) { return kind == SummaryKind::peaks || kind == SummaryKind::negative_peaks; }

/// The most peaks kept per window and variable.
constexpr std::size_t peaks_limit = 1024;
/// The most integrator points per run (as saves: options.cpp).
constexpr double points_limit = 1e8;

/// One asked-for name, parsed: "peaks[3]" -> peaks with width 3. Throws InvalidInput.
SummaryOutput parse_summary(const std::string& asked) {
  const std::size_t open = asked.find('[');
  const std::string base = asked.substr(0, open);
  const auto& table = named_summaries();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const NamedSummary& s) { return base == s.name; });
  if (it == table.end()) {
    std::string known;
    for (const NamedSummary& s : table) {
      known += (known.empty() ? "" : ", ") + std::string(s.name) + (counted(s.kinds[0]) ? "[n]" : "");
    }
    throw InvalidInput(
        fmt::format("SolveOptions.summaries.metrics: unknown summary '{}'; known: {}", asked, known));
  }
  SummaryOutput out;
  out.name = base;
  out.kinds = it->kinds;
  if (counted(it->kinds[0])) {
    // peaks[n]: n digits between the brackets, nothing after.
    const bool shaped = open != std::string::npos && asked.size() > open + 2 && asked.back() == ']' &&
                        std::all_of(asked.begin() + static_cast<std::ptrdiff_t>(open) + 1, asked.end() - 1,
                                    [](char c) { return c >= '0' && c <= '9'; });
    if (!shaped || asked.size() - open - 2 > 5) {
      throw InvalidInput(
          fmt::format("SolveOptions.summaries.metrics: '{}' needs a count of peaks kept per window, "
                      "as {}[3]",
                      asked, base));
    }
    const std::size_t n = std::stoul(asked.substr(open + 1, asked.size() - open - 2));
    if (n < 1 || n > peaks_limit) {
      throw InvalidInput(fmt::format("SolveOptions.summaries.metrics: '{}' keeps {} peaks; between 1 and {}",
                                     asked, n, peaks_limit));
    }
    out.width = n;
    for (std::size_t c = 0; c < n; ++c) out.value_names.push_back(fmt::format("{}[{}]", base, c));
  } else {
    if (open != std::string::npos) {
      throw InvalidInput(
          fmt::format("SolveOptions.summaries.metrics: '{}' takes no count ('{}')", asked, base));
    }
    out.width = it->kinds.size();
    for (const char* v : it->value_names) out.value_names.emplace_back(v);
  }
  return out;
}

/// The outputs asked for, each kind in one of them only.
std::vector<SummaryOutput> parse_summaries(const SummaryOptions& s) {
  std::vector<SummaryOutput> outputs;
  for (const std::string& asked : s.metrics) {
    SummaryOutput out = parse_summary(asked);
    for (const SummaryOutput& before : outputs) {
      for (SummaryKind kind : out.kinds) {
        if (std::find(before.kinds.begin(), before.kinds.end(), kind) == before.kinds.end()) continue;
        throw InvalidInput(fmt::format(
            "SolveOptions.summaries.metrics: '{}' and '{}' both keep the same values{}; list each once",
            before.name, out.name, before.name == out.name ? "" : " (a combined summary holds its parts)"));
      }
    }
    outputs.push_back(std::move(out));
  }
  return outputs;
}

/// A whole number within `tolerance` of `ratio`, or 0. Past twice the points' limit: that (the
/// conversion of a larger double would not be defined; the limit is checked, and named, after).
std::size_t whole(double ratio, double tolerance) {
  const double n = std::round(ratio);
  if (n > 2 * points_limit) return static_cast<std::size_t>(2 * points_limit);
  return n >= 1 && std::fabs(ratio - n) <= tolerance ? static_cast<std::size_t>(n) : 0;
}

struct Cadence {
  double window = 0, sample = 0;
  std::size_t samples = 0, windows = 0, points = 0;
  std::uint32_t series_every = 0;
};

/// The windows, samples and points of a solve with summaries. Throws InvalidInput.
Cadence cadence_of(const SolveOptions& o) {
  const SummaryOptions& s = o.summaries;
  const double span = o.t_end - o.t0;
  Cadence c;
  c.window = s.summarise_every.value_or(span);
  c.sample = s.sample_summaries_every.value_or(s.summarise_every ? c.window / 10 : span / 100);
  for (auto [value, field] :
       {std::pair{c.window, "summarise_every"}, std::pair{c.sample, "sample_summaries_every"}}) {
    if (!std::isfinite(value) || !(value > 0)) {
      throw InvalidInput(
          fmt::format("SolveOptions.summaries.{} must be positive and finite, got {}", field, value));
    }
  }
  if (c.window > span * (1 + 1e-9)) {
    throw InvalidInput(
        fmt::format("SolveOptions.summaries.summarise_every ({}) is longer than the span [{}, {}]: no "
                    "window would end",
                    c.window, o.t0, o.t_end));
  }
  if (c.sample > c.window * (1 + 1e-9)) {
    throw InvalidInput(
        fmt::format("SolveOptions.summaries.sample_summaries_every ({}) is longer than "
                    "summarise_every ({}): a window would hold no sample",
                    c.sample, c.window));
  }
  c.samples = whole(c.window / c.sample, 0.01);  // CuBIE's rule: the window becomes that many samples
  if (c.samples == 0) {
    throw InvalidInput(
        fmt::format("SolveOptions.summaries.summarise_every ({}) must be a whole number of "
                    "sample_summaries_every ({}); it is {:.3f} of them",
                    c.window, c.sample, c.window / c.sample));
  }
  const double per_window = static_cast<double>(c.samples) * c.sample;
  c.windows = static_cast<std::size_t>(std::floor(span / per_window * (1 + 1e-12) + 1e-9));
  if (c.windows == 0) {
    throw InvalidInput(
        fmt::format("SolveOptions.summaries.summarise_every ({}) is longer than the span [{}, {}]: no "
                    "window would end",
                    per_window, o.t0, o.t_end));
  }
  double points = static_cast<double>(c.windows) * static_cast<double>(c.samples) + 1;
  if (!o.save_at.empty() || !o.save_at_per_run.empty()) {
    throw InvalidInput(
        "SolveOptions: summaries with save_at or save_at_per_run; with summaries the series is saved "
        "at the samples (save_every, a whole number of sample_summaries_every)");
  }
  if (o.save_every) {
    // Exactly, to rounding: the series is counted with save_every and saved at the samples, so any
    // slack would move its times and could put its last point past t_end.
    const double ratio = *o.save_every / c.sample;
    c.series_every = static_cast<std::uint32_t>(
        std::min<std::size_t>(whole(ratio, 1e-9 * std::max(1.0, ratio)), std::size_t{1} << 30));
    if (c.series_every == 0) {
      throw InvalidInput(
          fmt::format("SolveOptions.save_every ({}) must be a whole number of "
                      "summaries.sample_summaries_every ({}): the series is saved at the samples; "
                      "it is {:.3f} of them",
                      *o.save_every, c.sample, *o.save_every / c.sample));
    }
    points = std::max(points, static_cast<double>(count_saves(o) - 1) * c.series_every + 1);
  }
  if (points > points_limit) {
    throw InvalidInput(
        fmt::format("SolveOptions.summaries: {:g} samples per run, more than 1e8 (sample_summaries_every "
                    "= {} over [{}, {}])",
                    points, c.sample, o.t0, o.t_end));
  }
  c.points = static_cast<std::size_t>(points);
  return c;
}

}  // namespace

const SummaryOutput& SummaryLayout::output(const std::string& name) const {
  const std::string base = name.substr(0, name.find('['));
  for (const SummaryOutput& out : outputs) {
    if (out.name == base) return out;
  }
  std::string known;
  for (const SummaryOutput& out : outputs) known += (known.empty() ? "" : ", ") + out.name;
  throw std::out_of_range(
      fmt::format("no summary '{}' (summaries: {})", name, known.empty() ? "none" : known));
}

void validate_summaries(const SolveOptions& o) {
  const SummaryOptions& s = o.summaries;
  if (s.metrics.empty()) {
    if (s.summarise_every || s.sample_summaries_every || !s.variables.empty()) {
      throw InvalidInput(
          "SolveOptions.summaries: summarise_every, sample_summaries_every or variables is set but no "
          "metrics are (summaries.metrics, e.g. {\"mean\", \"max\"})");
    }
    return;
  }
  parse_summaries(s);
  cadence_of(o);
}

SummaryLayout summary_cadence(const SolveOptions& o) {
  SummaryLayout layout;
  if (o.summaries.empty()) return layout;
  const Cadence c = cadence_of(o);
  layout.outputs = parse_summaries(o.summaries);
  layout.window_length = static_cast<double>(c.samples) * c.sample;
  layout.sample_period = c.sample;
  layout.samples = c.samples;
  layout.windows = c.windows;
  layout.points = c.points;
  layout.series_every = c.series_every;
  return layout;
}

SummaryLayout plan_summaries(const SolveOptions& o, const std::vector<std::string>& state_names,
                             const std::vector<std::string>& observable_names) {
  SummaryLayout layout = summary_cadence(o);
  if (layout.empty()) return layout;
  // The variables: all, or those named, in the system's order.
  std::vector<std::string> all = state_names;
  all.insert(all.end(), observable_names.begin(), observable_names.end());
  std::vector<bool> chosen(all.size(), true);
  if (!o.summaries.variables.empty()) chosen = detail::choose_variables(all, o.summaries.variables, "summaries.variables");
  for (std::size_t v = 0; v < all.size(); ++v) {
    if (!chosen[v]) continue;
    if (v >= summary_variable_limit) {
      throw InvalidInput(
          fmt::format("SolveOptions.summaries: '{}' is variable {} of the system's states and "
                      "observables; summaries are kept of the first {} only (choose them with "
                      "summaries.variables)",
                      all[v], v, summary_variable_limit));
    }
    layout.variables.push_back(v);
    layout.variable_names.push_back(all[v]);
  }
  if (layout.variables.empty()) throw InvalidInput("SolveOptions.summaries: no variable to summarise");
  std::size_t at = 0;
  for (SummaryOutput& out : layout.outputs) {
    out.offset = at;
    at += out.width * layout.variables.size();
  }
  layout.slots = at;
  return layout;
}

}  // namespace batchode
