// models/src/parse/: splitting one line of equations into tokens (lexer.hpp). Columns count characters
// (UTF-8 code points), as toml++ and editors do. Numbers are converted with std::from_chars, which
// ignores the C locale (strtod would read "1,5" in some locales and refuse "1.5").
#include "batchode/models/lexer.hpp"

#include <charconv>
#include <cstdio>
#include <system_error>

namespace batchode::models {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_word(char c) { return is_letter(c) || is_digit(c); }
bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

/// The character at `at` as a message shows it: itself when printable, else \xNN per byte.
std::string show_character(std::string_view line, std::size_t at) {
  std::size_t end = at + 1;
  while (end < line.size() && is_continuation(line[end])) ++end;
  const unsigned char c = static_cast<unsigned char>(line[at]);
  if (c >= 0x20 && c < 0x7F) return std::string(1, line[at]);
  if (c >= 0xC2 && c <= 0xF4 && end - at >= 2) return std::string(line.substr(at, end - at));  // UTF-8
  std::string shown;
  for (std::size_t i = at; i < end; ++i) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(line[i])));
    shown += hex;
  }
  return shown;
}

}  // namespace

SourceLocation column_location(const SourceLocation& line_start, std::size_t column) {
  SourceLocation at = line_start;
  if (at.line != 0) at.column = line_start.column + column - 1;
  return at;
}

std::string describe(const Token& token) {
  if (token.kind == TokenKind::end) return "the end of the line";
  return "'" + token.text + "'";
}

std::vector<Token> tokenize_line(std::string_view line, const SourceLocation& line_start) {
  std::vector<Token> tokens;
  std::size_t i = 0, column = 1;  // byte offset, character column of line[i]
  std::size_t end_column = 1;     // just past the last token
  auto fail = [&](std::size_t at_column, const std::string& message) -> ModelError {
    return ModelError(column_location(line_start, at_column), message);
  };
  auto push = [&](TokenKind kind, std::size_t length) {
    Token t;
    t.kind = kind;
    t.text = std::string(line.substr(i, length));
    t.column = column;
    tokens.push_back(std::move(t));
    i += length;
    column += length;  // operators are ASCII
    end_column = column;
  };
  while (i < line.size()) {
    const char c = line[i];
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
      ++column;
      continue;
    }
    if (c == '#') break;
    if (is_digit(c) || (c == '.' && is_digit(next))) {
      const std::size_t begin = i;
      while (i < line.size() && is_digit(line[i])) ++i;
      if (i < line.size() && line[i] == '.') {
        ++i;
        while (i < line.size() && is_digit(line[i])) ++i;
      }
      bool bad = false;
      if (i < line.size() && (line[i] == 'e' || line[i] == 'E')) {
        ++i;
        if (i < line.size() && (line[i] == '+' || line[i] == '-')) ++i;
        if (i < line.size() && is_digit(line[i])) {
          while (i < line.size() && is_digit(line[i])) ++i;
        } else {
          bad = true;
        }
      }
      // A number runs into letters, digits or dots (1.2.3, 2x, 1e5e): one invalid word, not two tokens.
      while (i < line.size() && (is_word(line[i]) || line[i] == '.')) {
        ++i;
        bad = true;
      }
      const std::string_view text = line.substr(begin, i - begin);
      const std::size_t start_column = column;
      column += text.size();
      if (bad) {
        throw fail(start_column, "invalid number '" + std::string(text) +
                                     "' (numbers are written 1, 1.5, .5, 1e-3 or 2.5E+3; write 2*x, not 2x)");
      }
      double value = 0;
      const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), value);
      if (r.ec == std::errc::result_out_of_range) {
        throw fail(start_column, "invalid number '" + std::string(text) + "': out of the range of double");
      }
      if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
        throw fail(start_column, "invalid number '" + std::string(text) + "'");
      }
      Token t;
      t.kind = TokenKind::number;
      t.text = std::string(text);
      t.value = value;
      t.column = start_column;
      tokens.push_back(std::move(t));
      end_column = column;
      continue;
    }
    if (is_letter(c)) {
      std::size_t length = 1;
      while (i + length < line.size() && is_word(line[i + length])) ++length;
      push(TokenKind::identifier, length);
      continue;
    }
    switch (c) {
      case '+':
        push(TokenKind::plus, 1);
        continue;
      case '-':
        push(TokenKind::minus, 1);
        continue;
      case '*':
        if (next == '*') {
          push(TokenKind::caret, 2);
        } else {
          push(TokenKind::star, 1);
        }
        continue;
      case '/':
        push(TokenKind::slash, 1);
        continue;
      case '^':
        push(TokenKind::caret, 1);
        continue;
      case '(':
        push(TokenKind::left_paren, 1);
        continue;
      case ')':
        push(TokenKind::right_paren, 1);
        continue;
      case ',':
        push(TokenKind::comma, 1);
        continue;
      case '=':
        if (next == '=') {
          push(TokenKind::equal, 2);
        } else {
          push(TokenKind::assign, 1);
        }
        continue;
      case '<':
        if (next == '=') {
          push(TokenKind::less_equal, 2);
        } else {
          push(TokenKind::less, 1);
        }
        continue;
      case '>':
        if (next == '=') {
          push(TokenKind::greater_equal, 2);
        } else {
          push(TokenKind::greater, 1);
        }
        continue;
      case '!':
        if (next == '=') {
          push(TokenKind::not_equal, 2);
          continue;
        }
        throw fail(column, "unexpected character '!' (write 'not' for a negated condition)");
      case '&':
        throw fail(column, "unexpected character '&' (write 'and' to join conditions)");
      case '|':
        throw fail(column, "unexpected character '|' (write 'or' to join conditions)");
      default:
        throw fail(column, "unexpected character '" + show_character(line, i) +
                               "' (expressions use numbers, names, + - * / ^ **, parentheses, commas and "
                               "comparisons)");
    }
  }
  Token end;
  end.kind = TokenKind::end;
  end.column = end_column;
  tokens.push_back(std::move(end));
  return tokens;
}

}  // namespace batchode::models
