// models/: a model as written, before any checking: the C++ value type that a TOML model file, the
// command line and C++ code all fill in, and the TOML reader (model_toml.cpp). parse_model (model.hpp)
// checks it and turns the equations into expression trees.
//
// A TOML model file:
//   name = "lorenz"
//   equations = """
//   dx = sigma * (y - x)
//   dy = x * (rho - z) - y
//   dz = x * y - beta * z
//   """
//   observables = []          # optional: auxiliaries to save
//   [states]                  # name = default initial value (declaration order = state index)
//   x = 1.0
//   y = 0.0
//   z = 0.0
//   # [algebraic]             # optional, a semi-explicit index-1 DAE: algebraic variables, name =
//   # w = 0.0                 # initial guess, each determined by one equation line `0 = <expr>` (a
//   #                         # residual they make zero: 0 = w - x * y), as many lines as variables
//   [parameters]              # optional: vary per run; default values
//   rho = 28.0
//   [constants]               # optional: compiled into the code
//   sigma = 10.0
//   beta = 2.6666666666666665
//   [events]                  # optional: zero crossings of g(t, y, p) or given times, at most 8
//   x_zero = { expr = "x", direction = "rising", action = "record", max = 4 }
//   spike = { expr = "x - 30", direction = "rising", assign = "x = -65; y = y + rho" }
//   # assign (optional): `<name> = <expr>` statements, separated by `;` or line breaks, applied when the
//   # event fires (at the located crossing), after which integration restarts from the new state; a
//   # terminal event applies them, then ends the run. <name> is a differential state or a parameter (a
//   # switch: `on = { at = [10], assign = "rate = 5" }`); an assigned parameter is the run's own copy,
//   # which its later steps, events and event times read from then on (results report the parameters
//   # each run started with). Simultaneous (as SBML's event assignments): every right side is evaluated
//   # with the state and parameters before the event (and the auxiliaries computed from them), then all
//   # are stored, so "x = y; y = x" swaps x and y, and "x = rho; rho = x" a state and a parameter.
//   # or, without [events]: events = ["x", "z - 27"]  (named event0, event1, ...; both ways, recorded once)
//   kick = { every = "rho", start = 8, assign = "x = x + 1", max = 20 }   # at given times (no expr):
//   probe = { at = [8, 32, "56 * beta"] }
//   # at: the times, increasing (numbers, or expressions in quotes); every (> 0) with start: start,
//   # start + every, start + 2 every, ... The steps land on each time in the solve's span, where the event
//   # is recorded (the state before its assign), its assign applied and a terminal one ends the run. The
//   # times read parameters, constants and numbers only (fixed per run: no state, t, driver or
//   # auxiliary); a parameter gives each run its own. Such an event has no expr and no direction.
//   [drivers]                 # optional: time-varying inputs, read by name in the equations
//   u = { dt = 0.5, values = [0.0, 1.0, 0.0], order = 1 }   # samples here (uniform from t0, or times =
// [...])
//   w = {}                    # or given when solving (SolveOptions::drivers, Python drivers=)
//   # a driver table's keys: values, dt or times, order (1 or 3), end ("natural", "clamped",
//   # "periodic", "not-a-knot"), wrap (true: a periodic signal), land (false: steps may straddle samples)
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batchode/models/model_error.hpp"

