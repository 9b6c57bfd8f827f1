// solver/: the cost model's cache file. Format, one entry a line:
//   <key> TAB <fixed_ms> <setup_ms> <ns_per_run_step> <ns_per_byte> <observations>
// Lines that do not parse (a damaged file, or one written by an older format) are skipped, so they
// cost a recalibration, never an error.
#include "batchode/solver/cost_model.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>

#include "batchode/jit/cache_directory.hpp"

namespace batchode {
namespace {

std::mutex& file_mutex() {
  static std::mutex m;
  return m;
}

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

std::map<std::string, CostCoefficients> CostModel::load() const {
  std::map<std::string, CostCoefficients> entries;
  std::ifstream in(path_);
  if (!in) return memory_;  // no file: only what this process could not write
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

bool CostModel::save(const std::map<std::string, CostCoefficients>& entries) const {
  std::error_code ec;
  const std::filesystem::path file(path_);
  // The folder is also the compiled-model cache's, which refuses a folder group or others may write:
  // created 0700 (whatever the umask), as jit::ArtifactCache creates it.
  if (file.has_parent_path() && !std::filesystem::exists(file.parent_path(), ec)) {
    if (file.parent_path().has_parent_path()) std::filesystem::create_directories(file.parent_path().parent_path(), ec);
    ::mkdir(file.parent_path().c_str(), 0700);
  }
  const std::string tmp = path_ + ".tmp" + std::to_string(reinterpret_cast<std::uintptr_t>(this));
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return false;
    out.precision(9);
    out << "# batchode cost model: key TAB fixed_ms setup_ms ns_per_run_step ns_per_byte observations\n";
    for (const auto& [key, c] : entries) {
      out << key << '\t' << c.fixed_ms << ' ' << c.setup_ms << ' ' << c.ns_per_run_step << ' ' << c.ns_per_byte << ' ' << c.observations
          << '\n';
    }
    if (!out) return false;
  }
  std::filesystem::rename(tmp, file, ec);  // atomic replace: readers see the old or the new file
  if (ec) std::filesystem::remove(tmp, ec);
  return !ec;
}

std::optional<CostCoefficients> CostModel::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(file_mutex());
  const auto entries = load();
  const auto it = entries.find(key);
  if (it == entries.end()) return std::nullopt;
  return it->second;
}

bool CostModel::store(const std::string& key, const CostCoefficients& c) {
  std::lock_guard<std::mutex> lock(file_mutex());
  auto entries = load();
  entries[key] = c;
  if (save(entries)) {
    memory_.clear();
    return true;
  }
  memory_ = entries;
  return false;
}

std::optional<CostCoefficients> CostModel::refine(const std::string& key, std::size_t runs, double steps_per_run,
                                                  double bytes_per_run, double observed_ms, bool first_use,
                                                  double alpha) {
  std::lock_guard<std::mutex> lock(file_mutex());
  auto entries = load();
  const auto it = entries.find(key);
  if (it == entries.end()) return std::nullopt;
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
  if (save(entries)) {
    memory_.clear();
  } else {
    memory_ = entries;
  }
  return c;
}

}  // namespace batchode
