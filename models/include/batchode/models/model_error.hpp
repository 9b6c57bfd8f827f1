// models/: the error every mistake in a model's text or description throws: it names the file, the
// line and the column at fault, so the CLI and the library report a model the same way.
#pragma once

#include <cstddef>
#include <string>

#include "batchode/checks/invalid_input.hpp"

namespace batchode::models {

/// A place in a model's source. line and column are 1-based (columns count characters, as toml++
/// and editors do); 0 means unknown.
struct SourceLocation {
  std::string source;  ///< file name, or "<string>"
  std::size_t line = 0, column = 0;
};

/// "<source>:<line>:<col>" ("<source>:<line>" or "<source>" when the rest is unknown).
std::string to_string(const SourceLocation& where);

/// Bad model text or description. what() is "<source>:<line>:<col>: <message>" (no line or column
/// when unknown).
class ModelError : public InvalidInput {
 public:
  ModelError(SourceLocation where, const std::string& message);
  const SourceLocation& where() const noexcept { return where_; }
  const std::string& message() const noexcept { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

}  // namespace batchode::models
