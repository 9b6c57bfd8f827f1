// Result files that cannot be written: write_csv and write_npy report the path and the OS error,
// also when the error shows only as the file is flushed or closed (a small result sits in the
// stream's buffer until then, so /dev/full, the "disk full" device, accepts every write before).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "invalid_input.hpp"
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
  const std::string message = runtime_error_message([&] { batchode::write_csv(r, kDevFull, 1.0); });
  expect_contains(message, "'/dev/full'");
  expect_contains(message, os_text(ENOSPC));
}

TEST(ResultWriteErrors, CsvThroughASymlinkToDevFull) {
  REQUIRE_DEV_FULL();
  const std::string dir = fresh_dir("batchode_io_symlink_csv");
  const std::string link = dir + "/result.csv";
  fs::create_symlink(kDevFull, link);
  const auto r = small_result(2);
  const std::string message = runtime_error_message([&] { batchode::write_csv(r, link, 1.0); });
  expect_contains(message, "'" + link + "'");
  expect_contains(message, os_text(ENOSPC));
  fs::remove_all(dir);
}

// A result larger than the stream's buffer fails while it is written; the message is the same.
TEST(ResultWriteErrors, LargeCsvToDevFullNamesTheOsErrorToo) {
  REQUIRE_DEV_FULL();
  const auto r = small_result(2000);
  const std::string message = runtime_error_message([&] { batchode::write_csv(r, kDevFull, 1.0); });
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
  message = runtime_error_message([&] { batchode::write_csv(r, dir, 1.0); });  // a directory
  expect_contains(message, "'" + dir + "'");
  expect_contains(message, os_text(EISDIR));
  // The good path still writes complete files.
  EXPECT_NO_THROW(batchode::write_csv(r, dir + "/ok.csv", 1.0));
  EXPECT_NO_THROW(batchode::write_npy(r, dir + "/ok"));
  EXPECT_GT(fs::file_size(dir + "/ok_series.npy"), 2 * 3 * 2 * sizeof(double));
  fs::remove_all(dir);
}

}  // namespace
