// distributed/: one batch solved by the processes of an MPI job (or any Collective). Every process is given
// the same batch (the grid is cheap to build on each, and no input travels); each solves a contiguous share
// with its own Solver (its GPU, chosen by local rank, or its CPU cores), shares sized by each process's
// measured cost model, and the results are gathered to one process or written by all of them into one .h5
// file with write_h5's layout. A share's rows are the rows of its runs in one Solver's result (series of
// the chosen variables, observables, summaries, statuses, events), solved with its runs' rows of the
// per-run options (save times, drivers: solver/setup/run_rows.hpp), so the result is one Solver's on the
// whole batch, run by run.
//
// The steps, each collective, each an event of category "mpi" on every process:
//   mpi_input_agreement  every process checks the batch (sizes, options, the finiteness of one slice
//                        each) and that all were given the same one (a fingerprint of the inputs); a
//                        problem found by any process is thrown on every process with one message,
//                        before any work starts
//   mpi_share_planning   when the processes differ in what they solve on (LocalSolver::capability:
//                        a GPU rank among CPU ranks), each predicts its wall time for the batch
//                        (Solver::predict_ms) and the shares are proportional to the predicted
//                        throughputs (split_by_rate); alike processes get even shares
//   mpi_local_solve      each solves its share; a process whose solve throws (a GPU error without
//                        fallback, memory) reports it with its rank and host, and its runs are
//   mpi_takeover_solve   solved again by the others, split by their rates; runs that no process could
//                        solve keep Status::not_solved and NaN states: every run has a row and a status
//   mpi_statistics_merge ensemble statistics (SolveOptions::statistics): each process's of the runs it
//                        solved (its sketches sized for the whole batch) sent to the root as bytes and
//                        merged there in rank order (EnsembleStatistics::merge_bytes)
//   mpi_gather           the results to the root process (gather), or
//   mpi_parallel_write   the file's structure by the root (write_h5_layout), then every process's rows
//                        written by all together (Collective::write_at_all: MPI-IO)
// Then the job's timing: every event's total on every process, min / mean / max across processes and
// the imbalance (slowest over mean), on every process in the result, printed by the root at
// Verbosity::normal and above (RankTimingSummary).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "batchode/distributed/collective.hpp"
#include "batchode/distributed/rank_timing.hpp"
#include "batchode/distributed/shares.hpp"
#include "batchode/solver/setup/grid.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/setup/run_rows.hpp"
#include "batchode/solver/results/result.hpp"
#include "batchode/solver/results/result_h5.hpp"
#include "batchode/solver/solver.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode::distributed {

/// What one process does with runs: a Solver's predict_ms and solve, without its System type, so the
/// distributed algorithm is compiled once per precision (distributed_solve.cpp), not per system.
template <class T>
struct LocalSolver {
  std::size_t n_states = 0;
  std::size_t n_params = 0;
  /// What this process solves on, in words ("gpu NVIDIA H200", "cpu x16"): when every process says
  /// the same, the shares are even and nothing is predicted (a first prediction may calibrate the cost
  /// model: seconds for a model compiled at run time on a GPU). Empty: always predict.
  std::string capability;
  /// Predicted wall time (ms) of solving these runs here.
  std::function<double(const T* y0, const T* params, std::size_t runs)> predict_ms;
  /// Solves the batch's runs `runs`: y0 and params point at their rows; the options' per-run rows
  /// (save times, drivers) are the batch's, taken for these runs (options_for_runs).
  std::function<SolveResult<T>(const T* y0, const T* params, RunRange runs)> solve;
  /// Tells the solver the batch's runs before any solve (Solver::set_statistics_runs): the ensemble
  /// statistics of every process's runs are then sized alike and merge. Empty: nothing to tell.
  std::function<void(std::uint64_t batch_runs)> size_statistics_for;
  /// The system's observables (kept beside the state at every save): the rows of runs nobody solved
  /// and the gathered result have room for them.
  std::vector<std::string> observable_names;
  /// The series' columns and the system's names (Solver::series_layout): the results this process
  /// makes (unsolved runs, the gathered batch) name their columns as the Solver's do.
  std::shared_ptr<const SeriesLayout> series_layout;
  /// The solve's summaries (Solver::summary_layout): null when none are kept.
  std::shared_ptr<const SummaryLayout> summary_layout;
};

