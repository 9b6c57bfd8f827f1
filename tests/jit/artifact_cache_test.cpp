// tests/jit/: the artifact cache's ordinary life: folders created private, store then find gives the
// same bytes, a missing key is `absent`, replacing an entry, no temporary file left behind, and keys
// or kinds that could leave the folder refused; pruning to a size, least recently used first.
#include <gtest/gtest.h>

#include <batchode/checks/invalid_input.hpp>
#include <batchode/jit/artifact_cache.hpp>
#include <batchode/jit/sha256.hpp>
#include <chrono>
#include <set>

#include "jit_test_support.hpp"

namespace {

using batchode::jit::ArtifactCache;
using batchode::jit::Lookup;
using batchode::jit::Miss;
using batchode::jit::sha256_hex;
using namespace batchode::jit::testing;

const std::string kKey = sha256_hex("a model, a method, a compiler");

std::set<std::string> names_in(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

TEST(JitArtifactCache, CreatesMissingFoldersPrivate) {
  TempFolder tmp;
  const auto root = tmp.path() / "parent" / "cache";
  ArtifactCache cache(root, "cpu");
  EXPECT_EQ(cache.directory(), root / "cpu");
  EXPECT_EQ(mode_of(root), 0700u);
  EXPECT_EQ(mode_of(root / "cpu"), 0700u);
  std::string why = "unchanged";
  EXPECT_TRUE(cache.usable(&why));
  EXPECT_EQ(why, "");
}

TEST(JitArtifactCache, StoreThenFindReturnsTheSameBytes) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "cpu");
  std::vector<char> bytes(100000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 % 256);  // NULs included
  const auto stored = cache.store(kKey, bytes);
  EXPECT_EQ(stored, tmp.path() / "cpu" / kKey);
  EXPECT_EQ(read_file(stored), bytes);
  EXPECT_EQ(mode_of(stored), 0600u);
  EXPECT_EQ(mode_of(tmp.path() / "cpu" / (kKey + ".sha256")), 0600u);

  std::vector<char> verified;
  const Lookup hit = cache.find(kKey, &verified);
  ASSERT_TRUE(hit.path) << hit.why;
  EXPECT_EQ(*hit.path, stored);
  EXPECT_EQ(read_file(*hit.path), bytes);
  EXPECT_EQ(verified, bytes);
  EXPECT_EQ(hit.digest, sha256_hex(bytes.data(), bytes.size()));
  EXPECT_EQ(read_file(tmp.path() / "cpu" / (kKey + ".sha256")), bytes_of(hit.digest + "\n"));
}

TEST(JitArtifactCache, MissingKeyIsAbsent) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "cpu");
  std::vector<char> verified{'x'};
  const Lookup miss = cache.find(kKey, &verified);
  EXPECT_FALSE(miss.path);
  EXPECT_EQ(miss.miss, Miss::absent);
  EXPECT_TRUE(contains(miss.why, kKey)) << miss.why;
  EXPECT_TRUE(verified.empty());
  // Another kind is another folder: what "cpu" holds is not found as "ptx".
  cache.store(kKey, bytes_of("object"));
  EXPECT_EQ(ArtifactCache(tmp.path(), "ptx").find(kKey).miss, Miss::absent);
}

TEST(JitArtifactCache, StoreReplacesAnEntryAndLeavesNoTemporaryFile) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "cpu");
  cache.store(kKey, bytes_of("first"));
  cache.store(kKey, bytes_of("second, longer"));
  std::vector<char> verified;
  ASSERT_TRUE(cache.find(kKey, &verified).path);
  EXPECT_EQ(verified, bytes_of("second, longer"));
  EXPECT_EQ(names_in(cache.directory()), (std::set<std::string>{kKey, kKey + ".sha256"}));
}

TEST(JitArtifactCache, EmptyArtifactRoundTrips) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "cpu");
  cache.store(kKey, {});
  const Lookup hit = cache.find(kKey);
  ASSERT_TRUE(hit.path) << hit.why;
  EXPECT_EQ(hit.digest, sha256_hex(""));
}

TEST(JitArtifactCache, AFolderMadeByTheCostModelIsUsable) {
  // The cost model creates the folder with the default mode (0755 under umask 022): not writable by
  // others, so fine.
  TempFolder tmp;
  const auto root = tmp.path() / "batchode";
  std::filesystem::create_directory(root);
  std::filesystem::permissions(root, std::filesystem::perms(0755));
  ArtifactCache cache(root, "cpu");
  EXPECT_TRUE(cache.usable());
  EXPECT_EQ(mode_of(root), 0755u);  // not ours to tighten
  cache.store(kKey, bytes_of("object"));
  EXPECT_TRUE(cache.find(kKey).path);
}

TEST(JitArtifactCache, RecreatesItsSubfolderWhenDeleted) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "cpu");
  std::filesystem::remove_all(cache.directory());
  EXPECT_TRUE(cache.usable());
  EXPECT_EQ(cache.find(kKey).miss, Miss::absent);
  cache.store(kKey, bytes_of("object"));
  EXPECT_EQ(mode_of(cache.directory()), 0700u);
  EXPECT_TRUE(cache.find(kKey).path);
}

TEST(JitArtifactCache, RefusesKeysAndKindsThatAreNotPlainNames) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "cpu");
  for (const std::string& key : std::vector<std::string>{"", "../../etc/passwd", "ABCDEF", "abc/def",
                                                         "abc.sha256", std::string(129, 'a')}) {
    EXPECT_THROW(cache.find(key), batchode::InvalidInput) << key;
    EXPECT_THROW(cache.store(key, bytes_of("x")), batchode::InvalidInput) << key;
  }
  EXPECT_NO_THROW(cache.find(std::string(128, 'a')));
  for (const std::string kind : {"", ".", "..", "a/b", "../cpu"}) {
    EXPECT_THROW(ArtifactCache(tmp.path(), kind), batchode::InvalidInput) << kind;
  }
  EXPECT_THROW(ArtifactCache("", "cpu"), batchode::InvalidInput);
  EXPECT_FALSE(std::filesystem::exists(tmp.path().parent_path() / "cpu"));
}

