// timing/: how much a TimeLogger prints while batchode runs (none, normal, verbose, debug).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace batchode {

/// How much a TimeLogger records and prints. Each level includes what the levels below it print.
enum class Verbosity {
  none,     ///< record nothing, print nothing; every logger call is an inline early-out
  normal,   ///< what users call "default": one summary when a top-level event stops
  verbose,  ///< also one line per event as it completes, with its duration
  debug,    ///< also every start, and every stop with its metadata
};

/// Parses none | default | normal | verbose | debug ("default" means normal).
/// Throws std::invalid_argument naming the bad value and listing the valid ones.
Verbosity parse_verbosity(std::string_view text);

/// BATCHODE_VERBOSITY as it is now: the level it names, or std::nullopt when it names none: unset
/// or empty (nothing asked) or invalid (then `problem`, when not null, receives parse_verbosity()'s
/// message). The one reading of the variable: the default logger (TimeLogger::apply_environment())
/// and every solve (which it overrides) agree on what it says.
std::optional<Verbosity> environment_verbosity(std::string* problem = nullptr);

/// The canonical name of a level: "none", "normal", "verbose" or "debug".
std::string_view to_string(Verbosity verbosity) noexcept;

}  // namespace batchode
