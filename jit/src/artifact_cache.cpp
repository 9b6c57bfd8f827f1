// jit/: the compiled-artifact cache (artifact_cache.hpp says what it guarantees and what it assumes).
// Every file operation goes through a descriptor of the entry folder that was checked (openat,
// fstatat, renameat, unlinkat), and entries are opened with O_NOFOLLOW and judged by fstat of the
// descriptor that is read: what is checked is what is hashed.
#include "batchode/jit/artifact_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <system_error>
#include <utility>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/jit/sha256.hpp"
#include "posix_file.hpp"

namespace batchode::jit {
namespace {

using detail::errno_text;
using detail::UniqueFd;

constexpr const char* kDigestSuffix = ".sha256";
// Entries are read whole (hashed, and handed out as bytes when asked); a compiled model is a few MB,
// so anything past 1 GiB is not one of ours.
constexpr std::size_t kMaxEntryBytes = std::size_t{1} << 30;
constexpr std::size_t kMaxDigestFileBytes = 256;

// A temporary file or a digest without its artifact this old is what a killed store left (a store
// takes seconds): prune() deletes it.
constexpr std::time_t kStaleSeconds = 3600;

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool is_key(const std::string& key) {
  bool ok = !key.empty() && key.size() <= 128;
  for (char c : key) ok = ok && is_lower_hex(c);
  return ok;
}

void require_key(const std::string& key) {
  if (!is_key(key)) {
    throw InvalidInput("artifact cache key '" + key.substr(0, 200) +
                       "' is not 1 to 128 lowercase hex digits (pass a digest such as jit::sha256_hex(...))");
  }
}

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

bool writable_by_others(const struct stat& st) { return (st.st_mode & (S_IWGRP | S_IWOTH)) != 0; }

std::string foreign_text(const struct stat& st) {
  return "belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
         std::to_string(::geteuid()) + ")";
}

/// Empty when a cache folder may be trusted; else the sentence saying why not and what to do.
std::string folder_problem(const struct stat& st, const std::filesystem::path& path) {
  if (!S_ISDIR(st.st_mode)) return "the cache folder " + quoted(path) + " is not a folder";
  if (st.st_uid != ::geteuid()) {
    return "the cache folder " + quoted(path) + " " + foreign_text(st) +
           ": code loaded from it could have been written by that user; use a folder of your own "
           "(BATCHODE_CACHE_DIR)";
  }
  if (writable_by_others(st)) {
    return "the cache folder " + quoted(path) + " is writable by group or others (mode " +
           mode_text(st.st_mode) + "): code loaded from it could have been written by them; run chmod 700 " +
           quoted(path);
  }
  return {};
}

/// The entry folder, opened and checked, or why not.
struct Folder {
  UniqueFd fd;
  Miss miss = Miss::absent;
  std::string problem;
};

/// One file of an entry (the artifact or its digest), opened without following links and judged by
/// the fstat of the very descriptor that will be read.
struct Opened {
  UniqueFd fd;
  Miss miss = Miss::absent;
  std::string why;
  bool remove = false;  // bad and ours: delete the pair
};

Opened open_entry_file(int dir, const std::string& name, const std::filesystem::path& display,
                       bool is_digest) {
  Opened r;
  const std::string what =
      is_digest ? "the digest file " + quoted(display) : "the cache entry " + quoted(display);
  r.fd.reset(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!r.fd) {
    const int error = errno;
    struct stat st {};
    if (error == ENOENT) {
      r.miss = is_digest ? Miss::hash_mismatch : Miss::absent;
      r.why = is_digest ? "no digest was recorded for the cache entry (" + quoted(display) + " is missing)"
                        : "no cache entry " + quoted(display);
      r.remove = is_digest;
    } else if (error == ELOOP && ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
               S_ISLNK(st.st_mode)) {
      if (st.st_uid != ::geteuid()) {
        r.miss = Miss::foreign_owner;
        r.why = what + " is a symbolic link that " + foreign_text(st);
      } else {
        r.miss = Miss::unreadable;
        r.why = what + " is a symbolic link; entries must be regular files";
        r.remove = true;
      }
    } else {
      r.miss = Miss::unreadable;
      r.why = "cannot open " + what + ": " + errno_text(error);
    }
    r.fd.reset();
    return r;
  }
  struct stat st {};
  if (::fstat(r.fd.get(), &st) != 0) {
    r.miss = Miss::unreadable;
    r.why = "cannot stat " + what + ": " + errno_text(errno);
  } else if (!S_ISREG(st.st_mode)) {
    r.miss = Miss::unreadable;
    r.why = what + " is not a regular file";
  } else if (st.st_uid != ::geteuid()) {
    r.miss = Miss::foreign_owner;
    r.why = what + " " + foreign_text(st) + "; not loaded (a new store replaces it)";
  } else if (writable_by_others(st)) {
    r.miss = Miss::writable_by_others;
    r.why = what + " is writable by group or others (mode " + mode_text(st.st_mode) + "); not loaded";
    r.remove = true;
  } else {
    return r;  // fine: keep the descriptor
  }
  r.fd.reset();
  return r;
}

/// Deletes whichever of the entry's two files are ours and not folders (a foreign file in our folder
/// is left for store() to replace: deleting other users' files is not this cache's business).
void remove_ours(int dir, const std::string& key) {
  for (const std::string& name : {key, key + kDigestSuffix}) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == ::geteuid() &&
        !S_ISDIR(st.st_mode)) {
      ::unlinkat(dir, name.c_str(), 0);
    }
  }
}

