// tests/jit/: processes racing on one key. Two forked processes store the same key 50 times each,
// with different bytes (the worst case: a real key fixes the bytes, so this pairs artifacts with
// digests they do not match far more often than life would), while a thread of this process keeps
// looking the key up. Every hit must hand out bytes whose SHA-256 is the digest it reports, and those
// bytes must be one writer's whole artifact: never a mix, a torn file or an unverified pairing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <batchode/jit/artifact_cache.hpp>
#include <batchode/jit/sha256.hpp>
#include <map>
#include <thread>

#include "jit_test_support.hpp"

namespace {

using batchode::jit::ArtifactCache;
using batchode::jit::Lookup;
using batchode::jit::Miss;
using batchode::jit::sha256_hex;
using namespace batchode::jit::testing;

std::vector<char> payload(char tag, std::size_t size) {
  std::vector<char> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(tag + static_cast<char>(i % 13));
  return bytes;
}

pid_t spawn_writer(const ArtifactCache& cache, const std::string& key, const std::vector<char>& bytes,
                   int times) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int status = 0;
    try {
      for (int i = 0; i < times; ++i) cache.store(key, bytes);
    } catch (...) {
      status = 1;
    }
    ::_exit(status);  // no gtest teardown, no atexit handlers of the parent in the child
  }
  return pid;
}

TEST(JitArtifactCacheConcurrency, RacingStoresNeverYieldUnverifiedBytes) {
  TempFolder tmp;
  const ArtifactCache cache(tmp.path(), "cpu");
  const std::string key = sha256_hex("raced key");
  const std::vector<char> a = payload('a', 200000), b = payload('A', 300000);
  const std::string digest_a = sha256_hex(a.data(), a.size()), digest_b = sha256_hex(b.data(), b.size());

  // Fork before any thread exists in this process.
  const pid_t writer_a = spawn_writer(cache, key, a, 50);
  ASSERT_GT(writer_a, 0);
  const pid_t writer_b = spawn_writer(cache, key, b, 50);
  ASSERT_GT(writer_b, 0);

  std::atomic<bool> writers_done{false};
  std::map<std::string, int> outcomes;  // "hit", or the miss's name
  int bad_hits = 0;
  std::string first_bad;
  std::thread reader([&] {
    // One more look after the writers are done, so the reader always checks a settled entry too.
    for (bool last = false; !last;) {
      last = writers_done.load();
      std::vector<char> bytes;
      const Lookup r = cache.find(key, &bytes);
      if (!r.path) {
        ++outcomes[to_string(r.miss)];
        continue;
      }
      ++outcomes["hit"];
      const bool consistent = sha256_hex(bytes.data(), bytes.size()) == r.digest &&
                              ((r.digest == digest_a && bytes == a) || (r.digest == digest_b && bytes == b));
      if (!consistent && bad_hits++ == 0) {
        first_bad = "digest " + r.digest + ", " + std::to_string(bytes.size()) + " bytes";
      }
    }
  });
  int status_a = -1, status_b = -1;
  ::waitpid(writer_a, &status_a, 0);
  ::waitpid(writer_b, &status_b, 0);
  writers_done = true;
  reader.join();

  EXPECT_TRUE(WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0) << "writer a failed";
  EXPECT_TRUE(WIFEXITED(status_b) && WEXITSTATUS(status_b) == 0) << "writer b failed";
  EXPECT_EQ(bad_hits, 0) << "first bad hit: " << first_bad;
  std::string seen;
  for (const auto& [what, n] : outcomes) seen += what + "=" + std::to_string(n) + " ";
  std::cout << "[          ] lookups during the race: " << seen << '\n';
  for (const auto& [what, n] : outcomes) {
    // Only these misses can come from racing writers of one user.
    EXPECT_TRUE(what == "hit" || what == "absent" || what == "hash_mismatch") << what << " x" << n;
  }

  // Whatever state the race left, one store makes the entry sound again, and no temporary file remains.
  cache.store(key, a);
  std::vector<char> bytes;
  ASSERT_TRUE(cache.find(key, &bytes).path);
  EXPECT_EQ(bytes, a);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(cache.directory())) {
    names.push_back(e.path().filename());
  }
  EXPECT_EQ(names.size(), 2u) << "left behind: " << ::testing::PrintToString(names);
}

}  // namespace
