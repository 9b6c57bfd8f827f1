// distributed/: solve_distributed, the steps listed in distributed_solve.hpp. Every collective call is made
// by every process in the same order whatever happened locally: a local failure becomes text that
// travels with the next allgather, never an exception that would leave the others waiting.
#include "batchode/distributed/distributed_solve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/files/atomic_file.hpp"
#include "batchode/files/output_path.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/solver/systems/gpu_path.hpp"
#include "batchode/solver/setup/input_checks.hpp"
#include "batchode/solver/results/result_io.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "text_fields.hpp"

namespace batchode::distributed {

namespace {

using detail::one_line;
using detail::parse_number;

constexpr const char* whole_event = "mpi_distributed_solve";
constexpr const char* agreement_event = "mpi_input_agreement";
constexpr const char* planning_event = "mpi_share_planning";
constexpr const char* local_event = "mpi_local_solve";
constexpr const char* takeover_event = "mpi_takeover_solve";
constexpr const char* gather_event = "mpi_gather";
constexpr const char* write_event = "mpi_parallel_write";

/// Never throws: a logger that cannot register loses the timing, not the solve.
void register_events(TimeLogger& logger) noexcept {
  static const std::pair<const char*, const char*> events[] = {
      {whole_event, "a batch solved by every process of an MPI job, from the checks to the results"},
      {agreement_event, "every process checks the batch and that all were given the same one"},
      {planning_event, "each process predicts its time; shares sized by the predicted throughputs"},
      {local_event, "this process solves its share"},
      {takeover_event, "this process solves runs of processes that failed"},
      {gather_event, "the results sent to the root process"},
      {write_event, "the .h5 file: its structure by the root, every process's rows by all (MPI-IO)"}};
  try {
    for (const auto& [label, description] : events) {
      if (!logger.is_registered(label)) logger.register_event(label, "mpi", description);
    }
  } catch (...) {
    // see above
  }
}

// ---- errors that travel between processes: a kind letter, then the message -------------------------

/// Separates the fields of one process's text: a control character no message or name contains.
constexpr char field = '\x1f';

/// An exception of type Base thrown by every process alike.
template <class Base>
class Everywhere : public Base, public ThrownOnEveryProcess {
 public:
  explicit Everywhere(const std::string& message) : Base(message) {}
};

template <class Step>
std::string capture(Step&& step) {
  try {
    step();
    return {};
  } catch (const InvalidInput& e) {
    return std::string("I") + e.what();
  } catch (const GpuUnavailable& e) {
    return std::string("G") + e.what();
  } catch (const std::exception& e) {
    return std::string("R") + e.what();
  } catch (...) {
    return "Ran unknown exception";
  }
}

/// Throws on every process when any process's error is not empty: the lowest failing rank's, as its
/// kind (InvalidInput, GpuUnavailable, else std::runtime_error), named by rank and host unless every
/// process failed with the same message (then it is simply the message).
void throw_first(const std::vector<std::string>& errors, const std::vector<std::string>& hosts) {
  for (std::size_t r = 0; r < errors.size(); ++r) {
    if (errors[r].empty()) continue;
    const bool everyone = std::all_of(errors.begin(), errors.end(), [&](const std::string& e) { return e == errors[r]; });
    std::string message = errors[r].substr(1);
    if (!everyone) message = fmt::format("rank {} ({}): {}", r, r < hosts.size() ? hosts[r] : "?", message);
    switch (errors[r][0]) {
      case 'I': throw Everywhere<InvalidInput>(message);
      case 'G': throw Everywhere<GpuUnavailable>(message);
      default: throw Everywhere<std::runtime_error>(message);
    }
  }
}

/// `make()` on this process alone (a placeholder or a receive buffer), between collective calls: a
/// failure here (no memory) ends the job, since the other processes would wait for this one forever.
template <class Make>
auto or_abort(Collective& c, const char* what, Make&& make) {
  try {
    return make();
  } catch (const std::exception& e) {
    c.abort(fmt::format("batchode: rank {}: {}: {}", c.rank(), what, e.what()));
  }
  std::abort();  // abort() does not return (a call through the interface is not known to be noreturn)
}

// ---- the batch's identity ---------------------------------------------------------------------------

/// A hash of the bytes of the inputs: the same batch gives the same number on every process. FNV-1a
/// over 64-bit words, per block of 1 MiB hashed by the workers, then the blocks' hashes in order (the
/// blocks are fixed, so the number does not depend on how many cores a process has). Byte by byte,
/// hashing a 2^22-run Lorenz batch (134 MB) took 190 ms on the H200 machine, six times its solve.
std::uint64_t fnv1a(const unsigned char* p, std::size_t bytes, std::uint64_t hash) {
  constexpr std::uint64_t prime = 1099511628211ull;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    hash = (hash ^ word) * prime;
  }
  for (; i < bytes; ++i) hash = (hash ^ p[i]) * prime;
  return hash;
}

std::uint64_t hash_inputs(arrays::HostWorkers& workers, const void* data, std::size_t bytes, std::uint64_t hash) {
  constexpr std::size_t block = std::size_t{1} << 20;
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t blocks = (bytes + block - 1) / block;
  std::vector<std::uint64_t> hashes(blocks);
  workers.parallel_for(
      blocks,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t b = begin; b < end; ++b) {
          hashes[b] = fnv1a(p + b * block, std::min(block, bytes - b * block), 14695981039346656037ull);
        }
      },
      1);
  return fnv1a(reinterpret_cast<const unsigned char*>(hashes.data()), blocks * sizeof(std::uint64_t), hash);
}

