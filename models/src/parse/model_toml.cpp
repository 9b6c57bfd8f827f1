// models/src/parse/: reading a TOML model file into a ModelDescription (toml++). Only the file's shape is
// checked here (keys, value types, required entries; and a driver's samples, whose rules need the
// places of its keys and entries), each mistake with its line and column; the
// equations and the names are checked by parse_model (model.cpp), which finds their places in the
// file through ModelDescription::equations_line/column and ::locations.
#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "batchode/checks/driver_rules.hpp"
#include "batchode/models/model_description.hpp"
#include "batchode/models/model_error.hpp"

namespace batchode::models {

namespace {

SourceLocation location(const std::string& source, const toml::source_region& region) {
  return {source, static_cast<std::size_t>(region.begin.line), static_cast<std::size_t>(region.begin.column)};
}

const char* type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date or time";
    default:
      return "nothing";
  }
}

/// The 1-based line `line` of `text` (without its line break), or empty past the end.
std::string_view line_of(std::string_view text, std::size_t line) {
  std::size_t begin = 0;
  for (std::size_t l = 1; l < line; ++l) {
    const std::size_t nl = text.find('\n', begin);
    if (nl == std::string_view::npos) return {};
    begin = nl + 1;
  }
  const std::size_t end = text.find('\n', begin);
  return text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

/// The byte offset of the 1-based character column `column` in `line` (UTF-8), or npos.
std::size_t byte_of_column(std::string_view line, std::size_t column) {
  std::size_t chars = 1;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (chars == column) return i;
    ++chars;
  }
  return std::string_view::npos;
}

/// Where a string value's first character is: toml++ gives the position of the opening delimiter.
/// A multi-line string drops a line break right after its opening delimiter (TOML 1.0).
SourceLocation string_start(std::string_view text, const std::string& source, const toml::source_region& region) {
  SourceLocation at{source, static_cast<std::size_t>(region.begin.line), static_cast<std::size_t>(region.begin.column)};
  const std::string_view line = line_of(text, region.begin.line);
  const std::size_t byte = byte_of_column(line, region.begin.column);
  if (byte == std::string_view::npos) return at;
  const std::string_view rest = line.substr(byte);
  std::size_t delimiter = 1;
  if (rest.substr(0, 3) == "\"\"\"" || rest.substr(0, 3) == "'''") delimiter = 3;
  const std::string_view after = rest.substr(delimiter);
  if (delimiter == 3 && (after.empty() || after == "\r")) {
    at.line += 1;
    at.column = 1;
  } else {
    at.column += delimiter;
  }
  return at;
}

/// A table's entries in the order the file writes them: toml++ keeps tables sorted by key, and the
/// order of [states] is the order of the state vector.
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& table) {
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (auto&& [key, node] : table) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const toml::source_position& pa = a.first->source().begin;
    const toml::source_position& pb = b.first->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return entries;
}

