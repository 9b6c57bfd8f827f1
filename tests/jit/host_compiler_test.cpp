// tests/jit/: finding the host compiler: BATCHODE_CXX before CXX before PATH, a variable naming no
// executable refused by name (never a silent fallback), and a clear message when there is none.
#include <gtest/gtest.h>

#include <batchode/jit/host_compiler.hpp>

#include "jit_test_support.hpp"

namespace {

using batchode::jit::find_host_compiler;
using batchode::jit::HostCompiler;
using batchode::jit::JitError;
using namespace batchode::jit::testing;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const JitError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no JitError thrown";
  return {};
}

/// What PATH finds with both variables unset (the test machine has a compiler: tests/ builds with one).
HostCompiler compiler_on_path() {
  ScopedEnv a("BATCHODE_CXX", std::nullopt), b("CXX", std::nullopt);
  return find_host_compiler();
}

TEST(JitFindHostCompiler, OnPathWhenNothingIsSet) {
  const HostCompiler c = compiler_on_path();
  EXPECT_TRUE(std::filesystem::path(c.path).is_absolute()) << c.path;
  EXPECT_TRUE(std::filesystem::exists(c.path)) << c.path;
  EXPECT_FALSE(c.version.empty());
  EXPECT_EQ(c.version.find('\n'), std::string::npos) << c.version;
}

TEST(JitFindHostCompiler, BatchodeCxxComesBeforeCxx) {
  const HostCompiler on_path = compiler_on_path();
  ScopedEnv a("BATCHODE_CXX", on_path.path), b("CXX", "/nonexistent/cxx");
  const HostCompiler c = find_host_compiler();
  EXPECT_EQ(c.path, on_path.path);
  EXPECT_EQ(c.version, on_path.version);
}

TEST(JitFindHostCompiler, ANameIsLookedUpOnPath) {
  const HostCompiler on_path = compiler_on_path();
  const std::string name = std::filesystem::path(on_path.path).filename().string();
  ScopedEnv a("BATCHODE_CXX", std::nullopt), b("CXX", name);
  EXPECT_EQ(find_host_compiler().path, on_path.path);
}

TEST(JitFindHostCompiler, BatchodeCxxNamingNothingIsAnError) {
  ScopedEnv a("BATCHODE_CXX", "/nonexistent"), b("CXX", std::nullopt);
  const std::string message = error_of([] { find_host_compiler(); });
  EXPECT_TRUE(contains(message, "BATCHODE_CXX='/nonexistent' names no executable file")) << message;
  EXPECT_TRUE(contains(message, "set BATCHODE_CXX")) << message;
}

TEST(JitFindHostCompiler, CxxNamingNothingIsAnError) {
  ScopedEnv a("BATCHODE_CXX", std::nullopt), b("CXX", "no-such-compiler-here");
  const std::string message = error_of([] { find_host_compiler(); });
  EXPECT_TRUE(contains(message, "CXX='no-such-compiler-here' names no executable file on PATH")) << message;
}

TEST(JitFindHostCompiler, NoCompilerAnywhereSaysWhatWasSearched) {
  TempFolder empty;
  ScopedEnv a("BATCHODE_CXX", std::nullopt), b("CXX", std::nullopt), c("PATH", empty.path().string());
  const std::string message = error_of([] { find_host_compiler(); });
  EXPECT_TRUE(contains(message, "c++, g++, clang++")) << message;
  EXPECT_TRUE(contains(message, empty.path().string())) << message;
  EXPECT_TRUE(contains(message, "BATCHODE_CXX")) << message;
}

TEST(JitFindHostCompiler, AFileThatIsNotExecutableIsNotACompiler) {
  TempFolder tmp;
  write_file(tmp.path() / "g++", "#!/bin/sh\n");  // mode 0644
  ScopedEnv a("BATCHODE_CXX", (tmp.path() / "g++").string()), b("CXX", std::nullopt);
  EXPECT_TRUE(contains(error_of([] { find_host_compiler(); }), "names no executable file"));
}

}  // namespace
