// models/src/parse/: the recursive-descent parser of the equations (grammar in parser.hpp). Conditions and
// numbers are parsed by one grammar and told apart by the node they produce, so a comparison in the
// wrong place gets a message about where comparisons may go rather than a bare "unexpected '<'".
// Nesting is bounded (kMaxNesting, kMaxDepth): a hostile file cannot exhaust the stack here or in the
// recursive passes that walk the trees later.
#include "batchode/models/parser.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "algebraic.hpp"
#include "batchode/checks/identifier.hpp"
#include "batchode/models/lexer.hpp"
#include "event_assignments.hpp"

namespace batchode::models {

namespace {

constexpr std::size_t kMaxNesting = 200;  // parentheses, calls, unary operators and exponents in a row
constexpr std::size_t kMaxDepth = 1000;   // operations on the longest path from a statement to a leaf

struct Symbol {
  ExprKind kind;
  std::size_t index;
};

/// What is known while the lines are parsed in order.
struct Scope {
  const ModelDescription& d;
  std::map<std::string, Symbol, std::less<>> symbols;               // declarations and the auxiliaries so far
  std::map<std::string, std::size_t, std::less<>> auxiliary_lines;  // every auxiliary's first line
  std::vector<std::string> auxiliary_names;                         // defined so far, in order
};

struct Parsed {
  ExprPtr expr;
  std::size_t column = 0;     // of its first token
  std::size_t op_column = 0;  // a condition: its operator's (where messages about it point)
  std::size_t depth = 1;
};

/// "a, b, c", or the first 20 and "... (n more)": a model may have hundreds of names.
std::string joined(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 20;
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < kShown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > kShown) text += ", ... (" + std::to_string(names.size() - kShown) + " more)";
  return text;
}

std::string name_list(const char* what, const std::vector<std::string>& names) {
  if (names.empty()) return "";
  return std::string(what) + " " + joined(names) + "; ";
}

/// Levenshtein distance (names are short: the quadratic table is nothing).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// " (did you mean 'x'?)" for the closest candidate within a third of the name's length, else "" (and
/// for names under 3 characters, where every other short name would be a guess).
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  if (name.size() < 3) return "";
  const std::size_t limit = std::max<std::size_t>(1, name.size() / 3);
  std::size_t best = limit + 1;
  std::string choice;
  for (const std::string& c : candidates) {
    const std::size_t distance = edit_distance(name, c);
    if (distance < best) {
      best = distance;
      choice = c;
    }
  }
  return choice.empty() ? "" : " (did you mean '" + choice + "'?)";
}

std::vector<std::string> names_of(const std::vector<NamedValue>& values) {
  std::vector<std::string> names;
  for (const NamedValue& v : values) names.push_back(v.name);
  return names;
}

std::vector<std::string> driver_names(const ModelDescription& d) {
  std::vector<std::string> names;
  for (const DriverDescription& u : d.drivers) names.push_back(u.name);
  return names;
}

const char* kind_word(ExprKind kind) {
  switch (kind) {
    case ExprKind::state:
      return "a state";
    case ExprKind::parameter:
      return "a parameter";
    case ExprKind::constant:
      return "a constant";
    case ExprKind::auxiliary:
      return "an auxiliary";
    case ExprKind::driver:
      return "a driver";
    default:
      return "a name";
  }
}

/// kind_word, telling the algebraic variables (states from index d.states.size() on) apart.
std::string symbol_word(const ModelDescription& d, const Symbol& symbol) {
  if (symbol.kind == ExprKind::state && symbol.index >= d.states.size()) return "an algebraic variable";
  return kind_word(symbol.kind);
}

class LineParser {
 public:
  LineParser(const std::vector<Token>& tokens, SourceLocation line_start, const Scope& scope,
             std::size_t line)
      : tokens_(tokens), line_start_(std::move(line_start)), scope_(scope), line_(line) {}

  /// An event's time (its at[k], every or start, named in messages by `what`): statement_value(first)
  /// that reads parameters, constants and numbers only, refusing any other name at its place.
  ExprPtr fixed_value(std::size_t first, const std::string& what) {
    fixed_ = &what;
    return statement_value(first);
  }

