// write_h5 (solver/results/result_h5.hpp): every dataset and attribute of the layout read back through HDF5's
// C API, as a reader without batchode would, in float and double; the optional parts absent when not
// asked for; metadata of the wrong shape refused before the file is touched; unwritable paths and a
// full disk reported with the path; HDF5's own error printing silenced and its handler put back.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <batchode/checks/invalid_input.hpp>
#include <batchode/solver/results/result_h5.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "file_size_limit.hpp"
#include "h5_reader.hpp"

namespace {

namespace fs = std::filesystem;
using batchode::H5Metadata;
using batchode::SolveOptions;
using batchode::SolveResult;
using batchode::testing::H5Reader;

/// This process's folder for the files the tests write, removed when the tests end.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("batchode_h5_test_" + std::to_string(::getpid()));
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};
const TempDir temp_dir;

fs::path temp_file(const std::string& name) {
  fs::create_directories(temp_dir.path);
  return temp_dir.path / name;
}

template <class T>
class WriteH5 : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(WriteH5, Precisions);

// 3 runs x 2 states x 4 saves, statuses and counters kept, the grid and every name given.
TYPED_TEST(WriteH5, WritesEveryDatasetAndAttribute) {
  using T = TypeParam;
  SolveOptions options;
  options.method = batchode::Method::tsit5;
  options.t0 = 0.5;
  options.t_end = 2.0;
  options.rtol = 1e-7;
  options.atol = 1e-9;
  options.dt = 0.125;
  options.save_every = 0.5;
  options.max_steps = 12345;
  options.backend = batchode::Backend::cpu;
  options.run_order = batchode::RunOrder::off;
  options.outputs.counters = true;
  const std::size_t runs = 3, states = 2, saves = 4;
  SolveResult<T> r(runs, states, saves, options);
  for (std::size_t i = 0; i < runs * states; ++i) r.final_state_data()[i] = static_cast<T>(0.1 * (i + 1));
  for (std::size_t i = 0; i < runs * saves * states; ++i) r.series_data()[i] = static_cast<T>(i) / 7;
  r.series_data()[5] = std::numeric_limits<T>::quiet_NaN();  // a point a failed run never reached
  r.status_data()[0] = batchode::Status::success;
  r.status_data()[1] = batchode::Status::max_steps_reached;
  r.status_data()[2] = batchode::Status::non_finite_state;
  r.stop_time_data()[0] = 2;
  r.stop_time_data()[1] = static_cast<T>(1.25);
  r.stop_time_data()[2] = static_cast<T>(0.75);
  for (std::size_t i = 0; i < runs; ++i) {
    r.counters_data()[i] = {static_cast<std::uint32_t>(10 + i), static_cast<std::uint32_t>(i),
                            static_cast<std::uint32_t>(70 + i)};
  }
  batchode::ExecutionRecord part;
  part.backend = batchode::BackendId::cpu();
  part.reason = batchode::sched::Reason::user_preference;
  part.runs = runs;
  r.add_execution(part);
  H5Metadata meta;
  meta.state_names = {"x", "v"};
  meta.parameter_names = {"omega", "zeta"};
  meta.y0 = {1, 0, 2, 0, 3, 0};
  meta.parameters = {0.5, 0.1, 0.75, 0.1, 1.0, 0.1};
  meta.model_name = "oscillator";
  meta.model_source = "name = \"oscillator\"\nequations = \"\"\"\ndx = v\ndv = -omega^2 * x\n\"\"\"\n";
  meta.grid_kind = "combinatorial";
  const fs::path path = temp_file(std::string("full_") + (sizeof(T) == 4 ? "f" : "d") + ".h5");
  batchode::write_h5(r, path.string(), options, meta);

  const H5Reader h5(path.string());
  const std::size_t size = sizeof(T);
  EXPECT_EQ(h5.shape("/final_state"), (std::vector<hsize_t>{runs, states}));
  EXPECT_EQ(h5.type("/final_state"), std::make_pair(H5T_FLOAT, size));
  const std::vector<double> final_state = h5.values<double>("/final_state");
  for (std::size_t i = 0; i < runs * states; ++i)
    EXPECT_EQ(final_state[i], static_cast<double>(r.final_state()[i]));
  EXPECT_EQ(h5.strings("/final_state", "state_names"), meta.state_names);

  EXPECT_EQ(h5.shape("/series"), (std::vector<hsize_t>{runs, saves, states}));
  EXPECT_EQ(h5.type("/series"), std::make_pair(H5T_FLOAT, size));
  const std::vector<double> series = h5.values<double>("/series");
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (i == 5) {
      EXPECT_TRUE(std::isnan(series[i]));
    } else {
      EXPECT_EQ(series[i], static_cast<double>(r.series()[i])) << i;
    }
  }
  EXPECT_EQ(h5.strings("/series", "state_names"), meta.state_names);
  EXPECT_EQ(h5.shape("/t"), (std::vector<hsize_t>{saves}));
  EXPECT_EQ(h5.type("/t"), std::make_pair(H5T_FLOAT, size));
  EXPECT_EQ(h5.values<double>("/t"), (std::vector<double>{0.5, 1.0, 1.5, 2.0}));

  EXPECT_EQ(h5.shape("/status"), (std::vector<hsize_t>{runs}));
  EXPECT_EQ(h5.type("/status"), std::make_pair(H5T_INTEGER, std::size_t{4}));
  EXPECT_EQ(h5.values<std::int32_t>("/status"), (std::vector<std::int32_t>{0, 1, 3}));
  EXPECT_EQ(h5.strings("/status", "status_names"),
            (std::vector<std::string>{"success", "max_steps_reached", "step_size_underflow",
                                      "non_finite_state", "singular_matrix", "not_solved", "stopped_by_event",
                                      "inconsistent_initial_values", "zeno_events", "newton_failure"}));

  EXPECT_EQ(h5.shape("/t_stop"), (std::vector<hsize_t>{runs}));
  EXPECT_EQ(h5.type("/t_stop"), std::make_pair(H5T_FLOAT, size));
  EXPECT_EQ(h5.values<double>("/t_stop"), (std::vector<double>{2.0, 1.25, 0.75}));

  EXPECT_EQ(h5.shape("/counters"), (std::vector<hsize_t>{runs, 3}));
  EXPECT_EQ(h5.values<std::uint32_t>("/counters"),
            (std::vector<std::uint32_t>{10, 0, 70, 11, 1, 71, 12, 2, 72}));
  EXPECT_EQ(h5.strings("/counters", "columns"),
            (std::vector<std::string>{"accepted_steps", "rejected_steps", "rhs_evaluations"}));

  EXPECT_EQ(h5.shape("/grid/y0"), (std::vector<hsize_t>{runs, states}));
  EXPECT_EQ(h5.type("/grid/y0"), std::make_pair(H5T_FLOAT, size));
  EXPECT_EQ(h5.values<double>("/grid/y0"), meta.y0);
  EXPECT_EQ(h5.strings("/grid/y0", "state_names"), meta.state_names);
  EXPECT_EQ(h5.shape("/grid/parameters"), (std::vector<hsize_t>{runs, 2}));
  const std::vector<double> parameters = h5.values<double>("/grid/parameters");
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    EXPECT_EQ(parameters[i], static_cast<double>(static_cast<T>(meta.parameters[i])));  // as solved, in T
  }
  EXPECT_EQ(h5.strings("/grid/parameters", "parameter_names"), meta.parameter_names);

  EXPECT_EQ(h5.string("batchode_version"), "0.1.0");
  EXPECT_EQ(h5.strings("/", "state_names"), meta.state_names);
  EXPECT_EQ(h5.strings("/", "parameter_names"), meta.parameter_names);
  EXPECT_EQ(h5.string("method"), "tsit5");
  EXPECT_EQ(h5.string("precision"), sizeof(T) == 4 ? "float32" : "float64");
  EXPECT_EQ(h5.scalar<double>("t0"), 0.5);
  EXPECT_EQ(h5.scalar<double>("t_end"), 2.0);
  EXPECT_EQ(h5.scalar<double>("rtol"), 1e-7);
  EXPECT_EQ(h5.scalar<double>("atol"), 1e-9);
  EXPECT_EQ(h5.scalar<double>("dt"), 0.125);
  EXPECT_EQ(h5.scalar<double>("save_every"), 0.5);
  EXPECT_EQ(h5.scalar<std::uint64_t>("max_steps"), 12345u);
  EXPECT_EQ(h5.string("backend"), "cpu");
  EXPECT_EQ(h5.string("run_order"), "off");
  EXPECT_EQ(h5.strings("/", "execution"), (std::vector<std::string>{"cpu: runs [0, 3), user_preference"}));
  EXPECT_EQ(h5.string("model_name"), "oscillator");
  EXPECT_EQ(h5.string("model_source"), meta.model_source);
  EXPECT_EQ(h5.string("grid_kind"), "combinatorial");
}

