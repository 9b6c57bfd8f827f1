// tests/mpi/: a batch over the processes of an MPI job, run by CTest under `mpiexec -n 3` (and -n 1).
// Every process runs every test; every collective call is made by all of them, so these tests use
// EXPECT (an ASSERT returning early on one process would leave the others waiting). The reference is
// the same batch solved by one process's Solver: the CPU path integrates each run alone, so the
// distributed results must equal it bit for bit, whichever process solved a run.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/distributed/distributed_solve.hpp"
#include "batchode/mpi/mpi_collective.hpp"
#include "batchode/distributed/rank_timing.hpp"
#include "batchode/distributed/shares.hpp"
#include "distributed_lorenz.hpp"
#include "expect_invalid_input.hpp"
#include "statistics_compare.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;
using distributed::DistributedResult;
using distributed::RunRange;

mpi::MpiCollective& world() {
  static mpi::MpiCollective w;
  return w;
}

constexpr std::size_t n_runs = 101;  // not a multiple of 3: shares differ

SolveOptions lorenz_options() { return batchode::testing::distributed_lorenz_options(); }

template <class T>
Batch<T> lorenz_batch() {
  return batchode::testing::distributed_lorenz_batch<T>(n_runs);
}

template <class T>
SolveResult<T> one_process(const Batch<T>& b, const SolveOptions& o) {
  Solver<Lorenz, T> solver(Lorenz{}, o);
  return solver.solve(b);
}

/// Runs `rows` of `reference` equal `r`'s runs bit for bit.
template <class T>
void expect_rows_equal(const SolveResult<T>& r, const SolveResult<T>& reference, RunRange rows) {
  batchode::testing::expect_runs_equal(r, reference, rows.first_run, rows.runs);
}

/// A folder every process sees (they share this machine), named by the root's process id.
std::string shared_folder() {
  const std::vector<std::string> pids = world().allgather(std::to_string(::getpid()));
  const std::string folder = (std::filesystem::temp_directory_path() / ("batchode_mpi_test_" + pids[0])).string();
  if (world().rank() == 0) std::filesystem::create_directories(folder);
  (void)world().allgather("");  // a barrier: the folder exists before anyone writes
  return folder;
}

/// Every process's message, to check that all got the same one.
std::vector<std::string> messages_everywhere(const std::string& mine) { return world().allgather(mine); }


TEST(DistributedSolve, GatheredResultEqualsOneProcessRunByRun) {
  const Batch<double> b = lorenz_batch<double>();
  const SolveResult<double> reference = one_process(b, lorenz_options());
  distributed::DistributedSolver<Lorenz, double> solver(world(), Lorenz{}, lorenz_options());
  const DistributedResult<double> r = solver.solve(b);
  EXPECT_EQ(r.ranks.size(), static_cast<std::size_t>(world().size()));
  EXPECT_EQ(r.not_solved, 0u);
  std::size_t covered = 0;
  for (const distributed::RankReport& report : r.ranks) {
    EXPECT_EQ(report.share.first_run, covered);
    covered += report.share.runs;
    EXPECT_TRUE(report.error.empty()) << report.error;
    EXPECT_EQ(report.where, report.share.runs > 0 ? "cpu" : "");
  }
  EXPECT_EQ(covered, n_runs);
  if (world().rank() == 0) {
    EXPECT_EQ(r.local.first_run, 0u);
    EXPECT_EQ(r.local.runs, n_runs);
    expect_rows_equal(r.result, reference, RunRange{0, n_runs});
    std::size_t parts_runs = 0;
    for (const ExecutionRecord& part : r.result.execution()) {
      parts_runs += part.runs;
      EXPECT_NE(part.detail.find("rank "), std::string::npos) << part.detail;
    }
    EXPECT_EQ(parts_runs, n_runs);
  } else {
    EXPECT_EQ(r.local.first_run, r.ranks[world().rank()].share.first_run);
    expect_rows_equal(r.result, reference, r.local);
  }
}