class Reader {
 public:
  Reader(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  ModelDescription read() {
    toml::table root;
    try {
      root = toml::parse(text_, source_);
    } catch (const toml::parse_error& e) {
      throw ModelError(location(source_, e.source()), "TOML syntax error: " + std::string(e.description()));
    }
    ModelDescription d;
    d.source = source_;
    bool have_name = false, have_equations = false, have_states = false;
    for (const auto& [key_ptr, node_ptr] : in_file_order(root)) {
      const toml::key& key = *key_ptr;
      const toml::node& node = *node_ptr;
      const std::string k(key.str());
      const SourceLocation key_at = location(source_, key.source());
      const SourceLocation value_at = location(source_, node.source());
      if (k == "name") {
        d.name = string_value(node, "name");
        d.locations["name"] = value_at;
        have_name = true;
      } else if (k == "equations") {
        d.equations = string_value(node, "equations");
        d.locations["equations"] = value_at;
        const SourceLocation first = string_start(text_, source_, node.source());
        d.equations_line = first.line;
        d.equations_column = first.column;
        have_equations = true;
      } else if (k == "observables") {
        read_observables(node, d);
      } else if (k == "events") {
        read_events(node, d);
      } else if (k == "states") {
        d.states = named_values(node, "states", "state", d);
        d.locations["states"] = value_at;
        have_states = true;
      } else if (k == "algebraic") {
        d.algebraic = named_values(node, "algebraic", "algebraic variable", d);
        d.locations["algebraic"] = value_at;
      } else if (k == "parameters") {
        d.parameters = named_values(node, "parameters", "parameter", d);
      } else if (k == "constants") {
        d.constants = named_values(node, "constants", "constant", d);
      } else if (k == "drivers") {
        read_drivers(node, d);
      } else {
        throw ModelError(key_at,
                         "unknown key '" + k +
                             "': a model file has name, equations, observables, [states], [algebraic], "
                             "[parameters], [constants], [events] and [drivers]");
      }
    }
    const SourceLocation top{source_, 1, 1};
    if (!have_name) throw ModelError(top, "missing 'name' (name = \"my_model\")");
    if (!have_equations) throw ModelError(top, "missing 'equations' (equations = \"\"\"dx = ...\"\"\")");
    if (!have_states) throw ModelError(top, "missing [states] table (state = initial value, one per line)");
    return d;
  }

 private:
  std::string string_value(const toml::node& node, const char* key) const {
    if (const auto* s = node.as_string()) return s->get();
    throw ModelError(location(source_, node.source()),
                     std::string("'") + key + "' must be a string, not " + type_name(node));
  }

  void read_observables(const toml::node& node, ModelDescription& d) const {
    const toml::array* list = node.as_array();
    if (list == nullptr) {
      throw ModelError(location(source_, node.source()),
                       std::string("'observables' must be an array of names, not ") + type_name(node));
    }
    d.locations["observables"] = location(source_, node.source());
    for (const toml::node& item : *list) {
      const auto* s = item.as_string();
      if (s == nullptr) {
        throw ModelError(location(source_, item.source()),
                         std::string("an observable must be a name in quotes, not ") + type_name(item));
      }
      d.locations["observables." + std::to_string(d.observables.size())] = location(source_, item.source());
      d.observables.push_back(s->get());
    }
  }

  /// `events = ["expr", ...]` (named event0, event1, ...) or an [events] table of name = "expr" or
  /// name = { expr = "...", direction = "...", action = "...", max = K, assign = "..." }, or, for an event
  /// at given times, at = [...] or every = ... with start = ... in place of expr. How the keys combine
  /// (at with every, expr with either, ...) is parse_model's check (model.cpp), with their places here.
  void read_events(const toml::node& node, ModelDescription& d) const {
    auto add = [&](std::string name, const SourceLocation& named_at) {
      const std::string key = "events." + std::to_string(d.events.size());
      d.locations[key] = named_at;
      EventDescription e;
      e.name = std::move(name);
      d.events.push_back(std::move(e));
      return key;
    };
    auto set_expression = [&](const std::string& key, const toml::node& expression) {
      d.locations[key + ".expr"] = string_start(text_, source_, expression.source());
      d.events.back().expression = string_value(expression, "expr");
    };
    if (const toml::array* list = node.as_array()) {
      for (const toml::node& item : *list) {
        if (!item.is_string()) {
          throw ModelError(location(source_, item.source()),
                           std::string("an event must be an expression in quotes, not ") + type_name(item));
        }
        set_expression(add("event" + std::to_string(d.events.size()), location(source_, item.source())),
                       item);
      }
      return;
    }
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      throw ModelError(location(source_, node.source()),
                       std::string("'events' must be a table of name = { expr = \"...\", ... } or an array of "
                                   "expressions, not ") +
                           type_name(node));
    }
    for (const auto& [key_ptr, value_ptr] : in_file_order(*table)) {
      const std::string name(key_ptr->str());
      const SourceLocation named_at = location(source_, key_ptr->source());
      if (value_ptr->is_string()) {
        set_expression(add(name, named_at), *value_ptr);
        continue;
      }
      const toml::table* spec = value_ptr->as_table();
      if (spec == nullptr) {
        throw ModelError(location(source_, value_ptr->source()),
                         "event '" + name +
                             "' must be an expression in quotes or a table { expr = \"...\", "
                             "direction = \"rising\" | \"falling\" | \"both\", action = \"record\" | "
                             "\"terminal\", max = K, assign = \"...\" } (or with at = [...] or every = ... "
                             "and start = ... for given times, in place of expr), not " +
                             type_name(*value_ptr));
      }
      if (!spec->contains("expr") && !spec->contains("at") && !spec->contains("every") &&
          !spec->contains("start")) {
        throw ModelError(named_at, "event '" + name +
                                       "' has no expr = \"...\" (a zero crossing), at = [...] or every = ... "
                                       "with start = ... (given times)");
      }
      const std::string key = add(name, named_at);
      EventDescription& e = d.events.back();
      for (const auto& [field_key, value] : *spec) {
        const std::string field(field_key.str());
        const SourceLocation value_at = location(source_, value.source());
        if (field == "expr") {
          set_expression(key, value);
        } else if (field == "direction" || field == "action") {
          if (!value.is_string()) {
            throw ModelError(value_at, "event '" + name + "': " + field + " must be a string, not " + type_name(value));
          }
          (field == "direction" ? e.direction : e.action) = *value.value<std::string>();
          d.locations[key + "." + field] = value_at;
        } else if (field == "max") {
          if (!value.is_integer()) {
            throw ModelError(value_at, "event '" + name + "': max must be an integer, not " + type_name(value));
          }
          e.max = *value.value<long long>();
          d.locations[key + ".max"] = value_at;
        } else if (field == "assign") {
          if (!value.is_string()) {
            throw ModelError(value_at, "event '" + name +
                                           "': assign must be a string of `<state> = <expr>` "
                                           "statements, not " +
                                           type_name(value));
          }
          e.assign = *value.value<std::string>();
          // Its first character, as for expr: the statements' errors point into the text.
          d.locations[key + ".assign"] = string_start(text_, source_, value.source());
          // An empty assign means "none" in an EventDescription: refused here, where it was written.
          if (e.assign.empty()) {
            throw ModelError(d.locations[key + ".assign"],
                             "event '" + name +
                                 "' has an empty assign (write `<state> = <expr>` statements, "
                                 "separated by ';' or line breaks, or leave assign out)");
          }
        } else if (field == "at") {
          const toml::array* times = value.as_array();
          if (times == nullptr) {
            throw ModelError(value_at,
                             "event '" + name +
                                 "': at must be an array of times (numbers, or expressions in quotes: "
                                 "at = [8, \"t1 + 24\"]), not " +
                                 type_name(value));
          }
          d.locations[key + ".at"] = value_at;
          if (times->empty()) {
            throw ModelError(value_at, "event '" + name +
                                           "': at = [] lists no times (give at least one, or "
                                           "leave the event out)");
          }
          for (std::size_t k = 0; k < times->size(); ++k) {
            const std::string what = "at[" + std::to_string(k) + "]";
            e.at.push_back(time_text(name, what, (*times)[k], d.locations[key + ".at." + std::to_string(k)]));
          }
        } else if (field == "every" || field == "start") {
          (field == "every" ? e.every : e.start) =
              time_text(name, field, value, d.locations[key + "." + field]);
        } else {
          throw ModelError(location(source_, field_key.source()),
                           "event '" + name + "': unknown key '" + field +
                               "' (an event has expr, direction, action, max and assign; or at, or every and "
                               "start, in place of expr)");
        }
      }
    }
  }

