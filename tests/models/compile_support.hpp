// tests/models: what the tests of generated code need around them: a private temporary folder, the
// host C++ compiler (the one CMake found, BATCHODE_TEST_CXX), the kernels' include folder, and a way
// to run a program with its output captured: posix_spawnp with an argument vector, never a shell, and
// killed after a deadline so a stuck child fails the test instead of hanging CI.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace batchode::models::testing {

inline std::string kernels_include_dir() {
  return std::string(BATCHODE_TEST_SOURCE_DIR) + "/kernels/include";
}
inline std::string host_compiler() { return BATCHODE_TEST_CXX; }
inline std::string data_dir() { return BATCHODE_MODELS_TEST_DATA; }

/// A folder of our own under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/batchode-models-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("mkdtemp: " + std::string(std::strerror(errno)));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct RunResult {
  int exit_code = -1;  ///< the exit status, or -1 when it did not exit normally (signal, deadline)
  std::string output;  ///< stdout and stderr together
};

/// Runs argv[0] (looked up in PATH when it has no '/') with stdout and stderr into `output_file`.
inline RunResult run_program(const std::vector<std::string>& argv, const std::string& output_file,
                             std::chrono::seconds deadline = std::chrono::seconds(300)) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  RunResult r;
  if (spawned != 0) {
    r.output = "cannot start " + argv[0] + ": " + std::strerror(spawned);
    return r;
  }
  const auto give_up = std::chrono::steady_clock::now() + deadline;
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      r.output = "waitpid: " + std::string(std::strerror(errno));
      return r;
    }
    if (std::chrono::steady_clock::now() > give_up) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.output = read_file(output_file) + "\n(killed after " + std::to_string(deadline.count()) + " s)";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.output = read_file(output_file);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

/// The host compiler on `sources` with the kernels' headers only, warnings as errors. `extra` adds
/// options (-fsyntax-only, -o file, ...).
inline RunResult compile(const std::vector<std::string>& sources, const std::vector<std::string>& extra,
                         const std::string& log_file) {
  std::vector<std::string> argv = {
      host_compiler(), "-std=c++17", "-I" + kernels_include_dir(), "-Wall", "-Wextra", "-Wshadow", "-Werror"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), sources.begin(), sources.end());
  return run_program(argv, log_file);
}

/// Compiles `dir`'s `source` (with `flags`) into `dir`/run and runs it: the run's result, or, when it
/// did not build, the compiler's, its output prefixed "does not compile: " so a test's one check of the
/// exit code names which step failed.
inline RunResult build_and_run(const TempDir& dir, const std::string& source,
                               const std::vector<std::string>& flags = {}) {
  std::vector<std::string> extra = flags;
  extra.insert(extra.end(), {"-o", dir.file("run")});
  RunResult built = compile({dir.file(source)}, extra, dir.file("build.txt"));
  if (built.exit_code != 0) {
    built.output = "does not compile: " + built.output;
    return built;
  }
  return run_program({dir.file("run")}, dir.file("run.txt"));
}

}  // namespace batchode::models::testing
