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
  // Read straight into `out`, a regular file into room for its size and one byte more (where its end
  // shows), so it is read and held once: a precompiled prelude is ~300 MB, and copying it through a
  // small buffer, or growing `out` past it for the read that finds the end, costs more than the
  // compiler. Other files (and one that grew since fstat) add 64 KiB at a time.
  struct stat about {};
  if (::fstat(fd, &about) == 0 && S_ISREG(about.st_mode) && about.st_size > 0) {
    out.reserve(std::min(static_cast<std::size_t>(about.st_size), limit) + 1);
  }
  for (;;) {
    const std::size_t used = out.size();
    const std::size_t room = out.capacity() > used ? out.capacity() - used : 65536;
    out.resize(used + room);
    const ssize_t n = ::read(fd, out.data() + used, room);
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
