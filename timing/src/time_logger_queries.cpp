// timing/: TimeLogger's queries: statistics of an event, its finished occurrences, and wall time per
// category without counting nested phases twice.
#include <fmt/format.h>

#include <stdexcept>

#include "batchode/timing/time_logger.hpp"

#include "batchode/timing/metadata_keys.hpp"
#include "event_tally.hpp"

namespace batchode {

EventStats TimeLogger::stats(std::string_view label) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t event = event_index(label, "stats");
  detail::EventTally tally;
  for (const Record& record : records_) {
    if (record.event == event && !record.running) {
      tally.add(record.wall_ms, detail::reported_gpu_ms(record.gpu, false), record.metadata);
    }
  }
  EventStats stats;
  stats.label = events_[event].label;
  stats.category = events_[event].category;
  stats.count = tally.count;
  stats.total_ms = tally.total;
  stats.min_ms = tally.min;
  stats.max_ms = tally.max;
  stats.mean_ms = tally.mean();
  stats.gpu_count = tally.gpu_count;
  stats.total_gpu_ms = tally.gpu_total;
  stats.total_nbytes = static_cast<std::int64_t>(tally.nbytes);
  stats.bytes_per_second = tally.bytes_per_second();
  return stats;
}

Occurrence TimeLogger::make_occurrence(std::size_t index, bool wait_gpu) const {
  const Record& record = records_[index];
  Occurrence occurrence;
  occurrence.id = index;
  occurrence.label = events_[record.event].label;
  occurrence.category = events_[record.event].category;
  if (record.parent != no_parent) occurrence.parent = record.parent;
  occurrence.depth = record.depth;
  occurrence.thread = record.thread;
  occurrence.start_ms = std::chrono::duration<double, std::milli>(record.start - epoch_).count();
  occurrence.wall_ms = record.wall_ms;
  occurrence.gpu_ms = detail::reported_gpu_ms(record.gpu, wait_gpu);
  occurrence.gpu_pending = record.gpu.pending() && !occurrence.gpu_ms;
  occurrence.metadata = record.metadata;
  if (occurrence.gpu_ms && occurrence.metadata.find(keys::gpu_time_ms) == nullptr) {
    occurrence.metadata.set(keys::gpu_time_ms, *occurrence.gpu_ms);  // see metadata_keys.hpp
  }
  return occurrence;
}

std::vector<Occurrence> TimeLogger::occurrences(std::string_view label) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t event = label.empty() ? no_parent : event_index(label, "occurrences");
  std::vector<Occurrence> found;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (!records_[i].running && (label.empty() || records_[i].event == event))
      found.push_back(make_occurrence(i, false));
  }
  return found;
}

Occurrence TimeLogger::occurrence(std::size_t id) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (id >= records_.size() || records_[id].running) {
    throw std::out_of_range(
        fmt::format("TimeLogger::occurrence({}): no finished occurrence has this id", id));
  }
  return make_occurrence(id, false);
}

bool TimeLogger::counted_by_ancestor(std::size_t index) const {
  const std::string& category = events_[records_[index].event].category;
  for (std::size_t parent = records_[index].parent; parent != no_parent; parent = records_[parent].parent) {
    if (!records_[parent].running && events_[records_[parent].event].category == category) return true;
  }
  return false;
}

void TimeLogger::add_category_time(std::size_t index, std::map<std::string, double>& totals) const {
  if (!counted_by_ancestor(index)) totals[events_[records_[index].event].category] += records_[index].wall_ms;
}

std::map<std::string, double> TimeLogger::category_totals_ms() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, double> totals;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (!records_[i].running) add_category_time(i, totals);
  }
  return totals;
}

}  // namespace batchode
