// tests/jit/: the artifact cache's ordinary life: folders created private, store then find gives the
// same bytes, a missing key is `absent`, replacing an entry, no temporary file left behind, and keys
// or kinds that could leave the folder refused.
#include <gtest/gtest.h>

#include <batchode/checks/invalid_input.hpp>
#include <batchode/jit/artifact_cache.hpp>
#include <batchode/jit/sha256.hpp>
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

}  // namespace
