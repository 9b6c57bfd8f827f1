// jit/: the cache folder's rules (docs/guide/where_it_runs.md). The password database is the last
// resort so that a daemon or a container without $HOME still caches in the user's own home rather
// than in whatever folder it was started from.
#include "batchode/jit/cache_directory.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "batchode/checks/invalid_input.hpp"

namespace batchode::jit {
namespace {

const char* non_empty_environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::filesystem::path home_from_password_database() {
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(::geteuid(), &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return {};
  }
  if (found->pw_dir == nullptr || *found->pw_dir == '\0') return {};
  return found->pw_dir;
}

}  // namespace

std::filesystem::path cache_directory() {
  if (const char* dir = non_empty_environment("BATCHODE_CACHE_DIR")) return dir;
  if (const char* xdg = non_empty_environment("XDG_CACHE_HOME")) {
    const std::filesystem::path base(xdg);
    if (base.is_absolute()) return base / "batchode";
  }
  if (const char* home = non_empty_environment("HOME")) {
    return std::filesystem::path(home) / ".cache" / "batchode";
  }
  const std::filesystem::path home = home_from_password_database();
  if (!home.empty()) return home / ".cache" / "batchode";
  return {};
}

std::uintmax_t cache_capacity() {
  constexpr std::uintmax_t kDefault = std::uintmax_t{2} << 30;
  const char* text = non_empty_environment("BATCHODE_CACHE_MAX_SIZE");
  if (text == nullptr) return kDefault;
  const std::string value = text;
  std::uintmax_t number = 0;
  std::size_t i = 0;
  bool overflow = false;
  for (; i < value.size() && value[i] >= '0' && value[i] <= '9'; ++i) {
    const auto digit = static_cast<std::uintmax_t>(value[i] - '0');
    overflow = overflow || number > (std::numeric_limits<std::uintmax_t>::max() - digit) / 10;
    number = number * 10 + digit;
  }
  const std::size_t digits = i;
  int shift = 0;
  const std::string suffixes = "kmg";  // 2^10, 2^20, 2^30
  if (digits > 0 && i + 1 == value.size()) {
    const std::size_t at =
        suffixes.find(static_cast<char>(std::tolower(static_cast<unsigned char>(value[i]))));
    if (at != std::string::npos) {
      shift = 10 * static_cast<int>(at + 1);
      ++i;
    }
  }
  overflow = overflow || (shift > 0 && number > (std::numeric_limits<std::uintmax_t>::max() >> shift));
  if (digits == 0 || i != value.size() || overflow) {
    throw InvalidInput("BATCHODE_CACHE_MAX_SIZE='" + value.substr(0, 100) +
                       "' is not a size: give a whole number of bytes with an optional K, M or G "
                       "(powers of 1024), such as 500M or 4G; 0 keeps every entry");
  }
  return number << shift;
}

}  // namespace batchode::jit
