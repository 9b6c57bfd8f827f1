// timing/: progress.hpp's line on stderr: its cadence, its rate and what it prints.
#include "batchode/timing/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

namespace batchode {

ProgressReporter::ProgressReporter(std::size_t total_chunks, std::size_t total_runs, Verbosity verbosity,
                                   std::ostream* out, int in_place, std::chrono::milliseconds quiet_period)
    : total_chunks_(total_chunks),
      total_runs_(total_runs),
      enabled_(verbosity != Verbosity::none),
      in_place_(in_place < 0 ? ::isatty(STDERR_FILENO) == 1 : in_place == 1),
      out_(out ? out : &std::cerr),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_),
      quiet_(quiet_period) {}

void ProgressReporter::update(std::size_t chunks_done, std::size_t runs_done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < quiet_) return;
  if (!in_place_ && printed_ && now - last_print_ < std::chrono::seconds(1)) return;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(runs_done) / elapsed : 0.0;
  // A GPU that shares its runs with others may run more chunks and runs than its own share.
  const double left = rate > 0 && runs_done < total_runs_ ? static_cast<double>(total_runs_ - runs_done) / rate : 0.0;
  const std::string line = fmt::format("batchode: chunk {}/{}, {:.3g} runs/s, {:.1f} s left", chunks_done,
                                       std::max(total_chunks_, chunks_done), rate, left);
  if (in_place_) {
    *out_ << '\r' << line << "\x1b[K" << std::flush;
  } else {
    *out_ << line << '\n' << std::flush;
  }
  printed_ = true;
  last_print_ = now;
}

void ProgressReporter::finish() {
  if (printed_ && in_place_) *out_ << '\n' << std::flush;
  printed_ = false;
}

ProgressReporter::~ProgressReporter() { finish(); }

}  // namespace batchode
