// models/: parse_model: the checks of a description's declarations (names and values), then the
// equations (parser.cpp), the observables and the derivatives (derivative.cpp), into one immutable
// ModelData that every copy of the Model shares. Also the Jacobian's sparsity, for people.
#include "batchode/models/model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "parse/algebraic.hpp"
#include "batchode/checks/identifier.hpp"

namespace batchode::models {

struct ModelData {
  ModelDescription description;
  std::vector<NamedValue> states;  // description.states, then description.algebraic
  ParsedEquations equations;
  Derivatives derivatives;
  std::vector<std::pair<std::size_t, std::size_t>> nonzeros;
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
    auto field_at = [&](const char* field) {
      const SourceLocation f = location_of(d, key + "." + field);
      return f.line != 0 ? f : at;
    };
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
  }
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