  /// The expression from token `first` to the end of the line: a number, never a condition.
  ExprPtr statement_value(std::size_t first) {
    pos_ = first;
    if (peek().kind == TokenKind::end) {
      throw error(peek().column, "expected an expression after '='");
    }
    Parsed value = parse_or();
    if (peek().kind == TokenKind::right_paren) {
      throw error(peek().column, "unbalanced ')': there is no '(' to close");
    }
    if (peek().kind != TokenKind::end) {
      throw error(peek().column, "unexpected " + describe(peek()) +
                                     " after the end of the expression (one statement per line; did you "
                                     "forget an operator?)");
    }
    require_number(value);
    return value.expr;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& take() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  bool at_word(const char* word) const { return at(TokenKind::identifier) && peek().text == word; }

  ModelError error(std::size_t column, const std::string& message) const {
    return ModelError(column_location(line_start_, column), message);
  }
  std::size_t file_column(std::size_t column) const { return column_location(line_start_, column).column; }

  void require_number(const Parsed& p) const {
    if (is_condition(p.expr->kind)) {
      throw error(p.op_column,
                  "a condition (a comparison, and, or, not) is only allowed as the first argument of "
                  "ifelse(condition, a, b)");
    }
  }
  void require_condition(const Parsed& p, const char* where) const {
    if (!is_condition(p.expr->kind)) {
      throw error(p.column, std::string("expected a condition ") + where +
                                " (a comparison such as x < 1: < > <= >= == !=, joined with and, or, not)");
    }
  }

  Parsed combine(ExprKind kind, std::vector<Parsed> operands, std::size_t column,
                 std::size_t op_column) const {
    Parsed r;
    r.column = column;
    r.op_column = op_column;
    std::vector<ExprPtr> args;
    for (Parsed& p : operands) {
      r.depth = std::max(r.depth, p.depth + 1);
      args.push_back(std::move(p.expr));
    }
    if (r.depth > kMaxDepth) {
      throw error(op_column, "expression too deep (more than " + std::to_string(kMaxDepth) +
                                 " nested operations): split it with auxiliaries");
    }
    r.expr = make_node(kind, std::move(args));
    return r;
  }

  // Bounds the parser's recursion: every rule that can call itself without consuming a whole operand
  // goes through one of these.
  struct Nest {
    explicit Nest(LineParser& p) : parser(p) {
      if (++parser.nesting_ > kMaxNesting) {
        throw parser.error(parser.peek().column, "expression nested too deeply (more than " +
                                                     std::to_string(kMaxNesting) + " levels)");
      }
    }
    ~Nest() { --parser.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    LineParser& parser;
  };

  Parsed parse_or() {
    Parsed left = parse_and();
    while (at_word("or")) {
      const Token op = take();
      Parsed right = parse_and();
      require_condition(left, "before 'or'");
      require_condition(right, "after 'or'");
      left = combine(ExprKind::logical_or, {std::move(left), std::move(right)}, left.column, op.column);
    }
    return left;
  }

  Parsed parse_and() {
    Parsed left = parse_not();
    while (at_word("and")) {
      const Token op = take();
      Parsed right = parse_not();
      require_condition(left, "before 'and'");
      require_condition(right, "after 'and'");
      left = combine(ExprKind::logical_and, {std::move(left), std::move(right)}, left.column, op.column);
    }
    return left;
  }

  Parsed parse_not() {
    if (at_word("not")) {
      Nest nest(*this);
      const Token op = take();
      Parsed operand = parse_not();
      require_condition(operand, "after 'not'");
      return combine(ExprKind::logical_not, {std::move(operand)}, op.column, op.column);
    }
    return parse_comparison();
  }

  static bool comparison(TokenKind kind, ExprKind& out) {
    switch (kind) {
      case TokenKind::less:
        out = ExprKind::less;
        return true;
      case TokenKind::greater:
        out = ExprKind::greater;
        return true;
      case TokenKind::less_equal:
        out = ExprKind::less_equal;
        return true;
      case TokenKind::greater_equal:
        out = ExprKind::greater_equal;
        return true;
      case TokenKind::equal:
        out = ExprKind::equal;
        return true;
      case TokenKind::not_equal:
        out = ExprKind::not_equal;
        return true;
      default:
        return false;
    }
  }

  Parsed parse_comparison() {
    Parsed left = parse_additive();
    ExprKind kind{};
    if (!comparison(peek().kind, kind)) return left;
    const Token op = take();
    Parsed right = parse_additive();
    require_number(left);
    require_number(right);
    ExprKind again{};
    if (comparison(peek().kind, again)) {
      throw error(peek().column, "comparisons cannot be chained (a < b < c): write a < b and b < c");
    }
    return combine(kind, {std::move(left), std::move(right)}, left.column, op.column);
  }

  Parsed parse_additive() {
    Parsed left = parse_multiplicative();
    while (at(TokenKind::plus) || at(TokenKind::minus)) {
      const Token op = take();
      Parsed right = parse_multiplicative();
      require_number(left);
      require_number(right);
      left = combine(op.kind == TokenKind::plus ? ExprKind::add : ExprKind::subtract,
                     {std::move(left), std::move(right)}, left.column, op.column);
    }
    return left;
  }

  Parsed parse_multiplicative() {
    Parsed left = parse_unary();
    while (at(TokenKind::star) || at(TokenKind::slash)) {
      const Token op = take();
      Parsed right = parse_unary();
      require_number(left);
      require_number(right);
      left = combine(op.kind == TokenKind::star ? ExprKind::multiply : ExprKind::divide,
                     {std::move(left), std::move(right)}, left.column, op.column);
    }
    return left;
  }

  Parsed parse_unary() {
    if (at(TokenKind::minus) || at(TokenKind::plus)) {
      Nest nest(*this);
      const Token op = take();
      Parsed operand = parse_unary();
      require_number(operand);
      if (op.kind == TokenKind::plus) {
        operand.column = op.column;
        return operand;
      }
      return combine(ExprKind::negate, {std::move(operand)}, op.column, op.column);
    }
    return parse_power();
  }

  Parsed parse_power() {
    Parsed base = parse_primary();
    if (!at(TokenKind::caret)) return base;
    Nest nest(*this);
    const Token op = take();
    Parsed exponent = parse_unary();  // right-associative, and 2^-1 is allowed
    require_number(base);
    require_number(exponent);
    return combine(ExprKind::power, {std::move(base), std::move(exponent)}, base.column, op.column);
  }

  Parsed expected_expression() const {
    const Token& t = peek();
    if (t.kind == TokenKind::end) {
      const Token& before = tokens_[pos_ > 0 ? pos_ - 1 : 0];
      throw error(t.column, "expected an expression after '" + before.text + "', found the end of the line");
    }
    throw error(t.column,
                "expected an expression (a number, a name, a function call or '('), found " + describe(t));
  }

  Parsed parse_primary() {
    const Token& t = peek();
    if (t.kind == TokenKind::number) {
      const Token number = take();
      Parsed p;
      p.expr = make_number(number.value);
      p.column = p.op_column = number.column;
      return p;
    }
    if (t.kind == TokenKind::left_paren) {
      Nest nest(*this);
      const Token open = take();
      Parsed inner = parse_or();
      if (!at(TokenKind::right_paren)) {
        throw error(peek().column, "expected ')' to close the '(' at column " +
                                       std::to_string(file_column(open.column)) + ", found " +
                                       describe(peek()));
      }
      take();
      inner.column = open.column;
      return inner;
    }
    if (t.kind == TokenKind::identifier) {
      const Token name = take();
      if (at(TokenKind::left_paren)) return parse_call(name);
      return symbol(name);
    }
    return expected_expression();
  }

  Parsed symbol(const Token& name) const {
    Parsed p;
    p.column = p.op_column = name.column;
    if (name.text == "t") {
      if (fixed_ != nullptr) throw not_fixed(name, "the time");
      p.expr = make_time();
      return p;
    }
    if (name.text == "and" || name.text == "or" || name.text == "not") {
      throw error(name.column, "expected an expression (a number, a name, a function call or '('), found '" +
                                   name.text + "'");
    }
    if (find_function(name.text) || name.text == "pow" || name.text == "ifelse") {
      throw error(name.column,
                  "function '" + name.text + "' needs its arguments in parentheses: " + name.text + "(...)");
    }
    const auto found = scope_.symbols.find(name.text);
    if (found != scope_.symbols.end()) {
      const ExprKind kind = found->second.kind;
      if (fixed_ != nullptr && kind != ExprKind::parameter && kind != ExprKind::constant) {
        throw not_fixed(name, symbol_word(scope_.d, found->second));
      }
      p.expr = make_symbol(kind, found->second.index);
      return p;
    }
    const auto later = scope_.auxiliary_lines.find(name.text);
    if (later != scope_.auxiliary_lines.end()) {
      if (later->second == line_) {
        throw error(name.column, "auxiliary '" + name.text + "' is used in its own definition");
      }
      throw error(name.column, "auxiliary '" + name.text + "' is used before its definition on line " +
                                   std::to_string(later->second) +
                                   " (an auxiliary is usable in later lines only)");
    }
    throw error(name.column, unknown_symbol_message(name.text));
  }

  /// An event's time reading `name`, which is `word` ("a state", "the time", ...).
  ModelError not_fixed(const Token& name, const std::string& word) const {
    return error(name.column, *fixed_ + " reads '" + name.text + "', " + word +
                                  ": an event's times are fixed per run and may read parameters, constants "
                                  "and numbers only (a parameter gives each run its own times)");
  }

  std::string unknown_symbol_message(const std::string& name) const {
    const ModelDescription& d = scope_.d;
    std::string message = "unknown symbol '" + name + "'";
    if (name.size() > 1 && name[0] == 'd') {
      for (const NamedValue& s : d.states) {
        if (s.name == name.substr(1)) {
          message += " ('" + name + "' names the equation of state '" + s.name + "', not a value)";
          break;
        }
      }
    }
    std::vector<std::string> known = {"t"};
    for (const auto& [symbol, what] : scope_.symbols) known.push_back(symbol);
    message += did_you_mean(name, known);
    message += "; known: " + name_list("states", names_of(d.states)) +
               name_list("algebraic variables", names_of(d.algebraic)) +
               name_list("parameters", names_of(d.parameters)) +
               name_list("constants", names_of(d.constants)) + name_list("drivers", driver_names(d)) +
               name_list("auxiliaries", scope_.auxiliary_names) + "time t";
    return message;
  }

  Parsed parse_call(const Token& name) {
    Nest nest(*this);
    const Token open = take();  // '('
    std::vector<Parsed> args;
    if (!at(TokenKind::right_paren)) {
      while (true) {
        args.push_back(parse_or());
        if (at(TokenKind::comma)) {
          take();
          continue;
        }
        if (at(TokenKind::right_paren)) break;
        throw error(peek().column, "expected ',' or ')' in the arguments of '" + name.text +
                                       "' (opened at column " + std::to_string(file_column(open.column)) +
                                       "), found " + describe(peek()));
      }
    }
    take();  // ')'
    const std::optional<Function> f = find_function(name.text);
    std::size_t arity = 0;
    ExprKind kind = ExprKind::call;
    if (f) {
      arity = function_arity(*f);
    } else if (name.text == "pow") {
      arity = 2;
      kind = ExprKind::power;
    } else if (name.text == "ifelse") {
      arity = 3;
      kind = ExprKind::ifelse;
    } else if (scope_.symbols.count(name.text) != 0) {
      throw error(name.column, "'" + name.text + "' is " +
                                   symbol_word(scope_.d, scope_.symbols.at(name.text)) +
                                   ", not a function (write '" + name.text + " * (...)' to multiply)");
    } else {
      std::string known;
      std::vector<std::string> functions;
      for (const std::string& w : reserved_words()) {
        if (w == "t" || w == "and" || w == "or" || w == "not") continue;
        known += (known.empty() ? "" : ", ") + w;
        functions.push_back(w);
      }
      throw error(name.column, "unknown function '" + name.text + "'" + did_you_mean(name.text, functions) +
                                   "; functions are " + known);
    }
    if (args.size() != arity) {
      throw error(name.column, "function '" + name.text + "' takes " + std::to_string(arity) + " argument" +
                                   (arity == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (kind == ExprKind::ifelse && i == 0) {
        require_condition(args[0], "as the first argument of ifelse");
      } else {
        require_number(args[i]);
      }
    }
    Parsed r = combine(kind, std::move(args), name.column, name.column);
    if (kind == ExprKind::call) r.expr = make_call(*f, r.expr->args);
    return r;
  }

  const std::vector<Token>& tokens_;
  SourceLocation line_start_;
  const Scope& scope_;
  std::size_t line_;  // the file line, for messages about other lines
  std::size_t pos_ = 0;
  std::size_t nesting_ = 0;
  // fixed_value's `what`: names other than parameters and constants are refused.
  const std::string* fixed_ = nullptr;
};

/// The lines of `text` (a trailing '\r' is left to the lexer, which skips it as a blank).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t nl = text.find('\n', begin);
    if (nl == std::string_view::npos) {
      lines.push_back(text.substr(begin));
      break;
    }
    lines.push_back(text.substr(begin, nl - begin));
    begin = nl + 1;
  }
  return lines;
}

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// The name a line assigns to when it looks like `name = ...`, without tokenizing (used to find
/// where each auxiliary is defined before any line is parsed, so a use before the definition says so).
std::string_view assigned_name(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  const std::size_t begin = i;
  if (i >= line.size() || !(word_char(line[i]) && !(line[i] >= '0' && line[i] <= '9'))) return {};
  while (i < line.size() && word_char(line[i])) ++i;
  const std::string_view name = line.substr(begin, i - begin);
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i >= line.size() || line[i] != '=' || (i + 1 < line.size() && line[i + 1] == '=')) return {};
  return name;
}

/// The auxiliaries some tree reads: a later line, an event (its function or its assign), or another
/// auxiliary.
void collect_read_auxiliaries(const Expr& e, std::vector<bool>& read) {
  if (e.kind == ExprKind::auxiliary) read[e.index] = true;
  for (const ExprPtr& arg : e.args) collect_read_auxiliaries(*arg, read);
}

/// A line `d<name> = ...` whose <name> is no state is parsed as an auxiliary. Where nothing reads it
/// (no line, no event, not in observables) it has no effect at all, and was almost surely meant as the
/// equation of a state that was never declared: refused, so `dz = 1` without a state z cannot vanish
/// silently, while an auxiliary such as `drive = b * u` that the equations use stays valid.
void check_unread_derivative_names(const ModelDescription& d, const Scope& scope,
                                   const ParsedEquations& out) {
  std::vector<bool> read(out.auxiliaries.size(), false);
  for (const ExprPtr& rhs : out.rhs) {
    if (rhs) collect_read_auxiliaries(*rhs, read);  // a state without an equation is refused next
  }
  for (const Auxiliary& a : out.auxiliaries) collect_read_auxiliaries(*a.value, read);
  for (const ExprPtr& event : out.events) {
    if (event) collect_read_auxiliaries(*event, read);  // (null: an event at given times)
  }
  for (const auto& assignments : out.event_assignments) {
    for (const EventAssignment& a : assignments) collect_read_auxiliaries(*a.value, read);
  }
  for (std::size_t i = 0; i < out.auxiliaries.size(); ++i) {
    const Auxiliary& a = out.auxiliaries[i];
    const std::string rest = a.name.size() > 1 && a.name[0] == 'd' ? a.name.substr(1) : std::string();
    if (read[i] || !checks::is_identifier(rest) ||
        std::find(d.observables.begin(), d.observables.end(), a.name) != d.observables.end()) {
      continue;
    }
    const auto declared = scope.symbols.find(rest);
    const bool other = declared != scope.symbols.end() && declared->second.kind != ExprKind::auxiliary;
    throw ModelError(a.where,
                     "'" + a.name + "' reads as the derivative of state '" + rest + "', but " +
                         (other ? "'" + rest + "' is " + symbol_word(d, declared->second) + ", not a state"
                                : "the model has no state '" + rest + "'") +
                         " (states: " + joined(names_of(d.states)) + "); " +
                         (other ? "" : "declare " + rest + " under [states], or ") +
                         "rename the auxiliary (an auxiliary named d<name> must be read by a later "
                         "line, an event or observables)");
  }
}

}  // namespace

