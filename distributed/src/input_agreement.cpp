// distributed/: phase 1, mpi_input_agreement. Every process checks the batch and the options (one slice
// each for finiteness), and prints a fingerprint of them (sizes, a hash of the inputs' bytes, the options
// that shape the result); a problem found by any process, or fingerprints that differ, is thrown on every
// process with one message before any work starts.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/files/output_path.hpp"
#include "batchode/solver/setup/input_checks.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "phases.hpp"
#include "travelling_errors.hpp"

namespace batchode::distributed::detail {

namespace {

constexpr std::uint64_t fnv_basis = 14695981039346656037ull;

/// A hash of the bytes of the inputs: the same batch gives the same number on every process. FNV-1a
/// over 64-bit words, per block of 1 MiB hashed by the workers, then the blocks' hashes in order (the
/// blocks are fixed, so the number does not depend on how many cores a process has). Byte by byte,
/// hashing a 2^22-run Lorenz batch (134 MB) took 190 ms on the H200 machine, six times its solve.
std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t hash = fnv_basis) {
  constexpr std::uint64_t prime = 1099511628211ull;
  const auto* p = static_cast<const unsigned char*>(data);
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
        for (std::size_t b = begin; b < end; ++b) hashes[b] = fnv1a(p + b * block, std::min(block, bytes - b * block));
      },
      1);
  return fnv1a(hashes.data(), blocks * sizeof(std::uint64_t), hash);
}

/// `values` by their count and a hash: the processes must agree on every one.
std::string hashed(const std::vector<double>& values) {
  return values.empty() ? "-" : fmt::format("{} values #{:x}", values.size(), fnv1a(values.data(), values.size() * sizeof(double)));
}

/// The options that shape the result, as text (per-run rows and drivers' samples by a hash).
std::string options_text(const SolveOptions& o) {
  // Events by name, direction, action and max: the gathered records must mean the same everywhere.
  std::string events = o.events.empty() ? "-" : "";
  for (std::size_t e = 0; e < o.events.size(); ++e) {
    events += fmt::format("{}{} {} {} {}", e ? "; " : "", event_name(o, e), to_string(o.events[e].direction),
                          to_string(o.events[e].action), o.events[e].max);
  }
  std::string drivers = o.drivers.empty() ? "-" : "";
  for (const DriverSpec& d : o.drivers) {
    drivers += fmt::format("{}{} ({} samples, times {}, dt {}, t_first {}, order {}, end {}, wrap {}, land {}) ",
                           d.name, hashed(d.values), d.n_samples, hashed(d.times),
                           d.dt ? fmt::format("{}", *d.dt) : "-", d.t_first ? fmt::format("{}", *d.t_first) : "-",
                           d.order, static_cast<int>(d.end), d.wrap, d.land);
  }
  const StepControl& c = o.step_control;
  const std::string summaries =
      o.summaries.metrics.empty()
          ? "-"
          : fmt::format("[{}] of [{}] every {} sampled every {}", fmt::join(o.summaries.metrics, ", "),
                        fmt::join(o.summaries.variables, ", "),
                        o.summaries.summarise_every ? fmt::format("{}", *o.summaries.summarise_every) : "-",
                        o.summaries.sample_summaries_every ? fmt::format("{}", *o.summaries.sample_summaries_every) : "-");
  return fmt::format(
      "method {}, t {}..{}, rtol {}, atol {}, dt {}, save_every {}, save_at {}, save_at_per_run {} x {}, save_mode {}, "
      "save_variables [{}], summaries {}, drivers {}, max_steps {}, outputs {}{}, events {}, event_tolerance {}, "
      "step control {} {} {} {} {} {} {}",
      to_string(o.method), o.t0, o.t_end, o.rtol, o.atol, o.dt ? fmt::format("{}", *o.dt) : "-",
      o.save_every ? fmt::format("{}", *o.save_every) : "-", hashed(o.save_at), o.save_at_per_run.n_saves(),
      hashed(o.save_at_per_run.times()), to_string(o.save_mode), fmt::join(o.save_variables, ", "), summaries,
      drivers, o.max_steps, o.outputs.status ? "status" : "", o.outputs.counters ? "+counters" : "", events,
      o.event_tolerance ? fmt::format("{}", *o.event_tolerance) : "-", c.safety, c.min_factor, c.max_factor, c.ki,
      c.kp, c.dt_min, c.dt_max);
}