struct DistributedOptions {
  /// Where the results go: gathered into the root's result (the others keep their own runs), or,
  /// when h5_path is set, written into that one file by every process (nothing gathered).
  std::string h5_path;
  H5Metadata h5_meta;  ///< the file's metadata, as write_h5 takes it (the whole grid, names, model); read on the root only
  int root = 0;
  /// Files the root writes itself after the solve (a command line's .npy or .csv of the gathered
  /// result): checked with the batch, before the solve, as h5_path is (files::check_output_path).
  std::vector<std::string> root_outputs;
  /// Print the job's report (job_report) on the root (at Verbosity::normal and above, on stderr). The
  /// Python package prints it itself, through sys.stderr.
  bool print_summary = true;
};

/// What one process did, known to every process.
struct RankReport {
  int rank = 0;
  std::string host;
  RunRange share;                   ///< its planned runs
  std::vector<RunRange> takeovers;  ///< runs of failed processes it solved again
  double predicted_ms = 0;          ///< its prediction for the whole batch (its rate: runs / this); 0: none made
  double solve_ms = 0;              ///< its local solve (share and takeovers)
  std::string where;                ///< where its share ran: "cpu", "gpu:0+cpu", ...
  std::string error;                ///< why its share failed ("" when it did not), with rank and host
  std::string capability;           ///< what it solves on ("gpu NVIDIA H200", "cpu x16")
};

template <class T>
struct DistributedResult {
  /// gather: on the root every run of the batch in the user's order (execution: every part of every
  /// process, details naming rank and host); elsewhere this process's share. h5: this process's share.
  SolveResult<T> result;
  RunRange local;                 ///< the runs `result` holds: [0, n) on the root with gather
  std::vector<RankReport> ranks;  ///< every process, in rank order
  /// Every part of every process, in run order (details name rank and host), on every process.
  std::vector<ExecutionRecord> execution;
  std::size_t not_solved = 0;     ///< runs no process could solve (Status::not_solved)
  /// The batch's runs of each Status code (index: the code; empty without statuses), over every
  /// process, on every process: whether any run failed, without gathering the statuses.
  std::vector<std::size_t> status_counts;
  RankTimingSummary timing;       ///< the job's events across processes
  /// The ensemble statistics (SolveOptions::statistics) of every run of the batch, every process's
  /// merged on the root (also in `result` there, with gather); null elsewhere and without statistics.
  std::shared_ptr<const EnsembleStatistics> statistics;
};

/// What the root prints after a distributed solve: the timing across processes, then a warning for
/// each failed process and for the runs nobody solved.
std::string job_report(const RankTimingSummary& timing, const std::vector<RankReport>& ranks, std::size_t not_solved);

/// A batch as the caller holds it: y0 holds y0_values (runs x n_states) and params param_values
/// (runs x n_params, may be null when 0) values, run-major. Sizes are checked with the others'.
template <class T>
struct BatchInput {
  const T* y0 = nullptr;
  std::size_t y0_values = 0;
  const T* params = nullptr;
  std::size_t param_values = 0;
};

/// Solves the batch (the same on every process) over `c`'s processes. Throws InvalidInput (on every
/// process, one message) for a bad or mismatched batch or options; GpuUnavailable (every process)
/// when one cannot run Backend::gpu; std::runtime_error when writing the file fails (removed then).
/// A process whose solve fails does not throw: see RankReport.error and Status::not_solved.
template <class T>
DistributedResult<T> solve_distributed(Collective& c, const LocalSolver<T>& local, BatchInput<T> batch,
                                       const SolveOptions& options, const DistributedOptions& how = {},
                                       TimeLogger& logger = default_timelogger());