SourceLocation equations_location(const ModelDescription& d, std::size_t line, std::size_t column) {
  SourceLocation at{d.source, d.equations_line + line - 1, column};
  if (line == 1) at.column = d.equations_column + column - 1;
  return at;
}

ParsedEquations parse_equations(const ModelDescription& d) {
  Scope scope{d, {}, {}, {}};
  std::map<std::string, std::size_t, std::less<>> state_index;
  for (std::size_t i = 0; i < d.states.size(); ++i) {
    scope.symbols[d.states[i].name] = {ExprKind::state, i};
    state_index[d.states[i].name] = i;
  }
  for (std::size_t i = 0; i < d.parameters.size(); ++i)
    scope.symbols[d.parameters[i].name] = {ExprKind::parameter, i};
  for (std::size_t i = 0; i < d.constants.size(); ++i)
    scope.symbols[d.constants[i].name] = {ExprKind::constant, i};
  for (std::size_t i = 0; i < d.drivers.size(); ++i)
    scope.symbols[d.drivers[i].name] = {ExprKind::driver, i};
  // Algebraic variables are states after the differential ones: every later stage treats them alike.
  const std::size_t n_diff = d.states.size();
  for (std::size_t k = 0; k < d.algebraic.size(); ++k)
    scope.symbols[d.algebraic[k].name] = {ExprKind::state, n_diff + k};
  // `d<name> = ...` for an algebraic variable: a state's symbol past the differential ones.
  auto algebraic_equation = [&](std::string_view name) {
    if (name.size() < 2 || name[0] != 'd') return false;
    const auto symbol = scope.symbols.find(name.substr(1));
    return symbol != scope.symbols.end() && symbol->second.kind == ExprKind::state &&
           symbol->second.index >= n_diff;
  };

  auto equation_state = [&](std::string_view name) -> const std::size_t* {
    if (name.size() < 2 || name[0] != 'd') return nullptr;
    const auto it = state_index.find(name.substr(1));
    return it == state_index.end() ? nullptr : &it->second;
  };

  const std::vector<std::string_view> lines = split_lines(d.equations);
  for (std::size_t l = 0; l < lines.size(); ++l) {
    const std::string_view name = assigned_name(lines[l]);
    if (!name.empty() && equation_state(name) == nullptr && !algebraic_equation(name)) {
      scope.auxiliary_lines.emplace(std::string(name), equations_location(d, l + 1, 1).line);
    }
  }

  ParsedEquations out;
  out.rhs.resize(n_diff + d.algebraic.size());
  out.rhs_where.resize(out.rhs.size());
  std::size_t residuals = 0;  // `0 = ...` lines so far: rows n_diff.. in written order (matched later)
  std::map<std::string, std::size_t, std::less<>> defined_on;  // auxiliary -> its line
  for (std::size_t l = 0; l < lines.size(); ++l) {
    const SourceLocation line_start = equations_location(d, l + 1, 1);
    const std::vector<Token> tokens = tokenize_line(lines[l], line_start);
    if (tokens.front().kind == TokenKind::end) continue;  // blank or comment
    const Token& lhs = tokens[0];
    auto error = [&](std::size_t column, const std::string& message) {
      return ModelError(column_location(line_start, column), message);
    };
    if (lhs.kind == TokenKind::number && tokens[1].kind == TokenKind::assign) {
      check_residual_line(d, lhs, line_start, residuals);
      LineParser parser(tokens, line_start, scope, line_start.line);
      out.rhs_where[n_diff + residuals] = column_location(line_start, lhs.column);
      out.rhs[n_diff + residuals++] = parser.statement_value(2);
      continue;
    }
    if (lhs.kind != TokenKind::identifier) {
      const char* statements = "'d<state> = expression', 'name = expression' or '0 = expression'";
      throw error(lhs.column, std::string("expected a statement ") + statements + ", found " + describe(lhs));
    }
    if (tokens[1].kind != TokenKind::assign) {
      throw error(tokens[1].column, "expected '=' after '" + lhs.text + "', found " + describe(tokens[1]));
    }
    LineParser parser(tokens, line_start, scope, line_start.line);
    const SourceLocation where = column_location(line_start, lhs.column);
    if (algebraic_equation(lhs.text)) throw algebraic_with_d_equation(where, lhs.text.substr(1));
    if (const std::size_t* state = equation_state(lhs.text)) {
      if (out.rhs[*state]) {
        throw ModelError(where, "state '" + d.states[*state].name +
                                    "' has two equations (the first is on line " +
                                    std::to_string(out.rhs_where[*state].line) + ")");
      }
      out.rhs_where[*state] = where;
      out.rhs[*state] = parser.statement_value(2);
      continue;
    }
    // An auxiliary.
    if (is_reserved_word(lhs.text)) {
      throw ModelError(where, "'" + lhs.text +
                                  "' is a reserved word (t, and, or, not and the function names) "
                                  "and cannot name an auxiliary");
    }
    const auto declared = scope.symbols.find(lhs.text);
    if (declared != scope.symbols.end()) {
      if (declared->second.kind == ExprKind::auxiliary) {
        throw ModelError(where, "auxiliary '" + lhs.text + "' is defined twice (first on line " +
                                    std::to_string(defined_on.at(lhs.text)) + ")");
      }
      const std::string word = symbol_word(d, declared->second);
      std::string hint;
      if (word == "a state") hint = " (its equation is written 'd" + lhs.text + " = ...')";
      if (word == "an algebraic variable") hint = " (its equation is written '0 = ...')";
      throw ModelError(where, "'" + lhs.text + "' is already declared as " + word + hint +
                                  "; an auxiliary needs a name of its own");
    }
    Auxiliary aux{lhs.text, parser.statement_value(2), where};
    scope.symbols[aux.name] = {ExprKind::auxiliary, out.auxiliaries.size()};
    scope.auxiliary_names.push_back(aux.name);
    defined_on[aux.name] = where.line;
    out.auxiliaries.push_back(std::move(aux));
  }

  auto placed = [&](const std::string& key) {
    const auto located = d.locations.find(key);
    return located != d.locations.end() ? located->second : SourceLocation{d.source, 0, 0};
  };
  // An event's time `what` (at[k], every, start), its text starting at `start`.
  auto fixed = [&](const std::string& text, const SourceLocation& start, const std::string& what) {
    if (text.find('\n') != std::string::npos) throw ModelError(start, what + " must be one line");
    const std::vector<Token> tokens = tokenize_line(text, start);
    if (tokens.front().kind == TokenKind::end) {
      throw ModelError(start, what +
                                  " is an empty expression (a number, or an expression in the parameters "
                                  "and constants)");
    }
    return LineParser(tokens, start, scope, start.line).fixed_value(0, what);
  };
  for (std::size_t e = 0; e < d.events.size(); ++e) {
    const EventDescription& event = d.events[e];
    const std::string key = "events." + std::to_string(e);
    const std::string what = "event '" + event.name + "'";
    EventTimes times;
    for (std::size_t k = 0; k < event.at.size(); ++k) {
      const std::string index = std::to_string(k);
      times.at.push_back(fixed(event.at[k], placed(key + ".at." + index), what + ": at[" + index + "]"));
    }
    if (!event.every.empty()) {  // with start (parse_model's check_events)
      times.every = fixed(event.every, placed(key + ".every"), what + ": every");
      times.start = fixed(event.start, placed(key + ".start"), what + ": start");
    }
    if (times.timed()) {
      out.events.push_back(nullptr);  // no function: events() leaves its slot alone
      out.event_times.push_back(std::move(times));
      continue;
    }
    out.event_times.emplace_back();
    const SourceLocation start = placed(key + ".expr");
    const std::string& text = event.expression;
    if (text.find('\n') != std::string::npos) {
      throw ModelError(start, what + ": the expression must be one line");
    }
    const std::vector<Token> tokens = tokenize_line(text, start);
    if (tokens.front().kind == TokenKind::end) {
      throw ModelError(start.line != 0 ? start : placed(key),
                       what +
                           " has an empty expression (give expr, a zero crossing, or the event's times: at "
                           "= [...], or every with start)");
    }
    LineParser parser(tokens, start, scope, start.line);
    out.events.push_back(parser.statement_value(0));
  }
  const StatementValueParser assigned_value = [&](const std::vector<Token>& tokens, std::size_t first,
                                                  const SourceLocation& line_start) {
    return LineParser(tokens, line_start, scope, line_start.line).statement_value(first);
  };
  for (std::size_t e = 0; e < d.events.size(); ++e) {
    out.event_assignments.push_back(parse_event_assignments(d, e, out.auxiliaries, assigned_value));
  }
  check_unread_derivative_names(d, scope, out);
  check_residual_count(d, residuals);
  for (std::size_t i = 0; i < n_diff; ++i) {
    if (out.rhs[i]) continue;
    const auto declared = d.locations.find("states." + d.states[i].name);
    const SourceLocation where =
        declared != d.locations.end() ? declared->second : equations_location(d, 1, 1);
    throw ModelError(where, "state '" + d.states[i].name + "' has no equation: add 'd" + d.states[i].name +
                                " = ...' to the equations");
  }
  return out;
}

}  // namespace batchode::models
