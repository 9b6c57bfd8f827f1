// solver/systems/: RuntimeModel's CPU compile, apart from the GPU's (runtime_model_gpu.cpp): the generated
// system wrapped with the CPU entry points (backends/cpu/runtime_entry_source.inl), compiled by the host
// compiler into a shared object (jit/) with the precompiled prelude where the compiler takes one, kept
// in the on-disk cache under a digest of everything that changes the binary, verified and loaded.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/backends/cpu/runtime_abi.hpp"
#include "batchode/backends/cpu/simd_set.hpp"
#include "batchode/backends/gpu/runtime_kernel_source.hpp"  // tableau_type_name
#include "batchode/jit/private_folder.hpp"
#include "batchode/jit/sha256.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/timed_events.hpp"
#include "runtime_model_parts.hpp"

namespace batchode {

namespace detail {

std::string translation_unit(const RuntimeModelState& state, Method method, const char* value) {
  std::string tu;
  tu += "// batchode: model '" + state.model.name() + "' compiled at run time for " + to_string(method) +
        " in " + value + ".\n";
  tu += "#include \"batchode/kernels/core/annotations.hpp\"\n";
  tu += "#include \"batchode/kernels/core/model_math.hpp\"\n";
  tu += "#include \"batchode/kernels/core/portable.hpp\"\n\n";
  tu += state.system_source;
  tu += "\n#define BATCHODE_ENTRY_SYSTEM " + std::string(kTypeName) + "\n";
  tu += "#define BATCHODE_ENTRY_TABLEAU " + tableau_type_name(method) + "\n";
  tu += "#define BATCHODE_ENTRY_VALUE " + std::string(value) + "\n";
  tu += "#define BATCHODE_ENTRY_METHOD " + std::to_string(static_cast<int>(method)) + "\n";
  tu += "#include \"batchode/backends/cpu/runtime_entry_source.inl\"\n";
  return tu;
}

namespace {

// What every CPU translation unit includes first. Parsing it (Boost.Odeint above all) is most of a
// cold compile: 5.8 of 6.2 s on the 2-core build machine, where the model's own code takes under
// 1 s. So it is precompiled once per compiler and headers (GCC's .gch), kept in the cache like any
// entry (verified before each use), and handed to each compile with -include.
constexpr const char* kPreludeName = "batchode_runtime_prelude.hpp";
constexpr const char* kPrelude =
    "#include \"batchode/kernels/core/annotations.hpp\"\n"
    "#include \"batchode/kernels/core/model_math.hpp\"\n"
    "#include \"batchode/kernels/core/portable.hpp\"\n"
    "#include \"batchode/backends/cpu/run_range.hpp\"\n"
    "#include \"batchode/backends/cpu/runtime_abi.hpp\"\n";

/// The flags of a model's CPU code: its blocks of runs compiled for the one instruction set this
/// process runs (simd_set.hpp: a third of the block code; none under BATCHODE_CPU_SIMD=off), so the
/// cache keeps a model per set, then BATCHODE_MODEL_CXXFLAGS's. A BATCHODE_CPU_SIMD the solve will refuse
/// by name compiles every set.
std::vector<std::string> cpu_compile_flags() {
  int sets = BATCHODE_CPU_BLOCK_SETS;
  try {
    sets = cpu::block_set_bit(cpu::simd_set());
  } catch (const std::invalid_argument&) {
  }
  std::vector<std::string> flags = {"-DBATCHODE_CPU_BLOCK_SETS=" + std::to_string(sets)};
  for (std::string& flag : model_compile_flags()) flags.push_back(std::move(flag));
  return flags;
}

/// The model flags as one line, for cache keys.
std::string joined(const std::vector<std::string>& flags) {
  std::string line;
  for (const std::string& f : flags) line += f + ' ';
  return line;
}

/// A private folder holding the prelude and, beside it, a link to its verified precompiled form: the
/// `-include` of a model's compile. Removed with everything in it.
class PreludeFolder {
 public:
  explicit PreludeFolder(const std::filesystem::path& precompiled) {
    std::ofstream(folder_.path() / kPreludeName) << kPrelude;
    std::filesystem::create_symlink(precompiled, folder_.path() / (std::string(kPreludeName) + ".gch"));
  }
  std::filesystem::path header() const { return folder_.path() / kPreludeName; }

