// checks/: the one place that turns a value the solve's precision cannot hold into a message. A value
// written in double (a model's constant or default, a parameter from Python, a sweep value on the
// command line) becomes inf in float32 past 3.4e38, or is NaN already: every layer that narrows a
// user's value calls narrow_to<T>, so the message names the value, what the user called it and the
// precision the same way everywhere ("parameter k = 1e+39 (run 0) does not fit float32").
#pragma once

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>

#include "batchode/checks/invalid_input.hpp"

namespace batchode::checks {

/// "float32" or "float64": the precisions as the command line and Python name them.
template <class T>
constexpr const char* precision_name() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  return std::is_same_v<T, float> ? "float32" : "float64";
}

/// `value` as its shortest text that reads back the same value of its type ("1e+39", "0.1", "nan",
/// "inf"; 3.4028235e+38 for float's largest).
template <class V>
std::string shortest_text(V value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[32];
  const std::to_chars_result end = std::to_chars(text, text + sizeof text, value);
  if (end.ec != std::errc{}) return std::to_string(value);  // never: 32 characters hold any double
  return std::string(text, end.ptr);
}

/// Why `value`, named `what` ("parameter k", "constant c") and placed by `where` ("run 0", "" for
/// none), cannot be a T: "parameter k = 1e+39 (run 0) does not fit float32 (largest 3.4028235e+38)",
/// "parameter rho (run 1) is NaN", "constant c = inf is not finite". Empty when it can.
template <class T>
std::string precision_problem(double value, const std::string& what, const std::string& where = {}) {
  const std::string at = where.empty() ? std::string() : " (" + where + ")";
  if (std::isnan(value)) return what + at + " is NaN";
  if (std::isinf(value)) return what + " = " + shortest_text(value) + at + " is not finite";
  if (std::fabs(value) > static_cast<double>(std::numeric_limits<T>::max())) {
    // Values between max and the next power of two round to max or to inf; anything above max is
    // refused, so a value is never silently changed by more than rounding.
    return what + " = " + shortest_text(value) + at + " does not fit " + precision_name<T>() + " (largest " +
           shortest_text(std::numeric_limits<T>::max()) + ")";
  }
  return {};
}

/// `value` in precision T, or InvalidInput with precision_problem's message.
template <class T>
T narrow_to(double value, const std::string& what, const std::string& where = {}) {
  if (std::string problem = precision_problem<T>(value, what, where); !problem.empty()) {
    throw InvalidInput(problem);
  }
  return static_cast<T>(value);
}

}  // namespace batchode::checks
