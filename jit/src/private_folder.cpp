// jit/: private_folder.hpp's mkdtemp folder and its removal, file by file, on every path out.
#include "batchode/jit/private_folder.hpp"

#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "batchode/jit/jit_error.hpp"
#include "posix_file.hpp"

namespace batchode::jit {

PrivateFolder::PrivateFolder(const std::string& prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw JitError("cannot create a private temporary folder in " + base.string() + ": " +
                   detail::errno_text(errno));
  }
  path_ = pattern;
}

PrivateFolder::~PrivateFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace batchode::jit
