// solver/systems/: what the pieces of RuntimeModel's compilation share (private to src/systems/): the
// state every copy of a model shares, the headers and compilers looked up once per process and the
// on-disk cache (runtime_model_tools.cpp), the CPU compile (runtime_model_cpu.cpp) and the GPU one
// (runtime_model_gpu.cpp) that runtime_model.cpp's RuntimeModel calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "batchode/backends/gpu/runtime_kernels.hpp"
#include "batchode/gpu/runtime_compiler.hpp"
#include "batchode/jit/artifact_cache.hpp"
#include "batchode/jit/host_compiler.hpp"
#include "batchode/jit/shared_object.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/models/model.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode {

namespace detail {

/// What every copy of one RuntimeModel shares: the model, its generated system, the loaded objects.
struct RuntimeModelState {
  models::Model model;
  RuntimeModelOptions options;
  std::string system_source;  // models::generate_system, Jacobian included (stiff methods use it)
  bool rhs_component = false;  // system_source gives rhs_component (models/component_shapes.hpp)
  std::string cost_name;      // "model:<name>:<digest of system_source, 16 hex>"
  std::mutex mutex;           // guards `loaded`: concurrent solves compile a method once
  std::map<std::pair<int, int>, std::shared_ptr<const jit::SharedObject>> loaded;  // (method, sizeof(T))
  std::mutex gpu_mutex;  // guards `gpu_loaded` (its own: a CPU and a GPU part compile side by side)
  // (method, sizeof(T), device, the kernels built): each solve loads a module of the one batch kernel
  // it launches (a summary kernel built for exactly its kinds), without the run order's kernel...
  std::map<std::tuple<int, int, int, RuntimeKernelChoice>, RuntimeKernels> gpu_loaded;
  // ...which has a module of its own per (sizeof(T), device), loaded when a solve orders runs.
  std::map<std::pair<int, int>, RuntimeKernels> gpu_run_order;
  // ...and so has the series' reduction across runs (series_moments_program), loaded when a solve reduces
  // its series on the device.
  std::map<std::pair<int, int>, RuntimeKernels> gpu_series_moments;
};

inline constexpr const char* kTypeName = "BatchodeModel";

// runtime_model_tools.cpp: the headers, the compilers and the cache both paths use.

/// The include folders the generated source is compiled with and a digest of their headers: looked up
/// once per process and setting of $BATCHODE_INCLUDE_DIR (the headers do not change under a running
/// program). Both paths need them; only the CPU path needs a host compiler.
struct Headers {
  std::vector<std::string> includes;
  std::string digest;
};

const Headers& headers();

/// A sparse LU's threshold of slots for loops (RuntimeModelOptions::sparse_lu_loops_from and
/// sparse_lu_solve_loops_from): `asked`, or $`variable` where set. Throws InvalidInput naming the variable for
/// a value that is not a whole number.
std::size_t slots_from_environment(const char* variable, std::size_t asked);

/// $BATCHODE_MODEL_CXXFLAGS split at whitespace (no quoting): flags for the host compiler of CPU
/// models, after batchode's own (jit/'s -O3 ...), so -O1 or -march=native override or add to them.
/// They go into every cache key of CPU code (the precompiled prelude's too).
std::vector<std::string> model_compile_flags();

/// The host compiler: looked up once per process and setting of the variables that choose it (its
/// --version is a process spawn).
const jit::HostCompiler& host_compiler();

/// The build's runtime compiler, looked up once per process, or why there is none.
struct RuntimeCompilerLookup {
  std::optional<gpu::RuntimeCompiler> compiler;
  std::string why_not;
};

const RuntimeCompilerLookup& runtime_compiler();

/// A line on stderr saying the cache could not be used as it should and what is done instead. Printed
/// whatever the verbosity, which governs the timing output only: a folder others could write code
/// into, or an entry that was altered, is the user's to know of, and so is a cold compile they pay for.
void notice(const std::string& line);

/// The options' cache folder's `kind` entries, or nothing (with a notice) when caching is off or the
/// folder cannot be used (it is not ours, is writable by others, cannot be created). Throws
/// InvalidInput for a malformed BATCHODE_CACHE_MAX_SIZE (jit::cache_capacity), before any compile.
std::optional<jit::ArtifactCache> open_cache(const RuntimeModelState& state, const char* kind);

/// cache.find(key), with a notice when an entry was there but refused (altered, writable by others,
/// not ours, not a file): the caller rebuilds it, and the user learns that it was not loaded.
jit::Lookup find_entry(const jit::ArtifactCache& cache, const std::string& key,
                       std::vector<char>* verified_bytes = nullptr);

/// cache.store(key, bytes), or nothing (with a notice saying `instead`) when the cache cannot take the
/// entry (a folder in its place, a full disk): as with a cache that cannot be used at all, the solve
/// goes on without it. Then prunes the kind to jit::cache_capacity(), least recently used first.
std::optional<std::filesystem::path> store_entry(const jit::ArtifactCache& cache, const std::string& key,
                                                 const std::vector<char>& bytes, const std::string& instead);

// runtime_model_cpu.cpp: the CPU path's shared object.

/// The translation unit compiled for one method and precision: the generated system, then the
/// entry points around the CPU path's per-run loop.
std::string translation_unit(const RuntimeModelState& state, Method method, const char* value);

/// Compiles `tu` and loads the object: from the cache when a verified entry exists, else compiled and
/// stored; without a usable cache, or one that cannot take the entry, written into a private
/// temporary folder and loaded from there. A set `stop` ends a compile (jit::CompileInterrupted).
/// Without `compile_missing`: null where the cache holds no entry (nothing is compiled).
std::shared_ptr<const jit::SharedObject> compile_and_load(const RuntimeModelState& state,
                                                          const std::string& tu, TimeLogger& logger,
                                                          const std::atomic<bool>* stop,
                                                          bool compile_missing = true);

// runtime_model_gpu.cpp: the GPU path's code image.

/// The code image and lowered names of `program` (runtime_kernel_program's or run_order_program's) for
/// `device`'s architecture: from the cache when a verified entry exists, else compiled by the runtime
/// compiler (and stored). `label` says which kernels, in the timing's metadata and in errors.
gpu::CompiledKernels compile_gpu_program(const RuntimeModelState& state, const RuntimeKernelProgram& program,
                                         int device, const std::string& label, TimeLogger& logger);

}  // namespace detail

}  // namespace batchode
