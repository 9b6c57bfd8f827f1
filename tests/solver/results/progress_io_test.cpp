// ProgressReporter (what a long solve prints on stderr) and the result writers (CSV, NPY).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <batchode/timing/progress.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "test_systems.hpp"

namespace {

using batchode::ProgressReporter;
using batchode::Verbosity;
using std::chrono::milliseconds;

TEST(Progress, SilentDuringTheQuietPeriod) {
  std::ostringstream out;
  ProgressReporter progress(4, 400, Verbosity::normal, &out, 0, milliseconds(60000));
  progress.update(1, 100);
  progress.update(4, 400);
  progress.finish();
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, PlainLinesWhenNotATerminal) {
  std::ostringstream out;
  ProgressReporter progress(4, 400, Verbosity::normal, &out, 0, milliseconds(0));
  const auto before = std::chrono::steady_clock::now();
  progress.update(2, 200);
  const std::string text = out.str();
  EXPECT_NE(text.find("chunk 2/4"), std::string::npos) << text;
  EXPECT_NE(text.find("runs/s"), std::string::npos) << text;
  EXPECT_NE(text.find("s left"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\r'), std::string::npos) << "no carriage return in a log file";
  progress.update(3, 300);
  // Within a second of the last line: not repeated. Checked only when the test's own clock says the
  // second has not passed, so a machine loaded enough to stall the test for a second cannot fail it.
  if (std::chrono::steady_clock::now() - before < std::chrono::seconds(1)) {
    EXPECT_EQ(out.str(), text);
  }
}

TEST(Progress, InPlaceOnATerminalAndNothingAtNone) {
  std::ostringstream terminal, silent;
  {
    ProgressReporter progress(2, 20, Verbosity::normal, &terminal, 1, milliseconds(0));
    progress.update(1, 10);
  }  // the destructor ends the line
  EXPECT_EQ(terminal.str().front(), '\r');
  EXPECT_EQ(terminal.str().back(), '\n');
  ProgressReporter quiet(2, 20, Verbosity::none, &silent, 1, milliseconds(0));
  quiet.update(1, 10);
  quiet.finish();
  EXPECT_EQ(silent.str(), "");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ResultFiles, NpyHeaderAndDataAndCsvRows) {
  batchode::SolveOptions o;
  o.method = batchode::Method::rk4;
  o.dt = 0.01;
  o.t_end = 1.0;
  o.save_every = 0.5;
  o.backend = batchode::Backend::cpu;
  o.verbosity = Verbosity::none;
  const std::vector<double> y0{1.0, 1.0}, k{1.0, 2.0};
  const auto r = batchode::solve_ivp(batchode::testing::Decay{}, y0, k, o);
  const std::string prefix = ::testing::TempDir() + "batchode_io";
  batchode::write_npy(r, prefix);
  const std::string series = read_file(prefix + "_series.npy");
  ASSERT_GT(series.size(), 10u);
  EXPECT_EQ(series.substr(0, 6), "\x93NUMPY");
  const std::size_t header = std::size_t(static_cast<unsigned char>(series[8])) |
                             std::size_t(static_cast<unsigned char>(series[9])) << 8;
  EXPECT_EQ((10 + header) % 64, 0u) << "NPY headers are padded to 64 bytes";
  EXPECT_NE(series.find("'shape': (2,3,1)"), std::string::npos);
  EXPECT_NE(series.find("'descr': '<f8'"), std::string::npos);
  ASSERT_EQ(series.size(), 10 + header + 2 * 3 * sizeof(double));
  double last = 0;
  std::memcpy(&last, series.data() + series.size() - sizeof(double), sizeof(double));
  EXPECT_EQ(last, r.state_at(1, 2, 0));
  EXPECT_NE(read_file(prefix + "_status.npy").find("'<i4'"), std::string::npos);
  EXPECT_NE(read_file(prefix + "_t_stop.npy").find("'<f8'"), std::string::npos);

  batchode::write_csv(r, prefix + ".csv");
  std::istringstream csv(read_file(prefix + ".csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "run,t,status,t_stop,y0");
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 2 * 3);
  EXPECT_THROW(batchode::write_csv(r, "/nonexistent-dir/x.csv"), std::runtime_error);
  std::remove((prefix + ".csv").c_str());
  for (const char* part : {"_final.npy", "_status.npy", "_t_stop.npy", "_series.npy", "_times.npy"}) {
    std::remove((prefix + part).c_str());
  }
}

}  // namespace