bool parse_digest(const std::vector<char>& text, std::string& digest) {
  std::size_t n = text.size();
  if (n == 65 && text[64] == '\n') n = 64;
  if (n != 64) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_lower_hex(text[i])) return false;
  }
  digest.assign(text.data(), n);
  return true;
}

constexpr const char* kTemporaryInfix = ".tmp.";

bool is_temporary_name(const std::string& name) {
  return !name.empty() && name[0] == '.' && name.find(kTemporaryInfix) != std::string::npos;
}

/// A temporary file in the entry folder, deleted unless renamed into place.
class TemporaryFile {
 public:
  TemporaryFile(int dir, const std::string& key, const std::filesystem::path& folder, const char* data,
                std::size_t size)
      : dir_(dir) {
    static std::atomic<unsigned long> counter{0};
    UniqueFd fd;
    for (int attempt = 0; attempt < 16 && !fd; ++attempt) {
      // Unique across threads (counter), processes (pid) and pid namespaces sharing the folder (the
      // clock); O_EXCL settles any collision that remains, and a retry picks another name.
      const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
      name_ = "." + key.substr(0, 16) + kTemporaryInfix + std::to_string(::getpid()) + "." +
              std::to_string(counter.fetch_add(1)) + "." +
              std::to_string(static_cast<unsigned long long>(now));
      fd.reset(::openat(dir, name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
      if (!fd && errno != EEXIST) break;
    }
    if (!fd) {
      const int error = errno;
      name_.clear();
      throw JitError("cannot create a temporary file in the cache folder " + quoted(folder) + ": " +
                     errno_text(error));
    }
    if (!detail::write_all(fd.get(), data, size) || ::fsync(fd.get()) != 0 || ::close(fd.release()) != 0) {
      throw JitError("cannot write the temporary file " + quoted(folder / name_) + ": " + errno_text(errno));
    }
  }
  ~TemporaryFile() {
    if (!name_.empty()) ::unlinkat(dir_, name_.c_str(), 0);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  void rename_to(const std::string& target, const std::filesystem::path& folder) {
    if (::renameat(dir_, name_.c_str(), dir_, target.c_str()) != 0) {
      throw JitError("cannot rename " + quoted(folder / name_) + " to " + quoted(folder / target) + ": " +
                     errno_text(errno));
    }
    name_.clear();
  }

 private:
  int dir_;
  std::string name_;
};

}  // namespace

std::string to_string(Miss miss) {
  switch (miss) {
    case Miss::absent:
      return "absent";
    case Miss::insecure_directory:
      return "insecure_directory";
    case Miss::foreign_owner:
      return "foreign_owner";
    case Miss::writable_by_others:
      return "writable_by_others";
    case Miss::hash_mismatch:
      return "hash_mismatch";
    case Miss::unreadable:
      return "unreadable";
  }
  return "unknown miss " + std::to_string(static_cast<int>(miss));
}

namespace {

void require_kind(const std::string& kind) {
  bool ok = !kind.empty() && kind.size() <= 64 && kind != "." && kind != "..";
  for (char c : kind) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                c == '-' || c == '.');
  }
  if (!ok) {
    throw InvalidInput("artifact cache kind '" + kind +
                       "' is not one plain folder name (letters, digits, _ - .)");
  }
}

/// Creates the cache folder (0700) and its missing parents when it does not exist at all.
void create_root_if_missing(const std::filesystem::path& root) {
  struct stat st {};
  // Present (judged later), or not something to fix by creating it.
  if (::lstat(root.c_str(), &st) == 0 || errno != ENOENT) return;
  std::error_code ec;
  if (root.has_parent_path()) std::filesystem::create_directories(root.parent_path(), ec);
  if (ec) {
    throw JitError("cannot create the cache folder's parent " + quoted(root.parent_path()) + ": " +
                   ec.message());
  }
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
    throw JitError("cannot create the cache folder " + quoted(root) + ": " + errno_text(errno));
  }
}

