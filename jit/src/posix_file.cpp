// jit/ (private): see posix_file.hpp.
#include "posix_file.hpp"

#include <unistd.h>

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
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return true;
    if (out.size() + static_cast<std::size_t>(n) > limit) {
      errno = EFBIG;
      return false;
    }
    out.insert(out.end(), chunk, chunk + n);
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