std::string options_text(const SolveOptions& o) {
  // save_at by its length and a hash of its values: the processes must agree on every time.
  const std::string save_at =
      o.save_at.empty() ? "-"
                        : fmt::format("{} times #{:x}", o.save_at.size(),
                                      fnv1a(reinterpret_cast<const unsigned char*>(o.save_at.data()),
                                            o.save_at.size() * sizeof(double), 14695981039346656037ull));
  // Events by name, direction, action and max: the gathered records must mean the same everywhere.
  std::string events = o.events.empty() ? "-" : "";
  for (std::size_t e = 0; e < o.events.size(); ++e) {
    events += fmt::format("{}{} {} {} {}", e ? "; " : "", event_name(o, e), to_string(o.events[e].direction),
                          to_string(o.events[e].action), o.events[e].max);
  }
  return fmt::format(
      "method {}, t {}..{}, rtol {}, atol {}, dt {}, save_every {}, save_at {}, save_mode {}, max_steps {}, "
      "outputs {}{}, events {}, event_tolerance {}",
      to_string(o.method), o.t0, o.t_end, o.rtol, o.atol, o.dt ? fmt::format("{}", *o.dt) : "-",
      o.save_every ? fmt::format("{}", *o.save_every) : "-", save_at, to_string(o.save_mode), o.max_steps,
      o.outputs.status ? "status" : "", o.outputs.counters ? "+counters" : "", events,
      o.event_tolerance ? fmt::format("{}", *o.event_tolerance) : "-");
}

// ---- what each process did, as text -------------------------------------------------------------------

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, by)) parts.push_back(part);
  if (!text.empty() && text.back() == by) parts.emplace_back();
  return parts;
}

/// One line per part: backend, reason, first run (in the batch), runs, wall ms, chunks, detail.
std::string serialise(const std::vector<ExecutionRecord>& records, std::size_t offset) {
  std::string text;
  for (const ExecutionRecord& r : records) {
    const std::string detail = one_line(r.detail);
    text += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", to_string(r.backend), static_cast<int>(r.reason),
                        r.first_run + offset, r.runs, r.wall_ms, r.chunks, detail);
  }
  return text;
}

std::vector<ExecutionRecord> parse_records(const std::string& text, int rank, const std::string& host) {
  std::vector<ExecutionRecord> records;
  for (const std::string& line : split(text, '\n')) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() < 7) continue;
    ExecutionRecord r;
    r.backend = BackendId::parse(f[0]);
    r.reason = static_cast<sched::Reason>(std::stoi(f[1]));
    r.first_run = std::stoull(f[2]);
    r.runs = std::stoull(f[3]);
    r.wall_ms = parse_number(f[4]);
    r.chunks = std::stoull(f[5]);
    r.detail = fmt::format("rank {} on {}{}{}", rank, host, f[6].empty() ? "" : ": ", f[6]);
    records.push_back(std::move(r));
  }
  return records;
}

