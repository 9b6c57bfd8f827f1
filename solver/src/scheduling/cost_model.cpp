// solver/scheduling/: the cost model's cache file. Format, one entry a line:
//   <key> TAB <fixed_ms> <setup_ms> <ns_per_run_step> <ns_per_byte> <observations>
// Lines that do not parse (a damaged file, or one written by an older format) are skipped, so they
// cost a recalibration, never an error.
#include "batchode/solver/scheduling/cost_model.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>

#include "batchode/files/atomic_file.hpp"
#include "batchode/jit/cache_directory.hpp"

namespace batchode {
namespace {

using Entries = std::map<std::string, CostCoefficients>;

/// The file's entries, or none when it cannot be read.
std::optional<Entries> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  Entries entries;
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::istringstream values(line.substr(tab + 1));
    CostCoefficients c;
    if (values >> c.fixed_ms >> c.setup_ms >> c.ns_per_run_step >> c.ns_per_byte >> c.observations) {
      entries[line.substr(0, tab)] = c;
    }
  }
  return entries;
}

bool write_file(const std::string& path, const Entries& entries) {
  std::error_code ec;
  const std::filesystem::path file(path);
  // The folder is also the compiled-model cache's, which refuses a folder group or others may write:
  // created 0700 (whatever the umask), as jit::ArtifactCache creates it.
  if (file.has_parent_path() && !std::filesystem::exists(file.parent_path(), ec)) {
    if (file.parent_path().has_parent_path()) std::filesystem::create_directories(file.parent_path().parent_path(), ec);
    ::mkdir(file.parent_path().c_str(), 0700);
  }
  // Readers (other processes, of other hosts too, sharing the folder) see the old or the new file.
  try {
    files::AtomicFile atomic(path);
    {
      std::ofstream out(atomic.write_path(), std::ios::trunc);
      out.precision(9);
      out << "# batchode cost model: key TAB fixed_ms setup_ms ns_per_run_step ns_per_byte observations\n";
      for (const auto& [key, c] : entries) {
        out << key << '\t' << c.fixed_ms << ' ' << c.setup_ms << ' ' << c.ns_per_run_step << ' ' << c.ns_per_byte
            << ' ' << c.observations << '\n';
      }
      out.close();
      if (!out) return false;  // the temporary file is removed
    }
    atomic.commit();
    return true;
  } catch (const std::exception&) {
    return false;  // a cache: the measurements are taken again next time
  }
}

/// What the process knows of one cache file.
struct FileState {
  Entries entries;   // the file as last read, with this process's stores and refinements
  Entries unsaved;   // refinements not yet written
  bool seen = false;  // the file existed when last looked at
  struct stat stamp {};
  std::chrono::steady_clock::time_point written{};
};

bool same_stamp(const struct stat& a, const struct stat& b) {
  return a.st_ino == b.st_ino && a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

/// Every cache file of the process, behind one lock; what is unsaved is written when the process
/// ends, into files that still exist (a cache deleted meanwhile stays deleted, an unwritable one is
/// not tried again).
struct Files {
  std::mutex mutex;
  std::map<std::string, FileState> by_path;

  ~Files() {
    const std::lock_guard<std::mutex> lock(mutex);
    for (auto& [path, state] : by_path) {
      struct stat now {};
      if (state.unsaved.empty() || ::stat(path.c_str(), &now) != 0) continue;
      try {
        write(path, state);
      } catch (...) {  // nothing may leave a destructor at exit; the refinements are lost, no more
      }
    }
  }

  /// `path`'s entries, read again when the file changed on disk since it was last read or written.
  /// A file deleted since means no entries (the next solve recalibrates); one never written (an
  /// unwritable folder) keeps what the process stored.
  FileState& current(const std::string& path) {
    FileState& state = by_path[path];
    struct stat now {};
    if (::stat(path.c_str(), &now) != 0) {
      if (state.seen) state = FileState{};
      return state;
    }
    if (state.seen && same_stamp(now, state.stamp)) return state;
    if (std::optional<Entries> read = read_file(path)) {
      state.entries = std::move(*read);
      for (const auto& [key, c] : state.unsaved) state.entries[key] = c;
      state.seen = true;
      state.stamp = now;
    }
    return state;
  }

  /// Writes the file: its entries on disk now, with this process's unsaved ones over them.
  bool write(const std::string& path, FileState& state) {
    Entries merged = read_file(path).value_or(Entries{});
    for (const auto& [key, c] : state.unsaved) merged[key] = c;
    for (const auto& [key, c] : state.entries) merged.emplace(key, c);  // stored, not refined, not on disk
    state.written = std::chrono::steady_clock::now();
    if (!write_file(path, merged)) return false;
    state.entries = std::move(merged);
    state.unsaved.clear();
    state.seen = ::stat(path.c_str(), &state.stamp) == 0;
    return true;
  }
};

Files& cache_files() {
  static Files f;
  return f;
}

// Refinements are written at most this often (and when the process ends).
constexpr std::chrono::seconds write_interval{1};

}  // namespace

