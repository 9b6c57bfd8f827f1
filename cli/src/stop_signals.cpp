// cli/: stop_signals.hpp. A handler may only touch lock-free atomics (async-signal-safe), so the flag
// and the signal's number are plain atomics here and everything else happens after the work unwinds.
#include "stop_signals.hpp"

#include <signal.h>

#include <ostream>
#include <string>

namespace batchode::cli {
namespace {

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "a signal handler may only store to lock-free atomics");

std::atomic<bool> stop_requested{false};
std::atomic<int> first_signal{0};

void on_stop_signal(int signal) {
  int none = 0;
  first_signal.compare_exchange_strong(none, signal);
  stop_requested.store(true);
}

}  // namespace

void install_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: the writes of an output file go on where they were (the stop is read between steps
  // of the work, not by failing a system call); the compile's wait (poll) still returns at once.
  // SA_RESETHAND: a second signal of the same kind takes the default action.
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

const std::atomic<bool>* stop_flag() { return &stop_requested; }

int stop_signal() { return first_signal.load(); }

int report_stop(std::ostream& errors, const char* why) {
  const int signal = stop_signal();
  const std::string name = signal == SIGINT    ? "SIGINT (Ctrl-C)"
                           : signal == SIGTERM ? "SIGTERM"
                                               : "signal " + std::to_string(signal);
  std::string line = why != nullptr ? std::string(why) : "the command had done its work when it came";
  line = line.substr(0, line.find('\n'));
  errors << "batchode: stopped by " << name << ": " << line << '\n';
  return 128 + signal;
}

}  // namespace batchode::cli
