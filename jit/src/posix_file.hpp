// jit/ (private): the few POSIX file operations the cache and the compiler driver share: an owning
// file descriptor, reads and writes that survive EINTR and short transfers, errno as text.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace batchode::jit::detail {

/// Owns one file descriptor (-1: none); closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int release() noexcept;
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/// strerror(error) as a std::string (thread-safe).
std::string errno_text(int error);

/// Reads `fd` to its end into `out` (replacing its contents), at most `limit` bytes: false with errno
/// set on a read error or when the file holds more than `limit`.
bool read_all(int fd, std::vector<char>& out, std::size_t limit);

/// Writes all `size` bytes: false with errno set on an error.
bool write_all(int fd, const char* data, std::size_t size);

}  // namespace batchode::jit::detail
