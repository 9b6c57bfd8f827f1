// solver/results/: what the HDF5 writer does out of line (result_h5_writer.hpp): HDF5's error stack as
// text, and the writes that are ours rather than HDF5's (result_h5.cpp says why): the disk probed
// before HDF5 opens the file, and the arrays written with pwrite at the addresses HDF5 reserved.
#include "result_h5_writer.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "batchode/solver/results/result_io.hpp"

namespace batchode {

namespace detail {

std::string hdf5_error_text() {
  std::vector<std::string> messages;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* error, void* out) -> herr_t {
        if (error != nullptr && error->desc != nullptr && error->desc[0] != '\0') {
          static_cast<std::vector<std::string>*>(out)->push_back(error->desc);
        }
        return 0;
      },
      &messages);
  H5Eclear2(H5E_DEFAULT);
  if (messages.empty()) return "HDF5 reported no detail";
  if (messages.size() == 1) return messages.front();
  return messages.front() + ": " + messages.back();
}

namespace {

[[noreturn]] void fail_os(const std::string& path, const std::string& what, int error) {
  throw std::runtime_error(
      fmt::format("writing HDF5 file '{}' failed: {}: {}", path, what, detail::os_error(error)));
}

}  // namespace

void probe_disk(const H5Target& to, std::uint64_t bytes) {
  const std::string& path = to.name;
  errno = 0;
  const int fd = ::open(to.file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot open '{}' for writing: {}", path, detail::os_error(errno)));
  int error = EOPNOTSUPP;
#ifdef __linux__
  error = ::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) == 0 ? 0 : errno;
#endif
  if (error != 0 && error != ENOSPC && error != EFBIG && error != EDQUOT) {
    static const char zeros[4096] = {};
    errno = 0;
    const ssize_t written = ::write(fd, zeros, sizeof zeros);
    error = written == static_cast<ssize_t>(sizeof zeros) ? 0 : (errno != 0 ? errno : ENOSPC);
  }
  const int close_error = ::close(fd) == 0 ? 0 : errno;
  if (error != 0) fail_os(path, fmt::format("making room for {} bytes", bytes), error);
  if (close_error != 0) fail_os(path, "closing the file", close_error);
}

void write_raw(const H5Target& to, const std::vector<RawWrite>& writes) {
  const std::string& path = to.name;
  errno = 0;
  const int fd = ::open(to.file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail_os(path, "reopening the file for its arrays", errno);
  int error = 0;
  std::string what;
  for (const RawWrite& w : writes) {
    const char* p = w.data;
    std::size_t left = w.bytes;
    std::uint64_t at = w.offset;
    while (left > 0 && error == 0) {
      const std::size_t piece = std::min<std::size_t>(left, std::size_t{1} << 30);
      errno = 0;
      const ssize_t n = ::pwrite(fd, p, piece, static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error = n < 0 && errno != 0 ? errno : ENOSPC;  // 0 bytes written: no room
        what = "writing dataset " + w.dataset;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
      at += static_cast<std::uint64_t>(n);
    }
    if (error != 0) break;
  }
  // Some file systems (NFS) report a failed write only at the close.
  const int close_error = ::close(fd) == 0 ? 0 : errno;
  if (error != 0) fail_os(path, what, error);
  if (close_error != 0) fail_os(path, "closing the file", close_error);
}

}  // namespace detail

}  // namespace batchode
