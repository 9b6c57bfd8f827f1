// models/: ModelError's message, "<source>:<line>:<col>: <message>", the form compilers use, so
// editors and terminals can jump to the place.
#include "batchode/models/model_error.hpp"

#include <utility>

namespace batchode::models {

std::string to_string(const SourceLocation& where) {
  std::string text = where.source.empty() ? std::string("<string>") : where.source;
  if (where.line != 0) {
    text += ":" + std::to_string(where.line);
    if (where.column != 0) text += ":" + std::to_string(where.column);
  }
  return text;
}

ModelError::ModelError(SourceLocation where, const std::string& message)
    : InvalidInput(to_string(where) + ": " + message), where_(std::move(where)), message_(message) {}

}  // namespace batchode::models
