// tests/jit/: issue 16's security "must show": a cache entry written by someone else, made group- or
// world-writable, altered after writing, with a damaged digest, or reached through a symbolic link is
// refused (never returned, so never loaded) and rebuilt by the next store; a cache folder that others
// could write into is refused by find and by store with a message naming it, the message
// cache_folder_problem gives for reports.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <batchode/jit/artifact_cache.hpp>
#include <batchode/jit/sha256.hpp>

#include "jit_test_support.hpp"

namespace {

using batchode::jit::ArtifactCache;
using batchode::jit::cache_folder_problem;
using batchode::jit::JitError;
using batchode::jit::Lookup;
using batchode::jit::Miss;
using batchode::jit::sha256_hex;
using namespace batchode::jit::testing;
using std::filesystem::path;

const std::string kKey = sha256_hex("security test entry");
constexpr uid_t kNobody = 65534;

#define BATCHODE_REQUIRE_ROOT()                                                                         \
  do {                                                                                                  \
    if (::geteuid() != 0) {                                                                             \
      GTEST_SKIP() << "needs root to give a file to another user (chown to uid 65534); running as uid " \
                   << ::geteuid();                                                                      \
    }                                                                                                   \
  } while (0)

struct Fixture {
  TempFolder tmp;
  ArtifactCache cache{tmp.path(), "cpu"};
  std::vector<char> good = bytes_of("an honest shared object");
  path entry() const { return cache.directory() / kKey; }
  path digest() const { return cache.directory() / (kKey + ".sha256"); }
  void store() { ASSERT_EQ(cache.store(kKey, good), entry()); }
  /// Stores again and expects a verified hit with the stored bytes: the entry was rebuilt.
  void expect_rebuilt() {
    cache.store(kKey, good);
    std::vector<char> verified;
    const Lookup hit = cache.find(kKey, &verified);
    ASSERT_TRUE(hit.path) << hit.why;
    EXPECT_EQ(verified, good);
    struct stat st {};
    ASSERT_EQ(::lstat(entry().c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, ::geteuid());
    EXPECT_EQ(st.st_mode & 07777, 0600u);
  }
};

void expect_refused(const Lookup& r, Miss miss, const std::string& mentions) {
  EXPECT_FALSE(r.path) << "a refused entry was returned: " << r.path->string();
  EXPECT_EQ(to_string(r.miss), to_string(miss)) << r.why;
  EXPECT_TRUE(contains(r.why, mentions)) << "'" << mentions << "' not in: " << r.why;
}

TEST(JitArtifactCacheSecurity, EntryOwnedBySomeoneElseIsRefusedLeftAndRebuilt) {
  BATCHODE_REQUIRE_ROOT();
  Fixture f;
  f.store();
  ASSERT_EQ(::lchown(f.entry().c_str(), kNobody, kNobody), 0);
  std::vector<char> verified;
  const Lookup r = f.cache.find(kKey, &verified);
  expect_refused(r, Miss::foreign_owner, "uid 65534");
  EXPECT_TRUE(contains(r.why, f.entry().string())) << r.why;
  EXPECT_TRUE(verified.empty());
  EXPECT_TRUE(std::filesystem::exists(f.entry()));  // another user's file is not ours to delete
  f.expect_rebuilt();
}

TEST(JitArtifactCacheSecurity, DigestOwnedBySomeoneElseIsRefused) {
  BATCHODE_REQUIRE_ROOT();
  Fixture f;
  f.store();
  ASSERT_EQ(::lchown(f.digest().c_str(), kNobody, kNobody), 0);
  expect_refused(f.cache.find(kKey), Miss::foreign_owner, "uid 65534");
  f.expect_rebuilt();
}

TEST(JitArtifactCacheSecurity, GroupOrWorldWritableEntryIsRefusedAndRemoved) {
  for (const unsigned mode : {0664u, 0646u, 0620u, 0602u}) {
    SCOPED_TRACE(mode);
    Fixture f;
    f.store();
    ASSERT_EQ(::chmod(f.entry().c_str(), mode), 0);
    expect_refused(f.cache.find(kKey), Miss::writable_by_others, "writable by group or others");
    EXPECT_FALSE(std::filesystem::exists(f.entry()));
    EXPECT_FALSE(std::filesystem::exists(f.digest()));
    f.expect_rebuilt();
  }
}

TEST(JitArtifactCacheSecurity, WritableDigestIsRefusedAndRemoved) {
  Fixture f;
  f.store();
  ASSERT_EQ(::chmod(f.digest().c_str(), 0666), 0);
  expect_refused(f.cache.find(kKey), Miss::writable_by_others, f.digest().string());
  EXPECT_FALSE(std::filesystem::exists(f.entry()));
  f.expect_rebuilt();
}

TEST(JitArtifactCacheSecurity, BytesAlteredAfterWritingAreRefusedAndRemoved) {
  Fixture f;
  f.store();
  {
    std::fstream file(f.entry(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(3);
    file.put('X');  // same size, same owner, same mode: only the hash can tell
  }
  ASSERT_EQ(mode_of(f.entry()), 0600u);
  expect_refused(f.cache.find(kKey), Miss::hash_mismatch,
                 "not to the recorded " + sha256_hex(f.good.data(), f.good.size()));
  EXPECT_FALSE(std::filesystem::exists(f.entry()));
  EXPECT_FALSE(std::filesystem::exists(f.digest()));
  f.expect_rebuilt();
}

TEST(JitArtifactCacheSecurity, TruncatedEntryIsRefused) {
  Fixture f;
  f.store();
  std::filesystem::resize_file(f.entry(), 4);
  expect_refused(f.cache.find(kKey), Miss::hash_mismatch, "hashes to");
  f.expect_rebuilt();
}

TEST(JitArtifactCacheSecurity, DamagedOrMissingDigestIsRefused) {
  const std::string right = sha256_hex(bytes_of("an honest shared object").data(), 23);
  std::string upper = right;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string cases[] = {"",                           // empty
                               right.substr(0, 40),          // truncated
                               std::string(64, 'z'),         // not hex
                               upper,                        // not as written
                               right + "\n" + right + "\n",  // extra content
                               std::string(10000, '0')};     // far too long
  for (const std::string& text : cases) {
    SCOPED_TRACE("digest file holds '" + text.substr(0, 80) + "'");
    Fixture f;
    f.store();
    write_file(f.digest(), text);
    expect_refused(f.cache.find(kKey), Miss::hash_mismatch, "does not hold a SHA-256");
    EXPECT_FALSE(std::filesystem::exists(f.entry()));
    f.expect_rebuilt();
  }
  Fixture f;
  f.store();
  std::filesystem::remove(f.digest());
  expect_refused(f.cache.find(kKey), Miss::hash_mismatch, "no digest was recorded");
  EXPECT_FALSE(std::filesystem::exists(f.entry()));
  f.expect_rebuilt();
}

TEST(JitArtifactCacheSecurity, DigestOfOtherBytesIsRefused) {
  // An entry swapped for other bytes together with a digest of something else altogether.
  Fixture f;
  f.store();
  write_file(f.entry(), "other bytes");
  write_file(f.digest(), sha256_hex("yet other bytes") + "\n");
  expect_refused(f.cache.find(kKey), Miss::hash_mismatch, "hashes to " + sha256_hex("other bytes"));
  f.expect_rebuilt();
}

TEST(JitArtifactCacheSecurity, SymbolicLinkEntryIsRefusedAndItsTargetUntouched) {
  Fixture f;
  // A link to a file outside the cache, with a digest that matches the target: only the link rule
  // refuses it.
  const path outside = f.tmp.path() / "elsewhere.so";
  write_file(outside, "code from elsewhere");
  std::filesystem::create_symlink(outside, f.entry());
  write_file(f.digest(), sha256_hex("code from elsewhere") + "\n");
  ::chmod(f.digest().c_str(), 0600);
  expect_refused(f.cache.find(kKey), Miss::unreadable, "symbolic link");
  EXPECT_FALSE(std::filesystem::is_symlink(f.entry()));  // the link is ours: deleted
  EXPECT_EQ(read_file(outside), bytes_of("code from elsewhere"));
  f.expect_rebuilt();
  EXPECT_EQ(read_file(outside), bytes_of("code from elsewhere"));  // store replaced the link, not its target
}

TEST(JitArtifactCacheSecurity, SymbolicLinkDigestIsRefused) {
  Fixture f;
  f.store();
  const path outside = f.tmp.path() / "digest";
  write_file(outside, sha256_hex(f.good.data(), f.good.size()) + "\n");
  std::filesystem::remove(f.digest());
  std::filesystem::create_symlink(outside, f.digest());
  expect_refused(f.cache.find(kKey), Miss::unreadable, "symbolic link");
  f.expect_rebuilt();
}

TEST(JitArtifactCacheSecurity, EntryThatIsAFolderIsRefused) {
  Fixture f;
  std::filesystem::create_directory(f.entry());
  expect_refused(f.cache.find(kKey), Miss::unreadable, "not a regular file");
  EXPECT_THROW(f.cache.store(kKey, f.good), JitError);  // cannot replace a folder: said, not ignored
}

/// find refuses (even an entry that was sound when stored), store throws naming the folder, usable says why.
void expect_folder_refused(Fixture& f, const path& folder, const std::string& problem) {
  const Lookup r = f.cache.find(kKey);
  expect_refused(r, Miss::insecure_directory, problem);
  EXPECT_TRUE(contains(r.why, folder.string())) << r.why;
  try {
    f.cache.store(kKey, f.good);
    ADD_FAILURE() << "store into an insecure folder did not throw";
  } catch (const JitError& e) {
    EXPECT_TRUE(contains(e.what(), folder.string())) << e.what();
    EXPECT_TRUE(contains(e.what(), problem)) << e.what();
  }
  std::string why;
  EXPECT_FALSE(f.cache.usable(&why));
  EXPECT_TRUE(contains(why, problem)) << why;
  EXPECT_EQ(cache_folder_problem(folder), why);  // what `batchode info` warns of, in the same words
  EXPECT_EQ(read_file(f.entry()), f.good);  // the stored entry was left alone, not replaced
}

TEST(JitArtifactCacheSecurity, GroupOrWorldWritableFolderIsRefused) {
  for (const unsigned mode : {0770u, 0707u, 0777u}) {
    SCOPED_TRACE(mode);
    {
      Fixture f;
      f.store();
      ASSERT_EQ(::chmod(f.cache.directory().c_str(), mode), 0);
      expect_folder_refused(f, f.cache.directory(), "writable by group or others");
    }
    {
      Fixture f;  // the cache folder above the kind's subfolder counts too
      f.store();
      ASSERT_EQ(::chmod(f.tmp.path().c_str(), mode), 0);
      expect_folder_refused(f, f.tmp.path(), "writable by group or others");
    }
  }
}

TEST(JitArtifactCacheSecurity, FolderOwnedBySomeoneElseIsRefused) {
  if (::geteuid() != 0) {
    // Without root no file can be given away, but "/" is root's: a cache there is someone else's.
    const ArtifactCache cache("/", "batchode-jit-test");
    expect_refused(cache.find(kKey), Miss::insecure_directory, "belongs to uid 0");
    EXPECT_THROW(cache.store(kKey, bytes_of("x")), JitError);
    EXPECT_FALSE(cache.usable());
    return;
  }
  {
    Fixture f;
    f.store();
    ASSERT_EQ(::chown(f.cache.directory().c_str(), kNobody, kNobody), 0);
    expect_folder_refused(f, f.cache.directory(), "belongs to uid 65534");
  }
  Fixture f;
  f.store();
  ASSERT_EQ(::chown(f.tmp.path().c_str(), kNobody, kNobody), 0);
  expect_folder_refused(f, f.tmp.path(), "belongs to uid 65534");
}

TEST(JitArtifactCacheSecurity, CacheFolderProblemIsEmptyForASoundFolderAndChangesNothing) {
  Fixture f;
  EXPECT_EQ(cache_folder_problem(f.tmp.path()), "");
  EXPECT_EQ(cache_folder_problem(f.cache.directory()), "");
  ASSERT_EQ(::chmod(f.tmp.path().c_str(), 0777), 0);
  const std::string problem = cache_folder_problem(f.tmp.path());
  EXPECT_TRUE(contains(problem, "is writable by group or others (mode 0777)")) << problem;
  EXPECT_TRUE(contains(problem, "chmod 700")) << problem;
  EXPECT_EQ(mode_of(f.tmp.path()), 0777u);
  EXPECT_TRUE(contains(cache_folder_problem(f.tmp.path() / "missing"), "cannot open the cache folder"));
  EXPECT_FALSE(std::filesystem::exists(f.tmp.path() / "missing"));
}

TEST(JitArtifactCacheSecurity, InsecureFolderIsNotCreatedInto) {
  TempFolder tmp;
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0777), 0);
  ArtifactCache cache(tmp.path(), "cpu");  // no throw: usable() says why
  EXPECT_FALSE(std::filesystem::exists(cache.directory()));
  std::string why;
  EXPECT_FALSE(cache.usable(&why));
  EXPECT_TRUE(contains(why, "chmod 700")) << why;
}

TEST(JitArtifactCacheSecurity, SymbolicLinkKindFolderIsRefused) {
  TempFolder tmp;
  const path real = tmp.path() / "real";
  std::filesystem::create_directory(real);
  ::chmod(real.c_str(), 0700);
  std::filesystem::create_symlink(real, tmp.path() / "cpu");
  ArtifactCache cache(tmp.path(), "cpu");
  expect_refused(cache.find(kKey), Miss::insecure_directory, "symbolic link");
  EXPECT_THROW(cache.store(kKey, bytes_of("x")), JitError);
  EXPECT_TRUE(std::filesystem::is_empty(real));
}

}  // namespace