// Final states only (no save_every, statuses off, counters off, no metadata): the optional datasets and
// attributes are absent, the name lists present and empty.
TYPED_TEST(WriteH5, OmitsWhatWasNotKept) {
  using T = TypeParam;
  SolveOptions options;
  options.outputs.status = false;
  SolveResult<T> r(2, 3, 0, options);
  for (std::size_t i = 0; i < 6; ++i) r.final_state_data()[i] = static_cast<T>(i);
  const fs::path path = temp_file(std::string("final_only_") + (sizeof(T) == 4 ? "f" : "d") + ".h5");
  batchode::write_h5(r, path.string(), options);

  const H5Reader h5(path.string());
  EXPECT_EQ(h5.shape("/final_state"), (std::vector<hsize_t>{2, 3}));
  EXPECT_EQ(h5.values<double>("/final_state"), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  for (const char* absent : {"/series", "/t", "/status", "/counters", "/grid"})
    EXPECT_FALSE(h5.has(absent)) << absent;
  for (const char* absent : {"dt", "save_every", "model_name", "model_source", "grid_kind"}) {
    EXPECT_FALSE(h5.has_attribute("/", absent)) << absent;
  }
  EXPECT_FALSE(h5.has_attribute("/final_state", "state_names"));
  EXPECT_TRUE(h5.strings("/", "state_names").empty());
  EXPECT_TRUE(h5.strings("/", "parameter_names").empty());
  EXPECT_TRUE(h5.strings("/", "execution").empty());
  EXPECT_EQ(h5.string("method"), "dopri5");
  EXPECT_EQ(h5.string("backend"), "automatic");
  EXPECT_EQ(h5.scalar<std::uint64_t>("max_steps"), options.max_steps);
}

// Parameters without names: n_params is read off the sizes. A model without parameters: only /grid/y0.
// Each run's own save times (/t is (n_runs, n_saves)) and the observables (/observables, its names).
TYPED_TEST(WriteH5, PerRunTimesAndObservables) {
  using T = TypeParam;
  SolveOptions options;
  options.t_end = 2.0;
  options.save_at_per_run = batchode::PerRunSaveTimes(2, {0.5, 1.0, 0.25, 2.0, 1.5, 1.75});
  const std::size_t runs = 3, states = 2, saves = 2;
  SolveResult<T> r(runs, states, saves, options, nullptr, {"energy", "x2"});
  ASSERT_EQ(r.observables().size(), runs * saves * 2);
  for (std::size_t i = 0; i < runs * states; ++i) r.final_state_data()[i] = T(1);
  for (std::size_t i = 0; i < runs * saves * states; ++i) r.series_data()[i] = T(2);
  const batchode::ResultView<T> view = r.view();
  ASSERT_NE(view.observables, nullptr);
  ASSERT_EQ(view.n_observables, 2u);
  for (std::size_t i = 0; i < runs * saves * 2; ++i) view.observables[i] = static_cast<T>(i) / 4;
  for (std::size_t i = 0; i < runs; ++i) r.status_data()[i] = batchode::Status::success;
  const fs::path path = temp_file(std::string("observables_") + (sizeof(T) == 4 ? "f" : "d") + ".h5");
  batchode::write_h5(r, path.string(), options, H5Metadata{});
  const H5Reader h5(path.string());
  EXPECT_EQ(h5.shape("/t"), (std::vector<hsize_t>{runs, saves}));
  EXPECT_EQ(h5.values<double>("/t"), (std::vector<double>{0.5, 1.0, 0.25, 2.0, 1.5, 1.75}));
  EXPECT_EQ(h5.shape("/observables"), (std::vector<hsize_t>{runs, saves, 2}));
  const std::vector<double> values = h5.values<double>("/observables");
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], static_cast<double>(static_cast<T>(i) / 4));
  EXPECT_EQ(h5.strings("/observables", "observable_names"), (std::vector<std::string>{"energy", "x2"}));
  EXPECT_EQ(r.observable_index("x2"), 1u);
  EXPECT_EQ(r.observable_at(2, 1, 1), static_cast<T>(11) / 4);
  EXPECT_THROW((void)r.observable_index("x3"), std::out_of_range);
}

