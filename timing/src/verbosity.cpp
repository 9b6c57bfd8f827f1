// timing/: Verbosity's names and BATCHODE_VERBOSITY, the one place that reads the variable.
#include "batchode/timing/verbosity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace batchode {

Verbosity parse_verbosity(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "none") return Verbosity::none;
  if (lower == "default" || lower == "normal") return Verbosity::normal;
  if (lower == "verbose") return Verbosity::verbose;
  if (lower == "debug") return Verbosity::debug;
  throw std::invalid_argument(
      fmt::format("invalid verbosity '{}': expected one of none, default, normal, verbose, debug", text));
}

std::optional<Verbosity> environment_verbosity(std::string* problem) {
  const char* value = std::getenv("BATCHODE_VERBOSITY");
  if (value == nullptr || *value == '\0') return std::nullopt;  // unset or set empty: nothing asked
  try {
    return parse_verbosity(value);
  } catch (const std::invalid_argument& error) {
    if (problem != nullptr) *problem = error.what();
    return std::nullopt;
  }
}

std::string_view to_string(Verbosity verbosity) noexcept {
  switch (verbosity) {
    case Verbosity::none:
      return "none";
    case Verbosity::normal:
      return "normal";
    case Verbosity::verbose:
      return "verbose";
    case Verbosity::debug:
      return "debug";
  }
  return "unknown";
}

}  // namespace batchode
