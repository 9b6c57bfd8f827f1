// files/: AtomicFile, a file written whole or not at all. The data goes to a temporary file beside the
// destination, which replaces the destination only once complete (rename: atomic within a file
// system), so a failed write (a full disk, a file-size limit, an error in the writer) leaves an old
// file as it was and no partial file behind. Every writer of results, traces and caches uses it.
#pragma once

#include <string>

namespace batchode::files {

class AtomicFile {
 public:
  /// Prepares to write `path`. A regular file (or none) is written through a temporary file created
  /// now in the same folder (".<name>.tmp-<pid>-<n>", empty, with the mode a new file would get);
  /// a symbolic link is followed, and what it points to is replaced. A path that exists and is not a
  /// regular file (a device such as /dev/null or /dev/full, a FIFO) cannot be replaced: it is written
  /// directly, which is what writing to it means. Throws std::runtime_error naming `path` and the OS
  /// error when the temporary file cannot be created (a missing or unwritable folder), or when `path`
  /// is a folder.
  explicit AtomicFile(std::string path);
  /// Removes the temporary file unless commit() moved it into place.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// The destination, as given.
  const std::string& path() const noexcept { return path_; }
  /// Where the writer writes: the temporary file, or the destination itself (see above).
  const std::string& write_path() const noexcept { return write_path_; }
  /// Moves the written file into place. Throws std::runtime_error naming the destination and the OS
  /// error when it cannot (the temporary file is removed then). Once only.
  void commit();
  /// Removes the temporary file now (the destination is untouched); what the destructor does.
  void discard() noexcept;

 private:
  std::string path_;
  std::string target_;      // path_ with symbolic links followed: what the rename replaces
  std::string write_path_;
  bool temporary_ = false;  // write_path_ is a temporary file of ours, still to be moved or removed
};

/// Runs `write(path)` on an AtomicFile's write path and commits it: the whole-file write of every
/// writer that opens its file by name (CSV, NPY, HDF5, JSON). Any exception from `write` leaves the
/// destination as it was.
template <class Write>
void write_atomically(const std::string& path, Write&& write) {
  AtomicFile file(path);
  write(file.write_path());
  file.commit();
}

}  // namespace batchode::files
