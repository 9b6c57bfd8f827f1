// tests/jit/: the cache folder's precedence (BATCHODE_CACHE_DIR, XDG_CACHE_HOME, HOME, the password
// database), and that the cost model files its coefficients in the same folder.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <batchode/jit/cache_directory.hpp>
#include <batchode/solver/scheduling/cost_model.hpp>

#include "jit_test_support.hpp"

namespace {

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

}  // namespace
