// tests/timing/: reads a trace file written by TimeLogger::start_trace and checks it against the
// logger that wrote it: the CPU and GPU trace tests share these checks.
#pragma once

#include <gtest/gtest.h>

#include <batchode/timing/time_logger.hpp>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "json_reader.hpp"

namespace trace_checks {

/// One complete ("X") event of a trace.
struct Span {
  std::string name;
  std::string category;
  int track = 0;
  double ts_us = 0;
  double dur_us = 0;
  json_reader::Value args;
  double end_us() const { return ts_us + dur_us; }
};

struct Trace {
  std::vector<Span> host;  ///< on host thread tracks (track < 1000)
  std::vector<Span> gpu;   ///< on device stream tracks
  std::map<int, std::string> track_names;
};

inline Trace read_trace(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const json_reader::Value root = json_reader::Parser(text.str()).parse();  // throws when not valid JSON
  Trace trace;
  for (const json_reader::Value& event : root.array) {
    const std::string phase = event["ph"].string;
    if (phase == "M") {
      if (event["name"].string == "thread_name") {
        trace.track_names[static_cast<int>(event["tid"].number)] = event["args"]["name"].string;
      }
      continue;
    }
    EXPECT_EQ(phase, "X");
    Span span{event["name"].string, event["cat"].string, static_cast<int>(event["tid"].number),
              event["ts"].number,   event["dur"].number, event["args"]};
    (span.track < 1000 ? trace.host : trace.gpu).push_back(span);
  }
  return trace;
}

/// The host events are the logger's occurrences, one for one (matched by id): same label, category,
/// duration and start, and every child lies inside its parent. Every track used is named.
inline void expect_matches_logger(const Trace& trace, const batchode::TimeLogger& log) {
  const std::vector<batchode::Occurrence> occurrences = log.occurrences();
  ASSERT_EQ(trace.host.size(), occurrences.size());
  std::map<std::size_t, const Span*> by_id;
  for (const Span& span : trace.host) {
    const auto id = static_cast<std::size_t>(span.args["id"].number);
    EXPECT_TRUE(by_id.emplace(id, &span).second) << "id " << id << " twice";
  }
  std::map<std::string, std::size_t> logger_counts, trace_counts;
  for (const batchode::Occurrence& o : occurrences) {
    ++logger_counts[o.label];
    const auto found = by_id.find(o.id);
    ASSERT_NE(found, by_id.end()) << o.label << " #" << o.id << " is not in the trace";
    const Span& span = *found->second;
    EXPECT_EQ(span.name, o.label);
    EXPECT_EQ(span.category, o.category);
    EXPECT_NEAR(span.dur_us / 1000.0, o.wall_ms, 1e-9) << o.label;
    EXPECT_NEAR(span.ts_us / 1000.0, o.start_ms, 1e-6) << o.label;
    EXPECT_EQ(span.track, static_cast<int>(o.thread)) << o.label;
    if (o.parent) {
      EXPECT_EQ(static_cast<std::size_t>(span.args["parent"].number), *o.parent);
      const Span& parent = *by_id.at(*o.parent);
      // Same clock: a child starts after its parent and ends before it (0.01 us for rounding).
      EXPECT_GE(span.ts_us, parent.ts_us - 0.01) << o.label << " starts before its parent " << parent.name;
      EXPECT_LE(span.end_us(), parent.end_us() + 0.01) << o.label << " ends after its parent " << parent.name;
    } else {
      EXPECT_EQ(span.args["parent"].kind, json_reader::Value::Kind::null);
    }
  }
  for (const Span& span : trace.host) ++trace_counts[span.name];
  EXPECT_EQ(trace_counts, logger_counts);
  for (const Span& span : trace.host) EXPECT_TRUE(trace.track_names.count(span.track)) << span.track;
  for (const Span& span : trace.gpu) EXPECT_TRUE(trace.track_names.count(span.track)) << span.track;
}

}  // namespace trace_checks
