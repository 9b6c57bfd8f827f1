// timing/: progress of a long solve on stderr. Silent for the first ~2 s (short solves print
// nothing), then chunks done of total, runs per second and time left: updated in place on a terminal,
// as plain lines (at most one a second) when stderr is a file or a pipe. Nothing at Verbosity::none.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>

#include "batchode/timing/verbosity.hpp"

namespace batchode {

class ProgressReporter {
 public:
  /// `out` defaults to std::cerr; `in_place` defaults to "stderr is a terminal".
  ProgressReporter(std::size_t total_chunks, std::size_t total_runs, Verbosity verbosity,
                   std::ostream* out = nullptr, int in_place = -1,
                   std::chrono::milliseconds quiet_period = std::chrono::milliseconds(2000));
  /// Reports that `chunks_done` chunks holding `runs_done` runs are finished.
  void update(std::size_t chunks_done, std::size_t runs_done);
  /// Ends the in-place line, if any was printed.
  void finish();
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

 private:
  std::size_t total_chunks_, total_runs_;
  bool enabled_, in_place_;
  std::ostream* out_;
  std::chrono::steady_clock::time_point start_, last_print_;
  std::chrono::milliseconds quiet_;
  bool printed_ = false;
};

}  // namespace batchode
