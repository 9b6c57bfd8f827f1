// jit/ (private): runs a program and captures what it prints, with a time limit. posix_spawn with an
// argument vector (no shell, so no argument is ever parsed as shell syntax), in a process group of
// its own so that a time-out also kills what the program started (a compiler driver's cc1plus, as, ld).
// Being in its own group, it never sees the terminal's Ctrl-C: a caller's stop request ends it instead.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace batchode::jit::detail {

struct ChildResult {
  int exit_status = -1;  ///< when it exited
  int signal = 0;        ///< when a signal ended it (SIGKILL after a time-out included)
  bool timed_out = false;
  bool stopped = false;          ///< ended (or never started) because the caller's stop flag was set
  std::string output;            ///< stdout and stderr interleaved, the first `max_output` bytes
  std::size_t output_bytes = 0;  ///< everything it printed, kept or not
};

/// What run_child keeps of the output by default: the first 1 MiB (CompileError::log).
constexpr std::size_t kKeptOutputBytes = std::size_t{1} << 20;

/// Runs argv[0] (a path; not searched on PATH) with argv, stdin from /dev/null, the environment of
/// this process. `stop` (null: never) is read every 20 ms: once set, the program's process group gets
/// SIGTERM, then SIGKILL (to what is left of it) once the program has exited or 500 ms have passed;
/// the program is reaped and `stopped` set. A flag set before the start starts nothing. However the call
/// ends, a throw included, the program's group is not left running. Throws JitError when the program cannot
/// be started.
ChildResult run_child(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      std::size_t max_output = kKeptOutputBytes, const std::atomic<bool>* stop = nullptr);

/// The command as one line a shell would run as is (arguments quoted where needed), for messages.
std::string command_line(const std::vector<std::string>& argv);

/// "exited with status 1", "was killed by signal 9 (Killed)", "ran past its time limit of 5 s and was
/// killed", "was stopped on request".
std::string describe_end(const ChildResult& result, std::chrono::milliseconds timeout);

}  // namespace batchode::jit::detail