extern template DistributedResult<float> solve_distributed<float>(Collective&, const LocalSolver<float>&,
                                                                  BatchInput<float>, const SolveOptions&,
                                                                  const DistributedOptions&, TimeLogger&);
extern template DistributedResult<double> solve_distributed<double>(Collective&, const LocalSolver<double>&,
                                                                    BatchInput<double>, const SolveOptions&,
                                                                    const DistributedOptions&, TimeLogger&);

/// `options` for a process sharing its node with local_size - 1 others (local_rank among them): with
/// several on a node and GPUs visible, each takes one GPU, local_rank % GPUs (Backend::automatic:
/// gpu.devices = {it} unless the caller listed some; Backend::gpu: gpu.device = it). Unchanged for one
/// process per node, or Backend::cpu.
SolveOptions for_local_rank(SolveOptions options, int local_rank, int local_size);

/// What a solve with `options` runs on, in words (LocalSolver::capability): the backend, the names of
/// the GPUs it may use, the CPU threads.
std::string capability_of(const SolveOptions& options);

/// A Solver's LocalSolver (the solver must outlive it).
template <class System, class T>
LocalSolver<T> local_solver(Solver<System, T>& solver) {
  LocalSolver<T> l;
  l.n_states = solver.n_states();
  l.n_params = solver.n_params();
  l.capability = capability_of(solver.options());
  l.predict_ms = [&solver](const T* y0, const T* p, std::size_t runs) { return solver.predict_ms(y0, p, runs); };
  l.solve = [&solver](const T* y0, const T* p, RunRange runs) {
    if (!has_run_rows(solver.options())) return solver.solve(y0, p, runs.runs);
    // Options with rows per run: a Solver for these runs' rows (it fits their own drivers).
    Solver<System, T> part(solver.system(), options_for_runs(solver.options(), runs.first_run, runs.runs),
                           solver.logger());
    part.set_statistics_runs(solver.statistics_runs());
    return part.solve(y0, p, runs.runs);
  };
  l.size_statistics_for = [&solver](std::uint64_t batch_runs) { solver.set_statistics_runs(batch_runs); };
  l.observable_names = solver.observable_names();
  l.series_layout = std::make_shared<const SeriesLayout>(solver.series_layout());
  if (const SummaryLayout* s = solver.summary_layout()) l.summary_layout = std::make_shared<const SummaryLayout>(*s);
  return l;
}

/// The distributed counterpart of Solver: one per process, each given the same batch.
///
///     batchode::mpi::MpiSession session(&argc, &argv);
///     batchode::mpi::MpiCollective world;
///     batchode::distributed::DistributedSolver<Lorenz, double> solver(world, Lorenz{}, options);
///     auto r = solver.solve(batch.y0, batch.params);  // r.result: every run on rank 0
template <class System, class T = double>
class DistributedSolver {
 public:
  DistributedSolver(Collective& c, System system, SolveOptions options, TimeLogger& logger = default_timelogger())
      : c_(&c),
        options_(for_local_rank(std::move(options), c.local_rank(), c.local_size())),
        logger_(&logger),
        solver_(std::move(system), options_, logger) {
    // The Solver names a system's events when the options did not: the distributed solve gathers
    // their records, and writes them in rows.
    options_.events = solver_.options().events;
  }

  DistributedResult<T> solve(const std::vector<T>& y0, const std::vector<T>& params,
                             const DistributedOptions& how = {}) {
    return solve_distributed<T>(*c_, local_solver(solver_),
                                BatchInput<T>{y0.data(), y0.size(), params.empty() ? nullptr : params.data(), params.size()},
                                options_, how, *logger_);
  }
  DistributedResult<T> solve(const Batch<T>& batch, const DistributedOptions& how = {}) {
    return solve(batch.y0, batch.params, how);
  }
  Solver<System, T>& local() noexcept { return solver_; }

 private:
  Collective* c_;
  SolveOptions options_;
  TimeLogger* logger_;
  Solver<System, T> solver_;
};

}  // namespace batchode::distributed