  /// An event's time `what` (at[k], every, start) as the text of an expression: a string as written
  /// (`where`: its first character), a number as "%.17g" (the same double when read back; `where`: the
  /// number). A number that is not finite, an empty string and other types are refused at the value.
  std::string time_text(const std::string& event, const std::string& what, const toml::node& value,
                        SourceLocation& where) const {
    const SourceLocation value_at = location(source_, value.source());
    const std::string named = "event '" + event + "': " + what;
    if (value.is_number()) {
      where = value_at;
      const double time = value.value<double>().value_or(0.0);
      if (!std::isfinite(time)) {
        const char* written = std::isnan(time) ? "nan" : time > 0 ? "inf" : "-inf";
        throw ModelError(value_at, named + " = " + written + " is not a finite time");
      }
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", time);
      return text;
    }
    if (!value.is_string()) {
      throw ModelError(value_at, named +
                                     " must be a number or an expression in quotes (in the parameters and "
                                     "constants), not " +
                                     type_name(value));
    }
    where = string_start(text_, source_, value.source());
    std::string text = *value.value<std::string>();
    if (text.find_first_not_of(" \t") == std::string::npos) {
      throw ModelError(where, named +
                                  " is an empty expression (a number, or an expression in the parameters and "
                                  "constants)");
    }
    return text;
  }

