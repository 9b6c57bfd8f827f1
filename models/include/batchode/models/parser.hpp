// models/: the equations' grammar, turned into expression trees with every mistake reported at its
// line and column in the model file. One statement per line:
//   d<state> = <expr>     the state's equation (every state exactly once)
//   <name> = <expr>       an auxiliary, usable in later lines; one named d<name> with no state <name>
//                         must be read (by a later line, an event or observables), else it is refused
//                         as the equation of a state never declared
//   0 = <expr>            an algebraic equation (a residual): one per [algebraic] variable, which are
//                         read like states (their value) and have no d<name> line
// <expr>: numbers, names, + - * /, ^ and ** (right-associative, tighter than unary minus: -x^2 is
// -(x^2)), unary - and +, parentheses, function calls, and ifelse(condition, a, b) whose condition
// compares (< > <= >= == !=) and joins (and, or, not); conditions appear nowhere else.
#pragma once

#include <string>
#include <vector>

#include "batchode/models/expression.hpp"
#include "batchode/models/model_description.hpp"
#include "batchode/models/model_error.hpp"

namespace batchode::models {

/// An auxiliary: `name = value`, defined on `where`'s line.
struct Auxiliary {
  std::string name;
  ExprPtr value;
  SourceLocation where;
};

/// One statement `<name> = <expr>` of an event's `assign` (model_description.hpp): when the event fires,
/// differential state or parameter `index` becomes `value`, computed from the state and parameters
/// before the event (an event's statements are simultaneous: every value is computed before any is
/// stored). A parameter assigned is the run's own copy: its later steps, events and times read the new
/// value.
struct EventAssignment {
  bool parameter = false;  ///< the target is a parameter (else a differential state)
  std::size_t index = 0;   ///< into the states (never an algebraic variable) or the parameters
  ExprPtr value;
  SourceLocation where;  ///< the target's name in the statement
};

/// An event at given times (EventDescription's at, or every and start) as trees that read parameters,
/// constants and numbers only (the language's functions too): its times are fixed per run.
struct EventTimes {
  std::vector<ExprPtr> at;  ///< at's times in written order; empty for every and for a crossing
  ExprPtr every, start;     ///< every's period and first time; null for at and for a crossing
  bool timed() const { return !at.empty() || every != nullptr; }
};

/// The equations as trees.
struct ParsedEquations {
  std::vector<Auxiliary> auxiliaries;  ///< in order of definition (index = ExprKind::auxiliary's index)
  /// rhs[i]: d(state i)/dt for the differential states, then the `0 =` lines' residuals (written order
  /// here; parse_model reorders them to match the algebraic variables: Model::n_algebraic).
  std::vector<ExprPtr> rhs;
  std::vector<SourceLocation> rhs_where;  ///< where each state's equation starts (a residual: at its 0)
  /// events[e]: event function e (ModelDescription::events); null for an event at given times.
  std::vector<ExprPtr> events;
  /// event_times[e]: event e's times (EventTimes::timed), or none for a crossing; as many entries as
  /// events.
  std::vector<EventTimes> event_times;
  /// event_assignments[e]: event e's `assign` statements in written order, empty for an event without
  /// one; as many entries as events.
  std::vector<std::vector<EventAssignment>> event_assignments;
};

/// Parses `d.equations`, then each event's expression (one line, in the same grammar as a statement's
/// value, with every auxiliary in scope) or its times (each one line in that grammar, reading parameters,
/// constants and numbers only: a state, t, a driver or an auxiliary is refused at its place) and its
/// `assign` statements (their values in that grammar too). The declarations (states, parameters,
/// constants) must already be checked (unique, not reserved: parse_model does it), and the events' keys
/// (an event with at or every has no expression). Throws ModelError at the offending line and column (an
/// event's: ModelDescription::locations "events.<i>.expr", "events.<i>.at.<k>", "events.<i>.every",
/// "events.<i>.start" or "events.<i>.assign", else the source).
ParsedEquations parse_equations(const ModelDescription& d);

/// The file position of the character at (line, column) of the equations' text (both 1-based).
SourceLocation equations_location(const ModelDescription& d, std::size_t line, std::size_t column);

}  // namespace batchode::models
