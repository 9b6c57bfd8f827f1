// Summary metrics in result files (issue 11): write_h5's /summaries group, write_npy's
// <prefix>_summary_<name>.npy and write_summaries_csv hold result.summary(name) value for value (read
// back through HDF5's C API and the NPY bytes, as a reader without batchode would), in float and
// double, with their shapes, names and windows; a result without summaries writes none; the rows
// writer of distributed solves refuses them without their layout (tests/distributed: with it, the file
// equals write_h5's).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <batchode/batchode.hpp>
#include <batchode/solver/results/result_h5.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "h5_reader.hpp"
#include "oscillator_batch.hpp"
#include "test_systems.hpp"

namespace {

namespace fs = std::filesystem;
using namespace batchode;
using ::testing::HasSubstr;
using batchode::testing::H5Reader;

using DampedWithEnergy = batchode::testing::DampedOscillator;  // x, v and its energy

constexpr std::size_t kRuns = 3, kWindows = 4;

/// Three runs over [0, 8], windows of 2 with samples 0.1 apart: mean, extrema and peaks[2] of x and
/// the energy (the first peaks of the slower runs fall in windows of their own, the rest are NaN).
SolveOptions summarised() {
  SolveOptions o = batchode::testing::quiet_cpu_options(Method::rk4, 8.0);
  o.dt = 0.01;
  o.summaries.metrics = {"mean", "extrema", "peaks[2]"};
  o.summaries.summarise_every = 2.0;
  o.summaries.sample_summaries_every = 0.1;
  o.summaries.variables = {"energy", "x"};  // kept in the system's order: x, energy
  return o;
}

/// kRuns oscillators from (1, 0), w from 0.8 to 2.6, zeta from 0 to 0.1.
Batch<double> damped_batch() {
  Batch<double> b;
  b.n_runs = kRuns;
  for (std::size_t i = 0; i < kRuns; ++i) {
    b.y0.insert(b.y0.end(), {1.0, 0.0});
    b.params.insert(b.params.end(), {0.8 + 0.9 * double(i), 0.05 * double(i)});
  }
  return b;
}

template <class T>
SolveResult<T> solve_summarised(const SolveOptions& o) {
  return solve_ivp(DampedWithEnergy{}, batchode::testing::in_precision<T>(damped_batch()), o);
}

/// Bit for bit, NaN equal to NaN.
template <class T>
bool same_values(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// An empty folder of its own. Typed tests name theirs per precision: CTest runs the float and the
/// double case side by side, and one would empty the other's folder under it.
std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}


/// An NPY file: its header's dict and its values.
template <class T>
struct Npy {
  std::string header;
  std::vector<T> values;
};

template <class T>
Npy<T> read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Npy<T> npy;
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    ADD_FAILURE() << path << " is not an NPY file";
    return npy;
  }
  const std::size_t length =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  npy.header = bytes.substr(10, length);
  const std::size_t body = bytes.size() - 10 - length;
  EXPECT_EQ(body % sizeof(T), 0u) << path;
  npy.values.resize(body / sizeof(T));
  if (body > 0) std::memcpy(npy.values.data(), bytes.data() + 10 + length, body);
  return npy;
}

template <class T>
class SummariesIo : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SummariesIo, Precisions);

TYPED_TEST(SummariesIo, H5HoldsEachSummaryWithItsShapeNamesAndWindows) {
  using T = TypeParam;
  const SolveOptions o = summarised();
  const SolveResult<T> r = solve_summarised<T>(o);
  ASSERT_EQ(r.n_summary_windows(), kWindows);
  ASSERT_EQ(r.summary_variables(), (std::vector<std::string>{"x", "energy"}));
  const std::string path = fresh_dir("summaries_io_h5_" + std::to_string(sizeof(T))) + "/out.h5";
  write_h5(r, path, o);

  const H5Reader f(path);
  ASSERT_TRUE(f.has("/summaries"));
  EXPECT_EQ(f.strings("/summaries", "names"), (std::vector<std::string>{"mean", "extrema", "peaks"}));
  EXPECT_EQ(f.strings("/summaries", "summary_variables"), (std::vector<std::string>{"x", "energy"}));
  EXPECT_EQ(f.numbers("/summaries", "summarise_every"), std::vector<double>{2.0});
  EXPECT_EQ(f.numbers("/summaries", "sample_summaries_every"), std::vector<double>{0.1});
  EXPECT_EQ(f.numbers("/summaries", "window_ends"), (std::vector<double>{2.0, 4.0, 6.0, 8.0}));
  const std::vector<hsize_t> scalar_shape{kRuns, kWindows, 2}, pair_shape{kRuns, kWindows, 2, 2};
  EXPECT_EQ(f.shape("/summaries/mean"), scalar_shape);
  EXPECT_EQ(f.shape("/summaries/extrema"), pair_shape);
  EXPECT_EQ(f.shape("/summaries/peaks"), pair_shape);
  EXPECT_FALSE(f.has_attribute("/summaries/mean", "value_names"));
  EXPECT_EQ(f.strings("/summaries/extrema", "value_names"), (std::vector<std::string>{"max", "min"}));
  EXPECT_EQ(f.strings("/summaries/peaks", "value_names"), (std::vector<std::string>{"peaks[0]", "peaks[1]"}));
  bool some_nan = false;
  for (const char* name : {"mean", "extrema", "peaks"}) {
    EXPECT_EQ(f.float_size(std::string("/summaries/") + name), sizeof(T)) << name;  // the result's precision
    const std::vector<T> stored = f.values<T>(std::string("/summaries/") + name);
    EXPECT_TRUE(same_values(stored, r.summary(name))) << name;
    for (T v : stored) some_nan = some_nan || std::isnan(v);
  }
  EXPECT_TRUE(some_nan);  // peaks a window did not have: NaN, written as such
  // One value placed where summary_at says: run 2, window 1, the energy, the minimum.
  const std::vector<T> extrema = f.values<T>("/summaries/extrema");
  EXPECT_EQ(extrema[((2 * kWindows + 1) * 2 + 1) * 2 + 1], r.summary_at(2, 1, "extrema", 1, 1));
}

