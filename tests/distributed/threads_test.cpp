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
#include "distributed_lorenz.hpp"
#include "test_systems.hpp"
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

/// Runs `body(collective)` on `processes` threads and returns each thread's result.
template <class Result>
std::vector<Result> on_threads(const std::function<Result(distributed::Collective&)>& body) {
  Team team(processes);
  std::vector<Result> results(processes);
  std::vector<std::thread> threads;
  for (int r = 0; r < processes; ++r) {
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
    local.solve = [](const double*, const double*, std::size_t) -> SolveResult<double> {
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

/// What solve_distributed says on process `c` of a batch of `system` with options `o`: the message
/// of the InvalidInput it throws, or "solved".
template <class System>
std::string distributed_refusal(distributed::Collective& c, const System& system, const SolveOptions& o,
                                const std::vector<double>& y0, const std::vector<double>& params) {
  try {
    Solver<System, double> solver(system, o);
    (void)distributed::solve_distributed<double>(c, distributed::local_solver(solver),
                                                 {y0.data(), y0.size(), params.data(), params.size()}, o);
  } catch (const InvalidInput& e) {
    return std::string(e.what());
  }
  return std::string("solved");
}

// Per-run save times are refused by name on every process, before any solve (not yet distributed).
TEST(DistributedOnThreads, PerRunSaveTimesAreRefusedByName) {
  const std::vector<std::string> errors = on_threads<std::string>([](distributed::Collective& c) {
    const Batch<double> b = batch();
    SolveOptions o = options();
    o.save_every.reset();
    o.save_at_per_run = PerRunSaveTimes(1, std::vector<double>(n_runs, 0.5));
    return distributed_refusal(c, Lorenz{}, o, b.y0, b.params);
  });
  for (const std::string& e : errors) EXPECT_NE(e.find("does not take per-run save times"), std::string::npos) << e;
}

// Summaries are refused by name on every process, before any solve (not yet distributed).
TEST(DistributedOnThreads, SummariesAreRefusedByName) {
  const std::vector<std::string> errors = on_threads<std::string>([](distributed::Collective& c) {
    const Batch<double> b = batch();
    SolveOptions o = options();
    o.save_every.reset();
    o.summaries.metrics = {"mean"};
    return distributed_refusal(c, Lorenz{}, o, b.y0, b.params);
  });
  for (const std::string& e : errors) EXPECT_NE(e.find("does not keep summaries"), std::string::npos) << e;
}

// A series of chosen variables is refused by name on every process, before any solve (not yet
// distributed: each process's rows would be every state's).
TEST(DistributedOnThreads, SaveVariablesAreRefusedByName) {
  const std::vector<std::string> errors = on_threads<std::string>([](distributed::Collective& c) {
    const Batch<double> b = batch();
    SolveOptions o = options();
    EXPECT_TRUE(o.save_every.has_value());
    o.save_variables = {"y2"};
    return distributed_refusal(c, Lorenz{}, o, b.y0, b.params);
  });
  for (const std::string& e : errors) {
    EXPECT_NE(e.find("does not choose the series' variables (SolveOptions.save_variables)"), std::string::npos) << e;
  }
}

// Per-run drivers are refused by name on every process, before any solve (each process would need
// its share's sets); shared ones are every process's own copy.
TEST(DistributedOnThreads, PerRunDriversAreRefusedByName) {
  const std::vector<std::string> errors = on_threads<std::string>([](distributed::Collective& c) {
    const std::size_t runs = 6;
    std::vector<double> y0(runs, 1.0), params;
    for (std::size_t r = 0; r < runs; ++r) params.insert(params.end(), {0.5, 1.0});
    SolveOptions o;
    o.backend = Backend::cpu;
    o.verbosity = Verbosity::none;
    DriverSpec u, v;
    u.name = "u";
    v.name = "v";
    u.dt = v.dt = 1.0;
    v.values = {0.0, 1.0};
    u.n_samples = 2;
    for (std::size_t r = 0; r < runs; ++r) u.values.insert(u.values.end(), {double(r), 0.0});
    o.drivers = {u, v};
    return distributed_refusal(c, batchode::testing::ForcedDecay{}, o, y0, params);
  });
  for (const std::string& e : errors) EXPECT_NE(e.find("does not take per-run drivers (drivers['u']"), std::string::npos) << e;
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
