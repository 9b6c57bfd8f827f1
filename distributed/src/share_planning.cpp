// distributed/: phase 2, mpi_share_planning. When the processes differ in what they solve on
// (LocalSolver::capability: a GPU rank among CPU ranks), each predicts its wall time for the whole batch
// and the shares are proportional to the predicted throughputs (split_by_rate); alike processes get
// even shares and predict nothing.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "batchode/timing/scoped_timer.hpp"
#include "phases.hpp"
#include "text_fields.hpp"
#include "travelling_errors.hpp"

namespace batchode::distributed::detail {

template <class T>
void plan_shares(Job<T>& job, DistributedResult<T>& out) {
  ScopedTimer planning(job.logger, "mpi_share_planning");
  const std::vector<std::string> capabilities = job.c.allgather(job.local.capability);
  const bool alike = !job.local.capability.empty() &&
                     std::all_of(capabilities.begin(), capabilities.end(),
                                 [&](const std::string& other) { return other == capabilities[0]; });
  planning.add_metadata("predicted", alike ? "no: every process alike" : "yes");
  double predicted = 1;  // alike: one rate for all
  const std::string error =
      alike ? std::string()
            : capture([&] { predicted = job.local.predict_ms(job.batch.y0, job.batch.params, job.runs); });
  const std::vector<std::string> all =
      job.c.allgather(error.empty() ? fmt::format("{:.17g}", predicted) : "\n" + error);
  std::vector<std::string> errors;
  job.rates.assign(static_cast<std::size_t>(job.size), 0.0);
  for (std::size_t r = 0; r < all.size(); ++r) {
    const bool failed = !all[r].empty() && all[r][0] == '\n';
    errors.push_back(failed ? all[r].substr(1) : "");
    const double ms = failed ? 0.0 : parse_number(all[r]);
    // A prediction that is not a positive time gives no throughput (split_by_rate: no share).
    job.rates[r] = std::isfinite(ms) && ms > 0 ? static_cast<double>(job.runs) / ms : 0.0;
    out.ranks.push_back(RankReport{static_cast<int>(r), job.hosts[r], {}, {}, alike ? 0.0 : ms, 0, {}, {},
                                   capabilities[r]});
  }
  throw_first(errors, job.hosts);
  job.shares = split_by_rate(job.rates, job.runs);
  for (int r = 0; r < job.size; ++r) out.ranks[r].share = job.shares[r];
  planning.add_metadata("share_runs", static_cast<std::int64_t>(job.mine().runs));
}

template void plan_shares<float>(Job<float>&, DistributedResult<float>&);
template void plan_shares<double>(Job<double>&, DistributedResult<double>&);

}  // namespace batchode::distributed::detail
