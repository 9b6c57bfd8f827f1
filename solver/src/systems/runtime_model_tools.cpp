// solver/systems/: what both of RuntimeModel's compiles look up and use, apart from either compile: the
// include folders the generated source is compiled with and a digest of their headers, the host and
// runtime compilers (each looked up once per process), and the on-disk cache's access with the notices
// a user gets when it cannot be used as it should.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/jit/cache_directory.hpp"
#include "batchode/jit/sha256.hpp"
#include "runtime_model_parts.hpp"

#ifndef BATCHODE_SOURCE_INCLUDE_DIRS
#define BATCHODE_SOURCE_INCLUDE_DIRS ""
#endif
#ifndef BATCHODE_INSTALL_INCLUDE_DIR
#define BATCHODE_INSTALL_INCLUDE_DIR ""
#endif
#ifndef BATCHODE_BOOST_INCLUDE_DIR
#define BATCHODE_BOOST_INCLUDE_DIR ""
#endif

namespace batchode {

namespace detail {

namespace {

std::vector<std::string> split_list(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

/// Where the headers the generated source includes are: $BATCHODE_INCLUDE_DIR (colon-separated) when set,
/// else this build's source tree when it still exists, else the install prefix's include folder.
std::vector<std::string> include_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("BATCHODE_INCLUDE_DIR"); env != nullptr && *env != '\0') {
    dirs = split_list(env, ':');
  } else {
    dirs = split_list(BATCHODE_SOURCE_INCLUDE_DIRS, '|');
    const bool all_there = !dirs.empty() && std::all_of(dirs.begin(), dirs.end(), [](const std::string& d) {
      std::error_code ec;
      return std::filesystem::is_directory(d, ec);
    });
    if (!all_there) dirs = {BATCHODE_INSTALL_INCLUDE_DIR};
  }
  for (const std::string& boost : split_list(BATCHODE_BOOST_INCLUDE_DIR, '|')) {
    if (boost != "/usr/include")
      dirs.push_back(boost);  // a system folder on -I would change its search order
  }
  return dirs;
}

/// A digest of every header under the include folders' batchode/{kernels,backends,arrays} trees: a
/// changed header changes the binary, so it must change the cache key.
std::string header_digest(const std::vector<std::string>& dirs) {
  std::vector<std::filesystem::path> files;
  for (const std::string& dir : dirs) {
    for (const char* sub : {"batchode/kernels", "batchode/backends", "batchode/arrays"}) {
      const std::filesystem::path root = std::filesystem::path(dir) / sub;
      std::error_code ec;
      if (!std::filesystem::is_directory(root, ec)) continue;
      for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec)) files.push_back(it->path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    all += file.filename().string() + '\n' + jit::sha256_hex(bytes.str()) + '\n';
  }
  return jit::sha256_hex(all);
}

std::string environment_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

std::vector<std::string> model_compile_flags() {
  std::istringstream words(environment_value("BATCHODE_MODEL_CXXFLAGS"));
  std::vector<std::string> flags;
  for (std::string word; words >> word;) flags.push_back(word);
  return flags;
}

std::size_t slots_from_environment(const char* variable, std::size_t asked) {
  const std::string env = environment_value(variable);
  if (env.empty()) return asked;
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(env.data(), env.data() + env.size(), value);
  if (error != std::errc() || end != env.data() + env.size()) {
    throw InvalidInput(std::string(variable) + " is '" + env +
                       "': it must be a count of slots (a whole number, 0 or more)");
  }
  return value;
}

const Headers& headers() {
  static std::mutex mutex;
  static std::map<std::string, Headers> found;
  const std::string choice = environment_value("BATCHODE_INCLUDE_DIR");
  std::lock_guard<std::mutex> lock(mutex);
  auto it = found.find(choice);
  if (it == found.end()) {
    Headers h;
    h.includes = include_dirs();
    h.digest = header_digest(h.includes);
    it = found.emplace(choice, std::move(h)).first;
  }
  return it->second;
}

const jit::HostCompiler& host_compiler() {
  static std::mutex mutex;
  static std::map<std::string, jit::HostCompiler> found;
  const std::string choice =
      environment_value("BATCHODE_CXX") + '\n' + environment_value("CXX") + '\n' + environment_value("PATH");
  std::lock_guard<std::mutex> lock(mutex);
  auto it = found.find(choice);
  if (it == found.end()) it = found.emplace(choice, jit::find_host_compiler()).first;  // throws JitError
  return it->second;
}

const RuntimeCompilerLookup& runtime_compiler() {
  static const RuntimeCompilerLookup found = [] {
    RuntimeCompilerLookup lookup;
    lookup.compiler = gpu::RuntimeCompiler::load(&lookup.why_not);
    return lookup;
  }();
  return found;
}

void notice(const std::string& line) { std::cerr << ("batchode: " + line + '\n'); }

std::optional<jit::ArtifactCache> open_cache(const RuntimeModelState& state, const char* kind) {
  std::optional<jit::ArtifactCache> cache;
  if (!state.options.use_cache) return cache;
  (void)jit::cache_capacity();  // a malformed BATCHODE_CACHE_MAX_SIZE fails here, before any compile
  std::string unusable;
  const std::filesystem::path dir = state.options.cache_directory.empty()
                                        ? jit::cache_directory()
                                        : std::filesystem::path(state.options.cache_directory);
  try {
    cache.emplace(dir, kind);
    if (!cache->usable(&unusable)) cache.reset();
  } catch (const std::exception& e) {
    unusable = e.what();
    cache.reset();
  }
  if (!cache) notice("the compiled-model cache cannot be used (" + unusable + "); compiling privately");
  return cache;
}

jit::Lookup find_entry(const jit::ArtifactCache& cache, const std::string& key,
                       std::vector<char>* verified_bytes) {
  jit::Lookup found = cache.find(key, verified_bytes);
  if (!found.path && found.miss != jit::Miss::absent)
    notice("cache entry refused (" + found.why + "); rebuilding");
  return found;
}

std::optional<std::filesystem::path> store_entry(const jit::ArtifactCache& cache, const std::string& key,
                                                 const std::vector<char>& bytes, const std::string& instead) {
  try {
    std::filesystem::path stored = cache.store(key, bytes);
    // The least recently used entries past the size limit go (the one just stored stays); 0: no limit.
    if (const std::uintmax_t capacity = jit::cache_capacity(); capacity > 0) (void)cache.prune(capacity, key);
    return stored;
  } catch (const jit::JitError& e) {
    notice("the compiled-model cache cannot store an entry (" + std::string(e.what()) + "); " + instead);
    return std::nullopt;
  }
}

}  // namespace detail

}  // namespace batchode
