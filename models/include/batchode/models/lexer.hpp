// models/: the equations' tokens, one line at a time (statements never span lines): numbers,
// names, operators, parentheses and commas; `#` starts a comment. Every token knows its column, so
// the parser's messages can point at it in the model file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "batchode/models/model_error.hpp"

namespace batchode::models {

enum class TokenKind : unsigned char {
  number,
  identifier,
  plus,
  minus,
  star,
  slash,
  caret,  ///< ^ or **
  left_paren,
  right_paren,
  comma,
  assign,  ///< =
  less,
  greater,
  less_equal,
  greater_equal,
  equal,      ///< ==
  not_equal,  ///< !=
  end,        ///< end of the line (or the start of a comment)
};

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;        ///< as written
  double value = 0;        ///< number
  std::size_t column = 0;  ///< 1-based character column within the line
};

/// The tokens of one line, ending with one `end` token whose column is just past the last character
/// that is not a blank or part of a comment. Throws ModelError at `line_start` (the file position of
/// the line's first character) + the column, for a character the language does not use and for an
/// invalid number (`1.2.3`, `1e`, `2x`, out of the range of double).
std::vector<Token> tokenize_line(std::string_view line, const SourceLocation& line_start);

/// The file position of column `column` of a line that starts at `line_start`.
SourceLocation column_location(const SourceLocation& line_start, std::size_t column);

/// A token as messages quote it: "'x'" or "the end of the line".
std::string describe(const Token& token);

}  // namespace batchode::models
