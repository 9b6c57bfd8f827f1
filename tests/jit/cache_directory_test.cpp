// tests/jit/: the cache folder's precedence (BATCHODE_CACHE_DIR, XDG_CACHE_HOME, HOME, the password
// database), that the cost model files its coefficients in the same folder, and the size limit
// (BATCHODE_CACHE_MAX_SIZE).
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <batchode/checks/invalid_input.hpp>
#include <batchode/jit/cache_directory.hpp>
#include <batchode/solver/scheduling/cost_model.hpp>

#include "jit_test_support.hpp"

namespace {

using batchode::jit::cache_capacity;
using batchode::jit::cache_directory;
using batchode::jit::testing::ScopedEnv;
using std::filesystem::path;

TEST(JitCacheDirectory, BatchodeCacheDirComesFirst) {
  ScopedEnv a("BATCHODE_CACHE_DIR", "/some/where"), b("XDG_CACHE_HOME", "/xdg"), c("HOME", "/home/me");
  EXPECT_EQ(cache_directory(), path("/some/where"));
}

TEST(JitCacheDirectory, XdgCacheHomeNext) {
  ScopedEnv a("BATCHODE_CACHE_DIR", std::nullopt), b("XDG_CACHE_HOME", "/xdg"), c("HOME", "/home/me");
  EXPECT_EQ(cache_directory(), path("/xdg/batchode"));
}

TEST(JitCacheDirectory, EmptyVariablesCountAsUnset) {
  ScopedEnv a("BATCHODE_CACHE_DIR", ""), b("XDG_CACHE_HOME", ""), c("HOME", "/home/me");
  EXPECT_EQ(cache_directory(), path("/home/me/.cache/batchode"));
}

TEST(JitCacheDirectory, RelativeXdgCacheHomeIsIgnored) {
  // The XDG base directory spec: a relative path in these variables is invalid.
  ScopedEnv a("BATCHODE_CACHE_DIR", std::nullopt), b("XDG_CACHE_HOME", "relative/cache"),
      c("HOME", "/home/me");
  EXPECT_EQ(cache_directory(), path("/home/me/.cache/batchode"));
}

TEST(JitCacheDirectory, WithoutHomeThePasswordDatabaseHome) {
  ScopedEnv a("BATCHODE_CACHE_DIR", std::nullopt), b("XDG_CACHE_HOME", std::nullopt), c("HOME", std::nullopt);
  const passwd* entry = ::getpwuid(::geteuid());
  if (entry == nullptr || entry->pw_dir == nullptr || *entry->pw_dir == '\0') {
    EXPECT_EQ(cache_directory(), path());
  } else {
    EXPECT_EQ(cache_directory(), path(entry->pw_dir) / ".cache" / "batchode");
  }
}

TEST(JitCacheDirectory, CostModelUsesTheSameFolder) {
  {
    ScopedEnv a("BATCHODE_CACHE_DIR", "/some/where");
    EXPECT_EQ(batchode::CostModel::default_cache_path(), "/some/where/cost_model.txt");
  }
  ScopedEnv a("BATCHODE_CACHE_DIR", std::nullopt), b("XDG_CACHE_HOME", "/xdg"), c("HOME", "/home/me");
  EXPECT_EQ(path(batchode::CostModel::default_cache_path()), cache_directory() / "cost_model.txt");
  EXPECT_EQ(batchode::CostModel::default_cache_path(), "/xdg/batchode/cost_model.txt");
}

TEST(JitCacheCapacity, TwoGibibytesUnlessSet) {
  {
    ScopedEnv a("BATCHODE_CACHE_MAX_SIZE", std::nullopt);
    EXPECT_EQ(cache_capacity(), std::uintmax_t{2} << 30);
  }
  ScopedEnv a("BATCHODE_CACHE_MAX_SIZE", "");
  EXPECT_EQ(cache_capacity(), std::uintmax_t{2} << 30);
}

TEST(JitCacheCapacity, BytesOrPowersOf1024) {
  const std::vector<std::pair<std::string, std::uintmax_t>> cases{{"0", 0},
                                                                  {"123", 123},
                                                                  {"4K", 4096},
                                                                  {"500M", 500u << 20},
                                                                  {"500m", 500u << 20},
                                                                  {"4G", std::uintmax_t{4} << 30}};
  for (const auto& [text, bytes] : cases) {
    ScopedEnv a("BATCHODE_CACHE_MAX_SIZE", text);
    EXPECT_EQ(cache_capacity(), bytes) << text;
  }
}

TEST(JitCacheCapacity, AnythingElseIsRefusedByName) {
  for (const std::string text :
       {"1.5G", "-1", "12X", "G", "4 G", "4GB", "99999999999999999999", "99999999999G"}) {
    ScopedEnv a("BATCHODE_CACHE_MAX_SIZE", text);
    try {
      (void)cache_capacity();
      ADD_FAILURE() << text << " was taken";
    } catch (const batchode::InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("BATCHODE_CACHE_MAX_SIZE='" + text + "' is not a size"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
