// solver/: RuntimeModel's compilation: the generated system (models/) wrapped with the CPU entry points
// (backends/cpu/runtime_entry_source.inl), compiled by the host compiler into a shared object (jit/),
// kept in the on-disk cache under a digest of everything that changes the binary, verified and loaded;
// and the same generated system with the core's batch kernel, compiled by the runtime compiler
// (NVRTC / hipRTC) into a code image for the GPU, cached and loaded the same way.
#include "batchode/solver/runtime_model.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "batchode/arrays/stop_request.hpp"
#include "batchode/backends/gpu/runtime_kernel_source.hpp"
#include "batchode/checks/fits_precision.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/gpu/runtime_compiler.hpp"
#include "batchode/jit/artifact_cache.hpp"
#include "batchode/jit/cache_directory.hpp"
#include "batchode/jit/host_compiler.hpp"
#include "batchode/jit/private_folder.hpp"
#include "batchode/jit/sha256.hpp"
#include "batchode/jit/shared_object.hpp"
#include "batchode/kernels/method_registry.hpp"
#include "batchode/models/codegen.hpp"
#include "batchode/solver/gpu_path.hpp"
#include "batchode/timing/events.hpp"
#include "batchode/timing/scoped_timer.hpp"

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

/// What every copy of one RuntimeModel shares: the model, its generated system, the loaded objects.
struct RuntimeModelState {
  models::Model model;
  RuntimeModelOptions options;
  std::string system_source;  // models::generate_system, Jacobian included (stiff methods use it)
  std::string cost_name;      // "model:<name>:<digest of system_source, 16 hex>"
  std::mutex mutex;           // guards `loaded`: concurrent solves compile a method once
  std::map<std::pair<int, int>, std::shared_ptr<const jit::SharedObject>> loaded;  // (method, sizeof(T))
  std::mutex gpu_mutex;  // guards `gpu_loaded` (its own: a CPU and a GPU part compile side by side)
  // (method, sizeof(T), device, summary kinds): a solve keeping summaries loads a module whose summary
  // kernel is built for exactly its kinds.
  std::map<std::tuple<int, int, int, std::uint32_t>, RuntimeKernels> gpu_loaded;
};

