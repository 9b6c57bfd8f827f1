// distributed/ (private): errors that travel between processes (travelling_errors.hpp).
#include "travelling_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace batchode::distributed::detail {

namespace {

/// An exception of type Base thrown by every process alike.
template <class Base>
class Everywhere : public Base, public ThrownOnEveryProcess {
 public:
  explicit Everywhere(const std::string& message) : Base(message) {}
};

}  // namespace

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, by)) parts.push_back(part);
  if (!text.empty() && text.back() == by) parts.emplace_back();
  return parts;
}

void throw_first(const std::vector<std::string>& errors, const std::vector<std::string>& hosts) {
  for (std::size_t r = 0; r < errors.size(); ++r) {
    if (errors[r].empty()) continue;
    const bool everyone = std::all_of(errors.begin(), errors.end(), [&](const std::string& e) { return e == errors[r]; });
    std::string message = errors[r].substr(1);
    if (!everyone) message = fmt::format("rank {} ({}): {}", r, r < hosts.size() ? hosts[r] : "?", message);
    switch (errors[r][0]) {
      case 'I': throw Everywhere<InvalidInput>(message);
      case 'G': throw Everywhere<GpuUnavailable>(message);
      default: throw Everywhere<std::runtime_error>(message);
    }
  }
}

void throw_everywhere_invalid(const std::string& message) { throw Everywhere<InvalidInput>(message); }

}  // namespace batchode::distributed::detail