TEST(WriteH5, GridWithoutNamesOrParameters) {
  SolveOptions options;
  SolveResult<double> r(2, 1, 0, options);
  std::fill(r.final_state_data(), r.final_state_data() + 2, 1.0);
  std::fill(r.status_data(), r.status_data() + 2, batchode::Status::success);
  H5Metadata meta;
  meta.y0 = {1, 2};
  meta.parameters = {1, 2, 3, 4, 5, 6};
  const fs::path path = temp_file("grid_unnamed.h5");
  batchode::write_h5(r, path.string(), options, meta);
  {
    const H5Reader h5(path.string());
    EXPECT_EQ(h5.shape("/grid/parameters"), (std::vector<hsize_t>{2, 3}));
    EXPECT_EQ(h5.values<double>("/grid/parameters"), meta.parameters);
    EXPECT_FALSE(h5.has_attribute("/grid/parameters", "parameter_names"));
  }
  meta.parameters.clear();
  batchode::write_h5(r, path.string(), options, meta);  // truncates the file written above
  const H5Reader h5(path.string());
  EXPECT_TRUE(h5.has("/grid/y0"));
  EXPECT_FALSE(h5.has("/grid/parameters"));
}

// Thousands of names exceed the 64 KiB an attribute may have in the oldest file format.
TEST(WriteH5, ManyStateNames) {
  const std::size_t states = 5000;
  SolveOptions options;
  SolveResult<double> r(1, states, 0, options);
  std::fill(r.final_state_data(), r.final_state_data() + states, 1.0);
  r.status_data()[0] = batchode::Status::success;
  H5Metadata meta;
  for (std::size_t s = 0; s < states; ++s)
    meta.state_names.push_back("state_with_a_long_name_" + std::to_string(s));
  const fs::path path = temp_file("many_names.h5");
  batchode::write_h5(r, path.string(), options, meta);
  const H5Reader h5(path.string());
  EXPECT_EQ(h5.strings("/", "state_names"), meta.state_names);
  EXPECT_EQ(h5.strings("/final_state", "state_names"), meta.state_names);
}

