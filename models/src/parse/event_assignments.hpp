// models/src/parse/ (private): an event's `assign` (model_description.hpp): its text split into
// `<name> = <expr>` statements, each left side checked to be a differential state or a parameter assigned
// once, each right side parsed by the equations' parser (parser.cpp passes it in, with every auxiliary in
// scope), and every mistake reported at its line and column inside the assign string.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "batchode/models/lexer.hpp"
#include "batchode/models/model_description.hpp"
#include "batchode/models/parser.hpp"

namespace batchode::models {

/// A statement's value: the expression from token `first` to the end of `tokens` (one line, whose first
/// character is at `line_start`), a number and never a condition; throws ModelError as the equations do.
using StatementValueParser = std::function<ExprPtr(const std::vector<Token>& tokens, std::size_t first,
                                                   const SourceLocation& line_start)>;

/// Event `event`'s assign statements in written order (empty when d.events[event].assign is). Throws
/// ModelError at the place in the assign string (ModelDescription::locations "events.<i>.assign") for an
/// empty assign, a statement without `=` or with nothing on either side, a left side that is neither a
/// differential state nor a parameter (unknown, t, an algebraic variable, a constant, a driver or one of
/// `auxiliaries`: each named), a state or a parameter assigned twice, and any mistake of a right side
/// (`parse_value`).
std::vector<EventAssignment> parse_event_assignments(const ModelDescription& d, std::size_t event,
                                                     const std::vector<Auxiliary>& auxiliaries,
                                                     const StatementValueParser& parse_value);

}  // namespace batchode::models
