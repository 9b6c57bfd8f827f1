// distributed/: phases 3 and 4, mpi_local_solve and mpi_takeover_solve. Each process solves its share; a
// process whose solve throws (a GPU error without fallback, memory) reports it with its rank and host, and
// its runs are solved again by the others, split by their rates; runs that no process could solve keep
// Status::not_solved and NaN values: every run has a row and a status. Then every process's report and
// parts (where its runs ran) are known to every process.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "batchode/solver/setup/run_rows.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "phases.hpp"
#include "text_fields.hpp"
#include "travelling_errors.hpp"

namespace batchode::distributed::detail {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Runs no process solved: NaN states, stop times, summaries and event records, Status::not_solved,
/// zero counters and event counts.
template <class T>
SolveResult<T> not_solved(const Job<T>& job, RunRange range) {
  SolveResult<T> r = rows_for(job, range);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const ResultView<T> view = r.view();
  std::fill(view.final_state, view.final_state + r.final_state().size(), nan);
  if (view.series != nullptr) std::fill(view.series, view.series + r.series().size(), nan);
  if (view.observables != nullptr) std::fill(view.observables, view.observables + r.observables().size(), nan);
  if (view.summaries != nullptr) std::fill(view.summaries, view.summaries + r.summaries().size(), nan);
  if (view.events != nullptr) std::fill(view.events, view.events + r.events().size(), nan);
  if (view.event_counts != nullptr) std::fill(view.event_counts, view.event_counts + r.event_counts().size(), 0u);
  if (Status* s = r.status_data()) std::fill(s, s + range.runs, Status::not_solved);
  if (T* t = r.stop_time_data()) std::fill(t, t + range.runs, nan);
  if (RunCounters* k = r.counters_data()) std::fill(k, k + range.runs, RunCounters{});
  return r;
}

/// `range`'s runs solved here: "" and the result, or the error (its kind letter first) and their rows
/// not solved.
template <class T>
std::pair<std::string, SolveResult<T>> solve_runs(const Job<T>& job, RunRange range, const char* what) {
  SolveResult<T> r;
  const std::string error = capture([&] {
    r = range.runs == 0 ? rows_for(job, range) : job.local.solve(job.y0_of(range), job.params_of(range), range);
  });
  if (!error.empty()) r = or_abort(job.c, what, [&] { return not_solved(job, range); });
  return {error, std::move(r)};
}

/// One line per part: backend, reason, first run (in the batch), runs, wall ms, chunks, detail.
std::string serialise(const std::vector<ExecutionRecord>& records, std::size_t offset) {
  std::string text;
  for (const ExecutionRecord& r : records) {
    text += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", to_string(r.backend), static_cast<int>(r.reason),
                        r.first_run + offset, r.runs, r.wall_ms, r.chunks, one_line(r.detail), r.instruction_set);
  }
  return text;
}

std::vector<ExecutionRecord> parse_records(const std::string& text, int rank, const std::string& host) {
  std::vector<ExecutionRecord> records;
  for (const std::string& line : split(text, '\n')) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() < 8) continue;
    ExecutionRecord r;
    r.backend = BackendId::parse(f[0]);
    r.reason = static_cast<sched::Reason>(std::stoi(f[1]));
    r.first_run = std::stoull(f[2]);
    r.runs = std::stoull(f[3]);
    r.wall_ms = parse_number(f[4]);
    r.chunks = std::stoull(f[5]);
    r.detail = fmt::format("rank {} on {}{}{}", rank, host, f[6].empty() ? "" : ": ", f[6]);
    r.instruction_set = f[7];
    records.push_back(std::move(r));
  }
  return records;
}

/// 3. This process's share; every process learns whose failed.
template <class T>
void solve_own_share(const Job<T>& job, Solved<T>& s, DistributedResult<T>& out) {
  const RunRange mine = job.mine();
  const auto started = std::chrono::steady_clock::now();
  {
    ScopedTimer solving(job.logger, "mpi_local_solve");
    solving.add_metadata("first_run", static_cast<std::int64_t>(mine.first_run));
    solving.add_metadata("runs", static_cast<std::int64_t>(mine.runs));
    auto [error, own] = solve_runs(job, mine, "no memory for the unsolved share's rows");
    if (!error.empty()) s.error = fmt::format("rank {} on {}: {}", job.rank, job.host, error.substr(1));
    s.own = std::move(own);
  }
  s.solve_ms = ms_since(started);
  const std::vector<std::string> all = job.c.allgather(s.error);
  for (int r = 0; r < job.size; ++r) out.ranks[r].error = all[r];
}

