// distributed/ (private): the phases of solve_distributed (distributed_solve.hpp lists them), each a
// function over one Job, each collective: every process calls them in the same order. One file per
// phase: input_agreement.cpp, share_planning.cpp, local_solve.cpp (the share and the takeovers),
// statistics_merge.cpp, results_exchange.cpp (gather or parallel write); distributed_solve.cpp calls them in turn.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "batchode/distributed/distributed_solve.hpp"

namespace batchode::distributed::detail {

/// What every phase reads: the call's arguments and what the earlier phases agreed on.
template <class T>
struct Job {
  Collective& c;
  const LocalSolver<T>& local;
  BatchInput<T> batch;
  const SolveOptions& options;
  const DistributedOptions& how;
  TimeLogger& logger;
  int rank = 0, size = 0;
  std::string host;
  std::size_t n_states = 0, n_params = 0, n_saves = 0;
  std::vector<std::string> hosts;  ///< every process's, in rank order (input agreement)
  std::size_t runs = 0;            ///< the batch's (input agreement)
  std::vector<double> rates;       ///< each process's runs per ms, 0: none (share planning)
  std::vector<RunRange> shares;    ///< each process's planned runs (share planning)

  RunRange mine() const { return shares[static_cast<std::size_t>(rank)]; }
  const T* y0_of(RunRange r) const { return batch.y0 + r.first_run * n_states; }
  const T* params_of(RunRange r) const { return n_params > 0 ? batch.params + r.first_run * n_params : nullptr; }
};

/// What this process solved: its share, and the runs of failed processes it took over.
template <class T>
struct Solved {
  SolveResult<T> own;                                // its share's rows (not_solved when its solve failed)
  std::string error;                                 // why its share (or a takeover) failed, "" if not
  double solve_ms = 0;                               // its share and takeovers, not the waits
  std::vector<std::pair<RunRange, SolveResult<T>>> taken;  // its takeovers, in order
  std::vector<std::vector<RunRange>> takeovers;      // every process's takeovers
  std::vector<bool> taken_over;                      // each process's share solved again by others
  std::size_t unsolved = 0;                          // runs of this process's nobody solved
  bool any_takeover = false;
};

/// 1. The batch checked by every process (one slice each for finiteness), and the same everywhere:
/// sets job.runs and job.hosts. Throws on every process (one message) for a bad or mismatched batch.
template <class T>
void agree_on_input(Job<T>& job);

/// 2. Shares by predicted throughput, or even among alike processes: sets job.rates and job.shares,
/// and each process's report in out.ranks.
template <class T>
void plan_shares(Job<T>& job, DistributedResult<T>& out);

/// 3. This process's share (a failure is reported, not thrown), then 4. the runs of failed processes
/// split over the others by their rates; every process's report and parts exchanged into `out`.
template <class T>
Solved<T> solve_share_and_takeovers(const Job<T>& job, DistributedResult<T>& out);

/// 4b. The ensemble statistics (SolveOptions::statistics) of every process's runs, merged on the root
/// in rank order (statistics_merge.cpp); null elsewhere and without statistics.
template <class T>
std::shared_ptr<const EnsembleStatistics> merge_statistics(const Job<T>& job, const Solved<T>& solved);

/// 5. The results: gathered to the root (out.result: every run there), or written by all into the one
/// file (how.h5_path; the root writes out.statistics into it). Returns this process's counts of each Status over the rows it delivered.
template <class T>
std::vector<std::size_t> gather_to_root(const Job<T>& job, Solved<T>& solved, DistributedResult<T>& out);
template <class T>
std::vector<std::size_t> write_in_rows(const Job<T>& job, Solved<T>& solved, DistributedResult<T>& out);

/// The rows of `range`'s runs as one Solver shapes them (its series' columns, observables, summaries,
/// the range's rows of per-run save times), values unset; a default result for no runs.
template <class T>
SolveResult<T> rows_for(const Job<T>& job, RunRange range);

}  // namespace batchode::distributed::detail
