// solver/scheduling/: ExecutionTelemetry's arithmetic and printing.
#include "batchode/solver/scheduling/telemetry.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>
#include <ostream>

#include "batchode/timing/json_writer.hpp"

namespace batchode {
namespace {

double steady_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool has_error(const ExecutionEvent& e) { return e.predicted_ms && e.actual_ms && *e.actual_ms > 0; }
double abs_error_percent(const ExecutionEvent& e) {
  return 100.0 * std::fabs(*e.predicted_ms - *e.actual_ms) / *e.actual_ms;
}

}  // namespace

ExecutionTelemetry::ExecutionTelemetry() : epoch_ms_(steady_ms()) {}

void ExecutionTelemetry::begin_solve() { ++solves_; }

void ExecutionTelemetry::record(ExecutionEvent event) {
  event.solve = solves_ == 0 ? 0 : solves_ - 1;
  events_.push_back(std::move(event));
}

double ExecutionTelemetry::now_ms() const { return steady_ms() - epoch_ms_; }

void ExecutionTelemetry::clear() {
  solves_ = 0;
  events_.clear();
}

std::vector<BackendStatistics> ExecutionTelemetry::backend_statistics() const {
  std::map<std::string, BackendStatistics> by;
  std::map<std::string, double> error_sum;
  std::size_t all_runs = 0;
  double all_ms = 0;
  for (const ExecutionEvent& e : events_) {
    BackendStatistics& s = by[e.backend];
    s.backend = e.backend;
    ++s.parts;
    s.runs += e.runs;
    s.total_ms += e.actual_ms.value_or(0.0);
    all_runs += e.runs;
    all_ms += e.actual_ms.value_or(0.0);
    if (has_error(e)) {
      ++s.predicted_parts;
      error_sum[e.backend] += abs_error_percent(e);
    }
  }
  std::vector<BackendStatistics> out;
  for (auto& [name, s] : by) {
    s.runs_percent = all_runs > 0 ? 100.0 * static_cast<double>(s.runs) / static_cast<double>(all_runs) : 0.0;
    s.time_percent = all_ms > 0 ? 100.0 * s.total_ms / all_ms : 0.0;
    s.mean_abs_error_percent = s.predicted_parts > 0 ? error_sum[name] / static_cast<double>(s.predicted_parts) : 0.0;
    out.push_back(s);
  }
  return out;
}

ExecutionSummary ExecutionTelemetry::summary() const {
  ExecutionSummary s;
  s.solves = solves_;
  s.parts = events_.size();
  double error_sum = 0;
  for (const ExecutionEvent& e : events_) {
    s.runs += e.runs;
    s.total_ms += e.actual_ms.value_or(0.0);
    if (has_error(e)) {
      ++s.predicted_parts;
      error_sum += abs_error_percent(e);
    }
  }
  s.backends = backend_statistics();
  if (s.predicted_parts > 0) s.mean_abs_error_percent = error_sum / static_cast<double>(s.predicted_parts);
  return s;
}

void ExecutionTelemetry::print_debug_summary(std::ostream& out) const {
  const ExecutionSummary s = summary();
  out << "batchode execution summary: " << s.solves << " solve(s), " << s.parts << " part(s), " << s.runs << " runs, "
      << fmt::format("{:.3f}", s.total_ms) << " ms\n";
  if (events_.empty()) {
    out << "  no executions recorded\n";
    return;
  }
  for (const BackendStatistics& b : s.backends) {
    out << fmt::format("  {:<8} parts {:>4}  runs {:>10} ({:5.1f}%)  time {:>10.3f} ms ({:5.1f}%)", b.backend, b.parts,
                       b.runs, b.runs_percent, b.total_ms, b.time_percent);
    if (b.predicted_parts > 0) out << fmt::format("  prediction error {:.1f}%", b.mean_abs_error_percent);
    out << '\n';
  }
  std::map<std::string, std::size_t> reasons;
  for (const ExecutionEvent& e : events_) ++reasons[e.reason];
  out << "  reasons:";
  for (const auto& [reason, n] : reasons) out << ' ' << reason << " x" << n;
  out << '\n';
  if (s.mean_abs_error_percent) out << fmt::format("  mean prediction error {:.1f}%\n", *s.mean_abs_error_percent);
  const ExecutionEvent& last = events_.back();
  for (const ExecutionEvent& e : events_) {
    if (e.solve != last.solve) continue;
    out << "  last solve: " << e.backend << " runs [" << e.first_run << ", " << e.first_run + e.runs << ") reason "
        << e.reason << " predicted "
        << (e.predicted_ms ? fmt::format("{:.3f} ms", *e.predicted_ms) : std::string("-")) << " actual "
        << (e.actual_ms ? fmt::format("{:.3f} ms", *e.actual_ms) : std::string("-")) << '\n';
  }
}

std::string ExecutionTelemetry::to_json() const {
  const ExecutionSummary s = summary();
  JsonWriter json;
  json.begin_object().field("solves", s.solves);
  json.key("events").begin_array();
  for (const ExecutionEvent& e : events_) {
    json.begin_object()
        .field("solve", e.solve)
        .field("timestamp_ms", e.timestamp_ms)
        .field("backend", e.backend)
        .field("reason", e.reason)
        .field("first_run", e.first_run)
        .field("runs", e.runs)
        .field("predicted_ms", e.predicted_ms)
        .field("actual_ms", e.actual_ms)
        .end_object();
  }
  json.end_array();
  json.key("backends").begin_array();
  for (const BackendStatistics& b : s.backends) {
    json.begin_object()
        .field("backend", b.backend)
        .field("parts", b.parts)
        .field("runs", b.runs)
        .field("total_ms", b.total_ms)
        .field("runs_percent", b.runs_percent)
        .field("time_percent", b.time_percent)
        .field("predicted_parts", b.predicted_parts)
        .field("mean_abs_error_percent", b.mean_abs_error_percent)
        .end_object();
  }
  json.end_array();
  json.key("summary")
      .begin_object()
      .field("parts", s.parts)
      .field("runs", s.runs)
      .field("total_ms", s.total_ms)
      .field("predicted_parts", s.predicted_parts)
      .field("mean_abs_error_percent", s.mean_abs_error_percent)
      .end_object();
  json.end_object();
  return json.str();
}

}  // namespace batchode
