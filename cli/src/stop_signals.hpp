// cli/: Ctrl-C (SIGINT) and SIGTERM during `batchode`. The handlers only set the flag that `batchode
// run` hands the library as SolveOptions.stop, so the work in progress ends the way the library ends
// it: a model's compile with its compiler's whole process group ended and reaped (the compiler runs in
// a group of its own, so the terminal's Ctrl-C never reaches it) and its temporary folders removed, a
// solve between blocks of runs or chunks, nothing written after. main.cpp then ends with 128 + the
// signal's number (130, 143) and one line. A second signal of the same kind ends the process at once
// (the default action), for a user who will not wait for that.
#pragma once

#include <atomic>
#include <iosfwd>

namespace batchode::cli {

/// Installs the SIGINT and SIGTERM handlers for the rest of the process.
void install_stop_signals();

/// The flag the handlers set (never null); set only by a signal.
const std::atomic<bool>* stop_flag();

/// The first signal that set the flag (SIGINT, SIGTERM); 0 when none came.
int stop_signal();

/// Prints "batchode: stopped by SIGINT (Ctrl-C): <why>" (the first line of `why`; without it, that the
/// work was done when the signal came) and returns the exit code, 128 + the signal's number. Call it
/// when stop_signal() is not 0.
int report_stop(std::ostream& errors, const char* why);

}  // namespace batchode::cli
