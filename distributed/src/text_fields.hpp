// distributed/ (private): what processes tell each other travels as text, lines of tab-separated
// fields; these keep a field whole and read back the numbers another process printed.
#pragma once

#include <algorithm>
#include <cmath>
#include <locale>
#include <sstream>
#include <string>

namespace batchode::distributed::detail {

/// `text` as one field of one line: tabs and newlines (a message's, a user's event label) as spaces.
inline std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\t', ' ');
  return text;
}

/// A number another process printed with fmt ("C" notation), read whatever this process's locale;
/// NaN when the text is not one.
inline double parse_number(const std::string& text) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  double value = 0;
  in >> value;
  return in ? value : std::nan("");
}

}  // namespace batchode::distributed::detail