TEST(JitArtifactCache, MissNames) {
  EXPECT_EQ(to_string(Miss::absent), "absent");
  EXPECT_EQ(to_string(Miss::insecure_directory), "insecure_directory");
  EXPECT_EQ(to_string(Miss::foreign_owner), "foreign_owner");
  EXPECT_EQ(to_string(Miss::writable_by_others), "writable_by_others");
  EXPECT_EQ(to_string(Miss::hash_mismatch), "hash_mismatch");
  EXPECT_EQ(to_string(Miss::unreadable), "unreadable");
}

/// Sets an entry's last use (both files' modification times) to `seconds_ago`.
void used_ago(const ArtifactCache& cache, const std::string& key, int seconds_ago) {
  const auto when = std::filesystem::file_time_type::clock::now() - std::chrono::seconds(seconds_ago);
  std::filesystem::last_write_time(cache.directory() / key, when);
  std::filesystem::last_write_time(cache.directory() / (key + ".sha256"), when);
}

TEST(JitArtifactCache, PruneDeletesTheLeastRecentlyUsedFirst) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "pch");
  const std::string a = sha256_hex("a"), b = sha256_hex("b"), c = sha256_hex("c");
  const std::vector<char> bytes(1000, 'x');
  for (const std::string& key : {a, b, c}) cache.store(key, bytes);
  used_ago(cache, a, 300);
  used_ago(cache, b, 200);
  used_ago(cache, c, 100);
  ASSERT_TRUE(cache.find(a).path);  // a is now the most recently used: b is the oldest
  const std::uintmax_t entry_bytes = 1000 + 65;
  const batchode::jit::Pruned pruned = cache.prune(2 * entry_bytes);
  EXPECT_EQ(pruned.entries_removed, 1u);
  EXPECT_EQ(pruned.bytes_removed, entry_bytes);
  EXPECT_EQ(pruned.bytes_kept, 2 * entry_bytes);
  EXPECT_EQ(names_in(cache.directory()), (std::set<std::string>{a, a + ".sha256", c, c + ".sha256"}));
  // Within the capacity nothing goes.
  EXPECT_EQ(cache.prune(2 * entry_bytes).entries_removed, 0u);
  // c is now the oldest.
  EXPECT_EQ(cache.prune(entry_bytes).entries_removed, 1u);
  EXPECT_TRUE(cache.find(a).path);
  EXPECT_EQ(cache.find(c).miss, Miss::absent);
}

TEST(JitArtifactCache, PruneKeepsTheEntryJustStoredEvenPastTheCapacity) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "pch");
  const std::string old_key = sha256_hex("old"), new_key = sha256_hex("new");
  cache.store(old_key, bytes_of("an old prelude"));
  used_ago(cache, old_key, 60);
  cache.store(new_key, std::vector<char>(5000, 'p'));
  used_ago(cache, new_key, 3600 * 24);  // even when its clock says otherwise
  const batchode::jit::Pruned pruned = cache.prune(10, new_key);
  EXPECT_EQ(pruned.entries_removed, 1u);
  EXPECT_EQ(pruned.bytes_kept, 5000u + 65);
  EXPECT_EQ(names_in(cache.directory()), (std::set<std::string>{new_key, new_key + ".sha256"}));
}

TEST(JitArtifactCache, PruneClearsWhatKilledStoresLeftAndNothingElse) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "cpu");
  cache.store(kKey, bytes_of("object"));
  const auto dir = cache.directory();
  const auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(2);
  const std::string old_temporary = ".0123456789abcdef.tmp.1.2.3",
                    new_temporary = ".fedcba9876543210.tmp.4.5.6";
  const std::string orphan = sha256_hex("orphan") + ".sha256", fresh_orphan = sha256_hex("fresh") + ".sha256";
  for (const std::string& name :
       {old_temporary, new_temporary, orphan, fresh_orphan, std::string("notes.txt")}) {
    write_file(dir / name, "left over");
  }
  std::filesystem::last_write_time(dir / old_temporary, old);
  std::filesystem::last_write_time(dir / orphan, old);
  std::filesystem::last_write_time(dir / "notes.txt", old);
  const batchode::jit::Pruned pruned = cache.prune(std::uintmax_t{1} << 40);
  EXPECT_EQ(pruned.entries_removed, 0u);
  EXPECT_EQ(pruned.bytes_removed, 2 * std::string("left over").size());
  // A store in progress (the new temporary), a digest whose artifact is being renamed into place
  // (the fresh orphan) and files that are no entry's stay.
  EXPECT_EQ(names_in(dir),
            (std::set<std::string>{kKey, kKey + ".sha256", new_temporary, fresh_orphan, "notes.txt"}));
  EXPECT_TRUE(cache.find(kKey).path);
}

TEST(JitArtifactCache, PruneOfAMissingFolderDoesNothing) {
  TempFolder tmp;
  ArtifactCache cache(tmp.path(), "cpu");
  std::filesystem::remove_all(cache.directory());
  const batchode::jit::Pruned pruned = cache.prune(0);
  EXPECT_EQ(pruned.entries_removed, 0u);
  EXPECT_EQ(pruned.bytes_kept, 0u);
}

}  // namespace