/// This process's checks: throws what it finds; returns the fingerprint of what it was given.
template <class T>
std::string check_and_fingerprint(Job<T>& job) {
  const SolveOptions& options = job.options;
  const DistributedOptions& how = job.how;
  if (how.root < 0 || how.root >= job.size) {
    throw InvalidInput(fmt::format("DistributedOptions.root {} is not a rank of {} processes (0 to {})", how.root,
                                   job.size, job.size - 1));
  }
  validate_for<T>(options);
  if (job.rank == how.root) {  // found now, not after the solve
    if (!how.h5_path.empty()) files::check_output_path(how.h5_path);
    for (const std::string& path : how.root_outputs) files::check_output_path(path);
  }
  const BatchInput<T>& batch = job.batch;
  job.runs = batchode::detail::runs_of_batch(batch.y0_values, batch.param_values, job.n_states, job.n_params);
  batchode::detail::check_batch_pointers(batch.y0, batch.params, job.runs, job.n_states, job.n_params);
  check_options_for_batch(options, job.runs);  // per-run save times: a row per run
  const RunRange slice = split_by_rate(std::vector<double>(static_cast<std::size_t>(job.size), 1.0), job.runs)[job.rank];
  arrays::HostWorkers workers;  // this process's cores, for the scan and the hash
  batchode::detail::check_finite_runs(batch.y0, batch.params, slice.first_run, slice.runs, job.n_states, job.n_params,
                                      workers);
  std::uint64_t hash = hash_inputs(workers, batch.y0, batch.y0_values * sizeof(T), fnv_basis);
  if (batch.params != nullptr) hash = hash_inputs(workers, batch.params, batch.param_values * sizeof(T), hash);
  if (how.h5_path.empty() && job.rank == how.root) {  // the root will hold every run: can it?
    const SeriesLayout* series = job.local.series_layout.get();
    batchode::detail::check_result_fits(
        job.runs, arrays::run_footprint(job.n_states, job.n_params, job.n_saves, sizeof(T), options.outputs,
                                        event_shape(options), saves_per_run(options),
                                        series != nullptr ? series->observable_names.size() : job.local.observable_names.size(),
                                        job.local.summary_layout ? job.local.summary_layout->values_per_run() : 0,
                                        series != nullptr && !series->all ? series->states.size() : job.n_states)
                      .result_bytes_per_run);
  }
  return fmt::format("{} runs x {} states x {} parameters in {}, inputs {:016x}; {}; observables [{}]; results {} (root {})",
                     job.runs, job.n_states, job.n_params, sizeof(T) == 4 ? "float32" : "float64", hash,
                     options_text(options), fmt::join(job.local.observable_names, ", "),
                     how.h5_path.empty() ? "gathered" : "to " + how.h5_path, how.root);
}

}  // namespace

template <class T>
void agree_on_input(Job<T>& job) {
  ScopedTimer agreement(job.logger, "mpi_input_agreement");
  std::string fingerprint;
  const std::string error = capture([&] { fingerprint = check_and_fingerprint(job); });
  const std::vector<std::string> all = job.c.allgather(job.host + field + error + field + fingerprint);
  std::vector<std::string> errors, fingerprints;
  for (const std::string& text : all) {
    const std::vector<std::string> f = split(text, field);
    job.hosts.push_back(f.size() > 0 ? f[0] : "?");
    errors.push_back(f.size() > 1 ? f[1] : "");
    fingerprints.push_back(f.size() > 2 ? f[2] : "");
  }
  throw_first(errors, job.hosts);
  for (int r = 1; r < job.size; ++r) {
    if (fingerprints[r] != fingerprints[0]) {
      throw_everywhere_invalid(fmt::format(
          "the processes were given different batches or options: rank 0 has {}; rank {} has {}. Every "
          "process must be given the same initial values, parameters and options (random values need the "
          "same seed on every process)",
          fingerprints[0], r, fingerprints[r]));
    }
  }
}

template void agree_on_input<float>(Job<float>&);
template void agree_on_input<double>(Job<double>&);

}  // namespace batchode::distributed::detail