namespace {

constexpr const char* kTypeName = "BatchodeModel";

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

/// The include folders the generated source is compiled with and a digest of their headers: looked up
/// once per process and setting of $BATCHODE_INCLUDE_DIR (the headers do not change under a running
/// program). Both paths need them; only the CPU path needs a host compiler.
struct Headers {
  std::vector<std::string> includes;
  std::string digest;
};

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

/// The host compiler: looked up once per process and setting of the variables that choose it (its
/// --version is a process spawn).
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

/// The translation unit compiled for one method and precision: the generated system, then the
/// entry points around the CPU path's per-run loop.
std::string translation_unit(const RuntimeModelState& state, Method method, const char* value) {
  std::string tu;
  tu += "// batchode: model '" + state.model.name() + "' compiled at run time for " + to_string(method) +
        " in " + value + ".\n";
  tu += "#include \"batchode/kernels/annotations.hpp\"\n";
  tu += "#include \"batchode/kernels/model_math.hpp\"\n";
  tu += "#include \"batchode/kernels/portable.hpp\"\n\n";
  tu += state.system_source;
  tu += "\n#define BATCHODE_ENTRY_SYSTEM " + std::string(kTypeName) + "\n";
  tu += "#define BATCHODE_ENTRY_TABLEAU " + tableau_type_name(method) + "\n";
  tu += "#define BATCHODE_ENTRY_VALUE " + std::string(value) + "\n";
  tu += "#define BATCHODE_ENTRY_METHOD " + std::to_string(static_cast<int>(method)) + "\n";
  tu += "#include \"batchode/backends/cpu/runtime_entry_source.inl\"\n";
  return tu;
}

/// A line on stderr saying the cache could not be used as it should and what is done instead. Printed
/// whatever the verbosity, which governs the timing output only: a folder others could write code
/// into, or an entry that was altered, is the user's to know of, and so is a cold compile they pay for.
void notice(const std::string& line) { std::cerr << ("batchode: " + line + '\n'); }

/// The options' cache folder's `kind` entries, or nothing (with a notice) when caching is off or the
/// folder cannot be used (it is not ours, is writable by others, cannot be created).
std::optional<jit::ArtifactCache> open_cache(const RuntimeModelState& state, const char* kind) {
  std::optional<jit::ArtifactCache> cache;
  if (!state.options.use_cache) return cache;
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

/// cache.find(key), with a notice when an entry was there but refused (altered, writable by others,
/// not ours, not a file): the caller rebuilds it, and the user learns that it was not loaded.
jit::Lookup find_entry(const jit::ArtifactCache& cache, const std::string& key,
                       std::vector<char>* verified_bytes = nullptr) {
  jit::Lookup found = cache.find(key, verified_bytes);
  if (!found.path && found.miss != jit::Miss::absent)
    notice("cache entry refused (" + found.why + "); rebuilding");
  return found;
}

/// cache.store(key, bytes), or nothing (with a notice saying `instead`) when the cache cannot take the
/// entry (a folder in its place, a full disk): as with a cache that cannot be used at all, the solve
/// goes on without it.
std::optional<std::filesystem::path> store_entry(const jit::ArtifactCache& cache, const std::string& key,
                                                 const std::vector<char>& bytes, const std::string& instead) {
  try {
    return cache.store(key, bytes);
  } catch (const jit::JitError& e) {
    notice("the compiled-model cache cannot store an entry (" + std::string(e.what()) + "); " + instead);
    return std::nullopt;
  }
}

// What every CPU translation unit includes first. Parsing it (Boost.Odeint above all) is most of a
// cold compile: 5.8 of 6.2 s on the 2-core build machine, where the model's own code takes under
// 1 s. So it is precompiled once per compiler and headers (GCC's .gch), kept in the cache like any
// entry (verified before each use), and handed to each compile with -include.
constexpr const char* kPreludeName = "batchode_runtime_prelude.hpp";
constexpr const char* kPrelude =
    "#include \"batchode/kernels/annotations.hpp\"\n"
    "#include \"batchode/kernels/model_math.hpp\"\n"
    "#include \"batchode/kernels/portable.hpp\"\n"
    "#include \"batchode/backends/cpu/run_range.hpp\"\n"
    "#include \"batchode/backends/cpu/runtime_abi.hpp\"\n";

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
                                                         const Headers& tools, TimeLogger& logger,
                                                         const std::atomic<bool>* stop) {
  static std::mutex mutex;
  static std::map<std::string, bool> refused;  // compiler path -> could not build one
  std::lock_guard<std::mutex> lock(mutex);
  if (refused.count(compiler.path) != 0) return std::nullopt;
  const std::string key = jit::sha256_hex("batchode runtime prelude\n" + compiler.path + "\n" +
                                          compiler.version + "\n" + tools.digest + "\n" + kPrelude);
  if (const jit::Lookup found = find_entry(cache, key); found.path) return found.path;
  jit::CompileRequest request;
  request.source = kPrelude;
  request.include_dirs = tools.includes;
  request.flags = {"-x", "c++-header"};  // GCC: write the precompiled header as the "object"
  request.label = "the precompiled prelude of CPU models";
  request.stop = stop;
  std::vector<char> bytes;
  try {
    ScopedTimer timer(logger, events::model_prelude_compile);
    timer.add_metadata("compiler", compiler.path);
    bytes = jit::compile_shared_object(compiler, request);
  } catch (const jit::CompileError&) {
    refused[compiler.path] = true;  // not GCC, say: each model is compiled whole
    return std::nullopt;
  }
  std::optional<std::filesystem::path> stored =
      store_entry(cache, key, bytes, "compiling models without the precompiled prelude");
  if (!stored) refused[compiler.path] = true;
  return stored;
}

/// Compiles `tu` and loads the object: from the cache when a verified entry exists, else compiled and
/// stored; without a usable cache, or one that cannot take the entry, written into a private
/// temporary folder and loaded from there. A set `stop` ends a compile (jit::CompileInterrupted).
std::shared_ptr<const jit::SharedObject> compile_and_load(const RuntimeModelState& state,
                                                          const std::string& tu, TimeLogger& logger,
                                                          const std::atomic<bool>* stop) {
  const jit::HostCompiler& compiler = host_compiler();
  const Headers& tools = headers();
  jit::CompileRequest request;
  request.source = tu;
  request.include_dirs = tools.includes;
  request.label = "model '" + state.model.name() + "' (" + state.model.description().source + ")";
  request.stop = stop;
  const std::string key =
      jit::sha256_hex("batchode runtime model, cpu abi " + std::to_string(cpu::runtime_abi_version) + "\n" +
                      compiler.path + "\n" + compiler.version + "\n" + tools.digest + "\n" + tu);

  std::optional<jit::ArtifactCache> cache = open_cache(state, "cpu");
  auto compile = [&] {
    // With the precompiled prelude where there is one; where the compiler refuses the result, again
    // without (a compiler that cannot use the .gch ignores it or fails: either way the model builds).
    std::optional<std::filesystem::path> prelude;
    if (cache) {
      std::optional<jit::ArtifactCache> pch = open_cache(state, "pch");
      if (pch) prelude = precompiled_prelude(*pch, compiler, tools, logger, stop);
    }
    ScopedTimer timer(logger, events::model_compile);
    timer.add_metadata("compiler", compiler.path);
    if (prelude) {
      const PreludeFolder folder(*prelude);
      jit::CompileRequest with = request;
      with.flags = {"-include", folder.header().string()};
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
    bytes = compile();
    if (const auto path = store_entry(*cache, key, *bytes, "loading the model from a private folder"))
      return load(*path);
  }
  // No cache (or it would not take the entry): a private folder of our own, removed once the object
  // is mapped (or the compile threw).
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

/// The build's runtime compiler, looked up once per process, or why there is none.
struct RuntimeCompilerLookup {
  std::optional<gpu::RuntimeCompiler> compiler;
  std::string why_not;
};

const RuntimeCompilerLookup& runtime_compiler() {
  static const RuntimeCompilerLookup found = [] {
    RuntimeCompilerLookup lookup;
    lookup.compiler = gpu::RuntimeCompiler::load(&lookup.why_not);
    return lookup;
  }();
  return found;
}

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

/// `method`'s batch kernels (with the summary kernel of `summary_kinds` when not 0) and the run-order
/// kernel in `value` for `device`'s architecture: from the cache when a verified entry exists, else
/// compiled by the runtime compiler (and stored).
gpu::CompiledKernels compile_gpu_kernels(const RuntimeModelState& state, Method method, const char* value,
                                         int device, std::uint32_t summary_kinds, TimeLogger& logger) {
  const gpu::RuntimeCompiler& compiler = *runtime_compiler().compiler;
  const Headers& tools = headers();
  const RuntimeKernelProgram program =
      runtime_kernel_program(state.system_source, kTypeName, method, value, summary_kinds);
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
    timer.add_metadata("compiler", compiler.name_and_version());
    timer.add_metadata("architecture", architecture);
    compiled =
        compiler.compile(program.source, program.name_expressions, options,
                         "model '" + state.model.name() + "' (" + to_string(method) + ", " + value + ")");
  }
  if (cache) (void)store_entry(*cache, key, pack_gpu_entry(compiled), "the kernels are used uncached");
  return compiled;
}
}  // namespace
}  // namespace detail

