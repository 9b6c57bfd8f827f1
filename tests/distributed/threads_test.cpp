// tests/distributed/: the distributed algorithm with threads for processes (a Collective over one
// process's memory), so it also runs where MPI is not built: in the sanitized variant, where AddressSanitizer
// and UBSan watch the gather, the takeover of a failed share and the file written in rows. The same
// checks as tests/mpi/ (which run it under mpiexec): results equal one Solver's, run by run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "batchode/distributed/distributed_solve.hpp"
#include "batchode/solver/results/result_h5.hpp"
#include "distributed_lorenz.hpp"
#include "statistics_compare.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Lorenz;
using distributed::RunRange;

/// What the threads of a team share: a barrier and a mailbox per rank.
class Team {
 public:
  explicit Team(int size) : size_(size), texts_(static_cast<std::size_t>(size)), data_(static_cast<std::size_t>(size)) {}

  void barrier() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t generation = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++generation_;
      woken_.notify_all();
    } else {
      woken_.wait(lock, [&] { return generation_ != generation; });
    }
  }

  int size_;
  std::mutex mutex_;
  std::condition_variable woken_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  std::vector<std::string> texts_;
  std::vector<const void*> data_;
};

class ThreadCollective final : public distributed::Collective {
 public:
  ThreadCollective(Team& team, int rank) : team_(team), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return team_.size_; }
  int local_rank() const override { return rank_; }
  int local_size() const override { return team_.size_; }

  std::vector<std::string> allgather(const std::string& text) override {
    {
      std::lock_guard<std::mutex> lock(team_.mutex_);
      team_.texts_[rank_] = text;
    }
    team_.barrier();
    std::vector<std::string> all;
    {
      std::lock_guard<std::mutex> lock(team_.mutex_);
      all = team_.texts_;
    }
    team_.barrier();  // nobody writes the next round's text before everyone has read this one
    return all;
  }

  void gather(const void* data, std::size_t, void* into, const std::vector<std::uint64_t>& bytes_by_rank,
              int root) override {
    {
      std::lock_guard<std::mutex> lock(team_.mutex_);
      team_.data_[rank_] = data;
    }
    team_.barrier();
    if (rank_ == root) {
      char* out = static_cast<char*>(into);
      for (int r = 0; r < team_.size_; ++r) {
        if (bytes_by_rank[r] > 0) std::memcpy(out, team_.data_[r], bytes_by_rank[r]);
        out += bytes_by_rank[r];
      }
    }
    team_.barrier();  // the senders' buffers stay alive until the root has copied them
  }

  [[noreturn]] void abort(const std::string& why) override {
    std::fprintf(stderr, "%s\n", why.c_str());
    std::abort();
  }

  std::string write_at_all(const std::string& path, const std::vector<distributed::FilePiece>& pieces) override {
    std::string error;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) error = "open: " + std::string(std::strerror(errno));
    for (const distributed::FilePiece& p : pieces) {
      if (fd >= 0 && ::pwrite(fd, p.data, p.bytes, static_cast<off_t>(p.offset)) != static_cast<ssize_t>(p.bytes)) {
        error = "pwrite failed";
      }
    }
    if (fd >= 0) ::close(fd);
    team_.barrier();
    return error;
  }

 private:
  Team& team_;
  int rank_;
};

constexpr int processes = 3;
constexpr std::size_t n_runs = 50;

SolveOptions options() { return batchode::testing::distributed_lorenz_options(); }

Batch<double> batch() { return batchode::testing::distributed_lorenz_batch<double>(n_runs); }

