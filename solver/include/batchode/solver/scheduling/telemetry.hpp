// solver/scheduling/: what ran where, kept across a Solver's solves: one event per executed part (which
// backend, the real reason, how many runs, predicted and actual duration), statistics per backend, and an
// execution summary (runs and time per backend with percentages, prediction error).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace batchode {

/// One executed part of one solve.
struct ExecutionEvent {
  std::size_t solve = 0;     ///< index of the solve (0-based, per telemetry object)
  double timestamp_ms = 0;   ///< when the part started, since the telemetry object was built
  std::string backend;       ///< "cpu", "gpu:0", ...
  std::string reason;        ///< sched::to_string(Reason)
  std::size_t first_run = 0;
  std::size_t runs = 0;
  std::optional<double> predicted_ms;
  std::optional<double> actual_ms;
};

/// Aggregate over the events of one backend.
struct BackendStatistics {
  std::string backend;
  std::size_t parts = 0;
  std::size_t runs = 0;
  double total_ms = 0;       ///< sum of actual durations (events without one count 0)
  double runs_percent = 0;   ///< of all runs
  double time_percent = 0;   ///< of all actual time
  std::size_t predicted_parts = 0;  ///< parts with both a prediction and a duration
  double mean_abs_error_percent = 0;  ///< mean |predicted - actual| / actual over those, in %
};

/// The whole history in numbers.
struct ExecutionSummary {
  std::size_t solves = 0;
  std::size_t parts = 0;
  std::size_t runs = 0;
  double total_ms = 0;
  std::vector<BackendStatistics> backends;  ///< sorted by backend name
  std::size_t predicted_parts = 0;
  std::optional<double> mean_abs_error_percent;  ///< absent when no part had both values
};

/// Execution history of a Solver. Not thread-safe (the Solver records after joining its parts).
class ExecutionTelemetry {
 public:
  ExecutionTelemetry();

  /// Starts a new solve; later events belong to it.
  void begin_solve();
  /// Records one part (its `solve` field is overwritten with the current solve).
  void record(ExecutionEvent event);
  /// Milliseconds since construction (for timestamps).
  double now_ms() const;

  const std::vector<ExecutionEvent>& events() const noexcept { return events_; }
  std::vector<BackendStatistics> backend_statistics() const;
  ExecutionSummary summary() const;
  /// Human-readable summary: per backend runs, time, percentages, prediction error, and the reasons
  /// by name with their counts. Prints "no executions recorded" when empty.
  void print_debug_summary(std::ostream& out) const;
  /// {"solves":..,"events":[...],"backends":[...],"summary":{...}}, compact, written by the shared
  /// JsonWriter (timing/json_writer.hpp): absent and non-finite numbers are null.
  std::string to_json() const;
  void clear();

 private:
  std::size_t solves_ = 0;
  double epoch_ms_ = 0;
  std::vector<ExecutionEvent> events_;
};

}  // namespace batchode
