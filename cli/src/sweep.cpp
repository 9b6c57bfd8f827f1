// cli/: the --sweep parser and the grid it builds (forms and errors in sweep.hpp). Numbers are read
// with std::from_chars: the same in every locale, and strict (no trailing text is silently ignored).
#include "sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <exception>
#include <new>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "batchode/checks/fits_precision.hpp"
#include "batchode/checks/invalid_input.hpp"

namespace batchode::cli {

namespace {

constexpr const char* forms = "expected NAME=linspace(a,b,n), NAME=logspace(a,b,n) or NAME=v1,v2,...";

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_identifier(std::string_view s) {
  const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (s.empty() || !alpha(s.front())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || digit(c); });
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = s.find(separator, start);
    parts.push_back(
        trim(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

/// Parses one sweep's text; every error goes through fail(), which names the flag.
class SweepParser {
 public:
  explicit SweepParser(const std::string& text, const char* flag = "--sweep") : text_(text), flag_(flag) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw UsageError(fmt::format("{} '{}': {}", flag_, text_, why));
  }

  /// The values alone (what follows NAME= in a sweep).
  std::vector<double> values() const {
    const std::string_view rhs = trim(text_);
    if (rhs.empty()) fail("no values; expected linspace(a,b,n), logspace(a,b,n) or v1,v2,...");
    const std::size_t open = rhs.find('(');
    return open != std::string_view::npos ? function(trim(rhs.substr(0, open)), rhs.substr(open + 1)) : list(rhs);
  }

  Sweep parse() const {
    const std::size_t eq = text_.find('=');
    if (eq == std::string::npos) fail(fmt::format("no '='; {}", forms));
    const std::string_view name = trim(std::string_view(text_).substr(0, eq));
    if (name.empty()) fail(fmt::format("no name before '='; {}", forms));
    if (!is_identifier(name)) {
      fail(fmt::format("'{}' is not a name (letters, digits and _, not starting with a digit)", name));
    }
    const std::string_view rhs = trim(std::string_view(text_).substr(eq + 1));
    if (rhs.empty()) fail(fmt::format("no values after '='; {}", forms));
    Sweep sweep{std::string(name), {}, text_};
    const std::size_t open = rhs.find('(');
    if (open != std::string_view::npos) {
      sweep.values = function(trim(rhs.substr(0, open)), rhs.substr(open + 1));
    } else {
      sweep.values = list(rhs);
    }
    return sweep;
  }

 private:
  // `name(` has been read; `rest` is what follows the parenthesis.
  std::vector<double> function(std::string_view name, std::string_view rest) const {
    if (name != "linspace" && name != "logspace") {
      fail(fmt::format("unknown function '{}': linspace(a,b,n) or logspace(a,b,n)", name));
    }
    const std::size_t close = rest.find(')');
    if (close == std::string_view::npos) fail(fmt::format("no ')' closes {}(", name));
    if (!trim(rest.substr(close + 1)).empty()) {
      fail(fmt::format("unexpected '{}' after {}(...)", trim(rest.substr(close + 1)), name));
    }
    const std::vector<std::string_view> args = split(rest.substr(0, close), ',');
    if (args.size() != 3) {
      fail(fmt::format("{} takes 3 arguments (a, b, n), got {}", name,
                       args.size() == 1 && args.front().empty() ? 0 : args.size()));
    }
    const double a = number(args[0]), b = number(args[1]);
    const std::size_t n = count(args[2]);
    std::vector<double> values;
    try {
      values.resize(n);
    } catch (const std::exception&) {  // std::bad_alloc, std::length_error
      fail(fmt::format("{} values do not fit in memory", n));
    }
    // numpy's convention: both ends exactly as written, evenly spaced between.
    for (std::size_t i = 0; i < n; ++i) {
      values[i] = i + 1 == n && n > 1
                      ? b
                      : a + (b - a) * static_cast<double>(i) / static_cast<double>(n > 1 ? n - 1 : 1);
    }
    if (name == "logspace") {
      for (double& v : values) {
        const double exponent = v;
        v = std::pow(10.0, exponent);
        if (!std::isfinite(v)) fail(fmt::format("10^{} is too large for a double", exponent));
      }
    }
    return values;
  }

  std::vector<double> list(std::string_view rhs) const {
    std::vector<double> values;
    const std::vector<std::string_view> items = split(rhs, ',');
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].empty()) fail(fmt::format("value {} of the list is empty", i + 1));
      values.push_back(number(items[i]));
    }
    return values;
  }

