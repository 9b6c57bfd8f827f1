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

/// One statement `<state> = <expr>` of an event's `assign` (model_description.hpp): when the event fires,
/// differential state `state` becomes `value`, computed from the state before the event (an event's
/// statements are simultaneous: every value is computed before any is stored).
struct EventAssignment {
  std::size_t state = 0;  ///< index into the states (never an algebraic variable)
  ExprPtr value;
  SourceLocation where;  ///< the state's name in the statement
};

/// The equations as trees.
struct ParsedEquations {
  std::vector<Auxiliary> auxiliaries;  ///< in order of definition (index = ExprKind::auxiliary's index)
  /// rhs[i]: d(state i)/dt for the differential states, then the `0 =` lines' residuals (written order
  /// here; parse_model reorders them to match the algebraic variables: Model::n_algebraic).
  std::vector<ExprPtr> rhs;
  std::vector<SourceLocation> rhs_where;  ///< where each state's equation starts (a residual: at its 0)
  std::vector<ExprPtr> events;            ///< events[e]: event function e (ModelDescription::events)
  /// event_assignments[e]: event e's `assign` statements in written order, empty for an event without
  /// one; as many entries as events.
  std::vector<std::vector<EventAssignment>> event_assignments;
};

/// Parses `d.equations`, then each event's expression (one line, in the same grammar as a statement's
/// value, with every auxiliary in scope) and its `assign` statements (their values in that grammar too).
/// The declarations (states, parameters, constants) must already be checked (unique, not reserved:
/// parse_model does it). Throws ModelError at the offending line and column (an event's:
/// ModelDescription::locations "events.<i>.expr" or "events.<i>.assign", else the source).
ParsedEquations parse_equations(const ModelDescription& d);

/// The file position of the character at (line, column) of the equations' text (both 1-based).
SourceLocation equations_location(const ModelDescription& d, std::size_t line, std::size_t column);

}  // namespace batchode::models