  /// A [drivers] table of name = {} (samples given when solving) or name = { values = [...], dt = h or
  /// times = [...], order = 1 | 3, end = "...", wrap = bool }.
  void read_drivers(const toml::node& node, ModelDescription& d) const {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      throw ModelError(location(source_, node.source()),
                       std::string("'drivers' must be a table of name = { values = [...], dt = ... } or name = {}, "
                                   "not ") +
                           type_name(node));
    }
    for (const auto& [key_ptr, value_ptr] : in_file_order(*table)) {
      DriverDescription driver;
      driver.name = std::string(key_ptr->str());
      const std::string what = "driver '" + driver.name + "'";
      d.locations["drivers." + driver.name] = location(source_, key_ptr->source());
      const toml::table* spec = value_ptr->as_table();
      if (spec == nullptr) {
        throw ModelError(location(source_, value_ptr->source()),
                         what + " must be a table { values = [...], dt = ... } (or {} to give them when solving), "
                                "not " + type_name(*value_ptr));
      }
      for (const auto& [field_key, value] : *spec) {
        const std::string field(field_key.str());
        const SourceLocation value_at = location(source_, value.source());
        if (field == "values" || field == "times") {
          (field == "values" ? driver.values : driver.times) = numbers(value, what + ": " + field);
        } else if (field == "dt") {
          if (!value.is_number()) throw ModelError(value_at, what + ": dt must be a number, not " + type_name(value));
          driver.dt = value.value<double>();
        } else if (field == "order") {
          if (!value.is_integer()) {
            throw ModelError(value_at, what + ": order must be 1 or 3, not " + type_name(value));
          }
          driver.order = static_cast<int>(*value.value<long long>());
        } else if (field == "end") {
          driver.end = string_value(value, "end");
          if (!checks::find_spline_end(driver.end)) {
            throw ModelError(value_at, what + ": " + checks::spline_end_problem(driver.end));
          }
        } else if (field == "wrap" || field == "land") {
          if (!value.is_boolean()) {
            throw ModelError(value_at, what + ": " + field + " must be true or false, not " + type_name(value));
          }
          (field == "wrap" ? driver.wrap : driver.land) = *value.value<bool>();
        } else {
          throw ModelError(location(source_, field_key.source()),
                           what + ": unknown key '" + field + "' (a driver has values, dt, times, order, end, wrap and land)");
        }
      }
      // Settings without samples would be dropped for the solve's (which bring their own): refused.
      const bool settings = driver.dt || !driver.times.empty() || driver.order != 1 || driver.end != "natural" ||
                            driver.wrap || !driver.land;
      if (driver.values.empty() && settings) {
        throw ModelError(location(source_, value_ptr->source()),
                         what + " has settings but no values: give its samples here (values = [...]), or write " +
                             driver.name + " = {} and give samples and settings when solving");
      }
      if (!driver.values.empty()) check_samples(driver, *spec, location(source_, key_ptr->source()));
      d.drivers.push_back(std::move(driver));
    }
  }

  /// A driver's samples here follow the rules a solve's do (checks/driver_rules.hpp, which the fit
  /// applies too), refused at the key or the entry at fault: `batchode check` catches what a solve
  /// would. `named_at` is the driver's name, for a problem of the driver as a whole.
  void check_samples(const DriverDescription& driver, const toml::table& spec,
                     const SourceLocation& named_at) const {
    const std::optional<checks::DriverProblem> problem = checks::driver_problem(
        {driver.values, driver.values.size(), driver.times, driver.dt, driver.order,
         checks::find_spline_end(driver.end).value_or(checks::SplineEnd::natural)});  // end: read above
    if (!problem) return;
    SourceLocation at = named_at;
    if (const toml::node* node = problem->key.empty() ? nullptr : spec.get(problem->key)) {
      at = location(source_, node->source());
      const toml::array* list = node->as_array();
      if (problem->index && list != nullptr && *problem->index < list->size()) {
        at = location(source_, (*list)[*problem->index].source());
      }
    }
    throw ModelError(at, "driver '" + driver.name + "': " + problem->message);
  }

  std::vector<double> numbers(const toml::node& node, const std::string& what) const {
    const toml::array* list = node.as_array();
    if (list == nullptr) {
      throw ModelError(location(source_, node.source()), what + " must be an array of numbers, not " + type_name(node));
    }
    std::vector<double> out;
    for (const toml::node& item : *list) {
      if (!item.is_number()) {
        throw ModelError(location(source_, item.source()), what + " must hold numbers, not " + type_name(item));
      }
      out.push_back(item.value<double>().value_or(0.0));
    }
    return out;
  }

  std::vector<NamedValue> named_values(const toml::node& node, const char* table, const char* what,
                                       ModelDescription& d) const {
    const toml::table* t = node.as_table();
    if (t == nullptr) {
      throw ModelError(
          location(source_, node.source()),
          std::string("'") + table + "' must be a table of name = number, not " + type_name(node));
    }
    std::vector<NamedValue> values;
    for (const auto& [key_ptr, value_ptr] : in_file_order(*t)) {
      const toml::key& key = *key_ptr;
      const toml::node& value = *value_ptr;
      const std::string name(key.str());
      if (!value.is_number()) {
        throw ModelError(location(source_, value.source()),
                         std::string(what) + " '" + name + "' must be a number, not " + type_name(value));
      }
      d.locations[std::string(table) + "." + name] = location(source_, key.source());
      values.push_back({name, value.value<double>().value_or(0.0)});
    }
    return values;
  }

  std::string_view text_;
  std::string source_;
};

}  // namespace

ModelDescription read_model_toml(std::string_view text, const std::string& source) {
  return Reader(text, source).read();
}

ModelDescription read_model_file(const std::string& path) {
  // stdio rather than iostreams: errno then reliably holds the reason (a directory opens, then its
  // read fails with EISDIR).
  auto fail = [&path](int error) {
    return ModelError({path, 0, 0}, "cannot read the model file: " + std::string(std::strerror(error)));
  };
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw fail(errno);
  std::string text;
  char buffer[65536];
  std::size_t got = 0;
  errno = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, got);
  const bool failed = std::ferror(file) != 0;
  const int error = errno;
  std::fclose(file);
  if (failed) throw fail(error != 0 ? error : EIO);
  return read_model_toml(text, path);
}

}  // namespace batchode::models
