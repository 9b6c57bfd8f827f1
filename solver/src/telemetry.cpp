// solver/: ExecutionTelemetry's arithmetic and printing.
#include "batchode/solver/telemetry.hpp"

#include <chrono>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

namespace batchode {
namespace {

double steady_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "null";
  return fmt::format("{}", *v);
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
  std::ostringstream o;
  o << "{\"solves\":" << s.solves << ",\"events\":[";
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const ExecutionEvent& e = events_[i];
    o << (i ? "," : "") << "{\"solve\":" << e.solve << ",\"timestamp_ms\":" << json_number(e.timestamp_ms)
      << ",\"backend\":" << json_string(e.backend) << ",\"reason\":" << json_string(e.reason)
      << ",\"first_run\":" << e.first_run << ",\"runs\":" << e.runs << ",\"predicted_ms\":" << json_number(e.predicted_ms)
      << ",\"actual_ms\":" << json_number(e.actual_ms) << "}";
  }
  o << "],\"backends\":[";
  for (std::size_t i = 0; i < s.backends.size(); ++i) {
    const BackendStatistics& b = s.backends[i];
    o << (i ? "," : "") << "{\"backend\":" << json_string(b.backend) << ",\"parts\":" << b.parts
      << ",\"runs\":" << b.runs << ",\"total_ms\":" << json_number(b.total_ms)
      << ",\"runs_percent\":" << json_number(b.runs_percent) << ",\"time_percent\":" << json_number(b.time_percent)
      << ",\"predicted_parts\":" << b.predicted_parts
      << ",\"mean_abs_error_percent\":" << json_number(b.mean_abs_error_percent) << "}";
  }
  o << "],\"summary\":{\"parts\":" << s.parts << ",\"runs\":" << s.runs << ",\"total_ms\":" << json_number(s.total_ms)
    << ",\"predicted_parts\":" << s.predicted_parts
    << ",\"mean_abs_error_percent\":" << json_number(s.mean_abs_error_percent) << "}}";
  return o.str();
}

}  // namespace batchode
