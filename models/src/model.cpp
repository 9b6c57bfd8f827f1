// models/: parse_model: the checks of a description's declarations (names and values), then the
// equations (parser.cpp), the observables and the derivatives (derivative.cpp), into one immutable
// ModelData that every copy of the Model shares. Also the Jacobian's sparsity, for people.
#include "batchode/models/model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "batchode/checks/identifier.hpp"
#include "batchode/models/codegen.hpp"
#include "batchode/models/evaluate.hpp"
#include "parse/algebraic.hpp"

namespace batchode::models {

struct ModelData {
  ModelDescription description;
  std::vector<NamedValue> states;  // description.states, then description.algebraic
  ParsedEquations equations;
  Derivatives derivatives;
  std::vector<std::pair<std::size_t, std::size_t>> nonzeros;
  std::vector<std::optional<std::vector<double>>> constant_times;  // per event: Model::constant_event_times
};

namespace {

const std::shared_ptr<const ModelData>& empty_model() {
  static const std::shared_ptr<const ModelData> empty = std::make_shared<const ModelData>();
  return empty;
}

using checks::is_identifier;

SourceLocation location_of(const ModelDescription& d, const std::string& key) {
  const auto it = d.locations.find(key);
  if (it != d.locations.end()) return it->second;
  return {d.source, 0, 0};
}

void check_name(const ModelDescription& d) {
  const SourceLocation at = location_of(d, "name");
  if (d.name.empty()) throw ModelError(at, "the model's name is empty");
  for (char c : d.name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) {
      throw ModelError(at, "the model's name contains a control character (a line break, a tab, ...)");
    }
  }
}

/// States, algebraic variables, parameters, constants and drivers: identifiers, not reserved, unique
/// across the five, finite.
void check_declarations(const ModelDescription& d) {
  struct Group {
    const std::vector<NamedValue>& values;
    const char* table;  // key prefix in ModelDescription::locations
    const char* what;
    const char* a_what;  // with its article
  };
  std::vector<NamedValue> drivers;  // names only: their samples are checked where they are fitted
  for (const DriverDescription& u : d.drivers) drivers.push_back({u.name, 0.0});
  const Group groups[] = {{d.states, "states", "state", "a state"},
                          {d.algebraic, "algebraic", "algebraic variable", "an algebraic variable"},
                          {d.parameters, "parameters", "parameter", "a parameter"},
                          {d.constants, "constants", "constant", "a constant"},
                          {drivers, "drivers", "driver", "a driver"}};
  std::map<std::string, std::string> declared;  // name -> "a state", ...
  for (const Group& g : groups) {
    for (const NamedValue& v : g.values) {
      const SourceLocation at = location_of(d, std::string(g.table) + "." + v.name);
      if (!is_identifier(v.name)) {
        throw ModelError(at, std::string(g.what) + " name '" + v.name +
                                 "' is not a valid name (a letter or '_', then letters, digits or '_')");
      }
      if (is_reserved_word(v.name)) {
        throw ModelError(at, "'" + v.name + "' is a reserved word (t, and, or, not and the function names) " +
                                 "and cannot name " + g.a_what);
      }
      const auto [it, inserted] = declared.emplace(v.name, g.a_what);
      if (!inserted) {
        throw ModelError(at, "'" + v.name + "' is declared twice: as " + it->second + " and as " + g.a_what);
      }
      if (!std::isfinite(v.value)) {
        throw ModelError(at, std::string(g.what) + " '" + v.name + "' has a value that is not finite");
      }
    }
  }
  if (d.states.empty()) {
    const auto it = d.locations.find("states");
    throw ModelError(it != d.locations.end() ? it->second : SourceLocation{d.source, 0, 0},
                     "the model has no states: declare at least one in [states] (name = initial value)");
  }
}

void check_observables(const ModelDescription& d, const ParsedEquations& equations) {
  std::set<std::string> auxiliaries, seen;
  std::string known;
  for (const Auxiliary& a : equations.auxiliaries) {
    auxiliaries.insert(a.name);
    known += (known.empty() ? "" : ", ") + a.name;
  }
  for (std::size_t i = 0; i < d.observables.size(); ++i) {
    const std::string& name = d.observables[i];
    SourceLocation at = location_of(d, "observables." + std::to_string(i));
    if (at.line == 0) at = location_of(d, "observables");
    if (auxiliaries.count(name) == 0) {
      throw ModelError(at, "observable '" + name + "' is not an auxiliary of the equations (" +
                               (known.empty() ? std::string("there are none") : "auxiliaries: " + known) +
                               ")");
    }
    if (!seen.insert(name).second) throw ModelError(at, "observable '" + name + "' is listed twice");
  }
}

/// Where event i's `field` (direction, at.2, ...) was written, else the event itself (a description
/// filled in by code has no places for its fields).
SourceLocation event_field_at(const ModelDescription& d, std::size_t i, const std::string& field) {
  const std::string key = "events." + std::to_string(i);
  const SourceLocation f = location_of(d, key + "." + field);
  return f.line != 0 ? f : location_of(d, key);
}

/// How an event's keys combine: a zero crossing (expr, direction) or given times (at, or every with
/// start), never both kinds nor both ways of giving times.
void check_time_keys(const ModelDescription& d, std::size_t i) {
  const auto field_at = [&](const std::string& field) { return event_field_at(d, i, field); };
  const EventDescription& e = d.events[i];
  const std::string key = "events." + std::to_string(i), what = "event '" + e.name + "'";
  const bool at = !e.at.empty(), every = !e.every.empty(), start = !e.start.empty();
  const std::string times = at ? "at" : "every";
  if (at && every) {
    throw ModelError(field_at("every"),
                     what +
                         " has both at and every: give its times one way, at = [t1, t2, ...] "
                         "or every = <period> with start = <first time>");
  }
  if ((at || every) && (!e.expression.empty() || d.locations.count(key + ".expr") != 0)) {
    throw ModelError(field_at(at ? "at" : "every"),
                     what + " has both expr and " + times +
                         ": an event is a zero crossing of expr or happens at given times (at, or every with "
                         "start), not both");
  }
  if ((at || every) && (e.direction != "both" || d.locations.count(key + ".direction") != 0)) {
    throw ModelError(field_at("direction"), what + ": direction = \"" + e.direction +
                                                "\" is for zero crossings (expr); an event at given times (" +
                                                times + ") has none: leave it out");
  }
  if (every && !start) {
    throw ModelError(field_at("every"), what + ": every = " + e.every +
                                            " needs start = <the first time> (its times are start, start + "
                                            "every, start + 2 every, ...)");
  }
  if (start && !every) {
    throw ModelError(field_at("start"),
                     what + ": start = " + e.start +
                         " goes with every = <period> (its times are start, start + every, "
                         "...)" +
                         (at ? "; at lists every time itself: leave start out" : ""));
  }
}

/// The events' names, words and counts (their expressions are parse_equations'). At most 8: the
/// kernels keep their directions and actions as bit masks (kernels/loop/events.hpp, max_events).
void check_events(const ModelDescription& d) {
  constexpr std::size_t kMaxEvents = 8;
  constexpr long long kMaxCrossings = 1 << 20;  // SolveOptions' bound (solver/setup/options.cpp)
  std::set<std::string> names;
  for (std::size_t i = 0; i < d.events.size(); ++i) {
    const EventDescription& e = d.events[i];
    const std::string key = "events." + std::to_string(i);
    const SourceLocation at = location_of(d, key);
    if (i == kMaxEvents) {
      throw ModelError(at, "too many events: a model may have at most " + std::to_string(kMaxEvents));
    }
    if (!is_identifier(e.name)) {
      throw ModelError(at, "event name '" + e.name +
                               "' is not a valid name (a letter or '_', then letters, digits or '_')");
    }
    if (!names.insert(e.name).second) throw ModelError(at, "event '" + e.name + "' is defined twice");
    const auto field_at = [&](const std::string& field) { return event_field_at(d, i, field); };
    if (e.direction != "rising" && e.direction != "falling" && e.direction != "both") {
      throw ModelError(field_at("direction"), "event '" + e.name + "': direction '" + e.direction +
                                                  "' is not \"rising\", \"falling\" or \"both\"");
    }
    if (e.action != "record" && e.action != "terminal") {
      throw ModelError(field_at("action"),
                       "event '" + e.name + "': action '" + e.action + "' is not \"record\" or \"terminal\"");
    }
    if (e.max < 1) {
      throw ModelError(field_at("max"), "event '" + e.name + "': max = " + std::to_string(e.max) +
                                            ", but at least one crossing per run must be kept (max >= 1)");
    }
    if (e.max > kMaxCrossings) {
      throw ModelError(field_at("max"), "event '" + e.name + "': max = " + std::to_string(e.max) +
                                            " is above 2^20 crossings stored per run");
    }
    check_time_keys(d, i);
  }
}

bool reads_parameters(const Expr& e) {
  if (e.kind == ExprKind::parameter) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return reads_parameters(*a); });
}

