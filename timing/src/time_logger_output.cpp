// timing/: what TimeLogger prints: a line per event as it ends (verbose, debug), and the summary
// table, printed when a top-level event ends (normal and above) or asked for with summary().
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <ostream>
#include <utility>

#include "batchode/timing/time_logger.hpp"
#include "event_tally.hpp"

namespace batchode {

namespace {

std::string format_ms(double ms) { return fmt::format("{:.3f}", ms); }

// Decimal units, as transfer rates are usually quoted.
std::string format_rate(double bytes_per_second) {
  static const char* const units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  std::size_t unit = 0;
  while (bytes_per_second >= 1000.0 && unit + 1 < std::size(units)) {
    bytes_per_second /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.2f} {}", bytes_per_second, units[unit]);
}

}  // namespace

void TimeLogger::after_stop(std::size_t index, const char* verb) {
  if (trace_) trace_finished(index);
  const Verbosity level = verbosity();
  const Record& record = records_[index];
  const EventInfo& info = events_[record.event];
  if (level >= Verbosity::verbose) {
    std::string line = fmt::format("[batchode] {:{}}", "", 2 * record.depth);
    if (level >= Verbosity::debug) line += fmt::format("{:<6} ", verb);
    line += fmt::format("{}: {} ms", info.label, format_ms(record.wall_ms));
    if (record.gpu.has_value()) {
      // Never wait here: the device may still be busy with this very work.
      const auto gpu = detail::reported_gpu_ms(record.gpu, false);
      line += gpu ? fmt::format(" (gpu {} ms)", format_ms(*gpu)) : std::string(" (gpu pending)");
    }
    if (level >= Verbosity::debug) {
      if (!record.metadata.empty()) line += " {" + record.metadata.to_string() + "}";
      line += fmt::format(" [thread {}]", record.thread);
    }
    out() << line << '\n';
  }
  if (level >= Verbosity::normal && record.parent == no_parent) {
    // A top-level event ended: summarise it and everything nested in it, on this thread or on the
    // threads its CallContext reached. Children always come after their parent in records_, so
    // one forward pass finds the whole subtree.
    std::vector<char> inside(records_.size() - index, 0);
    std::vector<std::size_t> subtree{index};
    inside[0] = 1;
    for (std::size_t i = index + 1; i < records_.size(); ++i) {
      const std::size_t parent = records_[i].parent;
      if (parent != no_parent && parent >= index && inside[parent - index] && !records_[i].running) {
        inside[i - index] = 1;
        subtree.push_back(i);
      }
    }
    out() << render(subtree, fmt::format("{} took {} ms", info.label, format_ms(record.wall_ms)));
  }
}

std::string TimeLogger::render(const std::vector<std::size_t>& subset, std::string_view title) const {
  // Aggregate occurrences into a tree keyed by the path of labels from the root, so a repeated
  // event under the same parent becomes one row with count/total/mean/min/max.
  struct Node {
    std::size_t event = 0;
    std::size_t depth = 0;
    std::vector<std::size_t> children;
    detail::EventTally tally;
  };
  std::vector<Node> nodes(1);                                           // nodes[0]: the invisible root
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> child_of;  // (node, event) -> node
  std::vector<std::size_t> node_of(records_.size(), 0);
  std::vector<char> included(records_.size(), 0);
  for (const std::size_t index : subset) included[index] = 1;
  std::map<std::string, double> category_ms;
  for (const std::size_t index : subset) {  // ascending ids: parents before children
    const Record& record = records_[index];
    std::size_t ancestor = record.parent;  // nearest ancestor that is part of this summary
    while (ancestor != no_parent && !included[ancestor]) ancestor = records_[ancestor].parent;
    const std::size_t parent_node = ancestor == no_parent ? 0 : node_of[ancestor];
    auto [slot, inserted] = child_of.try_emplace({parent_node, record.event}, nodes.size());
    if (inserted) {
      Node node;
      node.event = record.event;
      node.depth = parent_node == 0 ? 0 : nodes[parent_node].depth + 1;
      nodes.push_back(std::move(node));
      nodes[parent_node].children.push_back(slot->second);
    }
    node_of[index] = slot->second;
    nodes[slot->second].tally.add(record.wall_ms, detail::reported_gpu_ms(record.gpu, true), record.metadata);
    add_category_time(index, category_ms);
  }

  std::string text = fmt::format("batchode timing: {}\n", title);
  if (subset.empty()) return text + "  (no finished events)\n";
  std::size_t width = 5;
  for (std::size_t n = 1; n < nodes.size(); ++n) {
    width = std::max(width, 2 * nodes[n].depth + events_[nodes[n].event].label.size());
  }
  text += fmt::format("  {:<{}}  {:>6}  {:>11}  {:>10}  {:>10}  {:>10}  {:>11}  {}\n", "event", width,
                      "count", "total ms", "mean ms", "min ms", "max ms", "gpu ms", "throughput");
  // Depth-first, children in order of first appearance.
  std::vector<std::size_t> pending(nodes[0].children.rbegin(), nodes[0].children.rend());
  while (!pending.empty()) {
    const Node& node = nodes[pending.back()];
    pending.pop_back();
    const detail::EventTally& t = node.tally;
    const bool repeated = t.count > 1;  // mean/min/max say nothing new for a single occurrence
    const std::string name = std::string(2 * node.depth, ' ') + events_[node.event].label;
    std::string row =
        fmt::format("  {:<{}}  {:>6}  {:>11}  {:>10}  {:>10}  {:>10}  {:>11}  {}", name, width, t.count,
                    format_ms(t.total), repeated ? format_ms(t.mean()) : "", repeated ? format_ms(t.min) : "",
                    repeated ? format_ms(t.max) : "", t.gpu_count > 0 ? format_ms(t.gpu_total) : "-",
                    t.nbytes_count > 0 ? format_rate(t.bytes_per_second()) : "");
    row.erase(row.find_last_not_of(' ') + 1);
    text += row + '\n';
    pending.insert(pending.end(), node.children.rbegin(), node.children.rend());
  }
  std::size_t category_width = 8;
  for (const auto& entry : category_ms) category_width = std::max(category_width, entry.first.size());
  text += fmt::format("  {:<{}}  {:>11}   (outermost events of each category)\n", "category", category_width,
                      "total ms");
  for (const auto& [category, ms] : category_ms) {
    text += fmt::format("  {:<{}}  {:>11}\n", category, category_width, format_ms(ms));
  }
  return text;
}

std::string TimeLogger::summary(std::string_view category) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::size_t> subset;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (!records_[i].running && (category.empty() || events_[records_[i].event].category == category)) {
      subset.push_back(i);
    }
  }
  return render(subset, category.empty() ? std::string("summary of all events")
                                         : fmt::format("summary of '{}' events", category));
}

void TimeLogger::print_summary(std::string_view category) {
  resolve_gpu_times();
  const std::string text = summary(category);
  const std::lock_guard<std::mutex> lock(mutex_);
  out() << text << std::flush;
}

}  // namespace batchode
