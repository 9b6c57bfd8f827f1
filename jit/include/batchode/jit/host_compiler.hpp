// jit/: the host C++ compiler that turns generated source into a shared object, found once and run
// as a child process (posix_spawn with an argument vector: no shell ever sees model text).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "batchode/jit/jit_error.hpp"

namespace batchode::jit {

/// A C++ compiler on this machine: its absolute path and the first line of its `--version` (both go
/// into cache keys, so an upgraded compiler rebuilds its models).
struct HostCompiler {
  std::string path;
  std::string version;
};

/// $BATCHODE_CXX, else $CXX, else the first of c++, g++, clang++ on $PATH; a name without a slash is
/// looked up on $PATH. Runs `<compiler> --version` (10 s at most). Throws JitError saying what was
/// searched and how to set BATCHODE_CXX when none is found, when BATCHODE_CXX or CXX names no
/// executable file, or when `--version` fails.
HostCompiler find_host_compiler();

/// The compiler failed, crashed or ran past its time limit. what() names the request's label, says
/// what happened, shows the command and the first 60 lines of the compiler's output.
class CompileError : public JitError {
 public:
  CompileError(const std::string& message, std::string command, std::string log);
  /// Everything the compiler printed (stdout and stderr interleaved; the first 1 MiB).
  const std::string& log() const noexcept { return log_; }
  /// The command line, each argument quoted where a shell would need it (to rerun it by hand).
  const std::string& command() const noexcept { return command_; }

 private:
  std::string command_;
  std::string log_;
};

/// The compile was stopped by its CompileRequest::stop flag: the compiler and all it started were ended
/// and reaped, the temporary folder removed. what() names the request's label. Not a CompileError, so
/// no caller that falls back on a compiler's failure (another flag set, another compiler) retries it.
class CompileInterrupted : public JitError {
 public:
  using JitError::JitError;
};

/// What to compile.
struct CompileRequest {
  std::string source;                     ///< one C++17 translation unit
  std::vector<std::string> include_dirs;  ///< passed as -I<dir>, in order
  std::vector<std::string> flags;         ///< extra arguments, after the defaults (so they can override them)
  std::string label;                      ///< for messages, e.g. "model 'lorenz'"
  int timeout_s = 600;                    ///< the compiler (and its children) is killed past this
  /// A flag the caller owns (null: none), read every 20 ms while the compiler runs: once set, the
  /// compiler's process group gets SIGTERM (SIGKILL within 500 ms) and CompileInterrupted is thrown.
  /// A pointer to a plain atomic, not arrays/stop_request.hpp: jit sits below arrays in the layers
  /// (scripts/layer_graph.py), and the flag a solve is stopped by (SolveOptions.stop) is this very
  /// type, so the solver hands it down as it is and turns CompileInterrupted into SolveInterrupted.
  const std::atomic<bool>* stop = nullptr;
};

/// Compiles `request.source` into a shared object with `-std=c++17 -O3 -DNDEBUG -fPIC -shared
/// -fvisibility=hidden` (export entry points with __attribute__((visibility("default")))) plus
/// request.flags, in a private temporary folder (mode 0700, removed afterwards); returns the
/// object's bytes. Throws CompileError when the compiler exits non-zero, is killed by a signal, runs
/// past timeout_s (then it and its children are killed) or writes no object; CompileInterrupted when
/// request.stop is set before or while it runs; JitError when it cannot be started or the temporary
/// folder cannot be written; InvalidInput when timeout_s < 1.
std::vector<char> compile_shared_object(const HostCompiler& compiler, const CompileRequest& request);

}  // namespace batchode::jit