/// An event's time as messages quote it: its value, after the text written when that was more than a
/// number (at[2] = "2 * t0" = 6).
std::string quoted_time(const std::string& what, const std::string& text, const Expr& tree, double value) {
  const bool number = tree.kind == ExprKind::number ||
                      (tree.kind == ExprKind::negate && tree.args[0]->kind == ExprKind::number);
  return what + " = " + (number ? "" : "\"" + text + "\" = ") +
         (std::isnan(value) ? "nan" : format_number(value));
}

/// The events' times that read no parameter (the same in every run), checked once here: finite, at's
/// increasing (each later than every constant time before it), every > 0. Returns each event's at times
/// when all are such (Model::constant_event_times).
std::vector<std::optional<std::vector<double>>> check_constant_times(const Model& model) {
  const ModelDescription& d = model.description();
  const std::vector<EventTimes>& all = model.equations().event_times;
  std::vector<std::optional<std::vector<double>>> constant(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const EventTimes& times = all[i];
    const EventDescription& e = d.events[i];
    const std::string what = "event '" + e.name + "': ";
    const auto field_at = [&](const std::string& field) { return event_field_at(d, i, field); };
    auto finite = [&](const std::string& field, const std::string& name, const std::string& text,
                      const Expr& tree) {
      const double value = evaluate_fixed(model, tree, nullptr);
      if (!std::isfinite(value)) {
        throw ModelError(field_at(field),
                         what + quoted_time(name, text, tree, value) + " is not a finite time");
      }
      return value;
    };
    std::vector<double> at;
    std::optional<std::size_t> latest;  // the constant time before with the largest value
    for (std::size_t k = 0; k < times.at.size(); ++k) {
      if (reads_parameters(*times.at[k])) continue;
      const std::string index = std::to_string(k), name = "at[" + index + "]";
      const double value = finite("at." + index, name, e.at[k], *times.at[k]);
      if (latest && !(value > at.back())) {
        const std::string before =
            quoted_time("at[" + std::to_string(*latest) + "]", e.at[*latest], *times.at[*latest], at.back());
        throw ModelError(field_at("at." + index),
                         what + quoted_time(name, e.at[k], *times.at[k], value) +
                             (value == at.back() ? " repeats " + before + ": give each time once"
                                                 : " is before " + before + ": at's times must increase") +
                             " (at = [t1, t2, ...] with t1 < t2 < ...)");
      }
      at.push_back(value);
      latest = k;
    }
    if (!times.at.empty() && at.size() == times.at.size()) constant[i] = std::move(at);
    if (times.every) {
      if (!reads_parameters(*times.start)) finite("start", "start", e.start, *times.start);
      if (!reads_parameters(*times.every)) {
        const double every = finite("every", "every", e.every, *times.every);
        if (!(every > 0)) {
          throw ModelError(field_at("every"), what + quoted_time("every", e.every, *times.every, every) +
                                                  " is not > 0: the period between the times start, start + "
                                                  "every, ... must be positive");
        }
      }
    }
  }
  return constant;
}

}  // namespace