// ---- result pieces ----------------------------------------------------------------------------------

/// Runs no process solved: NaN states, stop times and event records, Status::not_solved, zero
/// counters and event counts.
template <class T>
SolveResult<T> not_solved(std::size_t runs, std::size_t n_states, const SolveOptions& options,
                          const LocalSolver<T>& local) {
  SolveResult<T> r(runs, n_states, count_saves(options), options, nullptr, local.observable_names, nullptr,
                   local.series_layout);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::fill(r.final_state_data(), r.final_state_data() + r.final_state().size(), nan);
  std::fill(r.series_data(), r.series_data() + r.series().size(), nan);
  const ResultView<T> view = r.view();
  if (view.observables != nullptr) std::fill(view.observables, view.observables + r.observables().size(), nan);
  if (view.events != nullptr) std::fill(view.events, view.events + r.events().size(), nan);
  if (view.event_counts != nullptr) std::fill(view.event_counts, view.event_counts + r.event_counts().size(), 0u);
  if (Status* s = r.status_data()) std::fill(s, s + runs, Status::not_solved);
  if (T* t = r.stop_time_data()) std::fill(t, t + runs, nan);
  if (RunCounters* k = r.counters_data()) std::fill(k, k + runs, RunCounters{});
  return r;
}

/// Adds the runs of `r` of each Status code to counts[code] (nothing without statuses).
template <class T>
void count_statuses(const SolveResult<T>& r, std::vector<std::size_t>& counts) {
  for (Status s : r.statuses()) {
    const auto code = static_cast<std::size_t>(s);
    if (counts.size() <= code) counts.resize(code + 1, 0);
    ++counts[code];
  }
}

/// The per-run arrays of a result as bytes, in the order the file and the gather use.
struct ArrayBytes {
  const char* data;
  std::size_t bytes_per_run;
};

template <class T>
std::vector<ArrayBytes> arrays_of(const SolveResult<T>& r, std::size_t n_states, std::size_t n_saves,
                                  const SolveOptions& options, std::size_t n_observables) {
  std::vector<ArrayBytes> a;
  a.push_back({reinterpret_cast<const char*>(r.final_state().data()), n_states * sizeof(T)});
  if (n_saves > 0) a.push_back({reinterpret_cast<const char*>(r.series().data()), n_saves * n_states * sizeof(T)});
  if (options.outputs.status) {
    a.push_back({reinterpret_cast<const char*>(r.statuses().data()), sizeof(Status)});
    a.push_back({reinterpret_cast<const char*>(r.stop_times().data()), sizeof(T)});
  }
  if (options.outputs.counters) {
    a.push_back({reinterpret_cast<const char*>(r.counters().data()), sizeof(RunCounters)});
  }
  // Observables: the count every process agreed on (the system's), not the result's own, so that the
  // processes' lists are the same whatever their results hold (a result of no runs holds none).
  if (n_saves > 0 && n_observables > 0) {
    if (r.n_runs() > 0 && r.n_observables() != n_observables) {
      throw std::logic_error(fmt::format("distributed solve: a result holds {} observables, the system has {}",
                                         r.n_observables(), n_observables));
    }
    a.push_back({reinterpret_cast<const char*>(r.observables().data()), n_saves * n_observables * sizeof(T)});
  }
  // Event records and counts (gathered; the file written in rows takes each event's columns apart:
  // event_pieces), last: the rows above are offsets_in_order's.
  if (const EventShape shape = event_shape(options); shape.n_events > 0) {
    a.push_back({reinterpret_cast<const char*>(r.events().data()), shape.n_events * shape.slots * (n_states + 1) * sizeof(T)});
    a.push_back({reinterpret_cast<const char*>(r.event_counts().data()), shape.n_events * sizeof(std::uint32_t)});
  }
  return a;
}

