// distributed/: phase 5, the results: gathered to the root (mpi_gather), or written by every process into
// one .h5 file (mpi_parallel_write): its structure by the root (write_h5_layout, write_h5's layout), then
// every process's rows written by all together (Collective::write_at_all: MPI-IO). A result's rows are
// the one Solver's (SolveResult's arrays, run-major), so a share's rows are a slice of the batch's.
#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "batchode/files/atomic_file.hpp"
#include "batchode/solver/results/result_io.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "phases.hpp"
#include "travelling_errors.hpp"

namespace batchode::distributed::detail {

namespace {

/// Adds the runs of `r` of each Status code to counts[code] (nothing without statuses).
template <class T>
void count_statuses(const SolveResult<T>& r, std::vector<std::size_t>& counts) {
  for (Status s : r.statuses()) {
    const auto code = static_cast<std::size_t>(s);
    if (counts.size() <= code) counts.resize(code + 1, 0);
    ++counts[code];
  }
}

/// One per-run array of a result as bytes.
struct ArrayBytes {
  const char* data;
  std::size_t bytes_per_run;
};

template <class T>
std::size_t series_width(const Job<T>& job) {
  const SeriesLayout* s = job.local.series_layout.get();
  return s != nullptr && !s->all ? s->states.size() : job.n_states;
}

template <class T>
std::size_t saved_observables(const Job<T>& job) {
  const SeriesLayout* s = job.local.series_layout.get();
  return s != nullptr ? s->observable_names.size() : job.local.observable_names.size();
}

template <class T>
const char* bytes(const ResultArray<T>& a) {
  return reinterpret_cast<const char*>(a.data());
}

/// The per-run arrays of a result, in the order the gather uses: first those the file holds in rows
/// (offsets_in_order's), then the summaries and the events' records (the file takes those apart: each
/// summary output's dataset, each event's columns). Sizes by what every process agreed on (the Solver's
/// layouts), not the result's own, so the processes' lists are the same whatever their results hold.
template <class T>
std::vector<ArrayBytes> arrays_of(const SolveResult<T>& r, const Job<T>& job) {
  const std::size_t n_states = job.n_states, n_saves = job.n_saves, width = series_width(job);
  const std::size_t n_observables = saved_observables(job);
  std::vector<ArrayBytes> a;
  a.push_back({bytes(r.final_state()), n_states * sizeof(T)});
  if (n_saves > 0 && width > 0) a.push_back({bytes(r.series()), n_saves * width * sizeof(T)});
  if (job.options.outputs.status) {
    a.push_back({bytes(r.statuses()), sizeof(Status)});
    a.push_back({bytes(r.stop_times()), sizeof(T)});
  }
  if (job.options.outputs.counters) a.push_back({bytes(r.counters()), sizeof(RunCounters)});
  if (n_saves > 0 && n_observables > 0) {
    if (r.n_runs() > 0 && r.n_observables() != n_observables) {
      throw std::logic_error(fmt::format("distributed solve: a result holds {} observables, the series {}",
                                         r.n_observables(), n_observables));
    }
    a.push_back({bytes(r.observables()), n_saves * n_observables * sizeof(T)});
  }
  if (const SummaryLayout* s = job.local.summary_layout.get(); s != nullptr && !s->empty()) {
    a.push_back({bytes(r.summaries()), s->values_per_run() * sizeof(T)});
  }
  if (const EventShape shape = event_shape(job.options); shape.n_events > 0) {
    a.push_back({bytes(r.events()), shape.n_events * shape.slots * (n_states + 1) * sizeof(T)});
    a.push_back({bytes(r.event_counts()), shape.n_events * sizeof(std::uint32_t)});
  }
  return a;
}

/// Where each per-run array the file holds in rows starts, in arrays_of's order.
template <class T>
std::vector<std::uint64_t> offsets_in_order(const H5RowOffsets& o, const Job<T>& job) {
  std::vector<std::uint64_t> at{o.final_state.value_or(0)};
  if (job.n_saves > 0 && series_width(job) > 0) at.push_back(o.series.value_or(0));
  if (job.options.outputs.status) {
    at.push_back(o.status.value_or(0));
    at.push_back(o.t_stop.value_or(0));
  }
  if (job.options.outputs.counters) at.push_back(o.counters.value_or(0));
  if (job.n_saves > 0 && saved_observables(job) > 0) at.push_back(o.observables.value_or(0));
  return at;
}

/// The offsets as one line of numbers (the lists by their lengths), as the root tells the others.
std::string offsets_text(const H5RowOffsets& o) {
  std::string text = fmt::format("{} {} {} {} {} {}", o.final_state.value_or(0), o.series.value_or(0),
                                 o.status.value_or(0), o.t_stop.value_or(0), o.counters.value_or(0),
                                 o.observables.value_or(0));
  for (const std::vector<std::uint64_t>* list : {&o.event_t, &o.event_state, &o.event_count, &o.summaries}) {
    text += fmt::format(" {}", list->size());
    for (std::uint64_t at : *list) text += fmt::format(" {}", at);
  }
  return text;
}

H5RowOffsets parse_offsets(std::istream& in) {
  std::uint64_t f = 0, s = 0, st = 0, ts = 0, k = 0, o = 0;
  in >> f >> s >> st >> ts >> k >> o;
  H5RowOffsets offsets{f, s, st, k, o, {}, {}, {}, ts, {}};
  for (std::vector<std::uint64_t>* list : {&offsets.event_t, &offsets.event_state, &offsets.event_count,
                                           &offsets.summaries}) {
    std::size_t n = 0;
    in >> n;
    list->resize(n);
    for (std::uint64_t& at : *list) in >> at;
  }
  return offsets;
}

/// The root writes the file's structure beside the destination (files::AtomicFile) and tells every
/// process where the rows go: the offsets and the path written to.
template <class T>
std::pair<H5RowOffsets, std::string> lay_out_file(const Job<T>& job, const DistributedResult<T>& out,
                                                  std::optional<files::AtomicFile>& file) {
  const DistributedOptions& how = job.how;
  std::string error;
  H5RowOffsets offsets;
  if (job.rank == how.root) {
    error = capture([&] {
      file.emplace(how.h5_path);
      const SeriesLayout* series = job.local.series_layout.get();
      offsets = write_h5_layout<T>(job.runs, job.n_states, out.execution, file->write_path(), job.options,
                                   how.h5_meta, series != nullptr ? series->observable_names : job.local.observable_names,
                                   how.h5_path, series, job.local.summary_layout.get(), out.statistics.get());
    });
  }
  // The offsets, then on a line of its own the path the rows go to; or the root's error (a kind letter).
  const std::vector<std::string> layout = job.c.allgather(
      job.rank != how.root || !error.empty() ? error : offsets_text(offsets) + '\n' + file->write_path());
  const std::string& text = layout[how.root];
  if (!text.empty() && !std::isdigit(static_cast<unsigned char>(text[0]))) throw_first({text}, {job.hosts[how.root]});
  std::istringstream in(text);
  offsets = parse_offsets(in);
  in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  std::string write_path;
  std::getline(in, write_path);
  return {offsets, write_path};
}

/// The pieces of the file a result's rows fill: the arrays the file holds in rows straight from the
/// result, each summary output's and each event's columns copied into `kept` (alive until written).
template <class T>
void add_pieces(const Job<T>& job, const SolveResult<T>& r, RunRange range, const H5RowOffsets& offsets,
                std::vector<FilePiece>& pieces, std::deque<std::vector<char>>& kept) {
  if (range.runs == 0) return;
  const std::vector<ArrayBytes> arrays = arrays_of(r, job);
  const std::vector<std::uint64_t> at = offsets_in_order(offsets, job);
  for (std::size_t a = 0; a < at.size(); ++a) {
    pieces.push_back({at[a] + range.first_run * arrays[a].bytes_per_run, arrays[a].data,
                      range.runs * arrays[a].bytes_per_run});
  }
  auto keep = [&](const void* data, std::size_t size, std::uint64_t offset, std::size_t bytes_per_run) {
    const char* begin = static_cast<const char*>(data);
    kept.emplace_back(begin, begin + size);
    pieces.push_back({offset + range.first_run * bytes_per_run, kept.back().data(), size});
  };
  if (const SummaryLayout* layout = r.summary_layout()) {  // SolveResult::summary: write_h5's dense rows
    for (std::size_t o = 0; o < layout->outputs.size(); ++o) {
      const std::vector<T> values = r.summary(layout->outputs[o].name);
      keep(values.data(), values.size() * sizeof(T), offsets.summaries.at(o), values.size() / range.runs * sizeof(T));
    }
  }
  for (std::size_t e = 0; e < r.n_events(); ++e) {
    const batchode::detail::EventColumns<T> columns = batchode::detail::event_columns(r, e);
    std::vector<std::uint32_t> counts(r.n_runs());
    for (std::size_t i = 0; i < r.n_runs(); ++i) counts[i] = r.event_count(i, e);
    const std::size_t k_max = r.event_max(e);
    keep(columns.t.data(), columns.t.size() * sizeof(T), offsets.event_t.at(e), k_max * sizeof(T));
    keep(columns.state.data(), columns.state.size() * sizeof(T), offsets.event_state.at(e),
         k_max * job.n_states * sizeof(T));
    keep(counts.data(), counts.size() * sizeof(std::uint32_t), offsets.event_count.at(e), sizeof(std::uint32_t));
  }
}

/// The runs taken over, gathered to the root into their rows of `into` (each process's pieces back to
/// back, then copied to their rows by the root).
template <class T>
void gather_takeovers(const Job<T>& job, const Solved<T>& solved, const std::vector<ArrayBytes>& into,
                      std::size_t arrays) {
  const bool root = job.rank == job.how.root;
  std::vector<std::size_t> taken_runs(static_cast<std::size_t>(job.size), 0);
  std::size_t total_taken = 0;
  for (int r = 0; r < job.size; ++r) {
    for (const RunRange& piece : solved.takeovers[r]) taken_runs[r] += piece.runs;
    total_taken += taken_runs[r];
  }
  for (std::size_t a = 0; a < arrays; ++a) {
    const std::size_t row = arrays_of(solved.own, job)[a].bytes_per_run;
    const std::vector<char> send = or_abort(job.c, "no memory to send the runs taken over", [&] {
      std::vector<char> out;
      for (const auto& [piece, r] : solved.taken) {
        const ArrayBytes part = arrays_of(r, job)[a];
        out.insert(out.end(), part.data, part.data + piece.runs * row);
      }
      return out;
    });
    std::vector<std::uint64_t> counts;
    for (int r = 0; r < job.size; ++r) counts.push_back(taken_runs[r] * row);
    std::vector<char> received = or_abort(job.c, "no memory to receive the runs taken over",
                                          [&] { return std::vector<char>(root ? total_taken * row : 0); });
    job.c.gather(send.data(), send.size(), root ? received.data() : nullptr, counts, job.how.root);
    if (!root) continue;
    std::size_t at = 0;
    for (int r = 0; r < job.size; ++r) {
      for (const RunRange& piece : solved.takeovers[r]) {
        std::memcpy(const_cast<char*>(into[a].data) + piece.first_run * row, received.data() + at, piece.runs * row);
        at += piece.runs * row;
      }
    }
  }
}

}  // namespace

template <class T>
std::vector<std::size_t> write_in_rows(const Job<T>& job, Solved<T>& solved, DistributedResult<T>& out) {
  ScopedTimer writing(job.logger, "mpi_parallel_write");
  // The file is written beside the destination and replaces it only once every process's rows are in:
  // a failure leaves an old file as it was and nothing partial.
  std::optional<files::AtomicFile> file;
  // (Named, not a structured binding: the lambda below uses the offsets, and C++17 lambdas cannot
  // capture a binding; clang refuses it.)
  const std::pair<H5RowOffsets, std::string> layout = lay_out_file(job, out, file);
  const H5RowOffsets& offsets = layout.first;
  const std::string& write_path = layout.second;
  std::vector<FilePiece> pieces;
  std::deque<std::vector<char>> kept;
  std::vector<std::size_t> counted;
  // Made on this process alone (copies of the summaries and events: memory may run out): a failure
  // travels with the next allgather, and this process still takes part in the collective write, with
  // nothing to write.
  const std::string pieces_error = capture([&] {
    // A failed share that others solved is theirs to write; one nobody solved is written as unsolved.
    if (out.ranks[job.rank].error.empty() || !solved.taken_over[job.rank]) {
      add_pieces(job, solved.own, job.mine(), offsets, pieces, kept);
      count_statuses(solved.own, counted);
    }
    for (const auto& [piece, r] : solved.taken) {
      add_pieces(job, r, piece, offsets, pieces, kept);
      count_statuses(r, counted);
    }
  });
  if (!pieces_error.empty()) pieces.clear();
  const std::string write_error = job.c.write_at_all(write_path, pieces);
  const std::vector<std::string> errors = job.c.allgather(
      !pieces_error.empty() ? pieces_error
      : write_error.empty() ? ""
                            : fmt::format("Rrank {} on {}: {}", job.rank, job.host, write_error));
  throw_first(errors, job.hosts);  // the root's AtomicFile removes what was written
  // Every row is in: the root moves the file into place, and every process learns whether it could.
  throw_first(job.c.allgather(job.rank == job.how.root ? capture([&] { file->commit(); }) : std::string()), job.hosts);
  std::size_t written = 0;
  for (const FilePiece& p : pieces) written += p.bytes;
  writing.add_metadata("nbytes", static_cast<std::int64_t>(written));
  out.result = std::move(solved.own);
  out.local = job.mine();
  return counted;
}

template <class T>
std::vector<std::size_t> gather_to_root(const Job<T>& job, Solved<T>& solved, DistributedResult<T>& out) {
  ScopedTimer gathering(job.logger, "mpi_gather");
  const bool root = job.rank == job.how.root;
  SolveResult<T> all_runs;
  if (root) all_runs = or_abort(job.c, "no memory for the gathered result", [&] { return rows_for(job, {0, job.runs}); });
  // Between collective calls, on this process alone: a failure (an array the result lacks) ends the job.
  const std::vector<ArrayBytes> mine =
      or_abort(job.c, "the result's arrays to gather", [&] { return arrays_of(solved.own, job); });
  const std::vector<ArrayBytes> into =
      root ? or_abort(job.c, "the gathered result's arrays", [&] { return arrays_of(all_runs, job); })
           : std::vector<ArrayBytes>{};
  std::size_t bytes_per_run = 0;
  for (std::size_t a = 0; a < mine.size(); ++a) {
    std::vector<std::uint64_t> counts;
    for (int r = 0; r < job.size; ++r) counts.push_back(job.shares[r].runs * mine[a].bytes_per_run);
    job.c.gather(mine[a].data, job.mine().runs * mine[a].bytes_per_run, root ? const_cast<char*>(into[a].data) : nullptr,
                 counts, job.how.root);
    bytes_per_run += mine[a].bytes_per_run;
  }
  if (solved.any_takeover) gather_takeovers(job, solved, into, mine.size());
  gathering.add_metadata("nbytes", static_cast<std::int64_t>((root ? job.runs : job.mine().runs) * bytes_per_run));
  std::vector<std::size_t> counted;
  if (root) {
    count_statuses(all_runs, counted);
    for (const ExecutionRecord& e : out.execution) all_runs.add_execution(e);
    out.result = std::move(all_runs);
    out.local = RunRange{0, job.runs};
  } else {
    out.result = std::move(solved.own);
    out.local = job.mine();
  }
  return counted;
}

template std::vector<std::size_t> write_in_rows<float>(const Job<float>&, Solved<float>&, DistributedResult<float>&);
template std::vector<std::size_t> write_in_rows<double>(const Job<double>&, Solved<double>&, DistributedResult<double>&);
template std::vector<std::size_t> gather_to_root<float>(const Job<float>&, Solved<float>&, DistributedResult<float>&);
template std::vector<std::size_t> gather_to_root<double>(const Job<double>&, Solved<double>&,
                                                         DistributedResult<double>&);

}  // namespace batchode::distributed::detail