Model::Model() : data_(empty_model()) {}
Model::Model(std::shared_ptr<const ModelData> data) : data_(std::move(data)) {}

const std::string& Model::name() const { return data_->description.name; }
std::size_t Model::n_states() const { return data_->states.size(); }
std::size_t Model::n_algebraic() const { return data_->description.algebraic.size(); }
std::size_t Model::n_params() const { return data_->description.parameters.size(); }
const std::vector<NamedValue>& Model::states() const { return data_->states; }
const std::vector<NamedValue>& Model::parameters() const { return data_->description.parameters; }
const std::vector<NamedValue>& Model::constants() const { return data_->description.constants; }
const std::vector<DriverDescription>& Model::drivers() const { return data_->description.drivers; }
const std::vector<std::string>& Model::observables() const { return data_->description.observables; }
const std::vector<EventDescription>& Model::events() const { return data_->description.events; }
const ModelDescription& Model::description() const { return data_->description; }
const ParsedEquations& Model::equations() const { return data_->equations; }
const Derivatives& Model::derivatives() const { return data_->derivatives; }

std::vector<std::string> Model::auxiliary_names() const {
  std::vector<std::string> names;
  for (const Auxiliary& a : data_->equations.auxiliaries) names.push_back(a.name);
  return names;
}

std::vector<std::pair<std::size_t, std::size_t>> Model::jacobian_nonzeros() const { return data_->nonzeros; }

