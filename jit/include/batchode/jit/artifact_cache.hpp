// jit/: the on-disk cache of compiled artifacts (shared objects, GPU modules). Loading one runs its
// code, so every lookup checks that nobody but the effective user could have written it and that its
// bytes are the ones recorded when it was stored (issue 16's security requirements).
//
// Layout: <dir>/<kind>/<key> holds the artifact and <dir>/<kind>/<key>.sha256 the SHA-256 of its bytes
// (64 hex digits and a newline). store() renames the digest into place before the artifact, so an
// artifact never sits beside a digest older than itself unless a store died between the two renames
// or two stores of different bytes raced on one key; either way find() sees the mismatch, deletes the
// pair and the caller rebuilds.
//
// What find() cannot promise: the path it returns is opened again by the caller (dlopen takes a path),
// so the file loaded is the file verified only as long as nobody else can change the folder between
// the two. That holds because the folder must be ours and not writable by group or others (checked on
// every find). Its ancestors are not checked: one writable by another user (without the sticky bit)
// would let that user swap the whole folder; keep the cache under a folder only you can write.
//
// Size: prune() deletes the least recently used entries (last stored or found) until a kind takes
// no more than a capacity; the callers prune after each store (jit::cache_capacity(): a host
// compiler's precompiled prelude is ~300 MB, and one is made for every change of headers or flags,
// so an unbounded folder grew by gigabytes). An entry another process found but has not yet loaded
// can be pruned under it; that process then fails to load it and says so, as for any vanished file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batchode/jit/jit_error.hpp"

namespace batchode::jit {

/// Why a cache lookup did not return an entry.
enum class Miss {
  absent,              ///< no entry under that key (the normal first use)
  insecure_directory,  ///< the cache folder is not ours, is writable by group or others, or is not a folder
  foreign_owner,       ///< the entry or its digest belongs to another user (left in place; store replaces it)
  writable_by_others,  ///< the entry or its digest is writable by group or others (deleted)
  hash_mismatch,  ///< the bytes differ from the recorded digest, or no valid digest is recorded (deleted)
  unreadable,     ///< not a regular file (a symbolic link: deleted when ours), or an I/O error
};

/// "absent", "insecure_directory", ...: the enumerator's name.
std::string to_string(Miss miss);

/// The answer of ArtifactCache::find.
struct Lookup {
  std::optional<std::filesystem::path> path;  ///< the verified entry; empty on a miss
  Miss miss = Miss::absent;                   ///< why not, when `path` is empty
  std::string why;                            ///< a sentence naming the file or folder at fault (on a miss)
  std::string digest;                         ///< on a hit: the recorded SHA-256 the bytes matched
};

/// What ArtifactCache::prune did.
struct Pruned {
  std::size_t entries_removed = 0;   ///< entries deleted (artifact and digest), least recently used first
  std::uintmax_t bytes_removed = 0;  ///< their bytes, digests and stale temporary files included
  std::uintmax_t bytes_kept = 0;     ///< what the kind's entries take afterwards
};

/// One kind of artifact ("cpu" shared objects, "ptx" modules) in one cache folder.
class ArtifactCache {
 public:
  /// `dir`: the cache folder; created with mode 0700 (its missing parents with the default mode) when
  /// missing. `kind`: the subfolder the entries live in, created 0700 when `dir` is usable. A folder
  /// that exists but is insecure is not an error here: usable() says why, find() and store() refuse.
  /// Throws InvalidInput for an empty `dir` or a `kind` that is not one plain name, JitError when a
  /// missing folder cannot be created.
  ArtifactCache(std::filesystem::path dir, std::string kind);

  /// The verified entry for `key` (a lowercase hex digest the caller computed from everything that
  /// changes the binary), or why not. Checked on every call: both folders belong to the effective user
  /// and are not writable by group or others; the entry and its digest are regular files (never
  /// followed through a symbolic link) with the same owner and mode rules; the entry's bytes hash to
  /// the recorded digest. A bad entry of ours is deleted, never returned. A hit marks the entry as
  /// used now (its digest file's modification time), which is what prune() orders by. `verified_bytes`, when
  /// given, receives the very bytes that were hashed (for loaders that take memory, such as a GPU module: no
  /// second read, so nothing to race). Throws InvalidInput for a key that is not 1 to 128 lowercase
  /// hex digits.
  Lookup find(const std::string& key, std::vector<char>* verified_bytes = nullptr) const;

  /// Stores `bytes` under `key` and returns the entry's path. Atomic and safe when processes race on
  /// one key: each writes temporary files (O_EXCL, mode 0600) in the same folder, fsyncs them, then
  /// renames the digest and the entry into place; readers see an old or a new entry, never a partial
  /// one. Throws JitError naming the folder and what is wrong with it when it is not ours or is
  /// writable by group or others, or when a write fails; InvalidInput for a malformed key.
  std::filesystem::path store(const std::string& key, const std::vector<char>& bytes) const;

  /// Deletes this kind's least recently used entries until the rest take at most `capacity` bytes
  /// (artifact and digest counted together), never the entry under `keep` (the one just stored,
  /// which may alone exceed the capacity). Also deletes our temporary files and digests without an
  /// artifact older than an hour (what a killed store leaves). Files of other users and anything
  /// that is not an entry's are left alone. Never throws: a folder it cannot read prunes nothing.
  Pruned prune(std::uintmax_t capacity, const std::string& keep = {}) const;

  /// Whether the folders may be used (owner, mode, kind); `why`, when given, says what is wrong.
  bool usable(std::string* why = nullptr) const;

  /// The folder the entries live in: `dir`/`kind`.
  const std::filesystem::path& directory() const;

 private:
  std::filesystem::path root_;
  std::string kind_;
  std::filesystem::path directory_;
};

/// Why `dir` cannot be a cache folder, in the words find(), store() and usable() refuse it with (not
/// this user's, writable by group or others, not a folder, cannot be opened); empty when it can.
/// Creates and changes nothing (for reports such as `batchode info`).
std::string cache_folder_problem(const std::filesystem::path& dir);

}  // namespace batchode::jit
