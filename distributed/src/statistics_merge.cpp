// distributed/: phase 4b, mpi_statistics_merge: the ensemble statistics (SolveOptions::statistics) of the
// runs each process solved (its share when its solve succeeded, then its takeovers), sized for the whole
// batch (LocalSolver::size_statistics_for), sent to the root as bytes and merged there in rank order, so
// the root holds the statistics of every run, as one process solving the batch would.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batchode/solver/results/ensemble_statistics.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "phases.hpp"
#include "travelling_errors.hpp"

namespace batchode::distributed::detail {

template <class T>
std::shared_ptr<const EnsembleStatistics> merge_statistics(const Job<T>& job, const Solved<T>& solved) {
  if (job.options.statistics.empty()) return nullptr;
  ScopedTimer merging(job.logger, "mpi_statistics_merge");
  // On this process alone, between collective calls: a failure ends the job (or_abort).
  const std::vector<char> mine = or_abort(job.c, "the statistics to send to the root", [&] {
    std::optional<EnsembleStatistics> local;
    auto add = [&](const SolveResult<T>& r) {  // (a failed solve's rows carry none)
      if (r.statistics() == nullptr) return;
      if (local) {
        local->merge(*r.statistics());
      } else {
        local = *r.statistics();
      }
    };
    add(solved.own);
    for (const auto& taken : solved.taken) add(taken.second);
    return local ? local->to_bytes() : std::vector<char>{};
  });
  std::vector<std::uint64_t> counts;
  std::uint64_t total = 0;
  for (const std::string& n : job.c.allgather(std::to_string(mine.size()))) {
    counts.push_back(std::stoull(n));
    total += counts.back();
  }
  const bool root = job.rank == job.how.root;
  std::vector<char> received = or_abort(job.c, "no memory to receive the statistics",
                                        [&] { return std::vector<char>(root ? total : 0); });
  job.c.gather(mine.data(), mine.size(), root ? received.data() : nullptr, counts, job.how.root);
  merging.add_metadata("nbytes", static_cast<std::int64_t>(root ? total : mine.size()));
  if (!root) return nullptr;
  return or_abort(job.c, "merging the processes' statistics", [&] {
    // The statistics' shape as every process's Solver makes it: the series' columns and the save times.
    const SeriesLayout* series = job.local.series_layout.get();
    const SolveResult<T> shape(0, job.n_states, count_saves(job.options), job.options, nullptr,
                               series != nullptr ? series->observable_names : job.local.observable_names,
                               job.local.summary_layout, job.local.series_layout);
    auto merged = std::make_shared<EnsembleStatistics>(statistics_of_shape(shape, job.options.statistics, job.runs));
    std::uint64_t at = 0;
    for (std::uint64_t n : counts) {
      if (n > 0) merged->merge_bytes(received.data() + at, static_cast<std::size_t>(n));
      at += n;
    }
    return std::shared_ptr<const EnsembleStatistics>(std::move(merged));
  });
}

template std::shared_ptr<const EnsembleStatistics> merge_statistics<float>(const Job<float>&, const Solved<float>&);
template std::shared_ptr<const EnsembleStatistics> merge_statistics<double>(const Job<double>&, const Solved<double>&);

}  // namespace batchode::distributed::detail