namespace {
/// Refuses a value the model writes in double (a constant, a state's or a parameter's default) that T
/// cannot hold: in float32, 1e300 would become inf in the generated code or in the default batch, and
/// the run would end as non_finite_state with no word of the constant. Named at its declaration.
template <class T>
void check_values_fit(const models::ModelDescription& d) {
  struct Group {
    const std::vector<models::NamedValue>& values;
    const char* table;  // key prefix in ModelDescription::locations
    const char* what;
    const char* where;
  };
  const Group groups[] = {{d.constants, "constants", "constant", ""},
                          {d.states, "states", "state", "default initial value"},
                          {d.parameters, "parameters", "parameter", "default value"}};
  for (const Group& g : groups) {
    for (const models::NamedValue& v : g.values) {
      const std::string problem =
          checks::precision_problem<T>(v.value, std::string(g.what) + " " + v.name, g.where);
      if (problem.empty()) continue;
      const auto at = d.locations.find(std::string(g.table) + "." + v.name);
      throw models::ModelError(at != d.locations.end() ? at->second : models::SourceLocation{d.source, 0, 0},
                               problem);
    }
  }
}

/// The solver's events on `logger`, as Solver registers them: never failing (a label someone else
/// registered stays theirs and is still timed).
void register_solver_events_quietly(TimeLogger& logger) noexcept {
  try {
    register_solver_events(logger);
  } catch (...) {
    // see above
  }
}
}  // namespace

models::Model load_model(const std::string& path, TimeLogger& logger) {
  register_solver_events_quietly(logger);
  ScopedTimer timer(logger, events::model_parse);
  timer.add_metadata("file", path);
  return models::load_model(path);
}

template <class T>
RuntimeModel<T>::RuntimeModel(models::Model model, RuntimeModelOptions options, TimeLogger& logger)
    : n_states_(model.n_states()),
      n_params_(model.n_params()),
      n_events_(model.events().size()),
      state_(std::make_shared<detail::RuntimeModelState>()) {
  register_solver_events_quietly(logger);
  check_values_fit<T>(model.description());
  state_->model = std::move(model);
  state_->options = std::move(options);
  ScopedTimer timer(logger, events::model_codegen);
  models::CodegenOptions codegen;
  codegen.type_name = detail::kTypeName;
  codegen.jacobian = true;
  state_->system_source = models::generate_system(state_->model, codegen);
  state_->cost_name =
      "model:" + state_->model.name() + ":" + jit::sha256_hex(state_->system_source).substr(0, 16);
}

