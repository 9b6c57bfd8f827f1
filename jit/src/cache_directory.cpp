// jit/: the cache folder's rules (docs/guide/where_it_runs.md). The password database is the last
// resort so that a daemon or a container without $HOME still caches in the user's own home rather
// than in whatever folder it was started from.
#include "batchode/jit/cache_directory.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

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

}  // namespace batchode::jit
