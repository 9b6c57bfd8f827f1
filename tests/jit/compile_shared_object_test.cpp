// tests/jit/: the host compiler driver end to end: source in, shared object bytes out, stored in the
// cache, loaded and called; a compiler error reported with its log and the label; a compiler that
// hangs killed at its time limit together with what it started, or at once on a stop request;
// temporary files removed every time.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <batchode/checks/invalid_input.hpp>
#include <batchode/jit/artifact_cache.hpp>
#include <batchode/jit/host_compiler.hpp>
#include <batchode/jit/sha256.hpp>
#include <batchode/jit/shared_object.hpp>
#include <chrono>
#include <sstream>
#include <thread>

#include "jit_test_support.hpp"

namespace {

using namespace batchode::jit;
using namespace batchode::jit::testing;

/// Runs `f` and returns the CompileError it throws.
template <class F>
std::optional<CompileError> compile_error_of(F&& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a CompileError: " << e.what();
    return std::nullopt;
  }
  ADD_FAILURE() << "no CompileError thrown";
  return std::nullopt;
}

/// A TMPDIR of the test's own, so "the driver removed its temporary folder" can be checked exactly.
struct PrivateTmpdir {
  TempFolder folder;
  ScopedEnv env{"TMPDIR", folder.path().string()};
  bool empty() const { return std::filesystem::is_empty(folder.path()); }
};

HostCompiler fake_compiler(const std::filesystem::path& dir, const std::string& script) {
  const auto path = dir / "fake-c++";
  write_file(path, "#!/bin/sh\n" + script);
  ::chmod(path.c_str(), 0700);
  return HostCompiler{path.string(), "fake 1.0"};
}

TEST(JitCompileSharedObject, CompilesStoresLoadsAndCalls) {
  const HostCompiler compiler = find_host_compiler();
  TempFolder work;
  PrivateTmpdir tmpdir;
  std::filesystem::create_directory(work.path() / "include");
  write_file(work.path() / "include" / "answer_part.hpp", "#pragma once\nconstexpr int kPart = 40;\n");

  CompileRequest request;
  request.label = "model 'answer'";
  request.include_dirs = {(work.path() / "include").string()};
  request.flags = {"-DANSWER_REST=2"};  // extra flags reach the compiler
  request.source = R"(
#include "answer_part.hpp"
extern "C" __attribute__((visibility("default"))) int answer() { return kPart + ANSWER_REST; }
extern "C" int hidden_answer() { return 41; }  // -fvisibility=hidden: not exported
)";
  const std::vector<char> bytes = compile_shared_object(compiler, request);
  ASSERT_GT(bytes.size(), 4u);
  EXPECT_EQ(std::string(bytes.data() + 1, 3), "ELF");
  EXPECT_TRUE(tmpdir.empty()) << "the driver left its temporary folder behind";

  const ArtifactCache cache(work.path() / "cache", "cpu");
  const std::string key = sha256_hex(compiler.path + compiler.version + request.source);
  cache.store(key, bytes);
  const Lookup hit = cache.find(key);
  ASSERT_TRUE(hit.path) << hit.why;
  const SharedObject object(*hit.path);
  EXPECT_EQ(object.function<int (*)()>("answer")(), 42);
  try {
    object.symbol("hidden_answer");
    ADD_FAILURE() << "a hidden symbol was exported";
  } catch (const JitError& e) {
    EXPECT_TRUE(contains(e.what(), "'hidden_answer'")) << e.what();
    EXPECT_TRUE(contains(e.what(), hit.path->string())) << e.what();
  }
}

