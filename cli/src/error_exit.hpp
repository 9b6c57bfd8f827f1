// cli/: the one mapping from what a command throws to what `batchode` prints and its exit code, used
// by main.cpp and by run_command's MPI path (which must print before any process ends: see there).
#pragma once

#include <iosfwd>

namespace batchode::cli {

/// Called inside a catch block: prints the exception in flight on `errors` and returns the exit code
/// (UsageError: 2 with a hint; models::ModelError: 1, "file:line:col: ..." at the line's start; any
/// other exception: 1, "batchode: ..."; any exception after SIGINT or SIGTERM: 130 or 143,
/// "batchode: stopped by SIGINT (Ctrl-C): ...", stop_signals.hpp).
int report_current_error(std::ostream& errors);

}  // namespace batchode::cli
