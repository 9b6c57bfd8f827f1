// files/: check_output_path, asked before a solve: can this output file be written? A solve may take
// hours, and an output that cannot be written (a folder that does not exist, a path that is a
// folder, a folder the user may not write, /proc) must be found before it starts, not after.
#pragma once

#include <string>

namespace batchode::files {

/// Checks that `path` can be written as AtomicFile writes it: its folder exists and is a folder, the
/// path is not a folder, and a file can be created in that folder (one is created and removed
/// again). Throws InvalidInput whose message starts with "'<path>': " and says why: "the folder
/// 'out' does not exist", "it is a folder", "cannot create a file in '/proc': Permission denied
/// (errno 13)". Devices and FIFOs are written directly (AtomicFile) and pass when they can be opened
/// for writing.
void check_output_path(const std::string& path);

}  // namespace batchode::files