std::string cost_key(const std::string& system, Method method, bool is_double, const std::string& device) {
  std::string key = system + "|" + to_string(method) + "|" + (is_double ? "double" : "float") + "|" + device;
  for (char& c : key) {
    if (c == '\t' || c == '\n') c = ' ';
  }
  return key;
}

CostModel::CostModel(std::string path) : path_(path.empty() ? default_cache_path() : std::move(path)) {}

std::string CostModel::default_cache_path() {
  // The folder compiled models are cached in too (jit/): one set of rules, one place to delete.
  const std::filesystem::path dir = jit::cache_directory();
  if (dir.empty()) return "batchode_cost_model.txt";
  return (dir / "cost_model.txt").string();
}

std::optional<CostCoefficients> CostModel::find(const std::string& key) const {
  Files& f = cache_files();
  const std::lock_guard<std::mutex> lock(f.mutex);
  const FileState& state = f.current(path_);
  const auto it = state.entries.find(key);
  if (it == state.entries.end()) return std::nullopt;
  return it->second;
}

bool CostModel::store(const std::string& key, const CostCoefficients& c) {
  Files& f = cache_files();
  const std::lock_guard<std::mutex> lock(f.mutex);
  FileState& state = f.current(path_);
  state.entries[key] = c;
  state.unsaved[key] = c;
  // A calibration is written at once: it took tens of milliseconds, and other processes want it.
  return f.write(path_, state);
}

std::optional<CostCoefficients> CostModel::refine(const std::string& key, std::size_t runs, double steps_per_run,
                                                  double bytes_per_run, double observed_ms, bool first_use,
                                                  double alpha) {
  Files& f = cache_files();
  const std::lock_guard<std::mutex> lock(f.mutex);
  FileState& state = f.current(path_);
  const auto it = state.entries.find(key);
  if (it == state.entries.end()) return std::nullopt;
  CostCoefficients& c = it->second;
  if (!(observed_ms > 0) || runs == 0) return c;
  // Floors keep predictions positive and increasing in runs whatever one noisy solve suggests.
  constexpr double min_fixed_ms = 1e-3, min_ns_per_run_step = 1e-4;
  const double warm_ms = c.predict_ms(runs, steps_per_run, bytes_per_run);
  const double fixed = std::max(0.0, c.fixed_ms);
  const double per_run_ms = warm_ms - fixed;
  const double bytes_ms = static_cast<double>(runs) * std::max(0.0, bytes_per_run) * std::max(0.0, c.ns_per_byte) * 1e-6;
  const double run_steps = static_cast<double>(runs) * std::max(0.0, steps_per_run);
  if (first_use) {
    // A first use also grows buffers in proportion to the batch: only a solve the setup dominates
    // tells the setup apart from that; a larger one teaches nothing here.
    if (warm_ms > std::max(0.0, c.setup_ms)) return c;
    c.setup_ms = (1.0 - alpha) * std::max(0.0, c.setup_ms) + alpha * std::max(0.0, observed_ms - warm_ms);
  } else if (per_run_ms >= fixed && run_steps > 0) {
    const double implied = std::max(min_ns_per_run_step, (observed_ms - fixed - bytes_ms) * 1e6 / run_steps);
    c.ns_per_run_step = (1.0 - alpha) * c.ns_per_run_step + alpha * implied;
  } else {
    c.fixed_ms = (1.0 - alpha) * fixed + alpha * std::max(min_fixed_ms, observed_ms - per_run_ms);
  }
  ++c.observations;
  state.unsaved[key] = c;
  if (std::chrono::steady_clock::now() - state.written >= write_interval) f.write(path_, state);
  return c;
}

}  // namespace batchode
