// jit/ (private): runs a program and captures what it prints, with a time limit. posix_spawn with an
// argument vector (no shell, so no argument is ever parsed as shell syntax), in a process group of
// its own so that a time-out also kills what the program started (a compiler driver's cc1plus, as, ld).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace batchode::jit::detail {

struct ChildResult {
  int exit_status = -1;  ///< when it exited
  int signal = 0;        ///< when a signal ended it (SIGKILL after a time-out included)
  bool timed_out = false;
  std::string output;            ///< stdout and stderr interleaved, the first `max_output` bytes
  std::size_t output_bytes = 0;  ///< everything it printed, kept or not
};

/// Runs argv[0] (a path; not searched on PATH) with argv, stdin from /dev/null, the environment of
/// this process. Throws JitError when the program cannot be started.
ChildResult run_child(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      std::size_t max_output = std::size_t{1} << 20);

/// The command as one line a shell would run as is (arguments quoted where needed), for messages.
std::string command_line(const std::vector<std::string>& argv);

/// "exit status 1", "killed by signal 9 (Killed)", "timed out after 5 s (killed)".
std::string describe_end(const ChildResult& result, std::chrono::milliseconds timeout);

}  // namespace batchode::jit::detail