/// 4. The shares of failed processes split over the others by their rates; this process solves its
/// pieces of them.
template <class T>
void take_over(const Job<T>& job, Solved<T>& s, DistributedResult<T>& out) {
  const auto size = static_cast<std::size_t>(job.size);
  std::vector<double> alive(job.rates);
  bool any_failed = false, any_alive = false;
  for (std::size_t r = 0; r < size; ++r) {
    if (!out.ranks[r].error.empty()) {
      alive[r] = 0;
      any_failed = true;
    }
    any_alive = any_alive || alive[r] > 0;
  }
  s.takeovers.assign(size, {});
  s.taken_over.assign(size, false);
  s.any_takeover = any_failed && any_alive;
  if (s.any_takeover) {
    ScopedTimer takeover(job.logger, "mpi_takeover_solve");
    for (std::size_t f = 0; f < size; ++f) {
      if (out.ranks[f].error.empty() || job.shares[f].runs == 0) continue;
      s.taken_over[f] = true;
      const std::vector<RunRange> pieces = split_range_by_rate(alive, job.shares[f]);
      for (std::size_t r = 0; r < size; ++r) {
        if (pieces[r].runs > 0) s.takeovers[r].push_back(pieces[r]);
      }
    }
    const auto started = std::chrono::steady_clock::now();  // not the wait for the reports
    for (const RunRange& piece : s.takeovers[job.rank]) {
      auto [error, r] = solve_runs(job, piece, "no memory for the unsolved runs' rows");
      if (!error.empty()) {
        s.error += fmt::format("{}rank {} on {}: runs [{}, {}) taken over: {}", s.error.empty() ? "" : "; ", job.rank,
                               job.host, piece.first_run, piece.first_run + piece.runs, error.substr(1));
        s.unsolved += piece.runs;
      }
      s.taken.emplace_back(piece, std::move(r));
    }
    s.solve_ms += ms_since(started);
  }
  for (std::size_t r = 0; r < size; ++r) out.ranks[r].takeovers = s.takeovers[r];
}

/// Every process's report, its parts (first runs in the batch) and how many of its runs are unsolved.
template <class T>
void exchange_reports(const Job<T>& job, Solved<T>& s, DistributedResult<T>& out) {
  if (!out.ranks[job.rank].error.empty() && !s.taken_over[job.rank]) s.unsolved += job.mine().runs;
  std::string parts = serialise(s.own.execution(), job.mine().first_run);
  for (const auto& [piece, r] : s.taken) parts += serialise(r.execution(), piece.first_run);
  const std::vector<std::string> all = job.c.allgather(fmt::format(
      "{:.17g}\t{}\t{}\t{}\n{}", s.solve_ms, s.unsolved, backends_of(s.own.execution()), one_line(s.error), parts));
  std::vector<ExecutionRecord> execution;
  for (int r = 0; r < job.size; ++r) {
    const std::size_t newline = all[r].find('\n');
    const std::vector<std::string> f = split(all[r].substr(0, newline), '\t');
    out.ranks[r].solve_ms = f.size() > 0 ? parse_number(f[0]) : 0;
    out.not_solved += f.size() > 1 ? static_cast<std::size_t>(parse_number(f[1])) : 0;
    out.ranks[r].where = f.size() > 2 ? f[2] : "";
    if (f.size() > 3) out.ranks[r].error = f[3];
    for (ExecutionRecord& e : parse_records(all[r].substr(newline + 1), r, job.hosts[r])) {
      execution.push_back(std::move(e));
    }
  }
  std::sort(execution.begin(), execution.end(),
            [](const ExecutionRecord& a, const ExecutionRecord& b) { return a.first_run < b.first_run; });
  out.execution = std::move(execution);
}

}  // namespace

template <class T>
SolveResult<T> rows_for(const Job<T>& job, RunRange range) {
  // The rows' shape only: per-run save times sliced, drivers left out (a result reads none, and a
  // process whose share failed must be able to make its rows whatever the options hold).
  SolveOptions options = result_options_for_runs(job.options, range.first_run, range.runs);
  if (range.runs == 0 && saves_per_run(job.options)) {  // no rows: the shape alone (shared times of 0s)
    options.save_at_per_run = PerRunSaveTimes();
    options.save_at.assign(job.n_saves, 0.0);
  }
  const SeriesLayout* series = job.local.series_layout.get();
  return SolveResult<T>(range.runs, job.n_states, job.n_saves, options, nullptr,
                        series != nullptr ? series->observable_names : job.local.observable_names,
                        job.local.summary_layout, job.local.series_layout);
}

template <class T>
Solved<T> solve_share_and_takeovers(const Job<T>& job, DistributedResult<T>& out) {
  Solved<T> s;
  solve_own_share(job, s, out);
  take_over(job, s, out);
  exchange_reports(job, s, out);
  return s;
}

template SolveResult<float> rows_for<float>(const Job<float>&, RunRange);
template SolveResult<double> rows_for<double>(const Job<double>&, RunRange);
template Solved<float> solve_share_and_takeovers<float>(const Job<float>&, DistributedResult<float>&);
template Solved<double> solve_share_and_takeovers<double>(const Job<double>&, DistributedResult<double>&);

}  // namespace batchode::distributed::detail
