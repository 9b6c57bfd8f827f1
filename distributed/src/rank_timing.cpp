// distributed/: RankTimingSummary, the job's events across processes (rank_timing.hpp).
#include "batchode/distributed/rank_timing.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "batchode/timing/json_writer.hpp"
#include "text_fields.hpp"

namespace batchode::distributed {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown";
  return name;
}

std::string serialise_totals(const TimeLogger& logger) {
  std::string text;
  for (const EventInfo& e : logger.registered_events()) {
    const EventStats s = logger.stats(e.label);
    if (s.count == 0) continue;
    text += fmt::format("{}\t{}\t{:.17g}\n", detail::one_line(e.label), detail::one_line(e.category), s.total_ms);
  }
  return text;
}

RankTimingSummary summarise_totals(const std::vector<std::string>& totals_by_rank, const std::vector<std::string>& hosts) {
  RankTimingSummary summary;
  summary.ranks = static_cast<int>(totals_by_rank.size());
  summary.hosts = hosts;
  const std::size_t n = totals_by_rank.size();
  auto row_of = [&](const std::string& label, const std::string& category) -> RankTimingRow& {
    for (RankTimingRow& row : summary.rows) {
      if (row.label == label) return row;
    }
    summary.rows.push_back(RankTimingRow{label, category, std::vector<double>(n, 0.0)});
    return summary.rows.back();
  };
  for (std::size_t r = 0; r < n; ++r) {
    std::istringstream in(totals_by_rank[r]);
    std::string line;
    while (std::getline(in, line)) {
      const std::size_t a = line.find('\t'), b = line.find('\t', a == std::string::npos ? a : a + 1);
      if (a == std::string::npos || b == std::string::npos) continue;
      const double ms = detail::parse_number(line.substr(b + 1));
      if (std::isfinite(ms)) row_of(line.substr(0, a), line.substr(a + 1, b - a - 1)).total_ms[r] += ms;
    }
  }
  for (RankTimingRow& row : summary.rows) {
    if (n == 0) continue;
    const auto [lo, hi] = std::minmax_element(row.total_ms.begin(), row.total_ms.end());
    row.min_ms = *lo;
    row.max_ms = *hi;
    row.slowest_rank = static_cast<int>(hi - row.total_ms.begin());
    double sum = 0;
    for (double ms : row.total_ms) sum += ms;
    row.mean_ms = sum / static_cast<double>(n);
    row.imbalance = row.mean_ms > 0 ? row.max_ms / row.mean_ms : 1.0;
  }
  return summary;
}

RankTimingSummary summarise_ranks(Collective& c, const TimeLogger& logger, const std::string& host) {
  const std::vector<std::string> all = c.allgather(host + '\n' + serialise_totals(logger));
  std::vector<std::string> hosts, totals;
  for (const std::string& text : all) {
    const std::size_t newline = text.find('\n');
    hosts.push_back(text.substr(0, newline));
    totals.push_back(newline == std::string::npos ? std::string() : text.substr(newline + 1));
  }
  return summarise_totals(totals, hosts);
}

const RankTimingRow* RankTimingSummary::find(const std::string& label) const {
  for (const RankTimingRow& row : rows) {
    if (row.label == label) return &row;
  }
  return nullptr;
}

std::string RankTimingSummary::to_text() const {
  std::size_t width = 5;
  for (const RankTimingRow& row : rows) width = std::max(width, row.label.size());
  std::string text = fmt::format("batchode: timing across {} processes (ms; imbalance = slowest / mean)\n", ranks);
  text += fmt::format("  {:<{}} {:>12} {:>12} {:>12} {:>9}  slowest\n", "event", width, "min", "mean", "max",
                      "imbalance");
  for (const RankTimingRow& row : rows) {
    const std::string slowest =
        fmt::format("rank {} ({})", row.slowest_rank,
                    row.slowest_rank < static_cast<int>(hosts.size()) ? hosts[row.slowest_rank] : "?");
    text += fmt::format("  {:<{}} {:>12.3f} {:>12.3f} {:>12.3f} {:>9.3f}  {}\n", row.label, width, row.min_ms,
                        row.mean_ms, row.max_ms, row.imbalance, slowest);
  }
  return text;
}

std::string RankTimingSummary::to_json() const {
  JsonWriter json;
  json.begin_object();
  json.key("ranks").value(static_cast<std::int64_t>(ranks));
  json.key("hosts").begin_array();
  for (const std::string& h : hosts) json.value(h);
  json.end_array();
  json.key("events").begin_array();
  for (const RankTimingRow& row : rows) {
    json.begin_object();
    json.key("label").value(row.label);
    json.key("category").value(row.category);
    json.key("total_ms").begin_array();
    for (double ms : row.total_ms) json.value(ms);
    json.end_array();
    json.key("min_ms").value(row.min_ms);
    json.key("mean_ms").value(row.mean_ms);
    json.key("max_ms").value(row.max_ms);
    json.key("imbalance").value(row.imbalance);
    json.key("slowest_rank").value(static_cast<std::int64_t>(row.slowest_rank));
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.str();
}

}  // namespace batchode::distributed
