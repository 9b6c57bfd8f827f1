// tests/timing/: TimeLogger recording: aggregation, nesting, metadata, categories, GPU times,
// misuse, threads, reset and JSON.
// Over 400 lines on purpose: every test here shares the one fixture below (four events, a string
// stream) and reads like a list of behaviours; split by topic, each file would copy the fixture.
// Nesting across reports has its own file (nesting_test.cpp), as does the JSON writer.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <batchode/timing/time_logger.hpp>

#include "json_reader.hpp"
#include "wall_clock.hpp"

namespace {

using batchode::GpuTime;
using batchode::Metadata;
using batchode::TimeLogger;
using batchode::TimingError;
using batchode::Verbosity;

// A logger with a few events, printing into a string so tests stay quiet and can read it.
struct Fixture : ::testing::Test {
  std::ostringstream out;
  TimeLogger log{&out, Verbosity::normal};
  Fixture() {
    log.register_event("outer", "runtime", "outer phase");
    log.register_event("inner", "runtime", "inner phase");
    log.register_event("leaf", "runtime", "repeated leaf");
    log.register_event("load", "compile", "module load");
  }
};

// A GPU measurement the test finishes by hand; counts how often the logger waited on it.
struct FakePending : batchode::PendingGpuDuration {
  mutable std::atomic<int> waits{0};
  std::atomic<bool> done{false};
  double ms = 0;
  explicit FakePending(double value) : ms(value) {}
  double wait_ms() const override {
    ++waits;
    return ms;
  }
  std::optional<double> poll_ms() const override { return done ? std::optional<double>(ms) : std::nullopt; }
};

using TimeLoggerTest = Fixture;

TEST_F(TimeLoggerTest, RepeatedEventsAggregate) {
  log.start_event("outer");  // nested, so no summary interferes
  log.record_event("leaf", 1.0);
  log.record_event("leaf", 3.0);
  log.record_event("leaf", 2.0);
  log.stop_event("outer");
  const batchode::EventStats stats = log.stats("leaf");
  EXPECT_EQ(stats.label, "leaf");
  EXPECT_EQ(stats.category, "runtime");
  EXPECT_EQ(stats.count, 3u);
  EXPECT_DOUBLE_EQ(stats.total_ms, 6.0);
  EXPECT_DOUBLE_EQ(stats.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(stats.max_ms, 3.0);
  EXPECT_DOUBLE_EQ(stats.mean_ms, 2.0);
  EXPECT_EQ(stats.gpu_count, 0u);
  EXPECT_EQ(log.occurrences("leaf").size(), 3u);
  EXPECT_EQ(log.stats("inner").count, 0u);  // registered, never run: zeros
  EXPECT_DOUBLE_EQ(log.stats("inner").min_ms, 0.0);
}

// Bounds that hold however loaded the machine is (wall_clock.hpp): at least the busy wait inside
// the event, at most the test's own clock readings around it.
TEST_F(TimeLoggerTest, StartStopMeasuresWallTime) {
  const auto before = batchode::testing::WallClock::now();
  log.start_event("outer");
  batchode::testing::busy_wait_ms(5.0);
  log.stop_event("outer");
  const double around = batchode::testing::ms_since(before);
  const auto stats = log.stats("outer");
  ASSERT_EQ(stats.count, 1u);
  EXPECT_GE(stats.total_ms, 5.0);
  EXPECT_LE(stats.total_ms, around);
}

TEST_F(TimeLoggerTest, NestingRecordsParentsAndDepth) {
  log.start_event("outer");
  log.start_event("inner");
  log.start_event("leaf");
  log.stop_event("leaf");
  log.record_event("leaf", 0.5);  // nests under the innermost open event: inner
  log.stop_event("inner");
  log.start_event("leaf");
  log.stop_event("leaf");
  log.stop_event("outer");

  const auto outer = log.occurrences("outer");
  const auto inner = log.occurrences("inner");
  const auto leaves = log.occurrences("leaf");
  ASSERT_EQ(outer.size(), 1u);
  ASSERT_EQ(inner.size(), 1u);
  ASSERT_EQ(leaves.size(), 3u);
  EXPECT_FALSE(outer[0].parent.has_value());
  EXPECT_EQ(outer[0].depth, 0u);
  EXPECT_EQ(inner[0].parent, outer[0].id);
  EXPECT_EQ(inner[0].depth, 1u);
  EXPECT_EQ(leaves[0].parent, inner[0].id);
  EXPECT_EQ(leaves[1].parent, inner[0].id);
  EXPECT_DOUBLE_EQ(leaves[1].wall_ms, 0.5);
  EXPECT_EQ(leaves[1].depth, 2u);
  EXPECT_EQ(leaves[2].parent, outer[0].id);
  EXPECT_EQ(leaves[2].depth, 1u);
  EXPECT_EQ(log.occurrence(inner[0].id).label, "inner");
  EXPECT_GE(outer[0].wall_ms, inner[0].wall_ms);
  EXPECT_THROW((void)log.occurrence(12345), std::out_of_range);
}

TEST_F(TimeLoggerTest, MetadataKeepsTypesAndSumsBytes) {
  log.start_event("outer");
  log.start_event("leaf");
  log.stop_event("leaf", {{"runs", std::int64_t(5)}, {"chunk_slice", "0:100"}, {"nbytes", std::size_t(2'000'000)},
                          {"chunk_index", 3}, {"ratio", 0.25}});
  log.record_event("leaf", 2.0, {{"nbytes", 4'000'000}});
  log.stop_event("outer");

  const auto leaves = log.occurrences("leaf");
  ASSERT_EQ(leaves.size(), 2u);
  const Metadata& m = leaves[0].metadata;
  EXPECT_EQ(m.size(), 5u);
  ASSERT_TRUE(m.find("runs") && m.find("runs")->is_int());
  EXPECT_EQ(m.find("runs")->as_int(), 5);
  EXPECT_EQ(m.find("chunk_slice")->as_string(), "0:100");
  EXPECT_EQ(m.find("chunk_index")->as_int(), 3);
  EXPECT_DOUBLE_EQ(m.find("ratio")->as_double(), 0.25);
  EXPECT_EQ(m.find("missing"), nullptr);
  EXPECT_EQ(log.stats("leaf").total_nbytes, 6'000'000);

  Metadata built;
  built.set("k", 1);
  built.set("k", "replaced");  // keys stay unique
  EXPECT_EQ(built.size(), 1u);
  EXPECT_EQ(built.to_string(), "k=\"replaced\"");
}

TEST_F(TimeLoggerTest, ThroughputUsesGpuTimeWhenEveryTransferHasOne) {
  log.record_event("leaf", 2.0, {{"nbytes", 2'000'000}});
  EXPECT_DOUBLE_EQ(log.stats("leaf").bytes_per_second, 1e9);  // 2 MB in 2 ms
  log.reset();
  log.record_event("leaf", 2.0, {{"nbytes", 2'000'000}}, 1.0);
  EXPECT_DOUBLE_EQ(log.stats("leaf").bytes_per_second, 2e9);  // 2 MB in 1 ms of GPU time
  EXPECT_EQ(log.stats("leaf").gpu_count, 1u);
  EXPECT_DOUBLE_EQ(log.stats("leaf").total_gpu_ms, 1.0);
}

TEST_F(TimeLoggerTest, CategoriesAreOpenAndConflictsAreErrors) {
  EXPECT_NO_THROW(log.register_event("outer", "runtime", "again"));
  EXPECT_EQ(log.registered_events().size(), 4u);
  EXPECT_EQ(log.registered_events()[0].description, "outer phase");  // the first description stays
  log.register_event("my_phase", "my_own_category", "");
  EXPECT_TRUE(log.is_registered("my_phase"));
  try {
    log.register_event("outer", "compile", "");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("outer"), std::string::npos) << what;
    EXPECT_NE(what.find("runtime"), std::string::npos) << what;
    EXPECT_NE(what.find("compile"), std::string::npos) << what;
  }
  EXPECT_THROW(log.register_event("", "runtime", ""), std::invalid_argument);
  EXPECT_THROW(log.register_event("x", "", ""), std::invalid_argument);
}

TEST_F(TimeLoggerTest, CategoryTotalsDoNotCountNestedTimeTwice) {
  log.start_event("outer");
  log.record_event("inner", 4.0);
  log.record_event("load", 1.5);
  log.record_event("load", 0.5);
  log.stop_event("outer");
  const auto totals = log.category_totals_ms();
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_DOUBLE_EQ(totals.at("runtime"), log.stats("outer").total_ms);  // inner is inside outer
  EXPECT_DOUBLE_EQ(totals.at("compile"), 2.0);
}

TEST_F(TimeLoggerTest, DeferredGpuTimeIsNeverWaitedOnWhileRecording) {
  auto pending = std::make_shared<FakePending>(7.5);
  log.set_verbosity(Verbosity::verbose);
  log.start_event("outer");
  log.stop_event("outer", {}, GpuTime(std::shared_ptr<const batchode::PendingGpuDuration>(pending)));
  // The per-event line may not wait for the device and says so; the top-level summary after it
  // may wait, and shows the value.
  EXPECT_NE(out.str().find("outer: "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(gpu pending)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("7.500"), std::string::npos) << out.str();  // the summary's GPU column
}

TEST_F(TimeLoggerTest, DeferredGpuTimeResolvesOnRequest) {
  auto pending = std::make_shared<FakePending>(7.5);
  log.start_event("outer");
  log.start_event("leaf");
  log.stop_event("leaf", {}, GpuTime(std::shared_ptr<const batchode::PendingGpuDuration>(pending)));
  EXPECT_EQ(pending->waits, 0);
  EXPECT_EQ(log.stats("leaf").gpu_count, 0u);  // polled: not finished yet
  EXPECT_TRUE(log.occurrences("leaf")[0].gpu_pending);
  pending->done = true;
  EXPECT_EQ(log.stats("leaf").gpu_count, 1u);  // polled again: finished
  EXPECT_EQ(pending->waits, 0);
  EXPECT_EQ(log.resolve_gpu_times(), 1u);
  EXPECT_EQ(pending->waits, 1);
  EXPECT_EQ(pending.use_count(), 1);  // the logger let go of the measurement
  EXPECT_DOUBLE_EQ(log.stats("leaf").total_gpu_ms, 7.5);
  EXPECT_EQ(log.occurrences("leaf")[0].gpu_ms, 7.5);
  log.stop_event("outer");
}

TEST_F(TimeLoggerTest, PlainGpuTimeIsReportedBesideWallTime) {
  log.start_event("outer");
  log.start_event("leaf");
  log.stop_event("leaf", {}, 2.25);
  log.stop_event("outer");
  EXPECT_EQ(log.occurrences("leaf")[0].gpu_ms, 2.25);
  EXPECT_FALSE(log.occurrences("outer")[0].gpu_ms.has_value());
}

// --- misuse -----------------------------------------------------------------------------------

TEST_F(TimeLoggerTest, StartingAnUnregisteredLabelThrows) {
  try {
    log.start_event("nope");
    FAIL() << "expected TimingError";
  } catch (const TimingError& error) {
    EXPECT_NE(std::string(error.what()).find("'nope' is not registered"), std::string::npos) << error.what();
  }
  EXPECT_THROW(log.record_event("nope", 1.0), TimingError);
  EXPECT_THROW((void)log.stats("nope"), TimingError);
  EXPECT_TRUE(log.occurrences().empty());
}

TEST_F(TimeLoggerTest, StoppingWhatIsNotRunningThrows) {
  EXPECT_THROW(log.stop_event("leaf"), TimingError);  // never started
  log.start_event("outer");
  log.start_event("leaf");
  log.stop_event("leaf");
  EXPECT_THROW(log.stop_event("leaf"), TimingError);  // stopped twice
  log.stop_event("outer");
  EXPECT_EQ(log.stats("leaf").count, 1u);
  EXPECT_EQ(log.stats("outer").count, 1u);
}

TEST_F(TimeLoggerTest, UnbalancedNestingThrowsAndLeavesEverythingConsistent) {
  log.start_event("outer");
  log.start_event("inner");
  try {
    log.stop_event("outer");
    FAIL() << "expected TimingError";
  } catch (const TimingError& error) {
    EXPECT_NE(std::string(error.what()).find("'inner'"), std::string::npos) << error.what();
  }
  // Both are still running, in order: stopping them properly works.
  log.stop_event("inner");
  log.stop_event("outer");
  EXPECT_EQ(log.stats("inner").count, 1u);
  EXPECT_EQ(log.stats("outer").count, 1u);
  EXPECT_EQ(log.occurrences("inner")[0].parent, log.occurrences("outer")[0].id);
}

TEST_F(TimeLoggerTest, StoppingFromAnotherThreadThrows) {
  log.start_event("outer");
  bool threw = false;
  std::thread([&] {
    try {
      log.stop_event("outer");
    } catch (const TimingError&) {
      threw = true;
    }
  }).join();
  EXPECT_TRUE(threw);
  log.stop_event("outer");
  EXPECT_EQ(log.stats("outer").count, 1u);
}

TEST_F(TimeLoggerTest, BadRecordedDurationsThrow) {
  EXPECT_THROW(log.record_event("leaf", -1.0), std::invalid_argument);
  EXPECT_THROW(log.record_event("leaf", std::nan("")), std::invalid_argument);
  EXPECT_EQ(log.stats("leaf").count, 0u);
}

TEST_F(TimeLoggerTest, NoneRecordsNothingAndChecksNothing) {
  log.set_verbosity(Verbosity::none);
  EXPECT_FALSE(log.enabled());
  EXPECT_NO_THROW(log.start_event("nope"));
  EXPECT_NO_THROW(log.stop_event("nope"));
  log.start_event("leaf");
  log.stop_event("leaf", {{"runs", 1}});
  log.record_event("leaf", 1.0);
  EXPECT_EQ(log.stats("leaf").count, 0u);
  EXPECT_TRUE(out.str().empty());
}

TEST_F(TimeLoggerTest, SwitchingToNoneClosesOpenEvents) {
  log.start_event("outer");
  log.start_event("inner");
  log.set_verbosity(Verbosity::none);
  log.set_verbosity(Verbosity::normal);
  const auto inner = log.occurrences("inner");
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(inner[0].metadata.find("interrupted")->as_int(), 1);
  EXPECT_EQ(log.stats("outer").count, 1u);
  EXPECT_THROW(log.stop_event("inner"), TimingError);  // nothing is running any more
  log.start_event("leaf");  // and new events are top-level again
  log.stop_event("leaf");
  EXPECT_FALSE(log.occurrences("leaf")[0].parent.has_value());
}

// --- threads ----------------------------------------------------------------------------------

TEST_F(TimeLoggerTest, EightThreadsRecordExactCounts) {
  constexpr int threads = 8;
  constexpr int per_thread = 2000;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([this, t] {
      log.start_event("outer");
      for (int i = 0; i < per_thread; ++i) {
        log.start_event("leaf");
        log.stop_event("leaf", {{"chunk_index", i}, {"worker", t}});
        if (i % 100 == 0) log.record_event("inner", 0.01);
      }
      log.stop_event("outer");
    });
  }
  for (auto& worker : workers) worker.join();

  EXPECT_EQ(log.stats("outer").count, static_cast<std::size_t>(threads));
  EXPECT_EQ(log.stats("leaf").count, static_cast<std::size_t>(threads * per_thread));
  EXPECT_EQ(log.stats("inner").count, static_cast<std::size_t>(threads * per_thread / 100));
  // Every leaf nests under the outer event of its own thread.
  const auto all = log.occurrences();
  std::vector<const batchode::Occurrence*> by_id(all.back().id + 1, nullptr);
  for (const auto& occurrence : all) by_id[occurrence.id] = &occurrence;
  for (const auto& occurrence : all) {
    if (occurrence.label != "leaf") continue;
    ASSERT_TRUE(occurrence.parent.has_value());
    const auto* parent = by_id[*occurrence.parent];
    ASSERT_NE(parent, nullptr);
    EXPECT_EQ(parent->label, "outer");
    EXPECT_EQ(parent->thread, occurrence.thread);
  }
  // One summary per top-level event, each covering only its own thread's 2000 leaves.
  const std::string text = out.str();
  std::size_t summaries = 0;
  for (std::size_t at = text.find("outer took"); at != std::string::npos; at = text.find("outer took", at + 1)) {
    ++summaries;
  }
  EXPECT_EQ(summaries, static_cast<std::size_t>(threads));
  const std::regex leaf_row(R"(\n +leaf +2000 )");
  EXPECT_EQ(std::distance(std::sregex_iterator(text.begin(), text.end(), leaf_row), std::sregex_iterator()), threads);
}

// --- reset and JSON ---------------------------------------------------------------------------

TEST_F(TimeLoggerTest, ResetForgetsOccurrencesButKeepsRegistrationsAndOpenEvents) {
  log.start_event("outer");
  log.record_event("leaf", 1.0);
  log.reset();
  EXPECT_TRUE(log.occurrences().empty());
  EXPECT_TRUE(log.is_registered("leaf"));
  log.start_event("inner");  // still nested in the outer event that survived the reset
  log.stop_event("inner");
  log.stop_event("outer");
  const auto outer = log.occurrences("outer");
  ASSERT_EQ(outer.size(), 1u);
  EXPECT_EQ(log.occurrences("inner")[0].parent, outer[0].id);
  EXPECT_EQ(log.stats("leaf").count, 0u);
}

TEST_F(TimeLoggerTest, JsonParsesBackWithEventsCategoriesAndOccurrences) {
  log.start_event("outer");
  log.record_event("leaf", 1.0, {{"nbytes", 1000}, {"note", "he said \"hi\"\n\tback\\slash \x01"}}, 0.5);
  log.record_event("leaf", 3.0);
  log.start_event("inner");  // still running when the JSON is written
  const std::string text = log.to_json();
  log.stop_event("inner");
  log.stop_event("outer");

  const json_reader::Value json = json_reader::parse(text);
  EXPECT_EQ(json["verbosity"].string, "normal");
  ASSERT_EQ(json["events"].array.size(), 4u);
  const auto& leaf = json["events"][2];
  EXPECT_EQ(leaf["label"].string, "leaf");
  EXPECT_EQ(leaf["category"].string, "runtime");
  EXPECT_EQ(leaf["description"].string, "repeated leaf");
  EXPECT_EQ(leaf["count"].number, 2);
  EXPECT_EQ(leaf["total_ms"].number, 4.0);
  EXPECT_EQ(leaf["min_ms"].number, 1.0);
  EXPECT_EQ(leaf["max_ms"].number, 3.0);
  EXPECT_EQ(leaf["mean_ms"].number, 2.0);
  EXPECT_EQ(leaf["gpu_count"].number, 1);
  EXPECT_EQ(leaf["total_gpu_ms"].number, 0.5);
  EXPECT_EQ(leaf["total_nbytes"].number, 1000);
  EXPECT_TRUE(json["category_totals_ms"].has("runtime"));

  const auto& occurrences = json["occurrences"].array;
  ASSERT_EQ(occurrences.size(), 4u);  // outer and inner running, two leaves
  EXPECT_EQ(occurrences[0]["label"].string, "outer");
  EXPECT_TRUE(occurrences[0]["running"].boolean);
  EXPECT_EQ(occurrences[0]["wall_ms"].kind, json_reader::Value::Kind::null);
  EXPECT_EQ(occurrences[0]["parent"].kind, json_reader::Value::Kind::null);
  EXPECT_EQ(occurrences[1]["parent"].number, occurrences[0]["id"].number);
  EXPECT_EQ(occurrences[1]["gpu_ms"].number, 0.5);
  EXPECT_EQ(occurrences[1]["metadata"]["nbytes"].number, 1000);
  EXPECT_EQ(occurrences[1]["metadata"]["note"].string, "he said \"hi\"\n\tback\\slash \x01");
  EXPECT_EQ(occurrences[2]["gpu_ms"].kind, json_reader::Value::Kind::null);
  EXPECT_EQ(occurrences[3]["label"].string, "inner");
  EXPECT_EQ(occurrences[3]["depth"].number, 1);
}

}  // namespace