template <class T>
const models::Model& RuntimeModel<T>::model() const noexcept {
  return state_->model;
}

template <class T>
std::vector<std::string> RuntimeModel<T>::state_names() const {
  std::vector<std::string> names;
  for (const models::NamedValue& v : state_->model.states()) names.push_back(v.name);
  return names;
}

template <class T>
std::vector<std::string> RuntimeModel<T>::parameter_names() const {
  std::vector<std::string> names;
  for (const models::NamedValue& v : state_->model.parameters()) names.push_back(v.name);
  return names;
}

template <class T>
std::vector<T> RuntimeModel<T>::default_y0() const {
  std::vector<T> values;
  for (const models::NamedValue& v : state_->model.states()) values.push_back(static_cast<T>(v.value));
  return values;
}

template <class T>
std::vector<T> RuntimeModel<T>::default_params() const {
  std::vector<T> values;
  for (const models::NamedValue& v : state_->model.parameters()) values.push_back(static_cast<T>(v.value));
  return values;
}

template <class T>
std::size_t RuntimeModel<T>::n_observables() const noexcept {
  return state_->model.observables().size();
}

template <class T>
std::vector<std::string> RuntimeModel<T>::observable_names() const {
  return state_->model.observables();
}

template <class T>
std::size_t RuntimeModel<T>::n_drivers() const noexcept {
  return state_->model.drivers().size();
}

template <class T>
std::vector<std::string> RuntimeModel<T>::driver_names() const {
  std::vector<std::string> names;
  for (const models::DriverDescription& u : state_->model.drivers()) names.push_back(u.name);
  return names;
}

template <class T>
std::vector<DriverSpec> RuntimeModel<T>::driver_specs() const {
  std::vector<DriverSpec> specs;
  for (const models::DriverDescription& u : state_->model.drivers()) {
    if (u.values.empty()) continue;
    DriverSpec spec;
    spec.name = u.name;
    spec.values = u.values;
    spec.times = u.times;
    spec.dt = u.dt;
    spec.order = u.order;
    spec.end = parse_spline_end(u.end);
    spec.wrap = u.wrap;
    spec.land = u.land;
    specs.push_back(std::move(spec));
  }
  return specs;
}

template <class T>
std::vector<EventSpec> RuntimeModel<T>::event_specs() const {
  std::vector<EventSpec> specs;
  for (const models::EventDescription& e : state_->model.events()) {
    EventSpec spec;
    spec.name = e.name;
    spec.direction = e.direction == "rising"    ? EventDirection::rising
                     : e.direction == "falling" ? EventDirection::falling
                                                : EventDirection::both;
    spec.action = e.action == "terminal" ? EventAction::terminal : EventAction::record;
    spec.max = static_cast<std::uint32_t>(e.max);  // parse_model keeps it in [1, 2^20]
    specs.push_back(std::move(spec));
  }
  return specs;
}

template <class T>
const std::string& RuntimeModel<T>::cost_name() const {
  return state_->cost_name;
}

template <class T>
void RuntimeModel<T>::prepare(Method method, TimeLogger& logger, const std::atomic<bool>* stop) const {
  (void)cpu_entry(method, logger, stop);
}

