// solver/systems/: RuntimeModel's GPU compile, apart from the CPU's (runtime_model_cpu.cpp): the generated
// system with the core's batch kernel (backends/gpu/runtime_kernel_source.hpp), compiled by the runtime
// compiler (NVRTC / hipRTC) into a code image for the device's architecture, kept in the on-disk cache
// (the kernels' lowered names packed beside the image) and verified like the CPU objects.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "batchode/backends/gpu/runtime_kernel_source.hpp"
#include "batchode/jit/sha256.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/timed_events.hpp"
#include "runtime_model_parts.hpp"

namespace batchode {

namespace detail {

namespace {

// A cached GPU entry: this header line, the number of lowered names, the names (one per line), then
// the code image. (Format 1 held exactly two names; its entries no longer match and are compiled
// again: the module now also holds the run-order kernel.)
constexpr const char* kGpuEntryHeader = "batchode runtime kernels 2\n";

std::vector<char> pack_gpu_entry(const gpu::CompiledKernels& compiled) {
  std::string head = kGpuEntryHeader + std::to_string(compiled.lowered_names.size()) + '\n';
  for (const std::string& name : compiled.lowered_names) head += name + '\n';
  std::vector<char> bytes(head.begin(), head.end());
  bytes.insert(bytes.end(), compiled.image.begin(), compiled.image.end());
  return bytes;
}

/// The entry's names and image; nothing when the bytes are not an entry of this format.
std::optional<gpu::CompiledKernels> unpack_gpu_entry(const std::vector<char>& bytes) {
  const std::string header = kGpuEntryHeader;
  if (bytes.size() < header.size() || !std::equal(header.begin(), header.end(), bytes.begin()))
    return std::nullopt;
  gpu::CompiledKernels compiled;
  std::size_t at = header.size();
  auto next_line = [&](std::string& line) {
    const auto end = std::find(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end(), '\n');
    if (end == bytes.end()) return false;
    line.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at), end);
    at = static_cast<std::size_t>(end - bytes.begin()) + 1;
    return true;
  };
  std::string count;
  if (!next_line(count) || count.empty() || count.size() > 2 ||
      !std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  for (int i = 0, n = std::stoi(count); i < n; ++i) {
    std::string name;
    if (!next_line(name)) return std::nullopt;
    compiled.lowered_names.push_back(std::move(name));
  }
  compiled.image.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end());
  if (compiled.image.empty()) return std::nullopt;
  return compiled;
}

}  // namespace

gpu::CompiledKernels compile_gpu_program(const RuntimeModelState& state, const RuntimeKernelProgram& program,
                                         int device, const std::string& label, TimeLogger& logger) {
  const gpu::RuntimeCompiler& compiler = *runtime_compiler().compiler;
  const Headers& tools = headers();
  const std::string architecture = gpu::RuntimeCompiler::architecture_option(device);
  std::vector<std::string> options = compiler.kernel_options(tools.includes);
  options.push_back(architecture);
  std::string key_text =
      "batchode runtime model, gpu\n" + compiler.name_and_version() + "\n" + tools.digest + "\n";
  for (const std::string& option : options) key_text += option + "\n";
  key_text += program.source;
  const std::string key = jit::sha256_hex(key_text);

  std::optional<jit::ArtifactCache> cache = open_cache(state, "gpu");
  if (cache) {
    ScopedTimer timer(logger, events::model_cache_hit);
    timer.add_metadata("target", "gpu");
    timer.add_metadata("kernels", label);
    std::vector<char> bytes;
    const jit::Lookup found = find_entry(*cache, key, &bytes);
    if (found.path) {
      std::optional<gpu::CompiledKernels> entry = unpack_gpu_entry(bytes);
      // An entry with another number of kernels than the program names is not this program's.
      if (entry && entry->lowered_names.size() == program.name_expressions.size()) return *entry;
      notice("cache entry " + found.path->string() + " is not a kernel entry; rebuilding");
    } else {
      timer.add_metadata("miss", jit::to_string(found.miss));
    }
  }
  gpu::CompiledKernels compiled;
  {
    ScopedTimer timer(logger, events::model_compile);
    timer.add_metadata("target", "gpu");
    timer.add_metadata("kernels", label);
    timer.add_metadata("compiler", compiler.name_and_version());
    timer.add_metadata("architecture", architecture);
    compiled = compiler.compile(program.source, program.name_expressions, options,
                                "model '" + state.model.name() + "' (" + label + ")");
  }
  if (cache) (void)store_entry(*cache, key, pack_gpu_entry(compiled), "the kernels are used uncached");
  return compiled;
}

}  // namespace detail

}  // namespace batchode
