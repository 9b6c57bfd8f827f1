// distributed/: solve_distributed, the phases listed in distributed_solve.hpp, in turn (each in its own
// file: phases.hpp); and what a process needs to take part (its GPU by local rank, what it solves on)
// and what the root prints after.
#include "batchode/distributed/distributed_solve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/solver/setup/statistics_plan.hpp"
#include "batchode/solver/systems/gpu_path.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "phases.hpp"

namespace batchode::distributed {

namespace {

/// Never throws: a logger that cannot register loses the timing, not the solve.
void register_events(TimeLogger& logger) noexcept {
  static const std::pair<const char*, const char*> events[] = {
      {"mpi_distributed_solve", "a batch solved by every process of an MPI job, from the checks to the results"},
      {"mpi_input_agreement", "every process checks the batch and that all were given the same one"},
      {"mpi_share_planning", "each process predicts its time; shares sized by the predicted throughputs"},
      {"mpi_local_solve", "this process solves its share"},
      {"mpi_takeover_solve", "this process solves runs of processes that failed"},
      {"mpi_statistics_merge", "the ensemble statistics of every process's runs merged on the root"},
      {"mpi_gather", "the results sent to the root process"},
      {"mpi_parallel_write", "the .h5 file: its structure by the root, every process's rows by all (MPI-IO)"}};
  try {
    for (const auto& [label, description] : events) {
      if (!logger.is_registered(label)) logger.register_event(label, "mpi", description);
    }
  } catch (...) {
    // see above
  }
}

/// The batch's runs of each Status code: every process's counts (of the rows it delivered: the file's,
/// or the root's gathered batch) summed, so every process knows how many runs failed.
std::vector<std::size_t> sum_over_processes(Collective& c, const std::vector<std::size_t>& counted) {
  std::string mine;
  for (std::size_t n : counted) mine += std::to_string(n) + ' ';
  std::vector<std::size_t> sum;
  for (const std::string& theirs : c.allgather(mine)) {
    std::istringstream in(theirs);
    std::size_t n = 0;
    for (std::size_t code = 0; in >> n; ++code) {
      if (sum.size() <= code) sum.resize(code + 1, 0);
      sum[code] += n;
    }
  }
  return sum;
}

}  // namespace

SolveOptions for_local_rank(SolveOptions options, int local_rank, int local_size) {
  if (local_size <= 1 || options.backend == Backend::cpu) return options;
  const gpu::Discovery& found = gpu::discover();
  if (!found.available || found.devices.empty()) return options;
  const int device = found.devices[static_cast<std::size_t>(local_rank) % found.devices.size()].index;
  if (options.backend == Backend::gpu) {
    options.gpu.device = device;
  } else if (options.gpu.devices.empty()) {
    options.gpu.devices = {device};
  }
  return options;
}

std::string capability_of(const SolveOptions& options) {
  const std::string cpu = batchode::detail::cpu_cost_name(options);
  if (options.backend == Backend::cpu) return cpu;
  const gpu::Discovery& found = gpu::discover();
  std::string gpus;
  for (const gpu::DeviceInfo& d : found.devices) {
    const bool listed = options.backend == Backend::gpu
                            ? d.index == options.gpu.device
                            : options.gpu.devices.empty() || std::find(options.gpu.devices.begin(),
                                                                       options.gpu.devices.end(),
                                                                       d.index) != options.gpu.devices.end();
    if (found.available && listed) gpus += (gpus.empty() ? "gpu " : " + gpu ") + d.name;
  }
  if (options.backend == Backend::gpu) return gpus.empty() ? "no gpu" : gpus;
  return gpus.empty() ? cpu : gpus + " + " + cpu;
}

template <class T>
DistributedResult<T> solve_distributed(Collective& c, const LocalSolver<T>& local, BatchInput<T> batch,
                                       const SolveOptions& options, const DistributedOptions& how,
                                       TimeLogger& logger) {
  // Every process has the same options, so every one refuses alike, before any collective call.
  const StatisticsPlan statistics = options.statistics.empty() ? StatisticsPlan{} : plan_statistics(options.statistics);
  if (statistics.histogram_bins > 0 && !statistics.histogram_range) {
    throw InvalidInput("SolveOptions.statistics: a histogram without a range takes it from the first values each "
                       "process meets, so the processes' histograms would not merge: give histogram[bins,low,high] "
                       "for a distributed solve");
  }
  register_events(logger);
  batchode::detail::VerbosityScope verbosity(logger, options.verbosity);
  // The call's arguments and this process's place; what the phases agree on is filled in by them.
  detail::Job<T> job{c, local, batch, options, how, logger, c.rank(), c.size(), host_name(),
                     local.n_states, local.n_params,
                     // A series that feeds the statistics alone (OutputSelection::series off) has no rows.
                     options.outputs.series ? count_saves(options) : 0, {}, 0, {}, {}};
  DistributedResult<T> out;
  std::vector<std::size_t> counted;  // this process's delivered runs of each Status code
  {
    ScopedTimer whole(logger, "mpi_distributed_solve");
    detail::agree_on_input(job);                                              // 1
    if (local.size_statistics_for && !options.statistics.empty()) local.size_statistics_for(job.runs);
    detail::plan_shares(job, out);                                            // 2
    detail::Solved<T> solved = detail::solve_share_and_takeovers(job, out);  // 3, 4
    out.statistics = detail::merge_statistics(job, solved);                  // 4b
    counted = how.h5_path.empty() ? detail::gather_to_root(job, solved, out)  // 5
                                  : detail::write_in_rows(job, solved, out);
    if (out.statistics && how.h5_path.empty()) out.result.set_statistics(out.statistics);
  }
  out.status_counts = sum_over_processes(c, counted);
  // 6. The job's timing, across processes (the whole event included: it has stopped).
  out.timing = summarise_ranks(c, logger, job.host);
  if (how.print_summary && job.rank == how.root && logger.verbosity() != Verbosity::none) {
    std::cerr << job_report(out.timing, out.ranks, out.not_solved);
  }
  return out;
}

std::string job_report(const RankTimingSummary& timing, const std::vector<RankReport>& ranks, std::size_t not_solved) {
  std::string text = timing.to_text();
  for (const RankReport& r : ranks) {
    if (!r.error.empty()) text += "batchode: warning: " + r.error + '\n';
  }
  if (not_solved > 0) {
    text += fmt::format("batchode: warning: {} runs were not solved (status not_solved)\n", not_solved);
  }
  return text;
}

template DistributedResult<float> solve_distributed<float>(Collective&, const LocalSolver<float>&, BatchInput<float>,
                                                           const SolveOptions&, const DistributedOptions&, TimeLogger&);
template DistributedResult<double> solve_distributed<double>(Collective&, const LocalSolver<double>&,
                                                             BatchInput<double>, const SolveOptions&,
                                                             const DistributedOptions&, TimeLogger&);

}  // namespace batchode::distributed