TYPED_TEST(SummariesIo, NpyHoldsEachSummaryWithItsShape) {
  using T = TypeParam;
  const SolveResult<T> r = solve_summarised<T>(summarised());
  const std::string prefix = fresh_dir("summaries_io_npy_" + std::to_string(sizeof(T))) + "/out";
  write_npy(r, prefix);
  const std::string descr = std::is_same_v<T, float> ? "'descr': '<f4'" : "'descr': '<f8'";
  for (const auto& [name, shape] : {std::pair<std::string, std::string>{"mean", "(3,4,2)"},
                                    {"extrema", "(3,4,2,2)"},
                                    {"peaks", "(3,4,2,2)"}}) {
    const Npy<T> npy = read_npy<T>(prefix + "_summary_" + name + ".npy");
    EXPECT_THAT(npy.header, HasSubstr(descr)) << name;
    EXPECT_THAT(npy.header, HasSubstr("'shape': " + shape)) << name;
    EXPECT_THAT(npy.header, HasSubstr("'fortran_order': False")) << name;
    EXPECT_TRUE(same_values(npy.values, r.summary(name))) << name;
  }
}

// peaks[1] keeps its last axis (its values are named), in every writer as in Python: a reader's shape
// does not change with the count.
TEST(SummariesIo, OnePeakKeepsItsAxis) {
  SolveOptions o = summarised();
  o.summaries.metrics = {"mean", "peaks[1]"};
  const SolveResult<double> r = solve_summarised<double>(o);
  const std::string dir = fresh_dir("summaries_io_one_peak");
  write_npy(r, dir + "/out");
  EXPECT_THAT(read_npy<double>(dir + "/out_summary_peaks.npy").header, HasSubstr("'shape': (3,4,2,1)"));
  write_h5(r, dir + "/out.h5", o);
  EXPECT_EQ(H5Reader(dir + "/out.h5").shape("/summaries/peaks"), (std::vector<hsize_t>{kRuns, kWindows, 2, 1}));
  write_summaries_csv(r, dir + "/out.csv", o.t0);
  std::ifstream csv(dir + "/out.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "run,window,window_end,variable,mean,peaks[0]");
}

TYPED_TEST(SummariesIo, CsvHasARowPerRunWindowAndVariable) {
  using T = TypeParam;
  SolveOptions o = summarised();
  o.t0 = 1.0;  // window_end counts from t0
  o.t_end = 9.0;
  const SolveResult<T> r = solve_summarised<T>(o);
  const std::string path = fresh_dir("summaries_io_csv_" + std::to_string(sizeof(T))) + "/out_summaries.csv";
  write_summaries_csv(r, path, o.t0);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1 + kRuns * kWindows * 2);
  EXPECT_EQ(lines[0], "run,window,window_end,variable,mean,max,min,peaks[0],peaks[1]");
  // Row of run 1, window 2, the energy.
  std::istringstream row(lines[1 + (1 * kWindows + 2) * 2 + 1]);
  std::vector<std::string> cells;
  for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
  ASSERT_EQ(cells.size(), 9u);
  EXPECT_EQ(cells[0], "1");
  EXPECT_EQ(cells[1], "2");
  EXPECT_DOUBLE_EQ(std::stod(cells[2]), 7.0);
  EXPECT_EQ(cells[3], "energy");
  EXPECT_EQ(static_cast<T>(std::stod(cells[4])), r.summary_at(1, 2, "mean", 1));
  EXPECT_EQ(static_cast<T>(std::stod(cells[5])), r.summary_at(1, 2, "extrema", 1, 0));
  EXPECT_EQ(static_cast<T>(std::stod(cells[6])), r.summary_at(1, 2, "extrema", 1, 1));
}

TEST(SummariesIo, AResultWithoutSummariesWritesNone) {
  SolveOptions o = batchode::testing::quiet_cpu_options(Method::rk4, 1.0);
  o.dt = 0.01;
  o.save_every = 0.5;
  const SolveResult<double> r = solve_ivp(DampedWithEnergy{}, damped_batch(), o);
  ASSERT_EQ(r.summary_layout(), nullptr);
  const std::string dir = fresh_dir("summaries_io_none");
  write_h5(r, dir + "/out.h5", o);
  EXPECT_FALSE(H5Reader(dir + "/out.h5").has("/summaries"));
  write_npy(r, dir + "/out");
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find("_summary_"), std::string::npos) << entry.path();
  }
  write_summaries_csv(r, dir + "/out_summaries.csv", o.t0);
  std::ifstream in(dir + "/out_summaries.csv");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "run,window,window_end,variable\n");
}

TEST(SummariesIo, TheRowsWriterOfDistributedSolvesRefusesThemWithoutTheirLayout) {
  const std::string path = fresh_dir("summaries_io_rows") + "/rows.h5";
  try {
    (void)write_h5_layout<double>(4, 2, {}, path, summarised());
    ADD_FAILURE() << "write_h5_layout took options with summaries and no layout";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr("summaries"));
  }
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
