// jit/: a private temporary folder (mkdtemp: mode 0700, a fresh name) for files a compile or a load
// needs for a moment: the compiler's input and output, an object loaded without a cache. Removed with
// everything in it when the object goes, also when what used it threw.
#pragma once

#include <filesystem>
#include <string>

namespace batchode::jit {

class PrivateFolder {
 public:
  /// Creates $TMPDIR/<prefix>-XXXXXX (/tmp when the temporary folder is unknown). Throws JitError
  /// naming the folder and the reason when it cannot.
  explicit PrivateFolder(const std::string& prefix = "batchode-jit");
  ~PrivateFolder();
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace batchode::jit
