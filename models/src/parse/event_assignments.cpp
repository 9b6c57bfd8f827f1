// models/src/parse/: parse_event_assignments (event_assignments.hpp). The assign string is cut into lines, a `#`
// comment is dropped, and each line is cut at `;` before the lexer sees it (';' is no token of the
// equations' language); every piece keeps its own start in the file, so the lexer's and the parser's
// columns land inside the assign string as they do in the equations.
#include "event_assignments.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

namespace batchode::models {

namespace {

/// The character column just past the first `bytes` bytes of `text` (UTF-8: continuation bytes do not
/// count), so a piece after a non-ASCII comment or name still gets the file's column.
std::size_t column_after(std::string_view text, std::size_t bytes) {
  std::size_t column = 1;
  for (std::size_t i = 0; i < bytes && i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
  }
  return column;
}

/// Where line `k` (0-based) of the assign text starts: its first line where the text starts, the next
/// ones at column 1 of the following file lines (a multi-line string).
SourceLocation line_start_of(const SourceLocation& start, std::size_t k) {
  if (k == 0 || start.line == 0) return start;
  return {start.source, start.line + k, 1};
}

std::string names(const std::vector<NamedValue>& values) {
  std::string text;
  for (const NamedValue& v : values) text += (text.empty() ? "" : ", ") + v.name;
  return text;
}

bool declared(const std::vector<NamedValue>& values, const std::string& name) {
  return std::any_of(values.begin(), values.end(), [&](const NamedValue& v) { return v.name == name; });
}

/// Why `name` cannot be assigned, or "" when it is a differential state or a parameter.
std::string not_assignable(const ModelDescription& d, const std::vector<Auxiliary>& auxiliaries,
                           const std::string& name) {
  const std::string only = "only a differential state or a parameter can be assigned: '" + name + "' is ";
  if (name == "t") return only + "the time";
  if (declared(d.states, name) || declared(d.parameters, name)) return "";
  if (declared(d.algebraic, name)) {
    return only + "an algebraic variable (its `0 =` equation determines it)";
  }
  if (declared(d.constants, name)) {
    return only + "a constant (compiled in: make it a parameter to assign it)";
  }
  for (const DriverDescription& u : d.drivers) {
    if (u.name == name) return only + "a driver";
  }
  for (const Auxiliary& a : auxiliaries) {
    if (a.name == name) return only + "an auxiliary (computed from the state, it follows the new one)";
  }
  return "unknown state or parameter '" + name + "' (states: " + names(d.states) +
         (d.parameters.empty() ? "; no parameters" : "; parameters: " + names(d.parameters)) + ")";
}

/// `name`'s index in `values` (declared: not_assignable said so).
std::size_t index_of(const std::vector<NamedValue>& values, const std::string& name) {
  return static_cast<std::size_t>(
      std::find_if(values.begin(), values.end(), [&](const NamedValue& v) { return v.name == name; }) -
      values.begin());
}

}  // namespace

std::vector<EventAssignment> parse_event_assignments(const ModelDescription& d, std::size_t event,
                                                     const std::vector<Auxiliary>& auxiliaries,
                                                     const StatementValueParser& parse_value) {
  const EventDescription& spec = d.events[event];
  std::vector<EventAssignment> out;
  if (spec.assign.empty()) return out;
  const auto located = d.locations.find("events." + std::to_string(event) + ".assign");
  const SourceLocation start =
      located != d.locations.end() ? located->second : SourceLocation{d.source, 0, 0};
  const std::string what = "event '" + spec.name + "'";

  const std::string_view text = spec.assign;
  std::size_t line_begin = 0;
  for (std::size_t k = 0; line_begin <= text.size(); ++k) {
    const std::size_t nl = text.find('\n', line_begin);
    std::string_view line =
        text.substr(line_begin, nl == std::string_view::npos ? std::string_view::npos : nl - line_begin);
    line = line.substr(0, line.find('#'));  // a comment may hold ';'
    const SourceLocation line_start = line_start_of(start, k);
    std::size_t piece_begin = 0;
    while (piece_begin <= line.size()) {
      const std::size_t semicolon = line.find(';', piece_begin);
      const std::size_t piece_end = semicolon == std::string_view::npos ? line.size() : semicolon;
      const SourceLocation piece_start = column_location(line_start, column_after(line, piece_begin));
      const std::vector<Token> tokens =
          tokenize_line(line.substr(piece_begin, piece_end - piece_begin), piece_start);
      piece_begin = piece_end + 1;
      if (tokens.front().kind == TokenKind::end) continue;  // blank: "x = 1;" or an empty line
      const Token& lhs = tokens[0];
      auto at = [&](const Token& token) { return column_location(piece_start, token.column); };
      if (lhs.kind != TokenKind::identifier) {
        throw ModelError(at(lhs), what + ": expected a statement `<state> = <expr>` in assign, found " +
                                      describe(lhs) +
                                      (lhs.kind == TokenKind::assign ? " with no state before it" : ""));
      }
      if (tokens[1].kind != TokenKind::assign) {
        throw ModelError(at(tokens[1]), what + ": expected '=' after '" + lhs.text + "' in assign, found " +
                                            (tokens[1].kind == TokenKind::end ? "the end of the statement"
                                                                              : describe(tokens[1])) +
                                            " (a statement is `<state> = <expr>`)");
      }
      const std::string problem = not_assignable(d, auxiliaries, lhs.text);
      if (!problem.empty()) throw ModelError(at(lhs), what + ": " + problem);
      const bool parameter = declared(d.parameters, lhs.text);
      const std::size_t index = index_of(parameter ? d.parameters : d.states, lhs.text);
      const std::string kind = parameter ? "parameter" : "state";
      for (const EventAssignment& before : out) {
        if (before.parameter != parameter || before.index != index) continue;
        throw ModelError(at(lhs),
                         what + " assigns " + kind + " '" + lhs.text + "' twice (first in statement " +
                             std::to_string(&before - out.data() + 1) +
                             (before.where.line != 0 ? ", at line " + std::to_string(before.where.line) +
                                                           ", column " + std::to_string(before.where.column)
                                                     : std::string()) +
                             "; its statements are simultaneous: give one value per " + kind + ")");
      }
      EventAssignment assignment;
      assignment.parameter = parameter;
      assignment.index = index;
      assignment.where = at(lhs);
      assignment.value = parse_value(tokens, 2, piece_start);
      out.push_back(std::move(assignment));
    }
    if (nl == std::string_view::npos) break;
    line_begin = nl + 1;
  }
  if (out.empty()) {
    throw ModelError(start, what +
                                " has an empty assign (write `<state> = <expr>` statements, separated by "
                                "';' or line breaks, or leave assign out)");
  }
  return out;
}

}  // namespace batchode::models