 private:
  jit::PrivateFolder folder_{"batchode-prelude"};
};

/// The verified precompiled prelude in `cache` (built and stored on a miss, timed as
/// model_prelude_compile), or nothing when the compiler cannot build one or the cache cannot keep it
/// (it is then never built again in this process: the caller compiles without). A set `stop` ends
/// the build (jit::CompileInterrupted).
std::optional<std::filesystem::path> precompiled_prelude(const jit::ArtifactCache& cache,
                                                         const jit::HostCompiler& compiler,
                                                         const Headers& tools, const std::vector<std::string>& flags,
                                                         TimeLogger& logger, const std::atomic<bool>* stop) {
  static std::mutex mutex;
  static std::map<std::string, bool> refused;  // compiler path and flags -> could not build one
  std::lock_guard<std::mutex> lock(mutex);
  const std::string which = compiler.path + '\n' + joined(flags);
  if (refused.count(which) != 0) return std::nullopt;
  const std::string key = jit::sha256_hex("batchode runtime prelude\n" + compiler.path + "\n" + compiler.version +
                                          "\n" + tools.digest + "\n" + joined(flags) + "\n" + kPrelude);
  if (const jit::Lookup found = find_entry(cache, key); found.path) return found.path;
  jit::CompileRequest request;
  request.source = kPrelude;
  request.include_dirs = tools.includes;
  request.flags = {"-x", "c++-header"};  // GCC: write the precompiled header as the "object"
  request.flags.insert(request.flags.end(), flags.begin(), flags.end());  // as every model's: GCC checks
  request.label = "the precompiled prelude of CPU models";
  request.stop = stop;
  std::vector<char> bytes;
  try {
    ScopedTimer timer(logger, events::model_prelude_compile);
    timer.add_metadata("compiler", compiler.path);
    bytes = jit::compile_shared_object(compiler, request);
  } catch (const jit::CompileError&) {
    refused[which] = true;  // not GCC, say: each model is compiled whole
    return std::nullopt;
  }
  std::optional<std::filesystem::path> stored =
      store_entry(cache, key, bytes, "compiling models without the precompiled prelude");
  if (!stored) refused[which] = true;
  return stored;
}

}  // namespace

std::shared_ptr<const jit::SharedObject> compile_and_load(const RuntimeModelState& state,
                                                          const std::string& tu, TimeLogger& logger,
                                                          const std::atomic<bool>* stop,
                                                          bool compile_missing) {
  const jit::HostCompiler& compiler = host_compiler();
  const Headers& tools = headers();
  const std::vector<std::string> flags = cpu_compile_flags();
  jit::CompileRequest request;
  request.source = tu;
  request.include_dirs = tools.includes;
  request.flags = flags;
  request.label = "model '" + state.model.name() + "' (" + state.model.description().source + ")";
  request.stop = stop;
  const std::string key =
      jit::sha256_hex("batchode runtime model, cpu abi " + std::to_string(cpu::runtime_abi_version) + "\n" +
                      compiler.path + "\n" + compiler.version + "\n" + tools.digest + "\n" + joined(flags) + "\n" + tu);

  std::optional<jit::ArtifactCache> cache = open_cache(state, "cpu");
  auto compile = [&] {
    // With the precompiled prelude where there is one; where the compiler refuses the result, again
    // without (a compiler that cannot use the .gch ignores it or fails: either way the model builds).
    std::optional<std::filesystem::path> prelude;
    if (cache) {
      std::optional<jit::ArtifactCache> pch = open_cache(state, "pch");
      if (pch) prelude = precompiled_prelude(*pch, compiler, tools, flags, logger, stop);
    }
    ScopedTimer timer(logger, events::model_compile);
    timer.add_metadata("compiler", compiler.path);
    if (prelude) {
      const PreludeFolder folder(*prelude);
      jit::CompileRequest with = request;
      with.flags = {"-include", folder.header().string()};
      with.flags.insert(with.flags.end(), flags.begin(), flags.end());
      try {
        std::vector<char> bytes = jit::compile_shared_object(compiler, with);
        timer.add_metadata("precompiled_prelude", "yes");
        return bytes;
      } catch (const jit::CompileError&) {
        timer.add_metadata("precompiled_prelude", "refused");
        return jit::compile_shared_object(compiler, request);
      }
    }
    timer.add_metadata("precompiled_prelude", "no");
    return jit::compile_shared_object(compiler, request);
  };
  auto load = [&](const std::filesystem::path& path) {
    ScopedTimer timer(logger, events::model_load);
    return std::make_shared<const jit::SharedObject>(path);
  };

  std::optional<std::vector<char>> bytes;
  if (cache) {
    std::optional<std::filesystem::path> cached;
    {
      ScopedTimer timer(logger, events::model_cache_hit);
      const jit::Lookup found = find_entry(*cache, key);
      cached = found.path;
      if (!cached) timer.add_metadata("miss", jit::to_string(found.miss));
    }
    if (cached) return load(*cached);
    if (!compile_missing) return nullptr;
    bytes = compile();
    if (const auto path = store_entry(*cache, key, *bytes, "loading the model from a private folder"))
      return load(*path);
  }
  // No cache (or it would not take the entry): a private folder of our own, removed once the object
  // is mapped (or the compile threw).
  if (!compile_missing) return nullptr;
  const jit::PrivateFolder folder("batchode-model");
  if (!bytes) bytes = compile();
  const std::filesystem::path file = folder.path() / "model.so";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    if (!out) throw jit::JitError("cannot write " + file.string());
  }
  return load(file);
}

}  // namespace detail

}  // namespace batchode