/// Runs `body(collective)` on `count` threads and returns each thread's result.
template <class Result>
std::vector<Result> on_threads(const std::function<Result(distributed::Collective&)>& body, int count = processes) {
  Team team(count);
  std::vector<Result> results(static_cast<std::size_t>(count));
  std::vector<std::thread> threads;
  for (int r = 0; r < count; ++r) {
    threads.emplace_back([&, r] {
      ThreadCollective c(team, r);
      results[r] = body(c);
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

/// `a` holds every run of `b`, bit for bit.
void expect_equal(const SolveResult<double>& a, const SolveResult<double>& b) {
  batchode::testing::expect_runs_equal(a, b, 0, b.n_runs());
}

using Outcome = std::shared_ptr<distributed::DistributedResult<double>>;

/// Lorenz with x's zero crossings as an event (both ways; the Solver records the first of each run).
struct LorenzXZero : Lorenz {
  static constexpr std::size_t n_events = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* g) const {
    g[0] = y[0];
  }
};

template <class System = Lorenz>
Outcome solve_on(distributed::Collective& c, bool fails, const distributed::DistributedOptions& how = {}) {
  const Batch<double> b = batch();
  Solver<System, double> solver(System{}, options());
  distributed::LocalSolver<double> local = distributed::local_solver(solver);
  if (fails) {
    local.solve = [](const double*, const double*, RunRange) -> SolveResult<double> {
      throw std::runtime_error("simulated device failure");
    };
  }
  return std::make_shared<distributed::DistributedResult<double>>(distributed::solve_distributed<double>(
      c, local, {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, solver.options(), how));
}

TEST(DistributedOnThreads, GatheredResultEqualsOneSolver) {
  Solver<Lorenz, double> one(Lorenz{}, options());
  const SolveResult<double> reference = one.solve(batch());
  const std::vector<Outcome> r =
      on_threads<Outcome>([](distributed::Collective& c) { return solve_on(c, false); });
  expect_equal(r[0]->result, reference);
  EXPECT_EQ(r[0]->not_solved, 0u);
  EXPECT_EQ(r[1]->local.first_run, r[1]->ranks[1].share.first_run);
}

TEST(DistributedOnThreads, AFailedShareIsSolvedByTheOthers) {
  Solver<Lorenz, double> one(Lorenz{}, options());
  const SolveResult<double> reference = one.solve(batch());
  const std::vector<Outcome> r =
      on_threads<Outcome>([](distributed::Collective& c) { return solve_on(c, c.rank() == 1); });
  expect_equal(r[0]->result, reference);
  EXPECT_NE(r[0]->ranks[1].error.find("simulated device failure"), std::string::npos);
  EXPECT_EQ(r[0]->not_solved, 0u);
}

TEST(DistributedOnThreads, EveryShareFailingLeavesRowsNotSolved) {
  const std::vector<Outcome> r = on_threads<Outcome>([](distributed::Collective& c) { return solve_on(c, true); });
  EXPECT_EQ(r[0]->not_solved, n_runs);
  EXPECT_EQ(r[0]->result.count(Status::not_solved), n_runs);
}

/// Lorenz with one observable, x + y (saved beside the state at every save).
struct LorenzSum : Lorenz {
  static constexpr std::size_t n_observables = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T, const T* y, const T*, T* out) const {
    out[0] = y[0] + y[1];
  }
};

// Observables are gathered with the rest, a failed share's taken over, run by run as one Solver's.
TEST(DistributedOnThreads, ObservablesAreGatheredRunByRun) {
  Solver<LorenzSum, double> one(LorenzSum{}, options());
  const SolveResult<double> reference = one.solve(batch());
  ASSERT_GT(reference.observables().size(), 0u);
  const std::vector<Outcome> r =
      on_threads<Outcome>([](distributed::Collective& c) { return solve_on<LorenzSum>(c, c.rank() == 1); });
  const SolveResult<double>& gathered = r[0]->result;
  EXPECT_EQ(gathered.observable_names(), reference.observable_names());
  ASSERT_EQ(gathered.observables().size(), reference.observables().size());
  for (std::size_t v = 0; v < reference.observables().size(); ++v) {
    ASSERT_EQ(gathered.observables()[v], reference.observables()[v]) << v;
  }
}

/// `a` and `b` hold the same runs, bit for bit (NaN where the other has the same NaN): final states,
/// series of the same columns, observables, summaries, statuses, stop times, counters, save times.
void expect_same_result(const SolveResult<double>& a, const SolveResult<double>& b) {
  auto same = [](const auto& x, const auto& y, const char* what) {
    ASSERT_EQ(x.size(), y.size()) << what;
    if (x.empty()) return;  // memcmp of an empty vector's null data is undefined behaviour
    EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(*x.data()))) << what;
  };
  ASSERT_EQ(a.n_runs(), b.n_runs());
  EXPECT_EQ(a.n_saves(), b.n_saves());
  EXPECT_EQ(a.series_states(), b.series_states());
  EXPECT_EQ(a.observable_names(), b.observable_names());
  EXPECT_EQ(a.summary_variables(), b.summary_variables());
  EXPECT_EQ(a.times_per_run(), b.times_per_run());
  same(a.final_state(), b.final_state(), "final_state");
  same(a.series(), b.series(), "series");
  same(a.observables(), b.observables(), "observables");
  same(a.summaries(), b.summaries(), "summaries");
  same(a.statuses(), b.statuses(), "statuses");
  same(a.stop_times(), b.stop_times(), "stop_times");
  same(a.times(), b.times(), "times");
  ASSERT_EQ(a.counters().size(), b.counters().size());
  for (std::size_t r = 0; r < a.counters().size(); ++r) {
    EXPECT_EQ(a.counters(r).accepted_steps, b.counters(r).accepted_steps) << "run " << r;
  }
}

/// Dataset `name` of the .h5 file `path`, read as doubles (empty when it is not there).
std::vector<double> read_doubles(const std::string& path, const std::string& name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return {};
  std::vector<double> values;
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) {
    const hid_t set = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    const hid_t space = H5Dget_space(set);
    values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    if (H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) values.clear();
    H5Sclose(space);
    H5Dclose(set);
  }
  H5Fclose(file);
  return values;
}