TEST(JitCompileSharedObject, ACompilerErrorNamesTheLabelAndShowsTheLog) {
  const HostCompiler compiler = find_host_compiler();
  PrivateTmpdir tmpdir;
  CompileRequest request;
  request.label = "model 'broken'";
  // 40 errors, so the message must be cut to its first 60 lines.
  for (int i = 0; i < 40; ++i) {
    request.source +=
        "int f" + std::to_string(i) + "() { return undeclared_name_" + std::to_string(i) + "; }\n";
  }
  const auto error = compile_error_of([&] { compile_shared_object(compiler, request); });
  ASSERT_TRUE(error);
  const std::string what = error->what();
  EXPECT_TRUE(contains(what, "model 'broken'")) << what;
  EXPECT_TRUE(contains(what, "exited with status 1")) << what;
  EXPECT_TRUE(contains(what, "undeclared_name_0")) << what;
  EXPECT_TRUE(contains(what, "first 60 of")) << what;
  EXPECT_FALSE(contains(what, "undeclared_name_39")) << "the message was not cut";
  EXPECT_TRUE(contains(error->log(), "undeclared_name_39")) << "the log was cut";
  EXPECT_TRUE(contains(error->command(), compiler.path)) << error->command();
  EXPECT_TRUE(contains(error->command(), "-std=c++17 -O3 -DNDEBUG -fPIC -shared -fvisibility=hidden"))
      << error->command();
  EXPECT_TRUE(contains(what, error->command()));
  EXPECT_TRUE(tmpdir.empty());
}

