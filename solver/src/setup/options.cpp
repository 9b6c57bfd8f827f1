// solver/setup/: options.hpp's validation: every option named with its value and what is allowed.
#include "batchode/solver/setup/options.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "batchode/checks/identifier.hpp"
#include "batchode/kernels/loop/events.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/solver/setup/statistics_plan.hpp"
#include "batchode/solver/setup/summary_layout.hpp"

namespace batchode {

namespace {

void require_positive_finite(double value, const char* field) {
  if (!std::isfinite(value) || !(value > 0)) {
    throw InvalidInput(fmt::format("SolveOptions.{} must be positive and finite, got {}", field, value));
  }
}

/// Where one time of a list sits, for messages: "save_at[k]", or "save_at_per_run[r][k]" (run r's k-th).
std::string time_name(const char* field, std::optional<std::size_t> run, std::size_t k) {
  return run ? fmt::format("{}[{}][{}]", field, *run, k) : fmt::format("{}[{}]", field, k);
}

/// One list of save times: each finite, in [t0, t_end] and above the one before it. Named by index
/// (and run) and value, the first bad one.
void validate_times(const SolveOptions& o, const double* times, std::size_t n, const char* field,
                    std::optional<std::size_t> run) {
  for (std::size_t k = 0; k < n; ++k) {
    const double t = times[k];
    if (!std::isfinite(t)) {
      throw InvalidInput(fmt::format("SolveOptions.{} = {} is not finite", time_name(field, run, k), t));
    }
    if (t < o.t0 || t > o.t_end) {
      throw InvalidInput(fmt::format("SolveOptions.{} = {} is outside the span [{}, {}]", time_name(field, run, k), t,
                                     o.t0, o.t_end));
    }
    if (k > 0 && !(t > times[k - 1])) {
      throw InvalidInput(fmt::format("SolveOptions.{} must be strictly increasing{}: {} = {} follows {} = {}", field,
                                     run ? " (each run's times)" : "", time_name(field, run, k), t,
                                     time_name(field, run, k - 1), times[k - 1]));
    }
  }
}

// What save_variables asks that needs no system (plan_series resolves the names against one).
void validate_save_variables(const SolveOptions& o) {
  if (o.save_variables.empty()) return;
  for (std::size_t i = 0; i < o.save_variables.size(); ++i) {
    const std::string& name = o.save_variables[i];
    if (name.empty()) throw InvalidInput(fmt::format("SolveOptions.save_variables[{}] is an empty name", i));
    for (std::size_t j = 0; j < i; ++j) {
      if (o.save_variables[j] == name) {
        throw InvalidInput(fmt::format("SolveOptions.save_variables names '{}' twice", name));
      }
    }
  }
  if (count_saves(o) == 0) {
    throw InvalidInput("SolveOptions.save_variables is set but no series is saved: set save_every, save_at or "
                       "save_at_per_run");
  }
}

/// save_at and save_at_per_run: one of them at most, not with save_every, at most 1e8 times per run
/// (as save_every), each list valid (validate_times); per run, a whole number of rows.
void validate_save_at(const SolveOptions& o) {
  const PerRunSaveTimes& per_run = o.save_at_per_run;
  if (!o.save_at.empty() && !per_run.empty()) {
    throw InvalidInput("SolveOptions: save_at and save_at_per_run are both set; give one (times shared by every "
                       "run, or each run's own)");
  }
  if (o.save_every && (!o.save_at.empty() || !per_run.empty())) {
    throw InvalidInput(fmt::format("SolveOptions: save_every and {} are both set; give one (a uniform grid, or a "
                                   "list of times)",
                                   o.save_at.empty() ? "save_at_per_run" : "save_at"));
  }
  if (o.save_at.size() > 100'000'000) {
    throw InvalidInput(fmt::format("SolveOptions.save_at has {} times, more than 1e8 saves per run", o.save_at.size()));
  }
  validate_times(o, o.save_at.data(), o.save_at.size(), "save_at", std::nullopt);
  if (per_run.n_saves() == 0 && per_run.times().empty()) return;
  if (per_run.n_saves() == 0) {
    throw InvalidInput(fmt::format("SolveOptions.save_at_per_run has {} times but n_saves = 0 (the times of "
                                   "each run)",
                                   per_run.times().size()));
  }
  if (per_run.n_saves() > 100'000'000) {
    throw InvalidInput(fmt::format("SolveOptions.save_at_per_run has n_saves = {}, more than 1e8 saves per run",
                                   per_run.n_saves()));
  }
  if (per_run.times().empty() || per_run.times().size() % per_run.n_saves() != 0) {
    throw InvalidInput(fmt::format("SolveOptions.save_at_per_run has {} times, not a whole number of runs of "
                                   "n_saves = {} times each",
                                   per_run.times().size(), per_run.n_saves()));
  }
  for (std::size_t r = 0; r < per_run.n_runs(); ++r) {
    validate_times(o, per_run.times().data() + r * per_run.n_saves(), per_run.n_saves(), "save_at_per_run", r);
  }
}

/// Times that are distinct in double but the same once rounded to T: saved times would repeat.
template <class T>
void check_times_distinct_in(const double* times, std::size_t n, const char* field, std::optional<std::size_t> run) {
  const char* type = sizeof(T) == sizeof(float) ? "float" : "double";
  for (std::size_t k = 1; k < n; ++k) {
    if (!(static_cast<T>(times[k]) > static_cast<T>(times[k - 1]))) {
      throw InvalidInput(fmt::format("SolveOptions.{} = {} and {} = {} are the same time in {}: saved times would repeat",
                                     time_name(field, run, k - 1), times[k - 1], time_name(field, run, k), times[k],
                                     type));
    }
  }
}

/// events: at most max_events, each max in [1, 2^20], directions and actions known, names distinct
/// and usable in file names, HDF5 groups and CSV cells (letters, digits, '_', not starting with a
/// digit); event_tolerance positive and finite.
void validate_events(const SolveOptions& o) {
  if (o.events.size() > max_events) {
    throw InvalidInput(fmt::format("SolveOptions.events has {} entries; a system may have at most {} event functions",
                                   o.events.size(), max_events));
  }
  for (std::size_t e = 0; e < o.events.size(); ++e) {
    const EventSpec& spec = o.events[e];
    if (!spec.name.empty() && !checks::is_identifier(spec.name)) {
      throw InvalidInput(fmt::format("SolveOptions.events[{}].name '{}' is not a name (letters, digits and '_', not "
                                     "starting with a digit): it names files and HDF5 groups", e, spec.name));
    }
    if (spec.max == 0) {
      throw InvalidInput(fmt::format("SolveOptions.events[{}].max must be at least 1 (crossings stored per run)", e));
    }
    if (spec.max > (1u << 20)) {
      throw InvalidInput(fmt::format("SolveOptions.events[{}].max = {} is above 2^20 crossings per run", e, spec.max));
    }
    if (spec.direction != EventDirection::both && spec.direction != EventDirection::rising &&
        spec.direction != EventDirection::falling) {
      throw InvalidInput(fmt::format("SolveOptions.events[{}].direction: unknown value", e));
    }
    if (spec.action != EventAction::record && spec.action != EventAction::terminal) {
      throw InvalidInput(fmt::format("SolveOptions.events[{}].action: unknown value", e));
    }
    for (std::size_t f = 0; f < e; ++f) {
      if (event_name(o, f) == event_name(o, e)) {
        throw InvalidInput(fmt::format("SolveOptions.events[{}] and events[{}] are both named '{}'", f, e,
                                       event_name(o, e)));
      }
    }
  }
  if (o.event_tolerance) require_positive_finite(*o.event_tolerance, "event_tolerance");
}

/// The ensemble statistics: their names (plan_statistics), and the save times they are taken at:
/// the batch's (save_every or save_at), one list for every run.
void validate_statistics(const SolveOptions& o) {
  if (o.statistics.empty()) {
    if (!o.outputs.series) {
      throw InvalidInput("SolveOptions.outputs.series is off without ensemble statistics: the save times would "
                         "feed nothing (drop save_every / save_at, or ask for statistics)");
    }
    return;
  }
  plan_statistics(o.statistics);
  if (saves_per_run(o)) {
    throw InvalidInput("SolveOptions.statistics are taken at the batch's save times: give save_every or save_at, "
                       "not save_at_per_run");
  }
  if (!o.save_every && o.save_at.empty()) {
    throw InvalidInput("SolveOptions.statistics are taken at the save times: set save_every or save_at");
  }
}

}  // namespace

void validate(const SolveOptions& o) {
  const MethodInfo& info = method_info(o.method);  // throws for an unknown method
  if (!std::isfinite(o.t0)) throw InvalidInput(fmt::format("SolveOptions.t0 must be finite, got {}", o.t0));
  if (!std::isfinite(o.t_end)) {
    throw InvalidInput(fmt::format("SolveOptions.t_end must be finite, got {}", o.t_end));
  }
  if (!(o.t_end > o.t0)) {
    throw InvalidInput(fmt::format("SolveOptions.t_end ({}) must be after t0 ({})", o.t_end, o.t0));
  }
  // Each end finite, their distance not: every step size would be measured against an infinite span.
  if (!std::isfinite(o.t_end - o.t0)) {
    throw InvalidInput(fmt::format("SolveOptions: the span t_end - t0 = {} - ({}) overflows to infinity: "
                                   "give a span below {:g}",
                                   o.t_end, o.t0, std::numeric_limits<double>::max()));
  }
  if (o.dt) {
    require_positive_finite(*o.dt, "dt");
  } else if (!info.adaptive) {
    throw InvalidInput(fmt::format("method {} has a fixed step: SolveOptions.dt must be set", info.name));
  }
  if (info.adaptive) {
    require_positive_finite(o.rtol, "rtol");
    require_positive_finite(o.atol, "atol");
  }
  if (o.save_every) {
    require_positive_finite(*o.save_every, "save_every");
    if ((o.t_end - o.t0) / *o.save_every > 1e8) {
      throw InvalidInput(fmt::format(
          "SolveOptions.save_every = {} asks for more than 1e8 saves per run over [{}, {}]", *o.save_every,
          o.t0, o.t_end));
    }
  }
  validate_save_at(o);
  validate_save_variables(o);
  validate_summaries(o);
  validate_statistics(o);
  validate_events(o);
  if (o.max_steps == 0) throw InvalidInput("SolveOptions.max_steps must be at least 1");
  if (o.max_steps > max_steps_limit) {
    throw InvalidInput(fmt::format("SolveOptions.max_steps = {} is above {}: per-run step counters are 32-bit",
                                   o.max_steps, max_steps_limit));
  }
  if (!info.adaptive) {
    // Every run takes the same steps: a budget that cannot reach t_end is known now, not after
    // max_steps steps of every run.
    const double steps = std::ceil((o.t_end - o.t0) / *o.dt * (1 - 1e-12));
    if (!(steps <= static_cast<double>(o.max_steps))) {
      throw InvalidInput(fmt::format(
          "SolveOptions: method {} with dt = {} needs {} steps over [{}, {}], more than max_steps = {}", info.name,
          *o.dt, steps, o.t0, o.t_end, o.max_steps));
    }
  }
  const StepControl& c = o.step_control;
  require_positive_finite(c.safety, "step_control.safety");
  if (c.safety > 1) {
    throw InvalidInput(fmt::format("SolveOptions.step_control.safety must be <= 1, got {}", c.safety));
  }
  require_positive_finite(c.min_factor, "step_control.min_factor");
  require_positive_finite(c.max_factor, "step_control.max_factor");
  if (!(c.min_factor < 1 && c.max_factor > 1)) {
    throw InvalidInput(fmt::format("SolveOptions.step_control needs min_factor < 1 < max_factor, got {} and {}",
                                   c.min_factor, c.max_factor));
  }
  if (!std::isfinite(c.ki) || !std::isfinite(c.kp) || c.ki <= 0 || c.kp < 0) {
    throw InvalidInput(
        fmt::format("SolveOptions.step_control needs ki > 0 and kp >= 0, got {} and {}", c.ki, c.kp));
  }
  if (!(c.dt_min >= 0) || !std::isfinite(c.dt_min)) {
    throw InvalidInput(
        fmt::format("SolveOptions.step_control.dt_min must be >= 0 and finite, got {}", c.dt_min));
  }
  if (!(c.dt_max > 0) || !(c.dt_max > c.dt_min)) {
    throw InvalidInput(fmt::format(
        "SolveOptions.step_control.dt_max ({}) must be positive and above dt_min ({})", c.dt_max, c.dt_min));
  }
  const GpuOptions& g = o.gpu;
  if (!(g.memory_fraction > 0 && g.memory_fraction <= 1)) {
    throw InvalidInput(
        fmt::format("SolveOptions.gpu.memory_fraction must be in (0, 1], got {}", g.memory_fraction));
  }
  if (g.block_size <= 0 || g.block_size > 1024 || g.block_size % 32 != 0) {
    throw InvalidInput(fmt::format(
        "SolveOptions.gpu.block_size must be a multiple of 32 in [32, 1024], got {}", g.block_size));
  }
  if (g.device < 0) throw InvalidInput(fmt::format("SolveOptions.gpu.device must be >= 0, got {}", g.device));
  for (int d : g.devices) {
    if (d < 0) throw InvalidInput(fmt::format("SolveOptions.gpu.devices must be >= 0, got {}", d));
  }
  if (o.backend != Backend::automatic && o.backend != Backend::cpu && o.backend != Backend::gpu) {
    throw InvalidInput(fmt::format("unknown backend (enum value {})", static_cast<int>(o.backend)));
  }
  if (o.run_order != RunOrder::automatic && o.run_order != RunOrder::off) {
    throw InvalidInput(
        fmt::format("SolveOptions.run_order: unknown value (enum value {})", static_cast<int>(o.run_order)));
  }
  if (o.save_mode != SaveMode::automatic && o.save_mode != SaveMode::land && o.save_mode != SaveMode::interpolate) {
    throw InvalidInput(
        fmt::format("SolveOptions.save_mode: unknown value (enum value {})", static_cast<int>(o.save_mode)));
  }
}

template <class T>
void validate_for(const SolveOptions& o) {
  const char* type = sizeof(T) == sizeof(float) ? "float" : "double";
  constexpr double largest = static_cast<double>(std::numeric_limits<T>::max());
  // First: a time beyond T's range is the real fault, whatever else it makes look wrong.
  for (auto [value, field] : {std::pair{o.t0, "t0"}, std::pair{o.t_end, "t_end"}}) {
    if (std::isfinite(value) && std::fabs(value) > largest) {
      throw InvalidInput(fmt::format("SolveOptions.{} = {} is beyond {}'s range (largest {})", field, value, type,
                                     largest));
    }
  }
  validate(o);
  const T t0 = static_cast<T>(o.t0), t_end = static_cast<T>(o.t_end);
  // The spacing of representable times near the larger end of the span.
  const T spacing = std::numeric_limits<T>::epsilon() * std::max(std::fabs(t0), std::fabs(t_end));
  if (!(t_end > t0)) {
    throw InvalidInput(fmt::format(
        "SolveOptions: t0 = {} and t_end = {} are the same time in {} (its spacing there is {:g}): the span "
        "is below the precision of the solve",
        o.t0, o.t_end, type, static_cast<double>(spacing)));
  }
  auto rounds_to_nothing = [&](double value, const char* field) {
    if (static_cast<T>(value) > T(0)) return;
    throw InvalidInput(fmt::format("SolveOptions.{} = {} is 0 in {} (smallest positive {:g})", field, value, type,
                                   static_cast<double>(std::numeric_limits<T>::denorm_min())));
  };
  if (o.dt) rounds_to_nothing(*o.dt, "dt");
  if (method_info(o.method).adaptive) {
    rounds_to_nothing(o.rtol, "rtol");
    rounds_to_nothing(o.atol, "atol");
  }
  check_times_distinct_in<T>(o.save_at.data(), o.save_at.size(), "save_at", std::nullopt);
  const PerRunSaveTimes& per_run = o.save_at_per_run;
  for (std::size_t r = 0; r < per_run.n_runs(); ++r) {
    check_times_distinct_in<T>(per_run.times().data() + r * per_run.n_saves(), per_run.n_saves(), "save_at_per_run", r);
  }
  if (!o.summaries.empty()) {
    // Samples t0 + j dt must be distinct once rounded, as saves are.
    const SummaryLayout layout = summary_cadence(o);
    if (!(static_cast<T>(layout.sample_period) >= T(4) * spacing)) {
      throw InvalidInput(fmt::format(
          "SolveOptions.summaries.sample_summaries_every = {} is below 4 spacings of {} times near t = {} ({:g} "
          "each): sample times would repeat",
          layout.sample_period, type, std::max(std::fabs(o.t0), std::fabs(o.t_end)), static_cast<double>(spacing)));
    }
  }
  if (o.save_every) {
    // Saved times t0 + k save_every must be distinct and increasing once rounded: a few spacings
    // apart at least (a spacing of 4 ulps still gives every save its own time).
    if (!(static_cast<T>(*o.save_every) >= T(4) * spacing)) {
      throw InvalidInput(fmt::format(
          "SolveOptions.save_every = {} is below 4 spacings of {} times near t = {} ({:g} each): saved times "
          "would repeat",
          *o.save_every, type, std::max(std::fabs(o.t0), std::fabs(o.t_end)), static_cast<double>(spacing)));
    }
  }
}

template void validate_for<float>(const SolveOptions&);
template void validate_for<double>(const SolveOptions&);

void check_options_for_batch(const SolveOptions& o, std::size_t n_runs) {
  const PerRunSaveTimes& per_run = o.save_at_per_run;
  if (!per_run.empty() && per_run.n_runs() != n_runs) {
    throw InvalidInput(fmt::format("SolveOptions.save_at_per_run holds the save times of {} runs ({} x {} times), "
                                   "the batch has {} runs: give one row of times per run",
                                   per_run.n_runs(), per_run.n_runs(), per_run.n_saves(), n_runs));
  }
  // Per-run driver samples (the Solver checks them again, fitted: check_driver_sets; a distributed
  // solve's processes slice them before any fit).
  for (const DriverSpec& d : o.drivers) {
    if (d.n_samples != 0 && d.values.size() > d.n_samples && d.values.size() != n_runs * d.n_samples) {
      // (check_driver_sets' words: one message for one mistake, whichever check finds it)
      throw InvalidInput(fmt::format("drivers['{}'] has samples for {} runs (one set per run) but the batch has {} "
                                     "runs",
                                     d.name, d.values.size() / d.n_samples, n_runs));
    }
  }
}

std::size_t count_saves(const SolveOptions& o) {
  if (!o.save_at.empty()) return o.save_at.size();
  if (!o.save_at_per_run.empty()) return o.save_at_per_run.n_saves();
  if (!o.save_every) return 0;
  // Saves at t0 + k * save_every for k = 0..K; the tolerance keeps t_end itself when the span is a
  // multiple of save_every up to rounding.
  const double span = (o.t_end - o.t0) / *o.save_every;
  return static_cast<std::size_t>(std::floor(span * (1 + 1e-12) + 1e-9)) + 1;
}

int dense_output_order(Method method) {
  // Read off the method's table (kernels/methods/dense_form.hpp): each own extension is a polynomial in
  // theta whose degree is its order for batchode's tables (CONTD5 and tsit5's weights 4, vern7's and
  // dop853's 7, vern9's 9: tests/kernels/methods/tableau_test.cpp checks each by its trees; a Rosenbrock
  // extension of r rows r + 1: rodas4 3, rodas5p 4); ros3p's doubled steps have none of their own.
  return tableau::dispatch(method, [](auto tag) {
    using Tab = typename decltype(tag)::type;
    constexpr int hermite_cubic = 3;
    if constexpr (tableau::dense_form_v<Tab> == tableau::DenseForm::contd5) {
      return 4;
    } else if constexpr (tableau::dense_form_v<Tab> == tableau::DenseForm::weights) {
      return Tab::dense_degree;
    } else if constexpr (tableau::dense_form_v<Tab> == tableau::DenseForm::rosenbrock &&
                         !tableau::estimates_by_doubling_v<Tab>) {
      return tableau::dense_rows_v<Tab> + 1;
    } else {
      return hermite_cubic;
    }
  });
}

bool interpolates_saves(const SolveOptions& o) {
  if (o.save_mode != SaveMode::automatic) return o.save_mode == SaveMode::interpolate;
  // Interpolated where the interpolant keeps up with the method: its error is of one order more,
  // so at most one order below the method's (vern7's and vern9's own are of their orders, dop853's
  // of 7). Not for cash_karp54 and fehlberg78 (the Hermite cubic under fifth- and eighth-order steps:
  // 1.8e-3 against landed points at rtol 1e-8 for fehlberg78 on Lorenz), which land unless
  // interpolation is asked for.
  return (!o.save_at.empty() || !o.save_at_per_run.empty()) &&
         dense_output_order(o.method) + 1 >= method_info(o.method).order;
}

EventShape event_shape(const SolveOptions& o) {
  EventShape shape;
  shape.n_events = o.events.size();
  for (const EventSpec& spec : o.events) shape.slots = std::max<std::size_t>(shape.slots, spec.max);
  return shape;
}

std::string event_name(const SolveOptions& o, std::size_t e) {
  return e < o.events.size() && !o.events[e].name.empty() ? o.events[e].name : fmt::format("event{}", e);
}

void check_events_for_system(const SolveOptions& o, std::size_t n_events) {
  if (o.events.size() != n_events) {
    throw InvalidInput(fmt::format("SolveOptions.events has {} entries, but the system has {} event function{}",
                                   o.events.size(), n_events, n_events == 1 ? "" : "s"));
  }
}

}  // namespace batchode