/// The datasets of `one`'s file (write_h5) and of the distributed solve's (written in rows) are equal.
void expect_same_files(const std::string& one, const std::string& rows, const std::vector<std::string>& datasets) {
  for (const std::string& name : datasets) {
    const std::vector<double> expected = read_doubles(one, name), got = read_doubles(rows, name);
    ASSERT_FALSE(expected.empty()) << name;
    ASSERT_EQ(got.size(), expected.size()) << name;
    EXPECT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(double))) << name;
  }
}

/// A batch of `system` with options `o` solved on 1, 2 and 3 threads (uneven shares where the runs do
/// not divide; on 3, thread 1's share fails and is taken over), gathered to the root and written in rows
/// into one .h5 file, equals one Solver's result (and its write_h5 file's `datasets`) run by run.
template <class System>
void expect_distributed_equals_one_solver(const System& system, const SolveOptions& o, const Batch<double>& b,
                                          const std::vector<std::string>& datasets, const std::string& stem) {
  Solver<System, double> one(system, o);
  const SolveResult<double> reference = one.solve(b);
  const std::string folder = (std::filesystem::temp_directory_path() /
                              ("batchode_threads_" + stem + "_" + std::to_string(::getpid())))
                                 .string();
  std::filesystem::create_directories(folder);
  write_h5(reference, folder + "/one.h5", one.options());
  for (int count = 1; count <= 3; ++count) {
    SCOPED_TRACE(std::to_string(count) + " processes");
    const int failing = count == 3 ? 1 : -1;
    distributed::DistributedOptions to_file;
    to_file.h5_path = folder + "/rows" + std::to_string(count) + ".h5";
    for (const distributed::DistributedOptions& how : {distributed::DistributedOptions{}, to_file}) {
      const std::vector<Outcome> r = on_threads<Outcome>(
          [&](distributed::Collective& c) {
            Solver<System, double> solver(system, o);
            distributed::LocalSolver<double> local = distributed::local_solver(solver);
            if (c.rank() == failing) {
              local.solve = [](const double*, const double*, RunRange) -> SolveResult<double> {
                throw std::runtime_error("simulated device failure");
              };
            }
            return std::make_shared<distributed::DistributedResult<double>>(distributed::solve_distributed<double>(
                c, local, {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, solver.options(), how));
          },
          count);
      EXPECT_EQ(r[0]->not_solved, 0u);
      if (how.h5_path.empty()) {
        expect_same_result(r[0]->result, reference);
        if (count > 1) {  // another process keeps its own share's rows, its own save times among them
          const RunRange share = r[count - 1]->local;
          EXPECT_EQ(r[count - 1]->result.n_runs(), share.runs);
          if (reference.times_per_run() && share.runs > 0) {
            EXPECT_EQ(r[count - 1]->result.time(0, 0), reference.time(share.first_run, 0));
          }
        }
      } else {
        expect_same_files(folder + "/one.h5", how.h5_path, datasets);
      }
    }
  }
  std::filesystem::remove_all(folder);
}

// Each run's own save times (SolveOptions::save_at_per_run): a share is solved with its runs' rows.
// Ensemble statistics (issue 52) with no series kept, on 3 threads, thread 1's share failing and taken
// over: each process's runs reduced, sent as bytes and merged on the root; the root's equal one
// Solver's (counts, min, max, the exact quantiles of these few runs and histograms alike, means and
// variances to rounding), gathered and in the file written in rows (its /statistics the root's). A
// histogram without a range is refused on every process: theirs would not merge.
TEST(DistributedOnThreads, StatisticsMergedOnTheRootEqualOneSolvers) {
  SolveOptions o = options();
  o.outputs.series = false;
  o.statistics.metrics = {"count", "mean", "var", "std", "min", "max", "quantiles[0.1,0.5,0.9]", "histogram[8,-30,30]"};
  Solver<LorenzSum, double> one(LorenzSum{}, o);
  const SolveResult<double> reference = one.solve(batch());
  ASSERT_NE(reference.statistics(), nullptr);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("batchode_threads_statistics_" + std::to_string(::getpid()) + ".h5"))
                               .string();
  for (const bool to_file : {false, true}) {
    SCOPED_TRACE(to_file ? "written in rows" : "gathered");
    const std::vector<Outcome> r = on_threads<Outcome>([&](distributed::Collective& c) {
      const Batch<double> b = batch();
      Solver<LorenzSum, double> solver(LorenzSum{}, o);
      distributed::LocalSolver<double> local = distributed::local_solver(solver);
      if (c.rank() == 1) {
        local.solve = [](const double*, const double*, RunRange) -> SolveResult<double> {
          throw std::runtime_error("simulated device failure");
        };
      }
      distributed::DistributedOptions how;
      if (to_file) how.h5_path = path;
      return std::make_shared<distributed::DistributedResult<double>>(distributed::solve_distributed<double>(
          c, local, {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, o, how));
    });
    ASSERT_NE(r[0]->statistics, nullptr);
    EXPECT_EQ(r[1]->statistics, nullptr);
    EXPECT_NE(r[0]->ranks[1].error.find("simulated device failure"), std::string::npos);
    const EnsembleStatistics& merged = *r[0]->statistics;
    const EnsembleStatistics& expected = *reference.statistics();
    batchode::testing::expect_same_statistics(merged, expected, "3 processes");
    EXPECT_EQ(merged.quantiles(), expected.quantiles());
    EXPECT_EQ(merged.quantile_rank_error(), 0.0);  // every value kept: exact order statistics
    EXPECT_EQ(merged.histogram(), expected.histogram());
    EXPECT_EQ(merged.histogram_below(), expected.histogram_below());
    EXPECT_EQ(merged.histogram_above(), expected.histogram_above());
    if (to_file) {
      EXPECT_EQ(read_doubles(path, "statistics/mean"), merged.mean());
      EXPECT_EQ(read_doubles(path, "statistics/quantiles"), merged.quantiles());
      EXPECT_TRUE(read_doubles(path, "series").empty());  // the series fed the statistics alone
      EXPECT_EQ(read_doubles(path, "final_state"), std::vector<double>(reference.final_state().begin(),
                                                                       reference.final_state().end()));
    } else {
      EXPECT_EQ(r[0]->result.statistics(), r[0]->statistics.get());
      EXPECT_EQ(r[0]->result.n_saves(), 0u);
      expect_equal(r[0]->result, reference);
    }
  }
  std::filesystem::remove(path);
  o.statistics.metrics = {"mean", "histogram[8]"};
  const std::vector<std::string> errors = on_threads<std::string>([&](distributed::Collective& c) {
    try {
      const Batch<double> b = batch();
      Solver<Lorenz, double> solver(Lorenz{}, o);
      (void)distributed::solve_distributed<double>(c, distributed::local_solver(solver),
                                                   {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, o);
    } catch (const InvalidInput& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  });
  for (const std::string& e : errors) EXPECT_NE(e.find("give histogram[bins,low,high]"), std::string::npos) << e;
}

TEST(DistributedOnThreads, PerRunSaveTimesEqualOneSolver) {
  SolveOptions o = options();
  o.save_every.reset();
  o.outputs.status = true;
  std::vector<double> times;
  for (std::size_t r = 0; r < n_runs; ++r) times.insert(times.end(), {0.1 + 0.005 * r, 0.7, 1.5 - 0.01 * r});
  o.save_at_per_run = PerRunSaveTimes(3, times);
  expect_distributed_equals_one_solver(Lorenz{}, o, batch(), {"final_state", "series", "t", "t_stop"}, "per_run_t");
}

// Summaries: a share's rows of n_runs x windows x values, gathered and written as write_h5 writes them.
TEST(DistributedOnThreads, SummariesEqualOneSolver) {
  SolveOptions o = options();
  o.outputs.status = true;
  o.summaries.metrics = {"mean", "extrema", "peaks[2]"};
  o.summaries.summarise_every = 0.5;
  o.summaries.sample_summaries_every = 0.05;
  expect_distributed_equals_one_solver(
      LorenzSum{}, o, batch(),
      {"final_state", "series", "t", "observables", "summaries/mean", "summaries/extrema", "summaries/peaks"},
      "summaries");
}

// A series of chosen variables (SolveOptions::save_variables): a state and the observable.
TEST(DistributedOnThreads, SaveVariablesEqualOneSolver) {
  SolveOptions o = options();
  o.save_variables = {"y2", "y0"};
  const Solver<LorenzSum, double> probe(LorenzSum{}, o);
  ASSERT_EQ(probe.series_layout().states.size(), 2u);
  o.save_variables.push_back(probe.observable_names().at(0));
  expect_distributed_equals_one_solver(LorenzSum{}, o, batch(), {"final_state", "series", "t", "observables"},
                                       "save_variables");
}

// Per-run drivers: each share fits its own runs' samples; shared ones are every process's own copy.
/// 7 runs of ForcedDecay (shares of 4 + 3 and 3 + 2 + 2) and options with a shared driver v and a
/// per-run driver u of `u_rows` rows of 3 samples.
std::pair<Batch<double>, SolveOptions> forced_batch(std::size_t u_rows) {
  const std::size_t runs = 7;
  Batch<double> b;
  b.y0.assign(runs, 1.0);
  for (std::size_t r = 0; r < runs; ++r) b.params.insert(b.params.end(), {0.5 + 0.1 * r, 1.0});
  SolveOptions o = options();
  DriverSpec u, v;
  u.name = "u";
  v.name = "v";
  u.dt = v.dt = 1.0;
  v.values = {0.0, 1.0, 0.5};
  u.n_samples = 3;
  for (std::size_t r = 0; r < u_rows; ++r) u.values.insert(u.values.end(), {double(r), 0.0, -double(r)});
  o.drivers = {u, v};
  return {b, o};
}

TEST(DistributedOnThreads, PerRunDriversEqualOneSolver) {
  auto [b, o] = forced_batch(7);
  o.t_end = 2;
  o.outputs.status = true;
  expect_distributed_equals_one_solver(batchode::testing::ForcedDecay{}, o, b,
                                       {"final_state", "series", "t", "observables", "t_stop"}, "drivers");
}

// Per-run driver samples for another number of runs than the batch's are refused on every process
// before any work (the processes slice them by run: one with too few rows would otherwise fail alone).
TEST(DistributedOnThreads, PerRunDriverRowsForAnotherBatchAreRefusedOnEveryProcess) {
  const std::pair<Batch<double>, SolveOptions> job = forced_batch(5);  // (no structured binding: a lambda uses it)
  const Batch<double>& b = job.first;
  const SolveOptions& o = job.second;
  for (int count : {2, 3}) {
    SCOPED_TRACE(std::to_string(count) + " processes");
    const std::vector<std::string> said = on_threads<std::string>(
        [&](distributed::Collective& c) {
          try {
            Solver<batchode::testing::ForcedDecay, double> solver(batchode::testing::ForcedDecay{}, o);
            distributed::LocalSolver<double> local = distributed::local_solver(solver);
            distributed::solve_distributed<double>(
                c, local, {b.y0.data(), b.y0.size(), b.params.data(), b.params.size()}, solver.options(), {});
            return std::string("solved");
          } catch (const InvalidInput& e) {
            return std::string(e.what());
          }
        },
        count);
    ASSERT_EQ(said.size(), static_cast<std::size_t>(count));
    for (const std::string& what : said) {
      EXPECT_NE(what.find("drivers['u'] has samples for 5 runs (one set per run) but the batch has 7 runs"),
                std::string::npos)
          << what;
    }
  }
}

// Event records are gathered with the rest, a failed share's taken over, run by run as one Solver's;
// runs nobody solved have no crossings (NaN records, zero counts); the file written in rows holds each
// event's columns, the failed share's rows included.
TEST(DistributedOnThreads, EventRecordsAreGatheredRunByRun) {
  Solver<LorenzXZero, double> one(LorenzXZero{}, options());
  const SolveResult<double> reference = one.solve(batch());
  ASSERT_EQ(reference.n_events(), 1u);
  std::size_t fired = 0;
  for (std::size_t r = 0; r < n_runs; ++r) fired += reference.event_count(r, 0) > 0;
  EXPECT_GT(fired, 0u);
  const std::vector<Outcome> r =
      on_threads<Outcome>([](distributed::Collective& c) { return solve_on<LorenzXZero>(c, c.rank() == 1); });
  expect_equal(r[0]->result, reference);
  EXPECT_EQ(r[0]->result.event_names(), reference.event_names());

  const std::vector<Outcome> failed =
      on_threads<Outcome>([](distributed::Collective& c) { return solve_on<LorenzXZero>(c, true); });
  for (std::size_t i = 0; i < n_runs; ++i) {
    EXPECT_EQ(failed[0]->result.event_count(i, 0), 0u);
    EXPECT_TRUE(std::isnan(failed[0]->result.event_time(i, 0, 0)));
  }

  // The one file written in rows: each event's columns, a failed share's rows taken over.
  distributed::DistributedOptions how;
  how.h5_path = (std::filesystem::temp_directory_path() /
                 ("batchode_threads_events_" + std::to_string(::getpid()) + ".h5"))
                    .string();
  (void)on_threads<Outcome>([&](distributed::Collective& c) { return solve_on<LorenzXZero>(c, c.rank() == 2, how); });
  const hid_t file = H5Fopen(how.h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::vector<double> t(n_runs), state(n_runs * 3);
  std::vector<std::uint32_t> count(n_runs);
  const hid_t t_set = H5Dopen2(file, "events/event0/t", H5P_DEFAULT);
  const hid_t state_set = H5Dopen2(file, "events/event0/state", H5P_DEFAULT);
  const hid_t count_set = H5Dopen2(file, "events/event0/count", H5P_DEFAULT);
  EXPECT_GE(H5Dread(t_set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.data()), 0);
  EXPECT_GE(H5Dread(state_set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, state.data()), 0);
  EXPECT_GE(H5Dread(count_set, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, count.data()), 0);
  for (hid_t set : {t_set, state_set, count_set}) H5Dclose(set);
  H5Fclose(file);
  for (std::size_t i = 0; i < n_runs; ++i) {
    const double expected = reference.event_time(i, 0, 0);
    EXPECT_TRUE(t[i] == expected || (std::isnan(t[i]) && std::isnan(expected))) << "run " << i;
    EXPECT_TRUE(state[3 * i + 1] == reference.event_state(i, 0, 0, 1) || std::isnan(expected)) << "run " << i;
    EXPECT_EQ(count[i], reference.event_count(i, 0)) << "run " << i;
  }
  std::filesystem::remove(how.h5_path);
}

/// A distributed solve of System written in rows into one .h5 (thread 2's share failing, taken over by
/// the others) holds, read with HDF5, one Solver's final states, series and observables, if any.
template <class System>
void expect_file_in_rows_equals_one_solver(const std::string& stem) {
  const std::string folder = (std::filesystem::temp_directory_path() /
                              ("batchode_threads_" + stem + "_" + std::to_string(::getpid())))
                                 .string();
  std::filesystem::create_directories(folder);
  Solver<System, double> one(System{}, options());
  const SolveResult<double> reference = one.solve(batch());
  distributed::DistributedOptions how;
  how.h5_path = folder + "/" + stem + ".h5";
  (void)on_threads<Outcome>([&](distributed::Collective& c) { return solve_on<System>(c, c.rank() == 2, how); });
  const hid_t file = H5Fopen(how.h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::vector<std::pair<std::string, const ResultArray<double>*>> arrays = {{"final_state", &reference.final_state()},
                                                                            {"series", &reference.series()}};
  if (reference.n_observables() > 0) arrays.emplace_back("observables", &reference.observables());
  for (const auto& [name, array] : arrays) {
    const hid_t set = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    ASSERT_GE(set, 0) << name;
    const std::vector<double> expected(array->begin(), array->end());
    std::vector<double> values(expected.size());
    EXPECT_GE(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    EXPECT_EQ(values, expected) << name;
    H5Dclose(set);
  }
  H5Fclose(file);
  std::filesystem::remove_all(folder);
}

TEST(DistributedOnThreads, OneFileWrittenInRowsEqualsOneSolversFile) {
  expect_file_in_rows_equals_one_solver<Lorenz>("rows");
}

// The observables too: their rows follow the statuses' in the per-run arrays every process writes.
TEST(DistributedOnThreads, ObservablesAreWrittenInRowsIntoTheOneFile) {
  expect_file_in_rows_equals_one_solver<LorenzSum>("observables");
}

}  // namespace
