// python/: batchode.Model (equations as text, states/algebraic/parameters/constants as dicts of
// default values), load_model(path) and Model.from_toml(text). Every mistake raises batchode.ModelError with
// the source, line and column (errors.cpp); nothing is compiled until the first solve.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "batchode/models/model.hpp"
#include "batchode/models/model_description.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "bindings.hpp"
#include "py_model.hpp"

namespace py = pybind11;

namespace batchode::python {

namespace {

/// A dict {name: value} (insertion order = declaration order) as NamedValues; None: none. A value that
/// is not a real number is a ModelError naming the entry.
std::vector<models::NamedValue> named_values(const py::object& values, const char* what) {
  std::vector<models::NamedValue> out;
  if (values.is_none()) return out;
  if (!py::isinstance<py::dict>(values)) {
    throw models::ModelError({"<string>", 0, 0},
                             std::string(what) + " must be a dict {name: default value}, not " +
                                 py::str(py::type::of(values).attr("__name__")).cast<std::string>());
  }
  for (const auto& [key, value] : values.cast<py::dict>()) {
    const std::string name = py::str(key).cast<std::string>();
    const double number = PyFloat_AsDouble(value.ptr());  // numbers and anything with __float__
    if (number == -1.0 && PyErr_Occurred() != nullptr) {
      PyErr_Clear();
      throw models::ModelError({"<string>", 0, 0}, std::string(what) + " '" + name + "': " +
                                                       py::repr(value).cast<std::string>() + " is not a number");
    }
    out.push_back({name, number});
  }
  return out;
}

/// events: a list of expressions (named event0, event1, ...) or a dict {name: expression or
/// {"expr": ..., "direction": ..., "action": ..., "max": K, "assign": "..."}}, as a model file's events,
/// an event at given times with "at": [times] or "every": period and "start": first time in place of
/// "expr" (each time a number or an expression in the parameters and constants); None: none.
/// A mistake in the entries' shape is a ModelError naming the entry (the words are parse_model's).
std::vector<models::EventDescription> event_descriptions(const py::object& events) {
  std::vector<models::EventDescription> out;
  if (events.is_none()) return out;
  auto fail = [](const std::string& message) { return models::ModelError({"<string>", 0, 0}, message); };
  auto type_of = [](const py::handle& v) { return py::str(py::type::of(v).attr("__name__")).cast<std::string>(); };
  // A time (an entry of "at", "every", "start") as the text of an expression: a str as given, a real
  // number as "%.17g" (the same double when parsed); `what` names it in messages.
  auto time_text = [&](const std::string& event, const std::string& what, const py::handle& value) {
    const std::string named = "event '" + event + "': " + what;
    if (py::isinstance<py::str>(value)) return value.cast<std::string>();
    if (py::isinstance<py::bool_>(value) ||
        !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value) ||
          PyObject_HasAttrString(value.ptr(), "__float__") != 0)) {
      throw fail(named + " must be a number or an expression (str) in the parameters and constants, not " +
                 type_of(value));
    }
    const double time = PyFloat_AsDouble(value.ptr());
    if (time == -1.0 && PyErr_Occurred() != nullptr) {
      PyErr_Clear();
      throw fail(named + " = " + py::repr(value).cast<std::string>() + " is not a number");
    }
    if (!std::isfinite(time))
      throw fail(named + " = " + py::repr(value).cast<std::string>() + " is not a finite time");
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", time);
    return std::string(text);
  };
  if (py::isinstance<py::list>(events) || py::isinstance<py::tuple>(events)) {
    for (const py::handle item : events) {
      if (!py::isinstance<py::str>(item)) throw fail("events: an event must be an expression (str), not " + type_of(item));
      models::EventDescription e;
      e.name = "event" + std::to_string(out.size());
      e.expression = item.cast<std::string>();
      out.push_back(std::move(e));
    }
    return out;
  }
  if (!py::isinstance<py::dict>(events)) {
    throw fail("events must be a list of expressions or a dict {name: expression or {\"expr\": ...}}, not " +
               type_of(events));
  }
  for (const auto& [key, value] : events.cast<py::dict>()) {
    models::EventDescription e;
    e.name = py::str(key).cast<std::string>();
    if (py::isinstance<py::str>(value)) {
      e.expression = value.cast<std::string>();
      out.push_back(std::move(e));
      continue;
    }
    if (!py::isinstance<py::dict>(value)) {
      throw fail("event '" + e.name +
                 "' must be an expression (str) or a dict {\"expr\": ..., \"direction\": ..., "
                 "\"action\": ..., \"max\": K, \"assign\": ...}, not " +
                 type_of(value));
    }
    bool have_expression = false;
    for (const auto& [field_key, field] : value.cast<py::dict>()) {
      const std::string name = py::str(field_key).cast<std::string>();
      if (name == "expr" || name == "direction" || name == "action" || name == "assign") {
        if (!py::isinstance<py::str>(field)) throw fail("event '" + e.name + "': " + name + " must be a str, not " + type_of(field));
        const std::string text = field.cast<std::string>();
        if (name == "expr") {
          e.expression = text;
          have_expression = true;
        } else if (name == "assign") {
          // An empty assign means "none" in an EventDescription: refused, as in a model file.
          if (text.empty()) {
            throw fail("event '" + e.name +
                       "' has an empty assign (write \"<state> = <expr>\" statements, "
                       "separated by ';' or line breaks, or leave assign out)");
          }
          e.assign = text;
        } else {
          (name == "direction" ? e.direction : e.action) = text;
        }
      } else if (name == "at") {
        if (py::isinstance<py::str>(field) || !py::isinstance<py::sequence>(field)) {
          throw fail("event '" + e.name +
                     "': at must be a list of times (numbers or expressions, str), not " + type_of(field));
        }
        const py::sequence times = field.cast<py::sequence>();
        if (times.size() == 0) {
          throw fail("event '" + e.name +
                     "': at = [] lists no times (give at least one, or leave the event out)");
        }
        for (std::size_t k = 0; k < times.size(); ++k) {
          e.at.push_back(time_text(e.name, "at[" + std::to_string(k) + "]", times[k]));
        }
      } else if (name == "every" || name == "start") {
        (name == "every" ? e.every : e.start) = time_text(e.name, name, field);
      } else if (name == "max") {
        if (!py::isinstance<py::int_>(field) || py::isinstance<py::bool_>(field)) {
          throw fail("event '" + e.name + "': max must be an int, not " + type_of(field));
        }
        const long long k = PyLong_AsLongLong(field.ptr());
        if (k == -1 && PyErr_Occurred() != nullptr) {
          PyErr_Clear();
          throw fail("event '" + e.name + "': max = " + py::repr(field).cast<std::string>() + " is out of range");
        }
        e.max = k;
      } else {
        throw fail("event '" + e.name + "': unknown key '" + name +
                   "' (an event has expr, direction, action, max and assign; or at, or every and start, in "
                   "place of expr)");
      }
    }
    if (!have_expression && e.at.empty() && e.every.empty() && e.start.empty()) {
      throw fail("event '" + e.name +
                 "' has no \"expr\" (a zero crossing), \"at\" or \"every\" with \"start\" "
                 "(given times)");
    }
    out.push_back(std::move(e));
  }
  return out;
}