/// Judges the folder `f.fd` holds open (`path` in messages) by its fstat; keeps the descriptor only
/// when the folder is sound.
void judge_folder(Folder& f, const std::filesystem::path& path) {
  struct stat st {};
  if (::fstat(f.fd.get(), &st) != 0) {
    f.miss = Miss::unreadable;
    f.problem = "cannot stat the cache folder " + quoted(path) + ": " + errno_text(errno);
  } else {
    f.problem = folder_problem(st, path);
    if (!f.problem.empty()) f.miss = Miss::insecure_directory;
  }
  if (!f.problem.empty()) f.fd.reset();
}

/// Opens and checks the cache folder itself.
Folder open_root(const std::filesystem::path& root) {
  Folder f;
  f.fd.reset(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!f.fd) {
    const int error = errno;
    f.miss = error == ENOENT ? Miss::absent : Miss::unreadable;
    f.problem = "cannot open the cache folder " + quoted(root) + ": " + errno_text(error);
    return f;
  }
  judge_folder(f, root);
  return f;
}

/// Opens and checks the cache folder, then its `kind` subfolder (created 0700 when `create` and the
/// cache folder is sound). A subfolder that cannot be created throws JitError.
Folder open_folders(const std::filesystem::path& root, const std::string& kind,
                    const std::filesystem::path& directory, bool create) {
  Folder top = open_root(root);
  if (!top.fd) return top;
  Folder f;
  for (int attempt = 0; attempt < 2; ++attempt) {
    f.fd.reset(::openat(top.fd.get(), kind.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (f.fd || errno != ENOENT || !create) break;
    if (::mkdirat(top.fd.get(), kind.c_str(), 0700) != 0 && errno != EEXIST) {
      throw JitError("cannot create the cache folder " + quoted(directory) + ": " + errno_text(errno));
    }
  }
  if (!f.fd) {
    const int error = errno;
    if (error == ENOENT) {
      f.miss = Miss::absent;
      f.problem = "the cache folder " + quoted(directory) + " does not exist";
    } else if (error == ELOOP || error == ENOTDIR) {
      f.miss = Miss::insecure_directory;
      f.problem = "the cache folder " + quoted(directory) + " is a symbolic link or not a folder";
    } else {
      f.miss = Miss::unreadable;
      f.problem = "cannot open the cache folder " + quoted(directory) + ": " + errno_text(error);
    }
    return f;
  }
  judge_folder(f, directory);
  return f;
}

}  // namespace

ArtifactCache::ArtifactCache(std::filesystem::path dir, std::string kind)
    : root_(std::move(dir)), kind_(std::move(kind)) {
  if (root_.empty()) {
    throw InvalidInput(
        "no cache folder: none of BATCHODE_CACHE_DIR, XDG_CACHE_HOME or HOME is set; set BATCHODE_CACHE_DIR");
  }
  require_kind(kind_);
  directory_ = root_ / kind_;
  create_root_if_missing(root_);
  // An insecure folder is not created into, and not an error here: usable() says why.
  (void)open_folders(root_, kind_, directory_, true);
}

const std::filesystem::path& ArtifactCache::directory() const { return directory_; }

std::string cache_folder_problem(const std::filesystem::path& dir) { return open_root(dir).problem; }

bool ArtifactCache::usable(std::string* why) const {
  const Folder f = open_folders(root_, kind_, directory_, false);
  // A missing subfolder is fine: store() creates it again.
  const bool ok = f.fd || (f.miss == Miss::absent && ::access(root_.c_str(), F_OK) == 0);
  if (why != nullptr) *why = ok ? std::string() : f.problem;
  return ok;
}

Lookup ArtifactCache::find(const std::string& key, std::vector<char>* verified_bytes) const {
  require_key(key);
  if (verified_bytes != nullptr) verified_bytes->clear();
  Lookup r;
  const Folder folder = open_folders(root_, kind_, directory_, false);
  if (!folder.fd) {
    r.miss = folder.miss;
    r.why = folder.problem;
    return r;
  }
  const int dir = folder.fd.get();
  const std::string digest_name = key + kDigestSuffix;
  const std::filesystem::path entry_path = directory_ / key;
  auto refuse = [&](Miss miss, std::string why, bool remove) {
    if (remove) {
      remove_ours(dir, key);
      why += " (deleted; it will be rebuilt)";
    }
    r.miss = miss;
    r.why = std::move(why);
    return r;
  };

  Opened entry = open_entry_file(dir, key, entry_path, false);
  if (!entry.fd) return refuse(entry.miss, entry.why, entry.remove);
  Opened digest_file = open_entry_file(dir, digest_name, directory_ / digest_name, true);
  if (!digest_file.fd) return refuse(digest_file.miss, digest_file.why, digest_file.remove);

  std::vector<char> bytes;
  if (!detail::read_all(entry.fd.get(), bytes, kMaxEntryBytes)) {
    return refuse(Miss::unreadable,
                  "cannot read the cache entry " + quoted(entry_path) + ": " + errno_text(errno), false);
  }
  std::vector<char> digest_text;
  std::string recorded;
  if (!detail::read_all(digest_file.fd.get(), digest_text, kMaxDigestFileBytes) ||
      !parse_digest(digest_text, recorded)) {
    return refuse(
        Miss::hash_mismatch,
        "the digest file " + quoted(directory_ / digest_name) + " does not hold a SHA-256 (64 hex digits)",
        true);
  }
  const std::string actual = sha256_hex(bytes.data(), bytes.size());
  if (actual != recorded) {
    return refuse(Miss::hash_mismatch,
                  "the cache entry " + quoted(entry_path) + " hashes to " + actual +
                      ", not to the recorded " + recorded,
                  true);
  }
  // Used now: prune() keeps the most recently used entries. Failing to mark it only makes it an
  // earlier candidate for pruning.
  (void)::futimens(digest_file.fd.get(), nullptr);
  r.path = entry_path;
  r.digest = recorded;
  if (verified_bytes != nullptr) *verified_bytes = std::move(bytes);
  return r;
}

std::filesystem::path ArtifactCache::store(const std::string& key, const std::vector<char>& bytes) const {
  require_key(key);
  create_root_if_missing(root_);
  const Folder folder = open_folders(root_, kind_, directory_, true);
  if (!folder.fd) throw JitError("cannot store in the compiled-artifact cache: " + folder.problem);
  const int dir = folder.fd.get();
  const std::string digest = sha256_hex(bytes.data(), bytes.size()) + "\n";
  TemporaryFile artifact(dir, key, directory_, bytes.data(), bytes.size());
  TemporaryFile digest_file(dir, key, directory_, digest.data(), digest.size());
  // The digest first: a reader that sees the new artifact also sees its digest.
  digest_file.rename_to(key + kDigestSuffix, directory_);
  artifact.rename_to(key, directory_);
  ::fsync(dir);  // the renames survive a crash; failure only costs a rebuild, so it is not an error
  return directory_ / key;
}

Pruned ArtifactCache::prune(std::uintmax_t capacity, const std::string& keep) const {
  Pruned result;
  const Folder folder = open_folders(root_, kind_, directory_, false);
  if (!folder.fd) return result;
  const int dir = folder.fd.get();
  UniqueFd listing_fd(::dup(dir));
  DIR* listing = listing_fd ? ::fdopendir(listing_fd.get()) : nullptr;
  if (listing == nullptr) return result;
  (void)listing_fd.release();  // the DIR owns it now

  struct Entry {
    std::string key;
    std::uintmax_t bytes = 0;
    std::time_t used = 0;  // the later modification time of the artifact and its digest
    bool has_artifact = false;
  };
  std::map<std::string, Entry> entries;
  std::vector<std::string> stale;
  const std::time_t now = std::time(nullptr);
  const std::string suffix = kDigestSuffix;
  while (const dirent* e = ::readdir(listing)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::geteuid()) {
      continue;
    }
    const bool old = now - st.st_mtime > kStaleSeconds;
    if (is_temporary_name(name)) {
      if (old) {
        stale.push_back(name);
        result.bytes_removed += static_cast<std::uintmax_t>(st.st_size);
      }
      continue;
    }
    const bool digest =
        name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    const std::string key = digest ? name.substr(0, name.size() - suffix.size()) : name;
    if (!is_key(key)) continue;
    Entry& entry = entries[key];
    entry.key = key;
    entry.bytes += static_cast<std::uintmax_t>(st.st_size);
    entry.used = std::max(entry.used, st.st_mtime);
    entry.has_artifact = entry.has_artifact || !digest;
  }
  ::closedir(listing);
  for (const std::string& name : stale) ::unlinkat(dir, name.c_str(), 0);

  std::vector<Entry> by_use;
  std::uintmax_t total = 0;
  for (auto& [key, entry] : entries) {
    if (!entry.has_artifact && now - entry.used > kStaleSeconds) {  // an orphaned digest
      remove_ours(dir, key);
      result.bytes_removed += entry.bytes;
      continue;
    }
    total += entry.bytes;
    by_use.push_back(std::move(entry));
  }
  std::sort(by_use.begin(), by_use.end(), [](const Entry& a, const Entry& b) {
    return a.used != b.used ? a.used < b.used : a.key < b.key;
  });
  for (const Entry& entry : by_use) {
    if (total <= capacity) break;
    if (entry.key == keep) continue;
    remove_ours(dir, entry.key);
    total -= entry.bytes;
    result.bytes_removed += entry.bytes;
    ++result.entries_removed;
  }
  result.bytes_kept = total;
  return result;
}

}  // namespace batchode::jit
