// A file-size limit for one test (ulimit -f): writes past it fail with EFBIG, as on a full disk, so a
// test can make a writer fail part way and check what it leaves. SIGXFSZ, which would end the
// process at the limit, is ignored meanwhile (as the command line ignores it).
#pragma once

#include <sys/resource.h>

#include <csignal>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>

namespace batchode::testing {

class FileSizeLimit {
 public:
  explicit FileSizeLimit(std::size_t bytes) {
    previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &previous_);
    rlimit limit = previous_;
    limit.rlim_cur = static_cast<rlim_t>(bytes);
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &previous_);
    std::signal(SIGXFSZ, previous_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit previous_{};
  void (*previous_handler_)(int) = SIG_DFL;
};

/// A file's bytes ("" for none).
inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace batchode::testing
