// jit/ (private): see posix_file.hpp.
#include "posix_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace batchode::jit::detail {

UniqueFd::~UniqueFd() { reset(); }

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

int UniqueFd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);  // close() is not retried on EINTR: on Linux the descriptor is gone anyway
  fd_ = fd;
}

std::string errno_text(int error) {
  char buffer[256];
  // The GNU strerror_r returns the message (possibly not in `buffer`); the XSI one fills `buffer`.
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return ::strerror_r(error, buffer, sizeof buffer);
#else
  if (::strerror_r(error, buffer, sizeof buffer) != 0) return "error " + std::to_string(error);
  return buffer;
#endif
}

bool read_all(int fd, std::vector<char>& out, std::size_t limit) {
  out.clear();
  // Read straight into `out`, a regular file in one piece of its size: a precompiled prelude is
  // ~300 MB, and copying it through a small buffer (or byte by byte through istreambuf_iterator, 50
  // of a 70 s model compile in the sanitized build) costs more than the compiler.
  std::size_t piece = 65536;
  struct stat about {};
  if (::fstat(fd, &about) == 0 && S_ISREG(about.st_mode) && about.st_size > 0) {
    piece = std::min(static_cast<std::size_t>(about.st_size), limit) + 1;  // +1: the end seen at once
  }
  for (;;) {
    const std::size_t used = out.size();
    out.resize(used + piece);
    const ssize_t n = ::read(fd, out.data() + used, piece);
    out.resize(used + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (out.size() > limit) {
      errno = EFBIG;
      return false;
    }
    if (n == 0) return true;
    piece = 65536;  // the file grew past its size at fstat, or is not a regular file
  }
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace batchode::jit::detail