TEST(DistributedSolve, FloatGatheredResultEqualsOneProcess) {
  const Batch<float> b = lorenz_batch<float>();
  SolveOptions o = lorenz_options();
  o.rtol = o.atol = 1e-5;
  const SolveResult<float> reference = one_process(b, o);
  distributed::DistributedSolver<Lorenz, float> solver(world(), Lorenz{}, o);
  const DistributedResult<float> r = solver.solve(b);
  if (world().rank() == 0) {
    expect_rows_equal(r.result, reference, RunRange{0, n_runs});
  }
}

/// A dataset of `file` as bytes, with its dimensions.
std::vector<char> read_dataset(hid_t file, const char* name, hid_t type, std::size_t value_bytes,
                               std::vector<hsize_t>& dims) {
  const hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
  if (set < 0) return {};
  const hid_t space = H5Dget_space(set);
  dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::size_t values = 1;
  for (hsize_t d : dims) values *= d;
  std::vector<char> bytes(values * value_bytes);
  H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
  H5Sclose(space);
  H5Dclose(set);
  return bytes;
}

herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

/// The two files hold the same datasets (bytes and shapes; `more`: float64 ones besides the usual) and
/// the same root attributes' names.
void expect_same_file(const std::string& a, const std::string& b, const std::vector<std::string>& more = {}) {
  const hid_t fa = H5Fopen(a.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t fb = H5Fopen(b.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(fa, 0) << a;
  EXPECT_GE(fb, 0) << b;
  if (fa < 0 || fb < 0) return;
  const struct {
    const char* name;
    hid_t type;
    std::size_t bytes;
  } sets[] = {{"final_state", H5T_NATIVE_DOUBLE, 8}, {"series", H5T_NATIVE_DOUBLE, 8},
              {"t", H5T_NATIVE_DOUBLE, 8},           {"status", H5T_NATIVE_INT32, 4},
              {"counters", H5T_NATIVE_UINT32, 4},    {"grid/y0", H5T_NATIVE_DOUBLE, 8},
              {"grid/parameters", H5T_NATIVE_DOUBLE, 8}};
  for (const auto& s : sets) {
    std::vector<hsize_t> da, db;
    const std::vector<char> va = read_dataset(fa, s.name, s.type, s.bytes, da);
    const std::vector<char> vb = read_dataset(fb, s.name, s.type, s.bytes, db);
    EXPECT_FALSE(va.empty()) << s.name;
    EXPECT_EQ(da, db) << s.name;
    EXPECT_TRUE(va == vb) << s.name << " differs";
  }
  for (const std::string& name : more) {
    std::vector<hsize_t> da, db;
    const std::vector<char> va = read_dataset(fa, name.c_str(), H5T_NATIVE_DOUBLE, 8, da);
    const std::vector<char> vb = read_dataset(fb, name.c_str(), H5T_NATIVE_DOUBLE, 8, db);
    EXPECT_FALSE(va.empty()) << name;
    EXPECT_EQ(da, db) << name;
    EXPECT_TRUE(va == vb) << name << " differs";
  }
  std::vector<std::string> na, nb;
  H5Aiterate2(fa, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &na);
  H5Aiterate2(fb, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &nb);
  EXPECT_EQ(na, nb);
  H5Fclose(fa);
  H5Fclose(fb);
}

H5Metadata lorenz_meta(const Batch<double>& b) {
  H5Metadata meta;
  meta.state_names = {"x", "y", "z"};
  meta.parameter_names = {"sigma", "rho", "beta"};
  meta.y0 = b.y0;
  meta.parameters = b.params;
  meta.model_name = "lorenz";
  return meta;
}

TEST(DistributedSolve, OneFileWrittenByAllEqualsTheOneProcessFile) {
  const Batch<double> b = lorenz_batch<double>();
  const SolveOptions o = lorenz_options();
  const std::string folder = shared_folder();
  distributed::DistributedOptions how;
  how.h5_path = folder + "/distributed.h5";
  how.h5_meta = lorenz_meta(b);
  distributed::DistributedSolver<Lorenz, double> solver(world(), Lorenz{}, o);
  const DistributedResult<double> r = solver.solve(b, how);
  EXPECT_EQ(r.local.first_run, r.ranks[world().rank()].share.first_run);  // nothing gathered
  if (world().rank() == 0) {
    write_h5(one_process(b, o), folder + "/one_process.h5", o, lorenz_meta(b));
    expect_same_file(how.h5_path, folder + "/one_process.h5");
  }
  (void)world().allgather("");
  if (world().rank() == 0) std::filesystem::remove_all(folder);
}

/// A batch solved with `o` over the job's processes, gathered to rank 0 and written by all into one .h5
/// file, equals one process's Solver run by run, and its write_h5 file (`more`: datasets besides the usual).
void expect_distributed_equals_one_process(const SolveOptions& o, const std::vector<std::string>& more) {
  const Batch<double> b = lorenz_batch<double>();
  const std::string folder = shared_folder();
  distributed::DistributedSolver<Lorenz, double> solver(world(), Lorenz{}, o);
  const DistributedResult<double> gathered = solver.solve(b);
  distributed::DistributedOptions how;
  how.h5_path = folder + "/distributed.h5";
  how.h5_meta = lorenz_meta(b);
  (void)solver.solve(b, how);
  EXPECT_EQ(gathered.not_solved, 0u);
  if (world().rank() == 0) {
    Solver<Lorenz, double> one(Lorenz{}, o);
    const SolveResult<double> reference = one.solve(b);
    const SolveResult<double>& r = gathered.result;
    EXPECT_EQ(r.series_states(), reference.series_states());
    EXPECT_EQ(r.times(), reference.times());
    EXPECT_EQ(r.times_per_run(), reference.times_per_run());
    EXPECT_EQ(r.summary_variables(), reference.summary_variables());
    auto same = [](const auto& x, const auto& y, const char* what) {
      EXPECT_EQ(x.size(), y.size()) << what;
      const bool equal = x.size() == y.size() &&
                         (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(*x.data())) == 0);
      EXPECT_TRUE(equal) << what;
    };
    same(r.final_state(), reference.final_state(), "final_state");
    same(r.series(), reference.series(), "series");
    same(r.summaries(), reference.summaries(), "summaries");
    same(r.statuses(), reference.statuses(), "statuses");
    same(r.stop_times(), reference.stop_times(), "stop_times");
    write_h5(reference, folder + "/one_process.h5", one.options(), lorenz_meta(b));
    expect_same_file(how.h5_path, folder + "/one_process.h5", more);
  }
  (void)world().allgather("");
  if (world().rank() == 0) std::filesystem::remove_all(folder);
}

// Ensemble statistics (issue 52) with no series kept: each process's runs reduced (their quantile
// sketches sized for the whole batch, or they would not merge) and merged on the root in rank order,
// equal to one process's (counts, min, max, histograms and the exact quantiles of these few runs alike,
// means and variances to rounding); the file written by all holds the root's as /statistics.
TEST(DistributedSolve, StatisticsMergedOnTheRootEqualOneProcesss) {
  SolveOptions o = lorenz_options();
  o.outputs.series = false;
  o.statistics.metrics = {"count", "mean", "var", "std", "min", "max", "quantiles[0.1,0.5,0.9]", "histogram[8,-30,30]"};
  const Batch<double> b = lorenz_batch<double>();
  const std::string folder = shared_folder();
  distributed::DistributedSolver<Lorenz, double> solver(world(), Lorenz{}, o);
  const DistributedResult<double> gathered = solver.solve(b);
  distributed::DistributedOptions how;
  how.h5_path = folder + "/statistics.h5";
  how.h5_meta = lorenz_meta(b);
  const DistributedResult<double> written = solver.solve(b, how);
  if (world().rank() == 0) {
    const SolveResult<double> reference = one_process(b, o);
    ASSERT_NE(gathered.statistics, nullptr);
    ASSERT_NE(written.statistics, nullptr);
    EXPECT_EQ(gathered.result.statistics(), gathered.statistics.get());
    EXPECT_EQ(gathered.result.n_saves(), 0u);
    const EnsembleStatistics& expected = *reference.statistics();
    for (const EnsembleStatistics* s : {gathered.statistics.get(), written.statistics.get()}) {
      batchode::testing::expect_same_statistics(*s, expected, std::to_string(world().size()) + " processes");
      EXPECT_EQ(s->quantiles(), expected.quantiles());
      EXPECT_EQ(s->histogram(), expected.histogram());
    }
    const hid_t file = H5Fopen(how.h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    std::vector<hsize_t> dims;
    const std::vector<char> mean = read_dataset(file, "statistics/mean", H5T_NATIVE_DOUBLE, 8, dims);
    H5Fclose(file);
    EXPECT_EQ(dims, (std::vector<hsize_t>{expected.n_saves(), 3}));
    const std::vector<double> merged = written.statistics->mean();
    EXPECT_EQ(mean.size(), merged.size() * sizeof(double));
    EXPECT_TRUE(mean.size() == merged.size() * sizeof(double) &&
                std::memcmp(mean.data(), merged.data(), mean.size()) == 0);
  } else {
    EXPECT_EQ(gathered.statistics, nullptr);
  }
  (void)world().allgather("");
  if (world().rank() == 0) std::filesystem::remove_all(folder);
}

// Each run's own save times and a series of chosen states: each process solves its runs' rows.
TEST(DistributedSolve, PerRunSaveTimesAndChosenVariablesEqualOneProcess) {
  SolveOptions o = lorenz_options();
  o.outputs.status = true;
  o.save_every.reset();
  std::vector<double> times;
  for (std::size_t r = 0; r < n_runs; ++r) times.insert(times.end(), {0.1 + 0.002 * r, 0.7, 1.5 - 0.004 * r});
  o.save_at_per_run = PerRunSaveTimes(3, times);
  o.save_variables = {"y2", "y0"};
  expect_distributed_equals_one_process(o, {"t_stop"});
}

// Summaries: gathered, and written into the one file as write_h5 writes them.
TEST(DistributedSolve, SummariesEqualOneProcess) {
  SolveOptions o = lorenz_options();
  o.outputs.status = true;
  o.summaries.metrics = {"mean", "extrema"};
  o.summaries.summarise_every = 0.5;
  o.summaries.sample_summaries_every = 0.05;
  expect_distributed_equals_one_process(o, {"summaries/mean", "summaries/extrema"});
}

/// A Solver whose solve fails on the processes `fails` says (a GPU error without fallback, say).
template <class T>
distributed::LocalSolver<T> failing_on(Solver<Lorenz, T>& solver, bool fails) {
  distributed::LocalSolver<T> l = distributed::local_solver(solver);
  if (fails) {
    l.solve = [](const T*, const T*, distributed::RunRange) -> SolveResult<T> {
      throw std::runtime_error("simulated device failure");
    };
  }
  return l;
}

TEST(DistributedSolve, AFailedProcessIsNamedAndItsRunsAreSolvedByTheOthers) {
  const Batch<double> b = lorenz_batch<double>();
  const SolveOptions o = lorenz_options();
  const SolveResult<double> reference = one_process(b, o);
  const int failing = world().size() > 1 ? 1 : -1;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const distributed::LocalSolver<double> local = failing_on(solver, world().rank() == failing);
  const DistributedResult<double> r = distributed::solve_distributed<double>(
      world(), local, {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, o);
  if (failing < 0) return;  // one process: nothing fails
  EXPECT_NE(r.ranks[failing].error.find("rank 1 on "), std::string::npos) << r.ranks[failing].error;
  EXPECT_NE(r.ranks[failing].error.find("simulated device failure"), std::string::npos);
  EXPECT_EQ(r.not_solved, 0u);
  std::size_t taken = 0;
  for (const distributed::RankReport& report : r.ranks) {
    for (const RunRange& piece : report.takeovers) taken += piece.runs;
  }
  EXPECT_EQ(taken, r.ranks[failing].share.runs);
  if (world().rank() == 0) {
    expect_rows_equal(r.result, reference, RunRange{0, n_runs});
  }
}

TEST(DistributedSolve, AFailedProcessesRunsAreInTheFileToo) {
  const Batch<double> b = lorenz_batch<double>();
  const SolveOptions o = lorenz_options();
  const std::string folder = shared_folder();
  const int failing = world().size() > 1 ? world().size() - 1 : -1;
  Solver<Lorenz, double> solver(Lorenz{}, o);
  distributed::DistributedOptions how;
  how.h5_path = folder + "/distributed.h5";
  how.h5_meta = lorenz_meta(b);
  (void)distributed::solve_distributed<double>(world(), failing_on(solver, world().rank() == failing),
                                       {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, o, how);
  if (world().rank() == 0) {
    write_h5(one_process(b, o), folder + "/one_process.h5", o, lorenz_meta(b));
    expect_same_file(how.h5_path, folder + "/one_process.h5");
  }
  (void)world().allgather("");
  if (world().rank() == 0) std::filesystem::remove_all(folder);
}

TEST(DistributedSolve, RunsNoProcessCouldSolveHaveARowAndStatusNotSolved) {
  const Batch<double> b = lorenz_batch<double>();
  const SolveOptions o = lorenz_options();
  Solver<Lorenz, double> solver(Lorenz{}, o);
  const DistributedResult<double> r = distributed::solve_distributed<double>(
      world(), failing_on(solver, true), {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, o);
  EXPECT_EQ(r.not_solved, n_runs);
  for (const distributed::RankReport& report : r.ranks) {
    EXPECT_EQ(report.error.empty(), report.share.runs == 0) << report.error;
  }
  if (world().rank() == 0) {
    EXPECT_EQ(r.result.n_runs(), n_runs);
    EXPECT_EQ(r.result.count(Status::not_solved), n_runs);
    EXPECT_TRUE(std::isnan(r.result.final_state(n_runs - 1, 2)));
    EXPECT_EQ(to_string(Status::not_solved), "not_solved");
  }
}

TEST(DistributedSolve, SharesFollowEachProcesssPredictedThroughput) {
  const Batch<double> b = lorenz_batch<double>();
  const SolveOptions o = lorenz_options();
  Solver<Lorenz, double> solver(Lorenz{}, o);
  distributed::LocalSolver<double> local = distributed::local_solver(solver);
  // Process 0 predicts ten times the throughput of the others (a GPU among CPU-only processes).
  const double ms = world().rank() == 0 ? 1.0 : 10.0;
  local.predict_ms = [ms](const double*, const double*, std::size_t) { return ms; };
  local.capability = world().rank() == 0 ? "gpu (pretended)" : "cpu x1";  // unlike: predicted
  const DistributedResult<double> r = distributed::solve_distributed<double>(
      world(), local, {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, o);
  std::vector<double> rates(static_cast<std::size_t>(world().size()), n_runs / 10.0);
  rates[0] = n_runs / 1.0;
  const std::vector<RunRange> expected = distributed::split_by_rate(rates, n_runs);
  for (int k = 0; k < world().size(); ++k) {
    EXPECT_EQ(r.ranks[k].share.runs, expected[k].runs) << "rank " << k;
    // One process is alike with itself: nothing predicted.
    EXPECT_DOUBLE_EQ(r.ranks[k].predicted_ms, world().size() == 1 ? 0.0 : k == 0 ? 1.0 : 10.0);
  }
  if (world().size() == 3) {  // 101 * (10, 1, 1) / 12 = 84.2, 8.4, 8.4: the one left goes to rank 1
    EXPECT_EQ(r.ranks[0].share.runs, 84u);
    EXPECT_EQ(r.ranks[1].share.runs, 9u);
  }
}

TEST(DistributedSolve, AlikeProcessesShareEvenlyWithoutPredicting) {
  const Batch<double> b = lorenz_batch<double>();
  const SolveOptions o = lorenz_options();
  Solver<Lorenz, double> solver(Lorenz{}, o);
  distributed::LocalSolver<double> local = distributed::local_solver(solver);
  EXPECT_EQ(local.capability, "cpu x1");
  local.predict_ms = [](const double*, const double*, std::size_t) -> double {
    throw std::logic_error("alike processes need no prediction");
  };
  const DistributedResult<double> r = distributed::solve_distributed<double>(
      world(), local, {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, o);
  const std::vector<RunRange> even =
      distributed::split_by_rate(std::vector<double>(static_cast<std::size_t>(world().size()), 1.0), n_runs);
  for (int k = 0; k < world().size(); ++k) {
    EXPECT_EQ(r.ranks[k].share.runs, even[k].runs);
    EXPECT_EQ(r.ranks[k].predicted_ms, 0.0);
    EXPECT_EQ(r.ranks[k].capability, "cpu x1");
  }
}

TEST(DistributedSolve, BadInputIsRejectedEverywhereWithOneMessageBeforeAnyWork) {
  const SolveOptions o = lorenz_options();
  distributed::DistributedSolver<Lorenz, double> solver(world(), Lorenz{}, o);
  {  // NaN in one run: only the process whose slice holds it sees it, every process reports it
    Batch<double> b = lorenz_batch<double>();
    b.y0[57 * 3 + 1] = std::numeric_limits<double>::quiet_NaN();
    const std::string message = batchode::testing::invalid_input_message([&] { solver.solve(b); });
    EXPECT_NE(message.find("57"), std::string::npos) << message;
    for (const std::string& m : messages_everywhere(message)) EXPECT_EQ(m, message);
  }
  {  // an empty batch
    const std::string message = batchode::testing::invalid_input_message([&] { solver.solve(std::vector<double>{}, {}); });
    EXPECT_NE(message.find("empty batch"), std::string::npos) << message;
    for (const std::string& m : messages_everywhere(message)) EXPECT_EQ(m, message);
  }
  {  // sizes that do not match the system
    Batch<double> b = lorenz_batch<double>();
    b.y0.pop_back();
    const std::string message = batchode::testing::invalid_input_message([&] { solver.solve(b); });
    for (const std::string& m : messages_everywhere(message)) EXPECT_EQ(m, message);
  }
  if (world().size() > 1) {  // a different batch on one process (random values without one seed)
    Batch<double> b = lorenz_batch<double>();
    if (world().rank() == 1) b.params[4] += 1e-9;
    const std::string message = batchode::testing::invalid_input_message([&] { solver.solve(b); });
    EXPECT_NE(message.find("different batches"), std::string::npos) << message;
    for (const std::string& m : messages_everywhere(message)) EXPECT_EQ(m, message);
  }
  {  // a root that is not a rank
    distributed::DistributedOptions how;
    how.root = world().size();
    const std::string message = batchode::testing::invalid_input_message([&] { solver.solve(lorenz_batch<double>(), how); });
    EXPECT_NE(message.find("is not a rank"), std::string::npos) << message;
  }
  {  // an unwritable file: bad input the root finds (files::check_output_path), thrown everywhere
    distributed::DistributedOptions how;
    how.h5_path = "/nonexistent-folder/out.h5";
    const std::string message = batchode::testing::invalid_input_message([&] { solver.solve(lorenz_batch<double>(), how); });
    EXPECT_NE(message.find("'/nonexistent-folder/out.h5': the folder '/nonexistent-folder' does not exist"),
              std::string::npos) << message;  // (with more than one process, named by the root's rank and host)
    for (const std::string& m : messages_everywhere(message)) EXPECT_EQ(m, message);
  }
}

TEST(DistributedSolve, TimingCoversEveryProcessWithImbalance) {
  TimeLogger logger(nullptr, Verbosity::normal);
  SolveOptions o = lorenz_options();
  o.verbosity.reset();  // the logger's level
  distributed::DistributedSolver<Lorenz, double> solver(world(), Lorenz{}, o, logger);
  distributed::DistributedOptions how;
  how.print_summary = false;
  const DistributedResult<double> r = solver.solve(lorenz_batch<double>(), how);
  EXPECT_EQ(r.timing.ranks, world().size());
  EXPECT_EQ(r.timing.hosts.size(), static_cast<std::size_t>(world().size()));
  for (const char* label : {"mpi_distributed_solve", "mpi_input_agreement", "mpi_share_planning",
                            "mpi_local_solve", "mpi_gather", "solver_solve_execution"}) {
    const distributed::RankTimingRow* row = r.timing.find(label);
    EXPECT_NE(row, nullptr) << label;
    if (row == nullptr) continue;
    EXPECT_EQ(row->total_ms.size(), static_cast<std::size_t>(world().size()));
    EXPECT_LE(row->min_ms, row->mean_ms);
    EXPECT_LE(row->mean_ms, row->max_ms);
    EXPECT_GE(row->imbalance, 1.0);
    EXPECT_EQ(row->total_ms[row->slowest_rank], row->max_ms);
  }
  EXPECT_NE(r.timing.to_json().find("\"imbalance\""), std::string::npos);
  EXPECT_NE(r.timing.to_text().find("mpi_local_solve"), std::string::npos);
}

TEST(Shares, ProportionalToRatesAndCoverTheBatch) {
  const std::vector<RunRange> even = distributed::split_by_rate({1, 1, 1}, 10);
  EXPECT_EQ(even[0].runs + even[1].runs + even[2].runs, 10u);
  EXPECT_EQ(even[1].first_run, even[0].runs);
  const std::vector<RunRange> gpu_and_cpu = distributed::split_by_rate({9, 1}, 1000);
  EXPECT_EQ(gpu_and_cpu[0].runs, 900u);
  EXPECT_EQ(gpu_and_cpu[1].runs, 100u);
  const std::vector<RunRange> dead = distributed::split_by_rate({0, 2, std::nan("")}, 7);
  EXPECT_EQ(dead[0].runs, 0u);
  EXPECT_EQ(dead[1].runs, 7u);
  EXPECT_EQ(dead[2].runs, 0u);
  const std::vector<RunRange> none = distributed::split_by_rate({0, 0}, 3);
  EXPECT_EQ(none[0].runs + none[1].runs, 3u);
  const std::vector<RunRange> shifted = distributed::split_range_by_rate({1, 1}, RunRange{40, 5});
  EXPECT_EQ(shifted[0].first_run, 40u);
  EXPECT_EQ(shifted[1].first_run + shifted[1].runs, 45u);
}

TEST(RankTiming, MinMeanMaxAndImbalanceFromEveryProcesssTotals) {
  const distributed::RankTimingSummary s =
      distributed::summarise_totals({"solve\tsolver\t10\nwrite\tio\t1\n", "solve\tsolver\t30\n"}, {"a", "b"});
  const distributed::RankTimingRow* solve = s.find("solve");
  EXPECT_NE(solve, nullptr);
  if (solve != nullptr) {
    EXPECT_DOUBLE_EQ(solve->min_ms, 10);
    EXPECT_DOUBLE_EQ(solve->mean_ms, 20);
    EXPECT_DOUBLE_EQ(solve->max_ms, 30);
    EXPECT_DOUBLE_EQ(solve->imbalance, 1.5);
    EXPECT_EQ(solve->slowest_rank, 1);
  }
  const distributed::RankTimingRow* write = s.find("write");
  EXPECT_NE(write, nullptr);
  if (write != nullptr) {
    EXPECT_DOUBLE_EQ(write->min_ms, 0);  // rank b never wrote
  }
}

}  // namespace

int main(int argc, char** argv) {
  batchode::mpi::MpiSession session(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  // A process whose tests failed fails the job: mpiexec returns non-zero when any process does.
  return failed;
}