template <class T>
cpu::RuntimeEntry<T> RuntimeModel<T>::cpu_entry(Method method, TimeLogger& logger,
                                                const std::atomic<bool>* stop) const {
  if (!is_known_method(method))
    throw InvalidInput("unknown method value " + std::to_string(static_cast<int>(method)));
  register_solver_events_quietly(logger);
  detail::RuntimeModelState& state = *state_;
  std::shared_ptr<const jit::SharedObject> object;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    auto& slot = state.loaded[{static_cast<int>(method), static_cast<int>(sizeof(T))}];
    if (!slot) {
      const char* value = sizeof(T) == 4 ? "float" : "double";
      std::shared_ptr<const jit::SharedObject> loaded;
      try {
        loaded =
            detail::compile_and_load(state, detail::translation_unit(state, method, value), logger, stop);
      } catch (const jit::CompileInterrupted& e) {
        throw SolveInterrupted(e.what());  // what a stopped solve throws, wherever it stopped
      }
      cpu::RuntimeAbi abi{};
      loaded->function<cpu::RuntimeAbiFunction>(cpu::runtime_abi_symbol)(&abi);
      const cpu::RuntimeAbi want = cpu::expected_runtime_abi<T>(
          static_cast<std::uint32_t>(method), static_cast<std::uint32_t>(n_states_),
          static_cast<std::uint32_t>(n_params_), static_cast<std::uint32_t>(n_events_),
          static_cast<std::uint32_t>(n_observables()));
      if (std::memcmp(&abi, &want, sizeof abi) != 0) {
        // Name the first field that differs: a version, a precision or a size of what crosses.
        const std::pair<const char*, std::pair<std::uint32_t, std::uint32_t>> fields[] = {
            {"ABI version", {abi.version, want.version}},
            {"value bytes", {abi.value_bytes, want.value_bytes}},
            {"method", {abi.method, want.method}},
            {"states", {abi.n_states, want.n_states}},
            {"parameters", {abi.n_params, want.n_params}},
            {"events", {abi.n_events, want.n_events}},
            {"observables", {abi.n_observables, want.n_observables}},
            {"settings bytes", {abi.settings_bytes, want.settings_bytes}},
            {"result view bytes", {abi.view_bytes, want.view_bytes}},
            {"call bytes", {abi.call_bytes, want.call_bytes}},
            {"status bytes", {abi.status_bytes, want.status_bytes}},
            {"counters bytes", {abi.counters_bytes, want.counters_bytes}}};
        std::string differs = "a field";
        for (const auto& [name, values] : fields) {
          if (values.first != values.second) {
            differs = std::string(name) + " " + std::to_string(values.first) + ", expected " +
                      std::to_string(values.second);
            break;
          }
        }
        throw jit::JitError("model '" + state.model.name() +
                            "': the compiled object does not match this library (" + differs +
                            "); delete the cache folder's cpu/ entries and retry");
      }
      slot = std::move(loaded);
    }
    object = slot;
  }
  cpu::RuntimeEntry<T> entry;
  entry.integrate = object->function<cpu::RangeFunction<T>>(cpu::runtime_range_symbol);
  entry.new_stepper = object->function<cpu::NewStepperFunction>(cpu::runtime_new_stepper_symbol);
  entry.delete_stepper = object->function<cpu::DeleteStepperFunction>(cpu::runtime_delete_stepper_symbol);
  entry.n_states = n_states_;
  entry.n_params = n_params_;
  entry.name = state.model.name();
  entry.keep = object;
  return entry;
}

template <class T>
std::string RuntimeModel<T>::gpu_unavailable(Method method) const {
  if (!is_known_method(method)) return "unknown method value " + std::to_string(static_cast<int>(method));
  if (cpu_only(method)) return cpu_only_reason(method);
  if (!BATCHODE_HAS_GPU_RUNTIME) {
    return std::string("this build has no GPU backend (build backend '") + gpu::compiled_backend() + "')";
  }
  const detail::RuntimeCompilerLookup& found = detail::runtime_compiler();
  if (!found.compiler) return "no runtime compiler for models defined at run time: " + found.why_not;
  return {};
}

template <class T>
RuntimeKernels RuntimeModel<T>::gpu_kernels(Method method, int device, TimeLogger& logger,
                                            std::uint32_t summary_kinds) const {
  if (const std::string why = gpu_unavailable(method); !why.empty()) {
    throw GpuUnavailable("model '" + state_->model.name() + "' cannot run on a GPU: " + why);
  }
  register_solver_events_quietly(logger);
  detail::RuntimeModelState& state = *state_;
  std::lock_guard<std::mutex> lock(state.gpu_mutex);
  RuntimeKernels& slot =
      state.gpu_loaded[{static_cast<int>(method), static_cast<int>(sizeof(T)), device, summary_kinds}];
  if (!slot.module) {
    const char* value = sizeof(T) == 4 ? "float" : "double";
    gpu::set_device(device);  // the module loads on the calling thread's current device
    const gpu::CompiledKernels compiled =
        detail::compile_gpu_kernels(state, method, value, device, summary_kinds, logger);
    ScopedTimer timer(logger, events::model_load);
    timer.add_metadata("target", "gpu");
    timer.add_metadata("device", static_cast<std::int64_t>(device));
    slot = load_runtime_kernels<T>(
        method, compiled, "model '" + state.model.name() + "' (" + to_string(method) + ", " + value + ")",
        summary_kinds);
  }
  return slot;
}

template class RuntimeModel<float>;
template class RuntimeModel<double>;

}  // namespace batchode
