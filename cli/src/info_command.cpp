// cli/: `batchode info`: what this machine offers batchode. The backends (the CPU always; the GPU
// backend compiled in and whether a device is usable, with the runtime's reason when not), each
// device, the runtime compilers (the host C++ compiler that builds models for the CPU, NVRTC or
// hipRTC that builds them for the GPU) and the cache folder shared by the cost model and compiled models,
// with its size limit, its entries and a warning for any folder of it the cache refuses (not yours, writable
// by others). Everything it cannot find it reports as such: it never fails.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "batchode/backends/cpu/simd_set.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime_compiler.hpp"
#include "batchode/jit/artifact_cache.hpp"
#include "batchode/jit/cache_directory.hpp"
#include "batchode/jit/host_compiler.hpp"
#include "commands.hpp"

#ifndef BATCHODE_VERSION_STRING
#error "BATCHODE_VERSION_STRING (the project's version) is defined by cli/CMakeLists.txt"
#endif

namespace batchode::cli {

namespace {

namespace fs = std::filesystem;

std::string bytes_text(std::uintmax_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < (1u << 20)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  if (bytes < (1u << 30)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1u << 20));
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1u << 30));
}

struct Tally {
  std::uintmax_t files = 0, bytes = 0;
};

/// Regular files under `dir` (never following links), by the subfolder they are in ("" for `dir`).
std::map<std::string, Tally> cache_entries(const fs::path& dir, std::string& problem) {
  std::map<std::string, Tally> tally;
  std::error_code error;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, error);
  for (const fs::recursive_directory_iterator end{}; !error && it != end; it.increment(error)) {
    std::error_code file_error;
    if (it->is_symlink(file_error) || !it->is_regular_file(file_error)) continue;
    const fs::path relative = it->path().lexically_relative(dir);
    const std::string group = relative.has_parent_path() ? relative.begin()->string() : "";
    Tally& t = tally[group];
    ++t.files;
    const std::uintmax_t size = it->file_size(file_error);
    if (!file_error) t.bytes += size;
  }
  if (error) problem = error.message();
  return tally;
}

/// How the CPU runs blocks of runs in SIMD lanes (backends/cpu/simd_set.hpp): the instruction set and
/// the runs a block holds, or why not.
std::string simd_lanes() {
  try {
    const cpu::SimdSet set = cpu::simd_set();
    if (set == cpu::SimdSet::off) return "off (BATCHODE_CPU_SIMD)";
    return fmt::format("{}, blocks of {} runs in float64 and {} in float32", cpu::simd_set_name(set),
                       cpu::block_runs<double>, cpu::block_runs<float>);
  } catch (const std::exception& e) {
    return e.what();
  }
}

void print_backends(std::ostream& out) {
  out << "backends:\n";
  out << fmt::format("  cpu    available, {} hardware threads; runs in SIMD lanes: {}\n",
                     std::thread::hardware_concurrency(), simd_lanes());
  const std::string compiled = gpu::compiled_backend();
  const gpu::Discovery& gpus = gpu::discover();
  if (compiled == "off") {
    out << "  gpu    not built (BATCHODE_GPU=off)\n";
  } else if (!gpus.available) {
    out << fmt::format("  gpu    {} built, no usable device: {}\n", compiled, gpus.reason);
  } else {
    out << fmt::format("  gpu    {}, {} usable device{}\n", compiled, gpus.devices.size(),
                       gpus.devices.size() == 1 ? "" : "s");
  }
  if (!gpus.devices.empty()) out << "devices:\n";
  for (const gpu::DeviceInfo& d : gpus.devices) {
    out << fmt::format("  gpu:{}  {}, {} memory ({} free), {} multiprocessors, warp {}, compute {}.{}\n",
                       d.index, d.name, bytes_text(d.total_memory), bytes_text(d.free_memory),
                       d.multiprocessors, d.warp_size, d.compute_major, d.compute_minor);
  }
}

void print_compilers(std::ostream& out) {
  out << "runtime compilers:\n";
  try {
    const jit::HostCompiler compiler = jit::find_host_compiler();
    out << fmt::format("  host C++   {} ({}): compiles models for the CPU\n", compiler.path,
                       compiler.version);
  } catch (const std::exception& e) {
    out << "  host C++   none: " << e.what() << '\n';
  }
  std::string why_not;
  if (const std::optional<gpu::RuntimeCompiler> rtc = gpu::RuntimeCompiler::load(&why_not)) {
    out << fmt::format("  GPU        {}: compiles models for the GPU\n", rtc->name_and_version());
  } else {
    out << "  GPU        none: " << why_not << " (models run on the CPU)\n";
  }
}

/// A warning for the cache folder and each folder in it that the cache refuses to load from, in the
/// cache's own words (jit::cache_folder_problem), so a user sees why models compile every time.
void print_cache_folder_problems(const fs::path& dir, std::ostream& out) {
  std::vector<fs::path> folders{dir};
  std::error_code error;
  for (fs::directory_iterator it(dir, error); !error && it != fs::directory_iterator(); it.increment(error)) {
    std::error_code file_error;
    if (it->is_directory(file_error) && !it->is_symlink(file_error)) folders.push_back(it->path());
  }
  std::sort(folders.begin() + 1, folders.end());
  for (const fs::path& folder : folders) {
    const std::string problem = jit::cache_folder_problem(folder);
    if (!problem.empty()) out << "  warning    " << problem << "; compiled models are not loaded from it\n";
  }
}

/// The size each kind of entry is pruned to, or the warning that BATCHODE_CACHE_MAX_SIZE is malformed
/// (a run would refuse it).
void print_cache_limit(std::ostream& out) {
  try {
    const std::uintmax_t capacity = jit::cache_capacity();
    out << "  limit      "
        << (capacity == 0 ? std::string("none")
                          : bytes_text(capacity) + " per kind, least recently used go first")
        << " (BATCHODE_CACHE_MAX_SIZE)\n";
  } catch (const std::exception& e) {
    out << "  warning    " << e.what() << '\n';
  }
}

void print_cache(std::ostream& out) {
  const fs::path dir = jit::cache_directory();
  out << "cache (BATCHODE_CACHE_DIR, else $XDG_CACHE_HOME/batchode, else ~/.cache/batchode):\n";
  print_cache_limit(out);
  if (dir.empty()) {
    out << "  folder     none: no BATCHODE_CACHE_DIR, XDG_CACHE_HOME or home folder\n";
    return;
  }
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    out << "  folder     " << dir.string() << " (not created yet)\n";
    return;
  }
  out << "  folder     " << dir.string() << '\n';
  print_cache_folder_problems(dir, out);
  std::string problem;
  const std::map<std::string, Tally> entries = cache_entries(dir, problem);
  Tally total;
  for (const auto& [group, t] : entries) {
    total.files += t.files;
    total.bytes += t.bytes;
  }
  out << fmt::format("  entries    {} files, {}\n", total.files, bytes_text(total.bytes));
  for (const auto& [group, t] : entries) {
    out << fmt::format("    {:<10} {} files, {}\n", group.empty() ? "(top)" : group + "/", t.files,
                       bytes_text(t.bytes));
  }
  if (!problem.empty()) out << "  (listing stopped: " << problem << ")\n";
}

}  // namespace

int info_command(std::ostream& out) {
  out << "batchode " BATCHODE_VERSION_STRING "\n";
  print_backends(out);
  print_compilers(out);
  print_cache(out);
  return 0;
}

}  // namespace batchode::cli
