// timing/: TimeLogger::to_json(): registered events with their statistics, category totals and
// every occurrence (running ones flagged), written with the shared JsonWriter.
#include <type_traits>

#include "batchode/timing/json_writer.hpp"
#include "batchode/timing/time_logger.hpp"

#include "batchode/timing/metadata_keys.hpp"
#include "event_tally.hpp"
#include "metadata_json.hpp"

namespace batchode {

std::string TimeLogger::to_json() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::optional<double>> gpu(records_.size());
  std::vector<detail::EventTally> tallies(events_.size());
  std::map<std::string, double> category_ms;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (records_[i].running) continue;
    gpu[i] = detail::reported_gpu_ms(records_[i].gpu, true);
    tallies[records_[i].event].add(records_[i].wall_ms, gpu[i], records_[i].metadata);
    add_category_time(i, category_ms);
  }

  JsonWriter json;
  json.begin_object().field("verbosity", to_string(verbosity()));
  json.key("events").begin_array();
  for (std::size_t e = 0; e < events_.size(); ++e) {
    const detail::EventTally& t = tallies[e];
    json.begin_object()
        .field("label", events_[e].label)
        .field("category", events_[e].category)
        .field("description", events_[e].description)
        .field("count", t.count)
        .field("total_ms", t.total)
        .field("min_ms", t.min)
        .field("max_ms", t.max)
        .field("mean_ms", t.mean())
        .field("gpu_count", t.gpu_count)
        .field("total_gpu_ms", t.gpu_total)
        .field("total_nbytes", static_cast<std::int64_t>(t.nbytes))
        .field("bytes_per_second", t.bytes_per_second())
        .end_object();
  }
  json.end_array();
  json.key("category_totals_ms").begin_object();
  for (const auto& [category, ms] : category_ms) json.field(category, ms);
  json.end_object();
  json.key("occurrences").begin_array();
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const Record& record = records_[i];
    json.begin_object().field("id", i).field("label", events_[record.event].label).key("parent");
    if (record.parent == no_parent) {
      json.null();
    } else {
      json.value(record.parent);
    }
    json.field("depth", record.depth)
        .field("thread", record.thread)
        .field("start_ms", std::chrono::duration<double, std::milli>(record.start - epoch_).count());
    json.key("wall_ms");
    if (record.running) {
      json.null();
    } else {
      json.value(record.wall_ms);
    }
    json.field("gpu_ms", gpu[i]).key("running").boolean(record.running);
    json.key("metadata").begin_object();
    detail::write_metadata_fields(json, record.metadata);
    // The GPU time of an event with an event pair is also metadata (keys::gpu_time_ms), as the
    // timing design names it, once it is known.
    if (gpu[i] && record.metadata.find(keys::gpu_time_ms) == nullptr) json.field(keys::gpu_time_ms, *gpu[i]);
    json.end_object().end_object();
  }
  json.end_array().end_object();
  return json.str();
}

}  // namespace batchode