  double number(std::string_view token) const {
    if (token.empty()) fail("an argument is empty");
    std::string_view digits = token;
    if (digits.front() == '+') digits.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error == std::errc::result_out_of_range) fail(fmt::format("'{}' is out of a double's range", token));
    if (error != std::errc() || end != digits.data() + digits.size()) {
      fail(fmt::format("'{}' is not a number", token));
    }
    if (!std::isfinite(value)) fail(fmt::format("'{}' is not a finite number", token));
    return value;
  }

  std::size_t count(std::string_view token) const {
    static_assert(sizeof(unsigned long long) <= sizeof(std::size_t), "every count read fits in size_t");
    unsigned long long n = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), n);
    if (token.empty() || error != std::errc() || end != token.data() + token.size()) {
      fail(fmt::format("n must be a whole number of values (at least 1), got '{}'", token));
    }
    if (n < 1) fail("n must be at least 1, got 0");
    return static_cast<std::size_t>(n);
  }

  const std::string& text_;
  const char* flag_;
};

std::string join(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Sweep parse_sweep(const std::string& text) { return SweepParser(text).parse(); }

std::vector<double> parse_values(const std::string& text, const char* flag) {
  return SweepParser(text, flag).values();
}

std::vector<Sweep> parse_sweeps(const std::vector<std::string>& texts) {
  std::vector<Sweep> sweeps;
  for (const std::string& text : texts) {
    Sweep sweep = parse_sweep(text);
    for (const Sweep& earlier : sweeps) {
      if (earlier.name == sweep.name) {
        throw UsageError(fmt::format("--sweep '{}': '{}' is already swept by --sweep '{}'", text, sweep.name,
                                     earlier.text));
      }
    }
    sweeps.push_back(std::move(sweep));
  }
  return sweeps;
}

template <class T>
Batch<T> build_grid(const std::vector<Sweep>& sweeps, GridKind kind, const GridDefaults<T>& defaults) {
  GridBuilder<T> builder(defaults.y0, defaults.params);
  builder.names(defaults.state_names, defaults.parameter_names);
  const auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const Sweep& sweep : sweeps) {
    const bool state = has(defaults.state_names, sweep.name);
    if (!state && !has(defaults.parameter_names, sweep.name)) {
      throw UsageError(
          fmt::format("--sweep '{}': '{}' is neither a state nor a parameter of the model "
                      "(states: {}; parameters: {})",
                      sweep.text, sweep.name, join(defaults.state_names), join(defaults.parameter_names)));
    }
    if (kind == GridKind::verbatim && sweep.values.size() != sweeps.front().values.size()) {
      throw UsageError(
          fmt::format("--sweep '{}' has {} values but --sweep '{}' has {}: a verbatim grid takes "
                      "the i-th value of every sweep, so all need as many",
                      sweep.text, sweep.values.size(), sweeps.front().text, sweeps.front().values.size()));
    }
    std::vector<T> values(sweep.values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      // In the words every front end uses (checks/fits_precision.hpp).
      const std::string problem = checks::precision_problem<T>(sweep.values[i], sweep.name);
      if (!problem.empty()) throw UsageError(fmt::format("--sweep '{}': {}", sweep.text, problem));
      values[i] = static_cast<T>(sweep.values[i]);
    }
    if (state) {
      builder.state(sweep.name, std::move(values));
    } else {
      builder.param(sweep.name, std::move(values));
    }
  }
  try {
    return builder.build(kind);
  } catch (const InvalidInput& e) {  // a run count beyond size_t
    throw UsageError(std::string("--sweep: ") + e.what());
  } catch (const std::bad_alloc&) {
    throw UsageError("--sweep: the grid's initial values and parameters do not fit in memory");
  }
}

template Batch<float> build_grid<float>(const std::vector<Sweep>&, GridKind, const GridDefaults<float>&);
template Batch<double> build_grid<double>(const std::vector<Sweep>&, GridKind, const GridDefaults<double>&);

}  // namespace batchode::cli
