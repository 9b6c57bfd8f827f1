// files/: check_output_path (output_path.hpp).
#include "batchode/files/output_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "batchode/checks/invalid_input.hpp"
#include "temporary.hpp"

namespace batchode::files {

void check_output_path(const std::string& path) {
  const auto refuse = [&](const std::string& why) { throw InvalidInput("'" + path + "': " + why); };
  if (path.empty()) refuse("an empty path");
  const std::string target = detail::follow_links(path);
  struct stat existing {};
  if (::stat(target.c_str(), &existing) == 0) {
    if (S_ISDIR(existing.st_mode)) refuse("it is a folder; name a file in it");
    if (!S_ISREG(existing.st_mode)) return;  // a device or a FIFO, written as it is
  }
  const std::string folder = detail::folder_of(target);
  struct stat in {};
  if (::stat(folder.c_str(), &in) != 0) {
    if (errno == ENOENT) refuse("the folder '" + folder + "' does not exist");
    refuse("cannot reach the folder '" + folder + "': " + detail::os_error(errno));
  }
  if (!S_ISDIR(in.st_mode)) refuse("'" + folder + "' is not a folder");
  // Whether a file can be created there is what the writer will need: asked by creating one.
  int error = 0;
  const std::string probe = detail::create_temporary(target, error);
  if (probe.empty()) refuse("cannot create a file in the folder '" + folder + "': " + detail::os_error(error));
  (void)::unlink(probe.c_str());
}

}  // namespace batchode::files