bool Model::is_time_event(std::size_t e) const {
  const std::vector<EventTimes>& all = data_->equations.event_times;
  if (e >= all.size()) {
    throw std::out_of_range("Model::is_time_event: model '" + name() + "' has " + std::to_string(all.size()) +
                            " events, not an event " + std::to_string(e));
  }
  return all[e].timed();
}

std::optional<std::vector<double>> Model::constant_event_times(std::size_t e) const {
  if (!is_time_event(e)) return std::nullopt;  // (checks e)
  return data_->constant_times[e];
}

Model parse_model(const ModelDescription& description) {
  check_name(description);
  check_declarations(description);
  check_events(description);
  auto data = std::make_shared<ModelData>();
  data->description = description;
  data->states = description.states;
  data->states.insert(data->states.end(), description.algebraic.begin(), description.algebraic.end());
  data->equations = parse_equations(description);
  check_observables(description, data->equations);
  const std::size_t n = data->states.size();
  data->derivatives = differentiate_model(data->equations, n);
  match_algebraic_rows(description, data->equations, data->derivatives);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (!is_zero(*data->derivatives.jacobian[i * n + j])) data->nonzeros.emplace_back(i, j);
    }
  }
  // The trees are complete: evaluated through a Model that shares them (not yet handed out).
  data->constant_times = check_constant_times(Model(data));
  return Model(std::move(data));
}

Model load_model(const std::string& path) { return parse_model(read_model_file(path)); }

std::string describe_sparsity(const Model& model) {
  const std::size_t n = model.n_states(), n_diff = n - model.n_algebraic();
  const std::vector<std::pair<std::size_t, std::size_t>> nonzeros = model.jacobian_nonzeros();
  std::vector<std::vector<bool>> pattern(n, std::vector<bool>(n, false));
  for (const auto& [i, j] : nonzeros) pattern[i][j] = true;
  // A differential row is labelled d<state>; an algebraic one [<variable>], the variable whose
  // residual it holds (algebraic.hpp's matching put it there, on a structurally nonzero diagonal).
  auto label = [&](std::size_t i) {
    const std::string& name = model.states()[i].name;
    return i < n_diff ? "d" + name : "[" + name + "]";
  };
  std::size_t width = 0;
  for (std::size_t i = 0; i < n; ++i) width = std::max(width, label(i).size());
  std::ostringstream out;
  out << "Jacobian of '" << model.name() << "': " << n << " x " << n << ", " << nonzeros.size() << " of "
      << n * n << " entries structurally nonzero\n";
  if (n_diff < n) {
    out << "  rows " << label(n_diff) << (n - n_diff > 1 ? " .. " + label(n - 1) : std::string())
        << " are algebraic: the `0 =` equation that determines each variable (W = M diag - J has no diag "
           "there)\n";
  }
  for (std::size_t i = 0; i < n; ++i) {
    out << "  " << label(i) << std::string(width - label(i).size() + 1, ' ');
    std::string depends;
    for (std::size_t j = 0; j < n; ++j) {
      out << (pattern[i][j] ? '*' : '.');
      if (pattern[i][j]) depends += (depends.empty() ? "" : ", ") + model.states()[j].name;
    }
    out << "  depends on " << (depends.empty() ? std::string("no state") : depends) << '\n';
  }
  return out.str();
}

}  // namespace batchode::models
