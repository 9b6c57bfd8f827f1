// tests/jit/: SharedObject's errors (a file that is not a shared object, a missing file, a missing
// symbol) say what failed and where, and moving one keeps the library loaded.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <batchode/jit/shared_object.hpp>
#include <cmath>

#include "jit_test_support.hpp"

namespace {

using batchode::jit::JitError;
using batchode::jit::SharedObject;
using namespace batchode::jit::testing;

std::string load_error(const std::filesystem::path& path) {
  try {
    SharedObject object(path);
  } catch (const JitError& e) {
    return e.what();
  }
  ADD_FAILURE() << "loading " << path << " did not throw";
  return {};
}

TEST(JitSharedObject, GarbageBytesAreRefusedWithDlerrorsText) {
  TempFolder tmp;
  const auto file = tmp.path() / "garbage.so";
  write_file(file, std::string(4096, 'g'));
  // What the dynamic loader itself says about this file.
  ASSERT_EQ(::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL), nullptr);
  const std::string loader_says = ::dlerror();
  const std::string message = load_error(file);
  EXPECT_TRUE(contains(message, loader_says)) << message;
  EXPECT_TRUE(contains(message, file.string())) << message;
  EXPECT_TRUE(contains(message, "invalid ELF header")) << message;
}

TEST(JitSharedObject, MissingFileIsAnError) {
  TempFolder tmp;
  const std::string message = load_error(tmp.path() / "absent.so");
  EXPECT_TRUE(contains(message, "absent.so")) << message;
  EXPECT_TRUE(contains(message, "No such file")) << message;
}

TEST(JitSharedObject, FunctionsAndMissingSymbols) {
  SharedObject libm("libm.so.6");
  EXPECT_EQ(libm.function<double (*)(double)>("cos")(0.0), 1.0);
  try {
    libm.symbol("batchode_no_such_symbol");
    ADD_FAILURE() << "a missing symbol was found";
  } catch (const JitError& e) {
    EXPECT_TRUE(contains(e.what(), "'batchode_no_such_symbol'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "libm.so.6")) << e.what();
  }
}

TEST(JitSharedObject, MovingKeepsTheLibraryLoaded) {
  SharedObject first("libm.so.6");
  SharedObject second(std::move(first));
  EXPECT_EQ(second.function<double (*)(double)>("sqrt")(4.0), 2.0);
  EXPECT_THROW(first.symbol("sqrt"), JitError);  // NOLINT(bugprone-use-after-move): pinned behaviour
  SharedObject third("libm.so.6");
  third = std::move(second);
  EXPECT_EQ(third.path(), std::filesystem::path("libm.so.6"));
  EXPECT_EQ(third.function<double (*)(double)>("sqrt")(9.0), 3.0);
}

}  // namespace