py::array_t<double> values_of(const std::vector<models::NamedValue>& values) {
  py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) out.mutable_at(static_cast<py::ssize_t>(i)) = values[i].value;
  return out;
}

std::vector<std::string> names_of(const std::vector<models::NamedValue>& values) {
  std::vector<std::string> out;
  for (const models::NamedValue& v : values) out.push_back(v.name);
  return out;
}

}  // namespace

void bind_models(py::module_& m) {
  py::class_<PyModel, std::shared_ptr<PyModel>>(m, "Model", R"doc(
A model written as equations, parsed and checked now, compiled at its first solve.

Parameters
----------
equations : str
    One statement per line: ``d<state> = <expr>`` for every state, ``name = <expr>`` for
    auxiliaries and ``0 = <expr>`` for every algebraic variable.
states : dict
    ``{name: default initial value}``; the order is the state index.
parameters : dict, optional
    ``{name: default value}`` of the values that vary per run (order = parameter index).
constants : dict, optional
    ``{name: value}`` compiled into the code.
name : str, optional
    The model's name (messages, the compiled-model cache).
observables : list of str, optional
    Auxiliaries saved beside the state at every save (``r.observables``, ``r.observable_names``).
events : dict or list, optional
    As a model file's ``[events]``: ``{name: expression}`` or ``{name: {"expr", "direction":
    "rising" | "falling" | "both", "action": "record" | "terminal", "max": K, "assign":
    "<target> = <expr>; ..."}}``, or a list of expressions. ``assign`` applies its statements when
    the event fires, simultaneously (every right side from the values before it); a target is a
    state or a parameter (the run's own copy). An event at given times has ``"at": [times]`` or
    ``"every": period`` with ``"start": first time`` in place of ``"expr"`` and ``"direction"``,
    each time a number or an expression (str) in the parameters and constants: the steps land on
    each.
drivers : list of str, optional
    Time-varying inputs the equations read; their samples are given when solving
    (``drivers={"u": samples, "dt": h, ...}``).
algebraic : dict, optional
    ``{name: initial guess}`` of algebraic variables (a semi-explicit index-1 DAE: the ``0 =``
    lines' residuals must determine them); they are the last states (``n_states`` counts them,
    ``state_names`` and ``default_y0`` end with them).

Raises
------
batchode.ModelError
    For any mistake in the model, with its line and column.

Examples
--------
::

    Model(equations="dx = -k * x", states={"x": 1.0}, parameters={"k": 0.5},
          name="decay",
          events={"half": {"expr": "x - 0.5", "direction": "falling", "action": "terminal"}})
    Model(equations="dy1 = -y1 + y2 * y3\ndy2 = y1 - y2 * y3\n0 = y1 + y2 + y3 - 1",
          states={"y1": 1.0, "y2": 0.0}, algebraic={"y3": 0.0})
)doc")
      .def(py::init([](const std::string& equations, const py::object& states, const py::object& parameters,
                       const py::object& constants, const std::string& name,
                       const std::vector<std::string>& observables, const py::object& events,
                       const std::vector<std::string>& drivers, const py::object& algebraic) {
             models::ModelDescription d;
             d.name = name;
             d.equations = equations;
             d.states = named_values(states, "states");
             d.algebraic = named_values(algebraic, "algebraic");
             d.parameters = named_values(parameters, "parameters");
             d.constants = named_values(constants, "constants");
             d.observables = observables;
             d.events = event_descriptions(events);
             for (const std::string& driver : drivers)
               d.drivers.push_back({driver, {}, {}, {}, 1, "natural", false, true});
             const QuietAtDefaultLevel quiet;
             return std::make_shared<PyModel>(models::parse_model(d));
           }),
           py::arg("equations"), py::arg("states"), py::arg("parameters") = py::none(),
           py::arg("constants") = py::none(), py::arg("name") = "model",
           py::arg("observables") = std::vector<std::string>{}, py::arg("events") = py::none(),
           py::arg("drivers") = std::vector<std::string>{}, py::arg("algebraic") = py::none())
      .def_static(
          "from_toml",
          [](const std::string& text, const std::string& source) {
            const QuietAtDefaultLevel quiet;
            return std::make_shared<PyModel>(models::parse_model(models::read_model_toml(text, source)));
          },
          py::arg("text"), py::arg("source") = "<string>",
          "A model from the text of a TOML model file (the format of examples/models/*.toml).\n\n"
          "Parameters\n----------\ntext : str\n    The file's text.\nsource : str, optional\n"
          "    The name messages give it (a file name).\n\nReturns\n-------\nModel\n\n"
          "Raises\n------\nbatchode.ModelError\n    For any mistake, with its line and column in `source`.")
      .def_property_readonly(
          "name", [](const PyModel& p) { return p.model().name(); }, "The model's name.")
      .def_property_readonly(
          "n_states", [](const PyModel& p) { return p.model().n_states(); },
          "The states, algebraic variables included (they are the last n_algebraic).")
      .def_property_readonly(
          "n_algebraic", [](const PyModel& p) { return p.model().n_algebraic(); },
          "The number of algebraic variables ([algebraic]), which are the last of the states.")
      .def_property_readonly(
          "n_parameters", [](const PyModel& p) { return p.model().n_params(); },
          "The parameters: the values that vary per run.")
      .def_property_readonly(
          "state_names", [](const PyModel& p) { return names_of(p.model().states()); },
          "The states' names in state order, the algebraic variables last.")
      .def_property_readonly(
          "algebraic_names", [](const PyModel& p) { return names_of(p.model().description().algebraic); },
          "The algebraic variables' names in declaration order (state_names' last).")
      .def_property_readonly(
          "parameter_names", [](const PyModel& p) { return names_of(p.model().parameters()); },
          "The parameters' names in parameter order.")
      .def_property_readonly(
          "observables", [](const PyModel& p) { return p.model().observables(); },
          "The auxiliaries saved beside the state at every save (r.observables).")
      .def_property_readonly(
          "driver_names",
          [](const PyModel& p) {
            std::vector<std::string> names;
            for (const models::DriverDescription& u : p.model().drivers()) names.push_back(u.name);
            return names;
          },
          "The names of the time-varying inputs the equations read ([drivers]), whose samples a solve's\n"
          "drivers= gives.")
      .def_property_readonly(
          "constants",
          [](const PyModel& p) {
            py::dict out;
            for (const models::NamedValue& c : p.model().constants()) out[py::str(c.name)] = c.value;
            return out;
          },
          "The constants compiled into the code, {name: value}.")
      .def_property_readonly(
          "default_y0", [](const PyModel& p) { return values_of(p.model().states()); },
          "The [states] values, then the [algebraic] guesses, in state order (float64).")
      .def_property_readonly(
          "default_parameters", [](const PyModel& p) { return values_of(p.model().parameters()); },
          "The [parameters] values, in parameter order (float64).")
      .def_property_readonly(
          "equations", [](const PyModel& p) { return p.model().description().equations; },
          "The equations' text as written.")
      .def_property_readonly(
          "events",
          [](const PyModel& p) {
            py::dict out;
            for (const models::EventDescription& e : p.model().events()) {
              py::dict spec;
              if (!e.at.empty() || !e.every.empty()) {  // at given times
                if (!e.at.empty()) spec["at"] = e.at;
                if (!e.every.empty()) {
                  spec["every"] = e.every;
                  spec["start"] = e.start;
                }
              } else {
                spec["expr"] = e.expression;
                spec["direction"] = e.direction;
              }
              spec["action"] = e.action;
              spec["max"] = e.max;
              if (!e.assign.empty()) spec["assign"] = e.assign;
              out[py::str(e.name)] = spec;
            }
            return out;
          },
          "The model's events in order, a dict from each name to its spec (the keys \"expr\",\n"
          "\"direction\", \"action\", \"max\", and \"assign\" for an event that changes the state or\n"
          "parameters when it fires); an event at given times has \"at\" (the times as expressions, str)\n"
          "or \"every\" and \"start\" in place of expr and direction.")
      .def_property_readonly(
          "source", [](const PyModel& p) { return p.model().description().source; },
          "Where the model came from: its file's path, or \"<string>\".")
      .def_property_readonly(
          "sparsity", [](const PyModel& p) { return models::describe_sparsity(p.model()); },
          "The Jacobian's sparsity, as `batchode check` prints it.")
      .def("__repr__", [](const PyModel& p) {
        const std::size_t n_algebraic = p.model().n_algebraic();
        const std::string algebraic =
            n_algebraic > 0 ? " (" + std::to_string(n_algebraic) + " algebraic)" : std::string();
        return "<batchode.Model '" + p.model().name() + "': " + std::to_string(p.model().n_states()) +
               " states" + algebraic + ", " + std::to_string(p.model().n_params()) + " parameters>";
      });

  m.def(
      "load_model",
      [](const std::string& path) {
        const QuietAtDefaultLevel quiet;
        return std::make_shared<PyModel>(load_model(path));
      },
      py::arg("path"),
      "Reads, parses and checks a TOML model file (timed as model_parse).\n\n"
      "Parameters\n----------\npath : str\n    The file (examples/models/*.toml shows the format).\n\n"
      "Returns\n-------\nModel\n\nRaises\n------\nbatchode.ModelError\n"
      "    A file that cannot be read, or any mistake in it, with its line and column.");
}

}  // namespace batchode::python