/// Where each per-run array starts in the file, in arrays_of's order.
std::vector<std::uint64_t> offsets_in_order(const H5RowOffsets& o, std::size_t n_saves, const SolveOptions& options,
                                            std::size_t n_observables) {
  std::vector<std::uint64_t> at{o.final_state.value_or(0)};
  if (n_saves > 0) at.push_back(o.series.value_or(0));
  if (options.outputs.status) {
    at.push_back(o.status.value_or(0));
    at.push_back(o.t_stop.value_or(0));
  }
  if (options.outputs.counters) at.push_back(o.counters.value_or(0));
  if (n_saves > 0 && n_observables > 0) at.push_back(o.observables.value_or(0));
  return at;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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
  register_events(logger);
  batchode::detail::VerbosityScope verbosity(logger, options.verbosity);
  const int rank = c.rank(), size = c.size();
  const std::string host = host_name();
  const std::size_t n_states = local.n_states, n_params = local.n_params;
  const std::size_t n_saves = count_saves(options);
  const std::size_t n_observables = local.observable_names.size();  // the system's (agreed below)
  DistributedResult<T> out;
  std::vector<std::size_t> counted;  // this process's written runs of each Status code (count_statuses)
  std::vector<std::string> hosts;
  std::size_t runs = 0;
  std::vector<RunRange> shares;
  std::vector<double> rates(static_cast<std::size_t>(size), 0.0);
  {
    ScopedTimer whole(logger, whole_event);
    // 1. The batch, checked by every process (one slice each for finiteness), and the same everywhere.
    {
      ScopedTimer agreement(logger, agreement_event);
      std::string fingerprint;
      const std::string error = capture([&] {
        if (how.root < 0 || how.root >= size) {
          throw InvalidInput(fmt::format("DistributedOptions.root {} is not a rank of {} processes", how.root, size));
        }
        validate_for<T>(options);
        if (saves_per_run(options)) {
          throw InvalidInput("a distributed (MPI) solve does not take per-run save times (SolveOptions."
                             "save_at_per_run) yet: give times shared by every run (save_at), or solve on one process");
        }
        if (!options.summaries.empty()) {
          throw InvalidInput("a distributed (MPI) solve does not keep summaries (SolveOptions.summaries) yet: solve on "
                             "one process (all its GPUs and cores), or save the series");
        }
        if (!options.save_variables.empty()) {
          throw InvalidInput("a distributed (MPI) solve does not choose the series' variables (SolveOptions."
                             "save_variables) yet: save every state and observable, or solve on one process");
        }
        for (const DriverSpec& driver : options.drivers) {
          if (driver.n_samples != 0 && driver.values.size() > driver.n_samples) {
            throw InvalidInput(fmt::format("a distributed (MPI) solve does not take per-run drivers (drivers['{}'] "
                                           "has one set per run) yet: give samples shared by every run, or solve "
                                           "on one process",
                                           driver.name));
          }
        }
        if (rank == how.root) {  // found now, not after the solve
          if (!how.h5_path.empty()) files::check_output_path(how.h5_path);
          for (const std::string& path : how.root_outputs) files::check_output_path(path);
        }
        runs = batchode::detail::runs_of_batch(batch.y0_values, batch.param_values, n_states, n_params);
        batchode::detail::check_batch_pointers(batch.y0, batch.params, runs, n_states, n_params);
        const RunRange slice = split_by_rate(std::vector<double>(static_cast<std::size_t>(size), 1.0), runs)[rank];
        arrays::HostWorkers workers;  // this process's cores, for the scan and the hash
        batchode::detail::check_finite_runs(batch.y0, batch.params, slice.first_run, slice.runs, n_states, n_params,
                                            workers);
        std::uint64_t hash = hash_inputs(workers, batch.y0, batch.y0_values * sizeof(T), 14695981039346656037ull);
        if (batch.params != nullptr) hash = hash_inputs(workers, batch.params, batch.param_values * sizeof(T), hash);
        fingerprint = fmt::format(
            "{} runs x {} states x {} parameters in {}, inputs {:016x}; {}; observables [{}]; results {} (root {})", runs,
            n_states, n_params, sizeof(T) == 4 ? "float32" : "float64", hash, options_text(options),
            fmt::join(local.observable_names, ", "), how.h5_path.empty() ? "gathered" : "to " + how.h5_path, how.root);
        if (how.h5_path.empty() && rank == how.root) {  // the root will hold every run: can it?
          batchode::detail::check_result_fits(
              runs, arrays::run_footprint(n_states, n_params, n_saves, sizeof(T), options.outputs, event_shape(options),
                                          false, local.observable_names.size())
                        .result_bytes_per_run);
        }
      });
      const std::vector<std::string> all = c.allgather(host + field + error + field + fingerprint);
      std::vector<std::string> errors, fingerprints;
      for (const std::string& text : all) {
        const std::vector<std::string> f = split(text, field);
        hosts.push_back(f.size() > 0 ? f[0] : "?");
        errors.push_back(f.size() > 1 ? f[1] : "");
        fingerprints.push_back(f.size() > 2 ? f[2] : "");
      }
      throw_first(errors, hosts);
      for (int r = 1; r < size; ++r) {
        if (fingerprints[r] != fingerprints[0]) {
          throw InvalidInput(fmt::format(
              "the processes were given different batches or options: rank 0 has {}; rank {} has {}. Every "
              "process must be given the same initial values, parameters and options (random values need the "
              "same seed on every process)",
              fingerprints[0], r, fingerprints[r]));
        }
      }
    }

    // 2. Shares by predicted throughput, or even among alike processes.
    {
      ScopedTimer planning(logger, planning_event);
      const std::vector<std::string> capabilities = c.allgather(local.capability);
      const bool alike = !local.capability.empty() &&
                         std::all_of(capabilities.begin(), capabilities.end(),
                                     [&](const std::string& other) { return other == capabilities[0]; });
      planning.add_metadata("predicted", alike ? "no: every process alike" : "yes");
      double predicted = 1;  // alike: one rate for all
      const std::string error =
          alike ? std::string() : capture([&] { predicted = local.predict_ms(batch.y0, batch.params, runs); });
      const std::vector<std::string> all = c.allgather(error.empty() ? fmt::format("{:.17g}", predicted) : "\n" + error);
      std::vector<std::string> errors;
      for (std::size_t r = 0; r < all.size(); ++r) {
        const bool failed = !all[r].empty() && all[r][0] == '\n';
        errors.push_back(failed ? all[r].substr(1) : "");
        const double ms = failed ? 0.0 : parse_number(all[r]);
        // A prediction that is not a positive time gives no throughput (split_by_rate: no share).
        rates[r] = std::isfinite(ms) && ms > 0 ? static_cast<double>(runs) / ms : 0.0;
        out.ranks.push_back(RankReport{static_cast<int>(r), hosts[r], {}, {}, alike ? 0.0 : ms, 0, {}, {},
                                       capabilities[r]});
      }
      throw_first(errors, hosts);
      shares = split_by_rate(rates, runs);
      for (int r = 0; r < size; ++r) out.ranks[r].share = shares[r];
      planning.add_metadata("share_runs", static_cast<std::int64_t>(shares[rank].runs));
    }

    // 3. This process's share. A failure is reported, not thrown.
    const RunRange mine = shares[rank];
    SolveResult<T> own;
    std::string own_error;
    const auto started = std::chrono::steady_clock::now();
    {
      ScopedTimer solving(logger, local_event);
      solving.add_metadata("first_run", static_cast<std::int64_t>(mine.first_run));
      solving.add_metadata("runs", static_cast<std::int64_t>(mine.runs));
      own_error = capture([&] {
        if (mine.runs == 0) {
          own = SolveResult<T>(0, n_states, n_saves, options, nullptr, local.observable_names, nullptr,
                               local.series_layout);
          return;
        }
        own = local.solve(batch.y0 + mine.first_run * n_states,
                          n_params > 0 ? batch.params + mine.first_run * n_params : nullptr, mine.runs);
      });
      if (!own_error.empty()) {
        own_error = fmt::format("rank {} on {}: {}", rank, host, own_error.substr(1));
        own = or_abort(c, "no memory for the unsolved share's rows",
                       [&] { return not_solved<T>(mine.runs, n_states, options, local); });
      }
    }
    double solve_ms = ms_since(started);
    {
      const std::vector<std::string> all = c.allgather(own_error);
      for (int r = 0; r < size; ++r) out.ranks[r].error = all[r];
    }

    // 4. Runs of failed processes, split over the others by their rates.
    std::vector<double> alive(rates);
    bool any_failed = false, any_alive = false;
    for (int r = 0; r < size; ++r) {
      if (!out.ranks[r].error.empty()) {
        alive[r] = 0;
        any_failed = true;
      }
      any_alive = any_alive || alive[r] > 0;
    }
    std::vector<std::pair<RunRange, SolveResult<T>>> taken;  // this process's takeovers, in order
    std::size_t unsolved = 0;  // runs of this process's that no one solved
    std::vector<std::vector<RunRange>> takeovers(static_cast<std::size_t>(size));
    std::vector<bool> taken_over(static_cast<std::size_t>(size), false);
    if (any_failed && any_alive) {
      ScopedTimer takeover(logger, takeover_event);
      for (int f = 0; f < size; ++f) {
        if (out.ranks[f].error.empty() || shares[f].runs == 0) continue;
        taken_over[f] = true;
        const std::vector<RunRange> pieces = split_range_by_rate(alive, shares[f]);
        for (int r = 0; r < size; ++r) {
          if (pieces[r].runs > 0) takeovers[r].push_back(pieces[r]);
        }
      }
      const auto takeover_started = std::chrono::steady_clock::now();  // not the wait for the reports
      for (const RunRange& piece : takeovers[rank]) {
        SolveResult<T> r;
        const std::string error = capture([&] {
          r = local.solve(batch.y0 + piece.first_run * n_states,
                          n_params > 0 ? batch.params + piece.first_run * n_params : nullptr, piece.runs);
        });
        if (!error.empty()) {
          own_error += fmt::format("{}rank {} on {}: runs [{}, {}) taken over: {}", own_error.empty() ? "" : "; ",
                                   rank, host, piece.first_run, piece.first_run + piece.runs, error.substr(1));
          r = or_abort(c, "no memory for the unsolved runs' rows",
                       [&] { return not_solved<T>(piece.runs, n_states, options, local); });
          unsolved += piece.runs;
        }
        taken.emplace_back(piece, std::move(r));
      }
      solve_ms += ms_since(takeover_started);
    }
    for (int r = 0; r < size; ++r) out.ranks[r].takeovers = takeovers[r];

    // Every process's report, its parts (first runs in the batch) and how many of its runs are unsolved.
    {
      if (!out.ranks[rank].error.empty() && !taken_over[rank]) unsolved += mine.runs;
      std::string parts = serialise(own.execution(), mine.first_run);
      for (const auto& [piece, r] : taken) parts += serialise(r.execution(), piece.first_run);
      const std::vector<std::string> all =
          c.allgather(fmt::format("{:.17g}\t{}\t{}\t{}\n{}", solve_ms, unsolved, backends_of(own.execution()),
                                  one_line(own_error), parts));
      std::vector<ExecutionRecord> execution;
      for (int r = 0; r < size; ++r) {
        const std::size_t newline = all[r].find('\n');
        const std::vector<std::string> f = split(all[r].substr(0, newline), '\t');
        out.ranks[r].solve_ms = f.size() > 0 ? parse_number(f[0]) : 0;
        out.not_solved += f.size() > 1 ? static_cast<std::size_t>(parse_number(f[1])) : 0;
        out.ranks[r].where = f.size() > 2 ? f[2] : "";
        if (f.size() > 3) out.ranks[r].error = f[3];
        for (ExecutionRecord& e : parse_records(all[r].substr(newline + 1), r, hosts[r])) {
          execution.push_back(std::move(e));
        }
      }
      std::sort(execution.begin(), execution.end(),
                [](const ExecutionRecord& a, const ExecutionRecord& b) { return a.first_run < b.first_run; });
      out.execution = std::move(execution);

      // 5. The results: one file written by all, or gathered to the root.
      if (!how.h5_path.empty()) {
        ScopedTimer writing(logger, write_event);
        H5RowOffsets offsets;
        std::string error;
        // The root writes the file's structure beside the destination (files::AtomicFile); every process
        // writes its rows there, and it replaces the destination only once all have: a failure leaves an
        // old file as it was and nothing partial.
        std::optional<files::AtomicFile> file;
        if (rank == how.root) {
          error = capture([&] {
            file.emplace(how.h5_path);
            offsets = write_h5_layout<T>(runs, n_states, out.execution, file->write_path(), options, how.h5_meta,
                                         local.observable_names, how.h5_path);
          });
        }
        // The offsets, then on a line of its own the path the rows go to.
        const std::vector<std::string> layout = c.allgather(
            rank != how.root || !error.empty()
                ? error
                : fmt::format("{} {} {} {} {} {} {} {} {}\n{}", offsets.final_state.value_or(0),
                              offsets.series.value_or(0), offsets.status.value_or(0), offsets.t_stop.value_or(0),
                              offsets.counters.value_or(0), offsets.observables.value_or(0),
                              fmt::join(offsets.event_t, " "), fmt::join(offsets.event_state, " "),
                              fmt::join(offsets.event_count, " "), file->write_path()));
        if (!layout[how.root].empty() && !std::isdigit(static_cast<unsigned char>(layout[how.root][0]))) {
          throw_first({layout[how.root]}, {hosts[how.root]});
        }
        std::string write_path;
        {
          std::istringstream in(layout[how.root]);
          std::uint64_t f = 0, s = 0, st = 0, ts = 0, k = 0, o = 0;
          in >> f >> s >> st >> ts >> k >> o;
          offsets = H5RowOffsets{f, s, st, k, o, {}, {}, {}, ts};
          for (std::vector<std::uint64_t>* column : {&offsets.event_t, &offsets.event_state, &offsets.event_count}) {
            column->resize(options.events.size());
            for (std::uint64_t& at_event : *column) in >> at_event;
          }
          in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
          std::getline(in, write_path);
        }
        const std::vector<std::uint64_t> at = offsets_in_order(offsets, n_saves, options, n_observables);
        std::vector<FilePiece> pieces;
        std::deque<std::vector<char>> event_columns;  // each event's columns of a range, until written
        auto add = [&](const SolveResult<T>& r, RunRange range) {
          count_statuses(r, counted);
          const std::vector<ArrayBytes> arrays = arrays_of(r, n_states, n_saves, options, n_observables);
          const std::size_t row_arrays = at.size();  // the events' records go by their own columns below
          for (std::size_t a = 0; a < row_arrays; ++a) {
            pieces.push_back({at[a] + range.first_run * arrays[a].bytes_per_run, arrays[a].data,
                              range.runs * arrays[a].bytes_per_run});
          }
          for (std::size_t e = 0; e < r.n_events() && range.runs > 0; ++e) {
            const batchode::detail::EventColumns<T> columns = batchode::detail::event_columns(r, e);
            std::vector<std::uint32_t> counts(r.n_runs());
            for (std::size_t i = 0; i < r.n_runs(); ++i) counts[i] = r.event_count(i, e);
            auto keep = [&](const void* data, std::size_t bytes, std::uint64_t offset, std::size_t bytes_per_run) {
              const char* begin = static_cast<const char*>(data);
              event_columns.emplace_back(begin, begin + bytes);
              pieces.push_back({offset + range.first_run * bytes_per_run, event_columns.back().data(), bytes});
            };
            const std::size_t k_max = r.event_max(e);
            keep(columns.t.data(), columns.t.size() * sizeof(T), offsets.event_t.at(e), k_max * sizeof(T));
            keep(columns.state.data(), columns.state.size() * sizeof(T), offsets.event_state.at(e),
                 k_max * n_states * sizeof(T));
            keep(counts.data(), counts.size() * sizeof(std::uint32_t), offsets.event_count.at(e), sizeof(std::uint32_t));
          }
        };
        // A failed share that others solved is theirs to write; one nobody solved is written as unsolved.
        if (out.ranks[rank].error.empty() || !taken_over[rank]) add(own, mine);
        for (const auto& [piece, r] : taken) add(r, piece);
        const std::string write_error = c.write_at_all(write_path, pieces);
        const std::vector<std::string> errors = c.allgather(
            write_error.empty() ? "" : fmt::format("Rrank {} on {}: {}", rank, host, write_error));
        if (std::any_of(errors.begin(), errors.end(), [](const std::string& e) { return !e.empty(); })) {
          throw_first(errors, hosts);  // the root's AtomicFile removes what was written
        }
        // Every row is in: the root moves the file into place, and every process learns whether it could.
        const std::vector<std::string> moved =
            c.allgather(rank == how.root ? capture([&] { file->commit(); }) : std::string());
        throw_first(moved, hosts);
        writing.add_metadata("nbytes", static_cast<std::int64_t>([&] {
                               std::size_t bytes = 0;
                               for (const FilePiece& p : pieces) bytes += p.bytes;
                               return bytes;
                             }()));
        out.result = std::move(own);
        out.local = mine;
      } else {
        ScopedTimer gathering(logger, gather_event);
        const bool root = rank == how.root;
        SolveResult<T> all_runs;
        if (root) {
          all_runs = or_abort(c, "no memory for the gathered result",
                              [&] {
                                return SolveResult<T>(runs, n_states, n_saves, options, nullptr, local.observable_names,
                                                      nullptr, local.series_layout);
                              });
        }
        const std::vector<ArrayBytes> mine_arrays = arrays_of(own, n_states, n_saves, options, n_observables);
        const std::vector<ArrayBytes> into =
            root ? arrays_of(all_runs, n_states, n_saves, options, n_observables) : std::vector<ArrayBytes>{};
        for (std::size_t a = 0; a < mine_arrays.size(); ++a) {
          std::vector<std::uint64_t> counts;
          for (int r = 0; r < size; ++r) counts.push_back(shares[r].runs * mine_arrays[a].bytes_per_run);
          c.gather(mine_arrays[a].data, mine.runs * mine_arrays[a].bytes_per_run,
                   root ? const_cast<char*>(into[a].data) : nullptr, counts, how.root);
        }
        if (any_failed && any_alive) {
          // Takeovers: each process's pieces back to back, then copied to their rows by the root.
          std::vector<std::size_t> taken_runs(static_cast<std::size_t>(size), 0);
          for (int r = 0; r < size; ++r) {
            for (const RunRange& piece : takeovers[r]) taken_runs[r] += piece.runs;
          }
          std::size_t total_taken = 0;
          for (std::size_t n : taken_runs) total_taken += n;
          for (std::size_t a = 0; a < mine_arrays.size(); ++a) {
            const std::size_t row = mine_arrays[a].bytes_per_run;
            const std::vector<char> send = or_abort(c, "no memory to send the runs taken over", [&] {
              std::vector<char> bytes;
              for (const auto& [piece, r] : taken) {
                const ArrayBytes part = arrays_of(r, n_states, n_saves, options, n_observables)[a];
                bytes.insert(bytes.end(), part.data, part.data + piece.runs * row);
              }
              return bytes;
            });
            std::vector<std::uint64_t> counts;
            for (int r = 0; r < size; ++r) counts.push_back(taken_runs[r] * row);
            std::vector<char> received =
                or_abort(c, "no memory to receive the runs taken over",
                         [&] { return std::vector<char>(root ? total_taken * row : 0); });
            c.gather(send.data(), send.size(), root ? received.data() : nullptr, counts, how.root);
            if (!root) continue;
            std::size_t at = 0;
            for (int r = 0; r < size; ++r) {
              for (const RunRange& piece : takeovers[r]) {
                std::memcpy(const_cast<char*>(into[a].data) + piece.first_run * row, received.data() + at,
                            piece.runs * row);
                at += piece.runs * row;
              }
            }
          }
        }
        gathering.add_metadata("nbytes", static_cast<std::int64_t>(root ? runs : mine.runs) *
                                             static_cast<std::int64_t>([&] {
                                               std::size_t bytes = 0;
                                               for (const ArrayBytes& a : mine_arrays) bytes += a.bytes_per_run;
                                               return bytes;
                                             }()));
        if (root) {
          count_statuses(all_runs, counted);
          for (const ExecutionRecord& e : out.execution) all_runs.add_execution(e);
          out.result = std::move(all_runs);
          out.local = RunRange{0, runs};
        } else {
          out.result = std::move(own);
          out.local = mine;
        }
      }
    }
  }
  // The batch's statuses, counted where each run's row was written (the file's rows, or the root's
  // gathered batch) and summed over the processes: every process knows how many runs failed.
  {
    std::string mine_text;
    for (std::size_t n : counted) mine_text += std::to_string(n) + ' ';
    for (const std::string& theirs : c.allgather(mine_text)) {
      std::istringstream in(theirs);
      std::size_t n = 0;
      for (std::size_t code = 0; in >> n; ++code) {
        if (out.status_counts.size() <= code) out.status_counts.resize(code + 1, 0);
        out.status_counts[code] += n;
      }
    }
  }
  // 6. The job's timing, across processes (the whole event included: it has stopped).
  out.timing = summarise_ranks(c, logger, host);
  if (how.print_summary && rank == how.root && logger.verbosity() != Verbosity::none) {
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