namespace batchode::models {

/// A declared name with its value (a state's default initial value, a parameter's default, a constant).
struct NamedValue {
  std::string name;
  double value = 0;
};

/// An event function as written: a zero crossing of `expression` (in t, the states, parameters,
/// constants and auxiliaries) is the event, or, with `at` or `every` instead (expression empty), given
/// times are. The words are checked by parse_model.
struct EventDescription {
  std::string name;
  std::string expression;          ///< empty for an event at given times
  std::string direction = "both";  ///< "rising", "falling" or "both"
  std::string action = "record";   ///< "record" (the first `max` crossings) or "terminal" (ends the run)
  long long max = 1;               ///< crossings stored per run, at least 1
  /// `<name> = <expr>` statements (`;` or line breaks between them; name: a differential state or a
  /// parameter) applied when the event fires, simultaneously (see the TOML format above); empty: the
  /// event leaves the state and the parameters alone.
  std::string assign;
  /// An event at given times (see the TOML format above): its times in increasing order, each an
  /// expression in the parameters, constants and numbers (a number from a file is written back as text,
  /// %.17g, so it reads as the same double); empty: none.
  std::vector<std::string> at;
  /// Or start + i * every, i = 0, 1, ...: `every` (> 0) and `start`, expressions as `at`'s, both or
  /// neither; empty: none.
  std::string every;
  std::string start;
};

/// A driver (a time-varying input) as written: its name, and its samples when the file gives them
/// (else they are given when solving). read_model_toml checks a file's samples and settings at their
/// line and column by the rules the fit applies (checks/driver_rules.hpp); the fit
/// (solver/setup/driver_inputs.hpp) checks them again for descriptions filled in by code, and against the
/// solve's span.
struct DriverDescription {
  std::string name;
  std::vector<double> values;  ///< empty: given when solving
  std::vector<double> times;   ///< the samples' times, or empty with dt
  std::optional<double> dt;    ///< uniform samples from the solve's t0
  int order = 1;               ///< 1: linear, 3: cubic spline
  std::string end = "natural";  ///< a cubic spline's ends
  bool wrap = false;
  bool land = true;  ///< adaptive steps end on the samples' times (SolveOptions' DriverSpec::land)
};

/// A model as written: from a TOML file, or filled in by C++ code.
struct ModelDescription {
  std::string name;
  std::string equations;                 ///< the equation text, one statement per line
  std::vector<NamedValue> states;        ///< declaration order = state index; value = default initial value
  /// Algebraic variables, in declaration order (after the states in Model::states()); value = initial guess.
  std::vector<NamedValue> algebraic;
  std::vector<NamedValue> parameters;    ///< vary per run; value = default
  std::vector<NamedValue> constants;     ///< compiled into the code
  std::vector<std::string> observables;  ///< names of auxiliaries to save
  std::vector<EventDescription> events;  ///< in the file's order (= the event functions' order)
  std::vector<DriverDescription> drivers;  ///< in the file's order (= the drivers' order)
  std::string source = "<string>";       ///< file name for messages
  std::size_t equations_line = 1, equations_column = 1;  ///< where equations' first character is in source
  /// Where declarations were written, for messages (read_model_toml fills it; C++ code may leave it
  /// empty, and messages then name `source` only). Keys: "name", "equations", "observables", "states",
  /// "algebraic" (the tables), "states.<name>", "algebraic.<name>", "parameters.<name>",
  /// "constants.<name>", "observables.<index>", and per event index i "events.<i>" (its name or list
  /// entry), "events.<i>.expr" (the expression's first character), "events.<i>.direction",
  /// "events.<i>.action", "events.<i>.max", "events.<i>.assign" (the first character of its text, as
  /// for expr), "events.<i>.at" (the array), "events.<i>.at.<k>", "events.<i>.every" and
  /// "events.<i>.start" (the first character of a string's text, or the number); "drivers.<name>".
  std::map<std::string, SourceLocation> locations;
};

/// Reads a TOML model file's text (format above). `source` names it in messages. Throws ModelError
/// naming line and column for TOML syntax errors, unknown top-level keys, values of the wrong type
/// and a missing `name`, `equations` or `[states]`, an event with none of expr, at and every, or with a
/// time that is not finite or an empty at (at the value), and a driver whose samples or settings break the
/// rules of checks::driver_problem (at the key or the entry at fault) or whose end is no spline end.
/// The equations themselves are checked by
/// parse_model. equations_line/column point at the first character of the equations' text: for a
/// multi-line string ("""...""" or '''...''') whose opening delimiter ends its line, column 1 of the
/// next line. Escapes in basic strings ("\t", a line-ending backslash) make later columns of that line
/// (or later lines) differ from the file's; literal strings have none.
ModelDescription read_model_toml(std::string_view text, const std::string& source = "<string>");

/// Reads and decodes a TOML model file (read_model_toml). Throws ModelError naming the path and the
/// operating system's reason when it cannot be read.
ModelDescription read_model_file(const std::string& path);

}  // namespace batchode::models
