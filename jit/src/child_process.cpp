// jit/ (private): see child_process.hpp. The output goes through a pipe read with poll(), so the time
// limit and a stop request hold even while the program prints nothing, and a program that fills the
// pipe never blocks.
#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "batchode/jit/jit_error.hpp"
#include "posix_file.hpp"

extern char** environ;

namespace batchode::jit::detail {
namespace {

/// posix_spawn's attributes and file actions, destroyed on every path.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// A stop request is seen within kStopPoll: Ctrl-C answered in a blink, and 50 wake-ups a second cost
// nothing beside a compiler. kStopGrace lets a compiler driver, on SIGTERM, remove its own temporary
// files (GCC's /tmp/cc*.s, .o) before SIGKILL ends whatever is left.
constexpr std::chrono::milliseconds kStopPoll(20);
constexpr std::chrono::milliseconds kStopGrace(500);

bool stop_requested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

/// Ends the process group `pid` leads and returns the leader's wait status. With a `grace`, SIGTERM
/// first and SIGKILL once the leader has exited or the grace has passed; without, SIGKILL at once.
/// The leader is reaped only after the SIGKILL: until then it is at least a zombie, so its pid (the
/// group's id) cannot have been given to an unrelated process the signal would hit.
int end_group(pid_t pid, std::chrono::milliseconds grace) {
  if (grace.count() > 0) {
    ::kill(-pid, SIGTERM);
    const auto until = std::chrono::steady_clock::now() + grace;
    for (;;) {
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid == pid)
        break;
      if (std::chrono::steady_clock::now() >= until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ::kill(-pid, SIGKILL);  // what is left of the group (ESRCH when nothing is: fine)
  return wait_for(pid);
}

/// A started program not yet reaped: ended with its group (SIGKILL) and reaped when this goes
/// unfinished, so that an exception on the way (no memory for its output) leaves nothing running.
class Started {
 public:
  explicit Started(pid_t pid) : pid_(pid) {}
  ~Started() {
    if (pid_ > 0) (void)end_group(pid_, std::chrono::milliseconds(0));
  }
  Started(const Started&) = delete;
  Started& operator=(const Started&) = delete;
  pid_t pid() const { return pid_; }
  /// waitpid reaped it (or cannot: an error other than EINTR): nothing is left to end.
  void reaped() { pid_ = 0; }
  /// end_group(pid, grace): the leader's wait status.
  int end(std::chrono::milliseconds grace) {
    const pid_t pid = pid_;
    pid_ = 0;
    return end_group(pid, grace);
  }

 private:
  pid_t pid_;
};

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      std::size_t max_output, const std::atomic<bool>* stop) {
  if (argv.empty()) throw JitError("run_child: no program");
  ChildResult result;
  if (stop_requested(stop)) {
    result.stopped = true;
    return result;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw JitError("cannot create a pipe: " + errno_text(errno));
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);

  SpawnSetup setup;
  // stdin from /dev/null (a compiler must never wait for input); stdout and stderr into the pipe
  // (dup2 clears O_CLOEXEC on the copies, the originals close at exec).
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), 1);
  posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), 2);
  // Its own process group (ended as a whole on a time-out or a stop request), default signal handling and an
  // empty signal mask, whatever this process has set for itself.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setflags(&setup.attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  pid_t pid = 0;
  const int spawn_error = ::posix_spawn(&pid, args[0], &setup.actions, &setup.attr, args.data(), environ);
  write_end.reset();  // ours closed, so the pipe ends when the child and its children are done
  if (spawn_error != 0) throw JitError("cannot start " + argv[0] + ": " + errno_text(spawn_error));
  Started child(pid);

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Past the deadline or on a stop request: ends the group (below) instead of waiting for it.
  auto must_end = [&] {
    if (stop_requested(stop)) {
      result.stopped = true;
    } else if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
    }
    return result.stopped || result.timed_out;
  };
  char chunk[65536];
  while (!must_end()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const auto wait = std::min(left, stop != nullptr ? kStopPoll : std::chrono::milliseconds(1000 * 1000));
    pollfd p{read_end.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<long long>(wait.count(), 0)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;  // EINTR included: a signal handler may just have set the stop flag
    const ssize_t n = ::read(read_end.get(), chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;  // end of output: the program (and all it started) closed the pipe
    result.output_bytes += static_cast<std::size_t>(n);
    const std::size_t keep =
        std::min(static_cast<std::size_t>(n), max_output - std::min(max_output, result.output.size()));
    result.output.append(chunk, keep);
  }
  // The pipe can close before the program exits (it may close its output and go on): wait within the
  // same deadline, and for the same stop request.
  int status = -1;
  while (child.pid() != 0 && !result.stopped && !result.timed_out) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      child.reaped();
      if (done != pid) status = -1;
    } else if (!must_end()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  if (child.pid() != 0) status = child.end(result.stopped ? kStopGrace : std::chrono::milliseconds(0));
  if (status >= 0 && WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (status >= 0 && WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_./=:+,@%") == std::string::npos;
    if (plain) {
      line += a;
    } else {
      line += '\'';
      for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
      line += '\'';
    }
  }
  return line;
}

std::string describe_end(const ChildResult& result, std::chrono::milliseconds timeout) {
  if (result.stopped) return "was stopped on request";
  if (result.timed_out) {
    const long long ms = static_cast<long long>(timeout.count());
    const std::string limit = ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
    return "ran past its time limit of " + limit + " and was killed";
  }
  if (result.signal != 0) {
    return "was killed by signal " + std::to_string(result.signal) + " (" + ::strsignal(result.signal) + ")";
  }
  if (result.exit_status >= 0) return "exited with status " + std::to_string(result.exit_status);
  return "ended in a way waitpid could not report";
}

}  // namespace batchode::jit::detail