TEST(JitCompileSharedObject, ACompilerPastItsTimeLimitIsKilledWithItsChildren) {
  TempFolder work;
  PrivateTmpdir tmpdir;
  const std::string pid_file = (work.path() / "child.pid").string();
  // The "compiler" starts a child (as a driver starts cc1plus) and waits for it.
  const HostCompiler compiler = fake_compiler(
      work.path(), "echo 'fake compiler running'\nsleep 60 &\necho $! > '" + pid_file + "'\nwait\n");
  CompileRequest request;
  request.label = "model 'slow'";
  request.source = "int x;";
  request.timeout_s = 1;
  const auto start = std::chrono::steady_clock::now();
  const auto error = compile_error_of([&] { compile_shared_object(compiler, request); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(error);
  EXPECT_TRUE(contains(error->what(), "model 'slow'")) << error->what();
  EXPECT_TRUE(contains(error->what(), "ran past its time limit of 1 s and was killed")) << error->what();
  EXPECT_TRUE(contains(error->log(), "fake compiler running")) << error->log();
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(tmpdir.empty());

  // The child got SIGKILL too: gone, or a zombie waiting for init to reap it.
  const std::vector<char> pid_text = read_file(pid_file);
  ASSERT_FALSE(pid_text.empty());
  const std::string proc = "/proc/" + std::string(pid_text.begin(), pid_text.end() - 1) + "/stat";
  bool dead = false;
  for (int i = 0; i < 200 && !dead; ++i) {
    const std::vector<char> stat = read_file(proc);
    const std::string text(stat.begin(), stat.end());
    const std::size_t paren = text.rfind(')');
    dead = text.empty() || (paren != std::string::npos && text.compare(paren + 1, 3, " Z ") == 0);
    if (!dead) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(dead) << "the compiler's child is still running: " << proc;
}

/// The processes of process group `group` that still run (zombies waiting to be reaped excluded).
std::vector<std::string> running_in_group(const std::string& group) {
  std::vector<std::string> running;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;  // not a process
    const std::vector<char> stat = read_file(entry.path() / "stat");
    const std::string text(stat.begin(), stat.end());
    const std::size_t paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(text.substr(paren + 1));  // state, ppid, pgrp, ...
    std::string state, ppid, pgrp;
    fields >> state >> ppid >> pgrp;
    if (pgrp == group && state != "Z") running.push_back(pid);
  }
  return running;
}

TEST(JitCompileSharedObject, AStopRequestEndsTheCompilerWithItsChildrenAndRemovesItsFolder) {
  TempFolder work;
  PrivateTmpdir tmpdir;
  const std::string pid_file = (work.path() / "compiler.pid").string();
  // The "compiler" says who it is (the leader: its pid is its process group's id) once its child runs.
  const HostCompiler compiler =
      fake_compiler(work.path(), "sleep 60 &\necho $$ > '" + pid_file + ".tmp'\nmv '" + pid_file + ".tmp' '" +
                                     pid_file + "'\nwait\n");
  CompileRequest request;
  request.label = "model 'slow'";
  request.source = "int x;";
  std::atomic<bool> stop{false};
  request.stop = &stop;
  std::chrono::steady_clock::time_point stopped_at;
  std::thread stopper([&] {
    for (int i = 0; i < 1000 && !std::filesystem::exists(pid_file); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(tmpdir.empty()) << "the compile's private folder should exist while it runs";
    stopped_at = std::chrono::steady_clock::now();
    stop.store(true);
  });
  try {
    compile_shared_object(compiler, request);
    ADD_FAILURE() << "expected CompileInterrupted";
  } catch (const CompileInterrupted& e) {
    EXPECT_TRUE(contains(e.what(), "model 'slow': the compile was stopped on request")) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a CompileInterrupted: " << e.what();
  }
  const auto returned = std::chrono::steady_clock::now();
  stopper.join();
  EXPECT_LT(std::chrono::duration<double>(returned - stopped_at).count(), 3.0);
  EXPECT_TRUE(tmpdir.empty());
  const std::vector<char> pid_text = read_file(pid_file);
  ASSERT_FALSE(pid_text.empty());
  const std::string group(pid_text.begin(), pid_text.end() - 1);
  const std::vector<std::string> left = running_in_group(group);
  EXPECT_TRUE(left.empty()) << left.size() << " processes of the compiler's group " << group
                            << " still run, e.g. pid " << left.front();
}

TEST(JitCompileSharedObject, AStopRequestedBeforeTheCompileStartsNothing) {
  TempFolder work;
  PrivateTmpdir tmpdir;
  const std::filesystem::path ran = work.path() / "ran";
  CompileRequest request;
  const std::atomic<bool> stop{true};
  request.stop = &stop;
  EXPECT_THROW(compile_shared_object(fake_compiler(work.path(), "touch '" + ran.string() + "'\n"), request),
               CompileInterrupted);
  EXPECT_FALSE(std::filesystem::exists(ran));
  EXPECT_TRUE(tmpdir.empty());
}

TEST(JitCompileSharedObject, ATimeLimitBelowOneSecondIsRefused) {
  CompileRequest request;
  request.timeout_s = 0;
  EXPECT_THROW(compile_shared_object(HostCompiler{"/bin/false", "none"}, request), batchode::InvalidInput);
}

TEST(JitCompileSharedObject, ACompilerThatWritesNothingIsAnError) {
  TempFolder work;
  const auto error = compile_error_of(
      [&] { compile_shared_object(fake_compiler(work.path(), "exit 0\n"), CompileRequest{}); });
  ASSERT_TRUE(error);
  EXPECT_TRUE(
      contains(error->what(), "generated source: the host C++ compiler succeeded but wrote no shared object"))
      << error->what();
}

TEST(JitCompileSharedObject, ACompilerKilledByASignalIsReported) {
  TempFolder work;
  const auto error = compile_error_of(
      [&] { compile_shared_object(fake_compiler(work.path(), "kill -SEGV $$\n"), CompileRequest{}); });
  ASSERT_TRUE(error);
  EXPECT_TRUE(contains(error->what(), "was killed by signal 11")) << error->what();
}

TEST(JitCompileSharedObject, ArgumentsReachTheCompilerVerbatimNeverThroughAShell) {
  TempFolder work;
  const std::string args_file = (work.path() / "args").string();
  const HostCompiler compiler =
      fake_compiler(work.path(), "for a in \"$@\"; do echo \"$a\"; done > '" + args_file + "'\nexit 3\n");
  CompileRequest request;
  request.flags = {"-DX=$(touch pwned)", "a b; echo c"};
  request.include_dirs = {"/with space"};
  const auto error = compile_error_of([&] { compile_shared_object(compiler, request); });
  ASSERT_TRUE(error);
  const std::vector<char> args = read_file(args_file);
  const std::string text(args.begin(), args.end());
  EXPECT_TRUE(contains(text, "\n-DX=$(touch pwned)\na b; echo c\n")) << text;
  EXPECT_TRUE(contains(text, "\n-I/with space\n")) << text;
  EXPECT_FALSE(std::filesystem::exists("pwned"));
  EXPECT_TRUE(contains(error->command(), "'-DX=$(touch pwned)' 'a b; echo c'")) << error->command();
}

}  // namespace
