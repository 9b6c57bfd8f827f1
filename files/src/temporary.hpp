// files/ (private): what AtomicFile and check_output_path share: symbolic links followed, the OS
// error as text, and the creation of a temporary file beside a destination.
#pragma once

#include <string>

namespace batchode::files::detail {

/// "No space left on device (errno 28)".
std::string os_error(int error);

/// `path` with symbolic links followed (a chain of them, relative ones from their own folder); a
/// path that is no link, or a link to nothing yet, comes back as the last name reached.
std::string follow_links(const std::string& path);

/// The folder of `path` ("." for a bare name).
std::string folder_of(const std::string& path);

/// Creates a new empty file ".<name>.tmp-<pid>-<n>" in the folder of `target` (mode 0666 less the
/// umask) and returns its path; "" with `error` set to the OS error when it cannot.
std::string create_temporary(const std::string& target, int& error);

}  // namespace batchode::files::detail
