// files/: AtomicFile (atomic_file.hpp) and the helpers it shares with check_output_path.
#include "batchode/files/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "temporary.hpp"

namespace batchode::files {

namespace detail {

std::string os_error(int error) {
  return std::generic_category().message(error) + " (errno " + std::to_string(error) + ")";
}

std::string follow_links(const std::string& path) {
  std::filesystem::path p(path);
  for (int hops = 0; hops < 40; ++hops) {  // 40: Linux's own limit on a chain of links
    std::error_code error;
    if (!std::filesystem::is_symlink(p, error)) break;
    const std::filesystem::path to = std::filesystem::read_symlink(p, error);
    if (error) break;
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return p.string();
}

std::string folder_of(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  return folder.empty() ? std::string(".") : folder.string();
}

std::string create_temporary(const std::string& target, int& error) {
  // A counter and the pid make the name unique within this host's processes; O_EXCL makes sure.
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path p(target);
  const std::string prefix = (p.parent_path() / ("." + p.filename().string() + ".tmp-")).string() +
                             std::to_string(::getpid()) + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string candidate = prefix + std::to_string(counter.fetch_add(1));
    const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      error = 0;
      return candidate;
    }
    if (errno != EEXIST) {
      error = errno;
      return {};
    }
  }
  error = EEXIST;
  return {};
}

}  // namespace detail

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), target_(detail::follow_links(path_)) {
  struct stat existing {};
  const bool exists = ::stat(target_.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) {
    throw std::runtime_error("cannot open '" + path_ + "' for writing: " + detail::os_error(EISDIR));
  }
  if (exists && !S_ISREG(existing.st_mode)) {  // a device or a FIFO: written as it is
    write_path_ = path_;
    return;
  }
  int error = 0;
  write_path_ = detail::create_temporary(target_, error);
  if (write_path_.empty()) {
    throw std::runtime_error("cannot open '" + path_ + "' for writing: " + detail::os_error(error));
  }
  temporary_ = true;
  // A file replaced keeps its permissions (a result made readable by a group stays so).
  if (exists) (void)::chmod(write_path_.c_str(), existing.st_mode & 07777);
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::commit() {
  if (!temporary_) return;
  if (::rename(write_path_.c_str(), target_.c_str()) != 0) {
    const int error = errno;
    discard();
    throw std::runtime_error("cannot move the finished file into place as '" + path_ + "': " +
                             detail::os_error(error));
  }
  temporary_ = false;
}

void AtomicFile::discard() noexcept {
  if (!temporary_) return;
  (void)::unlink(write_path_.c_str());
  temporary_ = false;
}

}  // namespace batchode::files
