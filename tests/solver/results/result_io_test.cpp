// Result files that cannot be written: write_csv and write_npy report the path and the OS error,
// also when the error shows only as the file is flushed or closed (a small result sits in the
// stream's buffer until then, so /dev/full, the "disk full" device, accepts every write before).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "file_size_limit.hpp"
#include "expect_invalid_input.hpp"
#include "test_systems.hpp"

namespace {

namespace fs = std::filesystem;
using batchode::testing::runtime_error_message;

const char* const kDevFull = "/dev/full";

batchode::SolveResult<double> small_result(std::size_t runs) {
  batchode::SolveOptions o;
  o.method = batchode::Method::rk4;
  o.dt = 0.01;
  o.t_end = 1.0;
  o.save_every = 0.5;
  o.backend = batchode::Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  std::vector<double> y0, w(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {1.0, 0.0});
    w[r] = 1.0 + static_cast<double>(r) / static_cast<double>(runs);
  }
  return batchode::solve_ivp(batchode::testing::Oscillator{}, y0, w, o);
}


void expect_contains(const std::string& message, const std::string& part) {
  EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

// The OS's wording of an errno value, as the writers report it.
std::string os_text(int error) { return std::generic_category().message(error); }

// A fresh, empty directory under the test temp dir.
std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

#define REQUIRE_DEV_FULL()                                                                       \
  do {                                                                                           \
    std::error_code ec;                                                                          \
    if (!fs::exists(kDevFull, ec)) GTEST_SKIP() << kDevFull << " does not exist on this system"; \
  } while (0)

TEST(ResultWriteErrors, CsvToDevFullFailsAtClose) {
  REQUIRE_DEV_FULL();
  const auto r = small_result(2);  // 7 short lines: all in the stream's buffer until the close
  const std::string message = runtime_error_message([&] { batchode::write_csv(r, kDevFull); });
  expect_contains(message, "'/dev/full'");
  expect_contains(message, os_text(ENOSPC));
}

TEST(ResultWriteErrors, CsvThroughASymlinkToDevFull) {
  REQUIRE_DEV_FULL();
  const std::string dir = fresh_dir("batchode_io_symlink_csv");
  const std::string link = dir + "/result.csv";
  fs::create_symlink(kDevFull, link);
  const auto r = small_result(2);
  const std::string message = runtime_error_message([&] { batchode::write_csv(r, link); });
  expect_contains(message, "'" + link + "'");
  expect_contains(message, os_text(ENOSPC));
  fs::remove_all(dir);
}

// A result larger than the stream's buffer fails while it is written; the message is the same.
TEST(ResultWriteErrors, LargeCsvToDevFullNamesTheOsErrorToo) {
  REQUIRE_DEV_FULL();
  const auto r = small_result(2000);
  const std::string message = runtime_error_message([&] { batchode::write_csv(r, kDevFull); });
  expect_contains(message, "'/dev/full'");
  expect_contains(message, os_text(ENOSPC));
}

// Every NPY file is checked: here the first two are written and the series goes to /dev/full.
TEST(ResultWriteErrors, NpyThroughSymlinksToDevFull) {
  REQUIRE_DEV_FULL();
  const std::string dir = fresh_dir("batchode_io_symlink_npy");
  const auto r = small_result(2);
  fs::create_symlink(kDevFull, dir + "/out_final.npy");
  std::string message = runtime_error_message([&] { batchode::write_npy(r, dir + "/out"); });
  expect_contains(message, "'" + dir + "/out_final.npy'");
  expect_contains(message, os_text(ENOSPC));

  fs::create_symlink(kDevFull, dir + "/later_series.npy");
  message = runtime_error_message([&] { batchode::write_npy(r, dir + "/later"); });
  expect_contains(message, "'" + dir + "/later_series.npy'");
  expect_contains(message, os_text(ENOSPC));
  EXPECT_GT(fs::file_size(dir + "/later_final.npy"), 0u) << "the files before it were written";
  EXPECT_FALSE(fs::exists(dir + "/later_times.npy")) << "nothing is written after a failure";
  fs::remove_all(dir);
}

// Paths that cannot be opened name the path and the OS's reason.
TEST(ResultWriteErrors, UnwritablePathsNameTheReason) {
  const auto r = small_result(2);
  const std::string dir = fresh_dir("batchode_io_unwritable");
  std::string message = runtime_error_message([&] { batchode::write_npy(r, dir + "/missing/out"); });
  expect_contains(message, "'" + dir + "/missing/out_final.npy'");
  expect_contains(message, os_text(ENOENT));
  message = runtime_error_message([&] { batchode::write_csv(r, dir); });  // a directory
  expect_contains(message, "'" + dir + "'");
  expect_contains(message, os_text(EISDIR));
  // The good path still writes complete files.
  EXPECT_NO_THROW(batchode::write_csv(r, dir + "/ok.csv"));
  EXPECT_NO_THROW(batchode::write_npy(r, dir + "/ok"));
  EXPECT_GT(fs::file_size(dir + "/ok_series.npy"), 2 * 3 * 2 * sizeof(double));
  fs::remove_all(dir);
}

// Issue 44 item 1: a write that fails part way (here past a file-size limit, as on a full disk) left an
// older result truncated. Each file is now written beside its path and moved there once complete: the
// old file keeps every byte, and no partial file is left, for CSV and for each NPY file.
TEST(ResultWriteErrors, AFailedWriteLeavesTheOldFileAsItWas) {
  const std::string dir = fresh_dir("batchode_io_atomic");
  const auto small = small_result(2);
  const auto large = small_result(20000);  // a few MiB of series: past the limit below
  batchode::write_csv(small, dir + "/out.csv");
  batchode::write_npy(small, dir + "/out");
  const std::string csv = batchode::testing::file_bytes(dir + "/out.csv");
  const std::string series = batchode::testing::file_bytes(dir + "/out_series.npy");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++files;
  {
    const batchode::testing::FileSizeLimit limit(64 * 1024);
    std::string message = runtime_error_message([&] { batchode::write_csv(large, dir + "/out.csv"); });
    expect_contains(message, "'" + dir + "/out.csv'");
    expect_contains(message, os_text(EFBIG));
    message = runtime_error_message([&] { batchode::write_npy(large, dir + "/out"); });
    expect_contains(message, "'" + dir + "/out_final.npy'");  // the first of the files
  }
  EXPECT_EQ(batchode::testing::file_bytes(dir + "/out.csv"), csv);
  EXPECT_EQ(batchode::testing::file_bytes(dir + "/out_series.npy"), series);
  std::size_t after = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++after;
  EXPECT_EQ(after, files) << "no temporary or partial file is left";
  fs::remove_all(dir);
}

/// BlowUp with its state named.
struct NamedBlowUp : batchode::testing::BlowUp {
  static constexpr const char* state_names[1] = {"y"};
};

// A state or observable named as one of the CSV's own columns is written with its kind before it.
TEST(ResultFiles, ANameThatIsAColumnOfTheFileIsQualified) {
  const std::vector<std::string> fixed{"run", "t", "status", "t_stop"};
  EXPECT_EQ(batchode::detail::csv_column("t", "state", fixed), "state.t");
  EXPECT_EQ(batchode::detail::csv_column("status", "observable", fixed), "observable.status");
  EXPECT_EQ(batchode::detail::csv_column("x", "state", fixed), "x");
}

// Issue 44 item 8: the CSV said t = t_end for a run that stopped early, named the states y0, y1, ...,
// and the NPY files kept no status. Now: t is each run's stop time (a column t_stop beside a series),
// the columns carry the system's names, and <prefix>_status.npy / _t_stop.npy hold both.
TEST(ResultFiles, EveryRunKeepsItsStatusAndStopTimeUnderItsNames) {
  batchode::SolveOptions o;
  o.backend = batchode::Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  o.t_end = 2.0;
  // y' = p y^2 from 1: p = 1 blows up at t = 1 (step_size_underflow or non_finite_state), p = 0.25 at 4.
  const std::vector<double> y0{1.0, 1.0}, p{1.0, 0.25};
  const auto r = batchode::solve_ivp(NamedBlowUp{}, y0, p, o);
  ASSERT_FALSE(batchode::finished(r.status(0)));
  ASSERT_EQ(r.status(1), batchode::Status::success);
  const std::string dir = fresh_dir("batchode_io_stops");
  batchode::write_csv(r, dir + "/out.csv");
  std::ifstream in(dir + "/out.csv");
  std::string header, first, second;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(header, "run,t,status,y");
  // run 0: its stop time near the singularity at t = 1 (full precision: the value itself), its status.
  std::ostringstream stop;
  stop.precision(17);
  stop << r.stop_time(0);
  EXPECT_EQ(first.rfind("0," + stop.str() + "," + batchode::to_string(r.status(0)) + ",", 0), 0u) << first;
  EXPECT_NEAR(r.stop_time(0), 1.0, 1e-3) << "the stop time, not t_end";
  EXPECT_EQ(second.rfind("1,2,success,", 0), 0u) << second;
  batchode::write_npy(r, dir + "/out");
  const std::string status = batchode::testing::file_bytes(dir + "/out_status.npy");
  const std::string t_stop = batchode::testing::file_bytes(dir + "/out_t_stop.npy");
  ASSERT_EQ(status.size(), 128u + 2 * 4) << "a 128-byte NPY header, then 2 int32";
  ASSERT_EQ(t_stop.size(), 128u + 2 * 8);
  std::int32_t codes[2];
  double times[2];
  std::memcpy(codes, status.data() + 128, sizeof codes);
  std::memcpy(times, t_stop.data() + 128, sizeof times);
  EXPECT_EQ(codes[0], static_cast<std::int32_t>(r.status(0)));
  EXPECT_EQ(codes[1], 0);
  EXPECT_EQ(times[0], r.stop_time(0));
  EXPECT_EQ(times[1], 2.0);
  fs::remove_all(dir);
}

}  // namespace
