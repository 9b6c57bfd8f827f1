// jit/: finding the host C++ compiler. The choice is explicit first (BATCHODE_CXX, then the CXX that
// build tools already honour) and a variable that names nothing is an error, not a silent fallback:
// a user who set it wants that compiler, and a different one would fill the cache under its name.
#include "batchode/jit/host_compiler.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "child_process.hpp"

namespace batchode::jit {
namespace {

const char* non_empty_environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string search_path() {
  if (const char* path = non_empty_environment("PATH")) return path;
  return "/usr/local/bin:/usr/bin:/bin";  // what execvp assumes without PATH
}

/// `name` itself when it holds a slash, else the first executable of that name on PATH; made absolute
/// (the cache key must not depend on the working folder). Empty when there is none.
std::string resolve_executable(const std::string& name) {
  auto absolute = [](const std::string& p) {
    std::error_code ec;
    const std::filesystem::path a = std::filesystem::absolute(p, ec);
    return ec ? p : a.lexically_normal().string();
  };
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? absolute(name) : std::string();
  const std::string path = search_path();
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = path.find(':', begin);
    std::string dir = path.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (dir.empty()) dir = ".";  // POSIX: an empty PATH entry is the working folder
    const std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) return absolute(candidate);
    if (end == std::string::npos) return {};
    begin = end + 1;
  }
}

constexpr const char* kHowToChoose =
    "set BATCHODE_CXX to a C++17 compiler (e.g. BATCHODE_CXX=/usr/bin/g++), or install one (apt-get install "
    "g++)";

std::string version_of(const std::string& path) {
  const std::chrono::milliseconds limit(10000);
  const detail::ChildResult r = detail::run_child({path, "--version"}, limit, 64 * 1024);
  if (r.timed_out || r.exit_status != 0) {
    throw JitError("the host C++ compiler " + path + " does not answer --version (it " +
                   detail::describe_end(r, limit) + "): " + r.output.substr(0, 500) + "; " + kHowToChoose);
  }
  std::string line = r.output.substr(0, r.output.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace

HostCompiler find_host_compiler() {
  for (const char* variable : {"BATCHODE_CXX", "CXX"}) {
    const char* value = non_empty_environment(variable);
    if (value == nullptr) continue;
    const std::string path = resolve_executable(value);
    if (path.empty()) {
      throw JitError(
          std::string(variable) + "='" + value + "' names no executable file" +
          (std::string(value).find('/') == std::string::npos ? " on PATH (" + search_path() + ")" : "") +
          "; " + kHowToChoose + (std::string(variable) == "CXX" ? ", or unset CXX" : ""));
    }
    return HostCompiler{path, version_of(path)};
  }
  for (const char* name : {"c++", "g++", "clang++"}) {
    const std::string path = resolve_executable(name);
    if (!path.empty()) return HostCompiler{path, version_of(path)};
  }
  throw JitError(
      "no host C++ compiler to compile models at run time: BATCHODE_CXX and CXX are unset and none of c++, "
      "g++, clang++ is on PATH (" +
      search_path() + "); " + kHowToChoose);
}

}  // namespace batchode::jit