// Metadata that does not describe the result is refused before the file is created.
TEST(WriteH5, RefusesMismatchedMetadata) {
  SolveOptions options;
  SolveResult<double> r(2, 3, 0, options);
  const fs::path path = temp_file("mismatch.h5");
  fs::remove(path);
  const auto message = [&](const H5Metadata& meta) -> std::string {
    try {
      batchode::write_h5(r, path.string(), options, meta);
    } catch (const batchode::InvalidInput& e) {
      return e.what();
    }
    return "no error";
  };
  H5Metadata names;
  names.state_names = {"a", "b"};
  EXPECT_NE(message(names).find("state_names has 2 names for 3 states"), std::string::npos) << message(names);
  H5Metadata y0;
  y0.y0 = {1, 2, 3};
  EXPECT_NE(message(y0).find("y0 has 3 values, expected 6"), std::string::npos) << message(y0);
  H5Metadata parameters;
  parameters.parameter_names = {"p"};
  parameters.parameters = {1, 2, 3};
  EXPECT_NE(message(parameters).find("parameters has 3 values, expected 2"), std::string::npos)
      << message(parameters);
  H5Metadata ragged;
  ragged.parameters = {1, 2, 3};  // not a multiple of the 2 runs
  EXPECT_NE(message(ragged).find("parameters has 3 values"), std::string::npos) << message(ragged);
  EXPECT_FALSE(fs::exists(path));
}

std::string write_error(const std::string& path) {
  SolveOptions options;
  options.save_every = 0.001;  // 1001 saves: more than HDF5 keeps in its buffers
  SolveResult<double> r(64, 3, batchode::count_saves(options), options);
  std::fill(r.series_data(), r.series_data() + r.series().size(), 1.0);
  std::fill(r.final_state_data(), r.final_state_data() + r.final_state().size(), 1.0);
  std::fill(r.status_data(), r.status_data() + r.n_runs(), batchode::Status::success);
  try {
    batchode::write_h5(r, path, options);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(WriteH5, UnwritablePathNamesThePath) {
  const std::string path = "/nonexistent_batchode_dir/sub/out.h5";
  ::testing::internal::CaptureStderr();
  const std::string message = write_error(path);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
  EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;
  EXPECT_EQ(printed, "") << "HDF5 printed its error stack";
}

TEST(WriteH5, DiskFullNamesThePath) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string message = write_error("/dev/full");
  EXPECT_NE(message.find("'/dev/full'"), std::string::npos) << message;
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
}

TEST(WriteH5, PutsHdf5sErrorHandlerBack) {
  H5E_auto2_t before = nullptr, after = nullptr;
  void* before_data = nullptr;
  void* after_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &before, &before_data);
  write_error("/nonexistent_batchode_dir/out.h5");
  H5Eget_auto2(H5E_DEFAULT, &after, &after_data);
  EXPECT_EQ(before, after);
  EXPECT_EQ(before_data, after_data);
  EXPECT_NE(after, nullptr) << "HDF5 prints errors by default; write_h5 must not leave it silenced";
}

// Issue 44 item 1: a second write to the same path that fails part way (past a file-size limit, as on
// a full disk) left the first file at 0 bytes. The new file is written beside it and moved into place
// only when complete: the old file keeps every byte, and nothing else is left in the folder.
TEST(WriteH5, AFailedWriteLeavesTheOldFileAsItWas) {
  const fs::path dir = temp_file("atomic");
  fs::create_directories(dir);
  const std::string path = (dir / "good.h5").string();
  ASSERT_EQ(write_error(path), "no error");
  const std::string old = batchode::testing::file_bytes(path);
  ASSERT_GT(old.size(), 1000u);
  std::string message;
  {
    const batchode::testing::FileSizeLimit limit(4096);
    message = write_error(path);
  }
  EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
  EXPECT_NE(message.find(std::generic_category().message(EFBIG)), std::string::npos) << message;
  EXPECT_EQ(batchode::testing::file_bytes(path), old);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u) << "no temporary file is left";
}

}  // namespace
