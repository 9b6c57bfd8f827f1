// jit/: host compilation of one generated translation unit into a shared object. Everything happens
// in a fresh 0700 folder (mkdtemp) so no other user can swap the source or the object between the
// compiler writing it and this process reading it, and two compilations never share a file.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/jit/host_compiler.hpp"
#include "batchode/jit/private_folder.hpp"
#include "child_process.hpp"
#include "posix_file.hpp"

namespace batchode::jit {
namespace {

constexpr int kMaxLinesShown = 60;
// A compiled model is a few MB, a precompiled prelude ~300 MB: past 1 GiB it is not ours to load.
constexpr std::size_t kMaxObjectBytes = std::size_t{1} << 30;
// Every object is built so (issue 16); request.flags come after them, so a caller can override one.
// -ffp-contract=off as batchode's own builds (cmake/BatchodeWarnings.cmake): a model's blocks of runs,
// compiled for AVX2 and AVX-512 (backends/cpu/run_blocks.hpp), give its runs' scalar numbers.
constexpr const char* kDefaultFlags[] = {
    "-std=c++17", "-O3", "-DNDEBUG", "-fPIC", "-shared", "-fvisibility=hidden", "-ffp-contract=off"};

std::string first_lines(const std::string& text, int max_lines, int* total) {
  std::istringstream in(text);
  std::string line, shown;
  int n = 0;
  while (std::getline(in, line)) {
    if (n < max_lines) shown += "    " + line + "\n";
    ++n;
  }
  *total = n;
  return shown;
}

std::string label_of(const CompileRequest& request) {
  return request.label.empty() ? std::string("generated source") : request.label;
}

}  // namespace

CompileError::CompileError(const std::string& message, std::string command, std::string log)
    : JitError(message), command_(std::move(command)), log_(std::move(log)) {}

std::vector<char> compile_shared_object(const HostCompiler& compiler, const CompileRequest& request) {
  if (compiler.path.empty()) throw JitError("compile_shared_object: no compiler (use find_host_compiler())");
  if (request.timeout_s <= 0) {
    throw InvalidInput("compile_shared_object: timeout_s is " + std::to_string(request.timeout_s) + " for " +
                       label_of(request) + "; it must be at least 1 (seconds)");
  }
  const PrivateFolder folder;
  const std::filesystem::path source = folder.path() / "source.cpp";
  const std::filesystem::path object = folder.path() / "object.so";
  {
    std::ofstream out(source, std::ios::binary);
    out.write(request.source.data(), static_cast<std::streamsize>(request.source.size()));
    if (!out) throw JitError("cannot write " + source.string() + " for " + label_of(request));
  }

  std::vector<std::string> argv{compiler.path};
  argv.insert(argv.end(), std::begin(kDefaultFlags), std::end(kDefaultFlags));
  for (const std::string& dir : request.include_dirs) argv.push_back("-I" + dir);
  argv.insert(argv.end(), request.flags.begin(), request.flags.end());
  argv.insert(argv.end(), {std::string("-o"), object.string(), source.string()});

  const std::chrono::milliseconds limit(1000LL * request.timeout_s);
  const detail::ChildResult r = detail::run_child(argv, limit, detail::kKeptOutputBytes, request.stop);
  const std::string command = detail::command_line(argv);
  if (r.stopped) {
    throw CompileInterrupted(label_of(request) + ": the compile was stopped on request (the compiler " +
                             compiler.path + " and all it started were ended)");
  }

  auto fail = [&](const std::string& what) {
    int lines = 0;
    const std::string shown = first_lines(r.output, kMaxLinesShown, &lines);
    std::string message = label_of(request) + ": " + what + "\n  command: " + command + "\n";
    if (lines == 0) {
      message += "  (the compiler printed nothing)\n";
    } else {
      std::string heading = "  compiler output";
      if (lines > kMaxLinesShown) {
        heading += " (first " + std::to_string(kMaxLinesShown) + " of " + std::to_string(lines) +
                   " lines; the rest in CompileError::log())";
      }
      message += heading + ":\n" + shown;
    }
    return CompileError(message, command, r.output);
  };
  if (r.timed_out || r.signal != 0 || r.exit_status != 0) {
    throw fail("the host C++ compiler " + detail::describe_end(r, limit));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(object, ec)) {
    throw fail("the host C++ compiler succeeded but wrote no shared object");
  }
  std::vector<char> bytes;
  const detail::UniqueFd written(::open(object.c_str(), O_RDONLY | O_CLOEXEC));
  if (!written || !detail::read_all(written.get(), bytes, kMaxObjectBytes) || bytes.empty()) {
    throw fail("cannot read the shared object the compiler wrote (or it is empty or past 1 GiB)");
  }
  return bytes;
}

}  // namespace batchode::jit
