// cli/: `batchode run`: the flags turned into SolveOptions and checked, then the model loaded and
// compiled (RuntimeModel), the grid built from the sweeps, the batch solved and the output written
// in the format its extension names. Mistakes on the command line are found before the model is
// compiled (which may take seconds) wherever they do not need the model.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "batchode/arrays/stop_request.hpp"
#include "batchode/checks/invalid_input.hpp"
#include "batchode/files/output_path.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/solver/setup/grid.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/results/output_types.hpp"
#include "batchode/solver/results/result_h5.hpp"
#include "batchode/solver/results/result_io.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "batchode/solver/setup/series_layout.hpp"
#include "batchode/solver/solver.hpp"
#include "batchode/solver/setup/summary_layout.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
#include "commands.hpp"
#include "error_exit.hpp"
#include "launcher.hpp"
#include "stop_signals.hpp"
#include "sweep.hpp"

#if BATCHODE_WITH_MPI
#include <optional>

#include "batchode/distributed/distributed_solve.hpp"
#include "batchode/models/model_error.hpp"
#include "batchode/mpi/mpi_collective.hpp"
#endif

namespace batchode::cli {

namespace {

namespace fs = std::filesystem;

enum class OutputFormat { h5, npy, csv };

// The run as a whole and the writing of its output, timed around the library's own events (model
// loading, compilation, the solve), so one summary covers the command.
constexpr const char* run_event = "batchode_run";
constexpr const char* output_event = "write_output";

void register_events(TimeLogger& logger) {
  if (!logger.is_registered(run_event)) {
    logger.register_event(run_event, "cli", "batchode run: from the model file to the output file");
  }
  if (!logger.is_registered(output_event)) {
    logger.register_event(output_event, "output", "writing the results file (.h5, .npy or .csv)");
  }
}

/// The format named by the output's extension.
OutputFormat output_format(const std::string& path) {
  std::string extension = fs::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  OutputFormat format = OutputFormat::h5;
  if (extension == ".h5" || extension == ".hdf5") {
    format = OutputFormat::h5;
  } else if (extension == ".npy") {
    format = OutputFormat::npy;
  } else if (extension == ".csv") {
    format = OutputFormat::csv;
  } else {
    throw UsageError(
        fmt::format("--output '{}': {}; the extension names the format: .h5 (or .hdf5), .npy or .csv", path,
                    extension.empty() ? "no extension" : "unknown extension '" + extension + "'"));
  }
  return format;
}

/// Whether `path` can be written, asked before the model is compiled and the batch solved (a solve may
/// take hours): UsageError naming `flag` and why not (files::check_output_path). The files written
/// beside an output (statuses, events, summaries) go to its folder, which this asks about too.
void check_writable(const char* flag, const std::string& path) {
  try {
    files::check_output_path(path);
  } catch (const InvalidInput& e) {
    throw UsageError(fmt::format("{} {}", flag, e.what()));
  }
}

/// An option error in the flags' names: "SolveOptions.t_end (1) must be after t0 (2)" becomes
/// "--t-end (1) must be after t0 (2)".
std::string in_flag_names(std::string message) {
  // The longer names first: "SolveOptions.summaries.metrics" before "SolveOptions.summaries".
  static const std::pair<const char*, const char*> names[] = {
      {"SolveOptions.statistics.metrics", "--statistics"},
      {"SolveOptions.statistics.quantile_rank_error", "--quantile-rank-error"},
      {"SolveOptions.statistics are taken at the save times: set save_every or save_at",
       "--statistics are taken at the save times: set --save-every or --save-at"},
      {"SolveOptions.statistics", "--statistics"},
      {"SolveOptions.summaries.metrics", "--summaries"},
      {"SolveOptions.summaries.summarise_every", "--summarise-every"},
      {"SolveOptions.summaries.sample_summaries_every", "--sample-summaries-every"},
      {"SolveOptions.summaries.variables", "--summarise-variables"},
      {"summaries.sample_summaries_every", "--sample-summaries-every"},
      {"SolveOptions: summaries with save_at or save_at_per_run", "--summaries with --save-at"},
      {"SolveOptions.summaries", "--summaries"},
      {"SolveOptions: the span t_end - t0", "the span --t-end - --t0"},
      {"SolveOptions.t_end", "--t-end"},
      {"SolveOptions.t0", "--t0"},
      {"SolveOptions.step_control.dt_max", "--dt-max"},
      {"SolveOptions.dt", "--dt"},
      {"SolveOptions.rtol", "--rtol"},
      {"SolveOptions.atol", "--atol"},
      {"SolveOptions.save_every", "--save-every"},
      {"SolveOptions.save_at", "--save-at"},
      {"SolveOptions.save_variables", "--save-variables"},
      {"set save_every, save_at or save_at_per_run", "set --save-every or --save-at"},
      {"SolveOptions.max_steps", "--max-steps"},
      {"SolveOptions.event_tolerance", "--event-tolerance"},
  };
  for (const auto& [field, flag] : names) {
    const std::string from = field;
    for (std::size_t at = message.find(from); at != std::string::npos; at = message.find(from, at)) {
      message.replace(at, from.size(), flag);
    }
  }
  return message;
}

/// A comma list of names ("mean, max,peaks[3]"), each trimmed of spaces. Throws UsageError naming
/// `flag` for an empty list or an empty entry.
std::vector<std::string> parse_names(const std::string& text, const char* flag) {
  std::vector<std::string> names;
  std::size_t from = 0;
  // A comma between brackets belongs to its entry: "quantiles[0.05,0.5],mean" is two names.
  auto next_comma = [&text](std::size_t at) {
    int depth = 0;
    for (; at < text.size(); ++at) {
      if (text[at] == '[') ++depth;
      if (text[at] == ']' && depth > 0) --depth;
      if (text[at] == ',' && depth == 0) return at;
    }
    return std::string::npos;
  };
  while (true) {
    const std::size_t comma = next_comma(from);
    std::string name = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    const std::size_t first = name.find_first_not_of(" \t");
    name = first == std::string::npos ? std::string() : name.substr(first, name.find_last_not_of(" \t") - first + 1);
    if (name.empty()) throw UsageError(fmt::format("{} '{}': an empty name in the comma list", flag, text));
    names.push_back(std::move(name));
    if (comma == std::string::npos) return names;
    from = comma + 1;
  }
}

/// apply_output_types' error in the flags' names: "output_types: SolveOptions.summaries.metrics: unknown
/// summary 'foo'; ..." becomes "--output-types: unknown output type 'foo'; ...".
std::string in_output_types_flag(std::string message) {
  static const std::pair<const char*, const char*> names[] = {
      {"output_types: SolveOptions.summaries.metrics: unknown summary", "--output-types: unknown output type"},
      {"output_types: SolveOptions.summaries.metrics: ", "--output-types: "},
      {"output_types", "--output-types"},
      {"set save_every or save_at", "set --save-every or --save-at"}};
  for (const auto& [from, to] : names) {
    const std::string what = from;
    for (std::size_t at = message.find(what); at != std::string::npos; at = message.find(what, at + 1)) {
      message.replace(at, what.size(), to);
    }
  }
  return message;
}

/// The summaries' flags and --output-types into `o` (after the other flags: --output-types decides
/// whether the save times keep a series).
void summary_options(const RunArgs& a, SolveOptions& o) {
  // The statistics first: --output-types without a series then keeps the save times for them.
  if (!a.statistics.empty()) o.statistics.metrics = parse_names(a.statistics, "--statistics");
  if (a.quantile_rank_error) o.statistics.quantile_rank_error = *a.quantile_rank_error;
  if (!a.summaries.empty()) o.summaries.metrics = parse_names(a.summaries, "--summaries");
  o.summaries.summarise_every = a.summarise_every;
  o.summaries.sample_summaries_every = a.sample_summaries_every;
  if (!a.summarise_variables.empty()) {
    o.summaries.variables = parse_names(a.summarise_variables, "--summarise-variables");
  }
  if (!a.output_types.empty()) {
    if (!a.summaries.empty()) {
      throw UsageError("--output-types lists the summaries too: put them there and drop --summaries");
    }
    try {
      apply_output_types(parse_names(a.output_types, "--output-types"), o);
    } catch (const InvalidInput& e) {
      throw UsageError(in_output_types_flag(e.what()));
    }
  }
  if (o.summaries.metrics.empty() &&
      (a.summarise_every || a.sample_summaries_every || !a.summarise_variables.empty())) {
    throw UsageError(fmt::format("{} needs summary metrics: --summaries (e.g. mean,max) or summary names in "
                                 "--output-types",
                                 a.summarise_every          ? "--summarise-every"
                                 : a.sample_summaries_every ? "--sample-summaries-every"
                                                            : "--summarise-variables"));
  }
}

/// --max-steps as written: a whole number from 1 to max_steps_limit, or UsageError saying so (CLI11
/// would read "-5" as 2^64 - 5).
std::uint64_t parse_max_steps(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc{} || stop != end || value == 0 || value > max_steps_limit) {
    throw UsageError(fmt::format("--max-steps = {}: must be a whole number from 1 to {}", text, max_steps_limit));
  }
  return value;
}

SolveOptions solve_options(const RunArgs& a) {
  SolveOptions o;
  o.t0 = a.t0;
  o.t_end = a.t_end;
  o.method = parse_method(a.method);  // CLI11 checked the name
  o.dt = a.dt;
  if (a.dt_max) o.step_control.dt_max = *a.dt_max;
  if (a.rtol) o.rtol = *a.rtol;
  if (a.atol) o.atol = *a.atol;
  o.save_every = a.save_every;
  if (!a.save_at.empty()) o.save_at = parse_values(a.save_at, "--save-at");
  o.save_mode = parse_save_mode(a.save_mode);  // CLI11 checked the name
  if (!a.save_variables.empty()) o.save_variables = parse_names(a.save_variables, "--save-variables");
  if (!a.max_steps_text.empty()) o.max_steps = parse_max_steps(a.max_steps_text);
  o.event_tolerance = a.event_tolerance;
  o.backend = a.backend == "cpu" ? Backend::cpu : a.backend == "gpu" ? Backend::gpu : Backend::automatic;
  o.run_order = a.run_order == "off" ? RunOrder::off : RunOrder::automatic;
  o.verbosity = parse_verbosity(a.verbosity);
  o.outputs.counters = a.counters;
  summary_options(a, o);
  o.stop = stop_flag();  // set by SIGINT and SIGTERM (stop_signals.hpp): the compile and the solve end
  return o;
}

/// The model file's text, for the .h5 file's model_source (empty when it cannot be read again).
std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

/// The trace file of this process: under an MPI launcher each rank writes its own, FILE.rank<r>.json.
std::string trace_path(const std::string& path) {
  if (!launched_by_mpi()) return path;
  const fs::path p(path);
  return (p.parent_path() / (p.stem().string() + ".rank" + std::to_string(launcher_rank()) + p.extension().string()))
      .string();
}

/// What the .h5 file says besides the results: names, the grid solved, the model.
template <class T>
H5Metadata h5_metadata(const Batch<T>& batch, const RuntimeModel<T>& model, const RunArgs& a) {
  H5Metadata meta;
  meta.state_names = model.state_names();
  meta.parameter_names = model.parameter_names();
  meta.y0.assign(batch.y0.begin(), batch.y0.end());
  meta.parameters.assign(batch.params.begin(), batch.params.end());
  meta.model_name = model.model().name();
  meta.model_source = file_text(a.model);
  meta.grid_kind = a.grid;
  return meta;
}

/// The output's path without its extension ("out/lorenz.npy" -> "out/lorenz"): the event files' prefix.
std::string output_stem(const std::string& path) {
  const std::filesystem::path p(path);
  return (p.parent_path() / p.stem()).string();
}

template <class T>
void write_output(const SolveResult<T>& r, const Batch<T>& batch, const RuntimeModel<T>& model,
                  const RunArgs& a, const SolveOptions& options, OutputFormat format) {
  switch (format) {
    case OutputFormat::h5:
      write_h5(r, a.output, options, h5_metadata(batch, model, a));
      break;
    case OutputFormat::npy:
      detail::write_npy_array(a.output, r.final_state().data(), {r.n_runs(), r.n_states()});
      write_status_npy(r, output_stem(a.output));
      for (std::size_t e = 0; e < r.n_events(); ++e) write_event_npy(r, e, output_stem(a.output));
      write_summary_npy(r, output_stem(a.output));
      break;
    case OutputFormat::csv:
      write_csv(r, a.output);
      if (r.n_events() > 0) write_events_csv(r, output_stem(a.output) + "_events.csv");
      if (r.summary_layout() != nullptr) {
        write_summaries_csv(r, output_stem(a.output) + "_summaries.csv", options.t0);
      }
      break;
  }
}

/// "ground: 16 runs, 16 crossings (16 runs stopped there); apex: ...", or "" without events.
template <class T>
std::string event_summary(const SolveResult<T>& r) {
  std::string text;
  for (std::size_t e = 0; e < r.n_events(); ++e) {
    std::size_t runs = 0, stopped = 0;
    std::uint64_t crossings = 0;
    for (std::size_t i = 0; i < r.n_runs(); ++i) {
      runs += r.event_count(i, e) > 0;
      crossings += r.event_count(i, e);
      if (!r.statuses().empty()) stopped += r.stopping_event(i) == e;
    }
    text += fmt::format("{}{}: {} runs, {} crossings", text.empty() ? "" : "; ", r.event_names()[e], runs, crossings);
    if (r.event_terminal(e)) text += fmt::format(" ({} runs stopped there)", stopped);
  }
  return text;
}

/// "mean, peaks[3] of x, v over 5 windows" (the summaries as asked for), or "" without summaries.
template <class T>
std::string summaries_summary(const SolveResult<T>& r, const SolveOptions& options) {
  if (r.summary_layout() == nullptr) return {};
  std::string metrics, variables;
  for (const std::string& m : options.summaries.metrics) metrics += (metrics.empty() ? "" : ", ") + m;
  for (const std::string& v : r.summary_variables()) variables += (variables.empty() ? "" : ", ") + v;
  const std::size_t windows = r.n_summary_windows();
  return fmt::format("{} of {} over {} window{}", metrics, variables, windows, windows == 1 ? "" : "s");
}

/// The runs of each Status code (index: the code) of a result (empty without statuses).
template <class T>
std::vector<std::size_t> status_counts(const SolveResult<T>& r) {
  std::vector<std::size_t> counts;
  for (Status s : r.statuses()) {
    const auto code = static_cast<std::size_t>(s);
    if (counts.size() <= code) counts.resize(code + 1, 0);
    ++counts[code];
  }
  return counts;
}

/// "3 of 100 runs failed: 2 max_steps_reached, 1 non_finite_state", or "" when every run finished
/// (finished(Status): reached t_end or stopped at a terminal event). `counts`: status_counts's.
std::string failed_runs(const std::vector<std::size_t>& counts) {
  std::size_t failed = 0, runs = 0;
  std::string why;
  for (std::size_t code = 0; code < counts.size(); ++code) {
    runs += counts[code];
    if (counts[code] == 0 || finished(static_cast<Status>(code))) continue;
    failed += counts[code];
    why += fmt::format("{}{} {}", why.empty() ? "" : ", ", counts[code], to_string(static_cast<Status>(code)));
  }
  if (failed == 0) return {};
  return fmt::format("{} of {} runs failed: {}", failed, runs, why);
}

/// The command's exit status once its output is written: exit_failed_runs after the line that counts
/// the failed runs by status (on `err`) when some failed, unless --allow-failed-runs; else 0.
int outcome(const std::vector<std::size_t>& counts, const RunArgs& a, std::ostream& err) {
  const std::string failed = failed_runs(counts);
  if (failed.empty()) return 0;
  err << "batchode: warning: " << failed
      << (a.allow_failed_runs ? "" : " (exit status 3; --allow-failed-runs to exit with 0)") << '\n';
  return a.allow_failed_runs ? 0 : exit_failed_runs;
}

/// "gpu:0+cpu", or "nowhere" for no part.
std::string where_it_ran(const std::vector<ExecutionRecord>& parts) {
  const std::string where = backends_of(parts);
  return where.empty() ? "nowhere" : where;
}

#if BATCHODE_WITH_MPI
/// Under an MPI launcher: the batch over every process (batchode/mpi), each on its node's share of
/// GPUs or its CPU cores; an .h5 written by all of them, .npy and .csv by rank 0 from the gathered
/// results. Only rank 0 prints: its own timing, the timing across processes, what was written. Returns
/// the exit status (outcome: the runs counted over every process).
template <class T>
int run_distributed(const RuntimeModel<T>& model, const Batch<T>& batch, const RunArgs& a, const SolveOptions& options,
                     OutputFormat format, TimeLogger& logger, ScopedTimer& whole, std::ostream& out, std::ostream& err) {
  mpi::MpiCollective world;
  const bool root = world.rank() == 0;
  const SolveOptions local_options = distributed::for_local_rank(options, world.local_rank(), world.local_size());
  Solver<RuntimeModel<T>, T> solver(model, local_options, logger);
  distributed::DistributedOptions how;
  if (format == OutputFormat::h5) {
    how.h5_path = a.output;
    if (root) how.h5_meta = h5_metadata(batch, model, a);  // a copy of the grid: only rank 0 writes it
  } else {
    how.root_outputs = {a.output};  // checked by rank 0 with the batch, before the solve
  }
  const distributed::DistributedResult<T> r = distributed::solve_distributed<T>(
      world, distributed::local_solver(solver),
      distributed::BatchInput<T>{batch.y0.data(), batch.y0.size(), batch.params.empty() ? nullptr : batch.params.data(),
                         batch.params.size()},
      solver.options(), how, logger);  // the Solver's: with the model's events, which it refuses by name
  if (format != OutputFormat::h5 && root) {
    ScopedTimer writing(logger, output_event);
    write_output(r.result, batch, model, a, options, format);
  }
  whole.stop();
  if (!root) return 0;
  if (logger.verbosity() != Verbosity::none) {
    out << fmt::format("{}: {} runs x {} states ({}, {}, {} processes: {}) written to {}\n", model.model().name(),
                       batch.y0.size() / model.state_names().size(), model.state_names().size(), a.method, a.precision,
                       world.size(), where_it_ran(r.execution), a.output);
    // With one .h5 written in rows, rank 0 holds only its own share: the file has the events.
    if (format != OutputFormat::h5) {
      if (const std::string events = event_summary(r.result); !events.empty()) out << "events: " << events << '\n';
    }
  }
  // Failed processes were said with the timing across processes (solve_distributed); the runs that
  // failed are counted over every process.
  return outcome(r.status_counts, a, err);
}
#endif

template <class T>
int run(const RunArgs& a, const std::vector<Sweep>& sweeps, OutputFormat format, const SolveOptions& options,
        std::ostream& out, std::ostream& err) {
  TimeLogger& logger = default_timelogger();
  logger.set_verbosity(*options.verbosity);
  logger.apply_environment();  // BATCHODE_VERBOSITY overrides --verbosity, as it overrides every level
  register_events(logger);
  if (!a.trace.empty()) logger.start_trace(trace_path(a.trace));
  ScopedTimer whole(logger, run_event);
  try {
    const RuntimeModel<T> model(load_model(a.model, logger), RuntimeModelOptions{}, logger);
    if (!options.summaries.empty()) {  // the variables by name, before the grid and the solve
      try {
        (void)plan_summaries(options, model.state_names(), model.observable_names());
      } catch (const InvalidInput& e) {
        throw UsageError(in_flag_names(e.what()));
      }
    }
    if (!options.save_variables.empty()) {  // the series' variables by name, likewise
      try {
        (void)plan_series(options, model.state_names(), model.observable_names());
      } catch (const InvalidInput& e) {
        throw UsageError(in_flag_names(e.what()));
      }
    }
    const GridKind kind = a.grid == "verbatim" ? GridKind::verbatim : GridKind::combinatorial;
    const Batch<T> batch = build_grid(sweeps, kind,
                                      GridDefaults<T>{model.state_names(), model.parameter_names(),
                                                      model.default_y0(), model.default_params()});
#if BATCHODE_WITH_MPI
    if (launched_by_mpi()) {
      const int status = run_distributed(model, batch, a, options, format, logger, whole, out, err);
      (void)logger.stop_trace();
      return status;
    }
#endif
    const SolveResult<T> r = solve_ivp(model, batch, options, logger);
    // A signal during the solve's last block of runs: stopped before writing, as it asked.
    if (arrays::stop_requested(options.stop)) throw SolveInterrupted("stopped before the output was written");
    {
      ScopedTimer writing(logger, output_event);
      write_output(r, batch, model, a, options, format);
    }
    whole.stop();  // prints the summary (at default verbosity and above) before the last lines
    const std::string trace = logger.stop_trace();
    if (logger.verbosity() != Verbosity::none) {
      out << fmt::format("{}: {} runs x {} states ({}, {}, {}) written to {}\n", model.model().name(),
                         r.n_runs(), r.n_states(), a.method, a.precision, where_it_ran(r.execution()), a.output);
      if (const std::string events = event_summary(r); !events.empty()) out << "events: " << events << '\n';
      if (const std::string summaries = summaries_summary(r, options); !summaries.empty()) {
        out << "summaries: " << summaries << '\n';
      }
      if (!trace.empty()) out << fmt::format("timeline written to {}\n", trace);
    }
    return outcome(status_counts(r), a, err);
  } catch (...) {
    // No timing summary after an error: the message is what matters. A trace keeps what ran.
    logger.set_verbosity(Verbosity::none);
    (void)logger.stop_trace();
    throw;
  }
}

/// run_command's work: the flags checked, then the solve in the chosen precision.
int checked_run(const RunArgs& args, std::ostream& out, std::ostream& err) {
  const std::vector<Sweep> sweeps = parse_sweeps(args.sweeps);
  const OutputFormat format = output_format(args.output);
  if (!args.statistics.empty() && format != OutputFormat::h5) {
    throw UsageError(fmt::format("--statistics are written into an .h5 output (/statistics); --output '{}' is not one",
                                 args.output));
  }
  // The files the run writes, before anything else is done. Under MPI rank 0 writes the output (the
  // distributed solve checks it with the batch, so that every process learns the answer) and each
  // process its own trace.
  if (!launched_by_mpi()) check_writable("--output", args.output);
  if (!args.trace.empty()) check_writable("--trace", trace_path(args.trace));
  SolveOptions options = solve_options(args);
  if (!args.trace.empty() && *options.verbosity == Verbosity::none) {
    throw UsageError("--trace records the timeline the timing records, and --verbosity none records nothing; "
                     "drop one of them");
  }
  try {
    if (args.precision == "float32") {
      validate_for<float>(options);
    } else {
      validate_for<double>(options);
    }
  } catch (const InvalidInput& e) {
    throw UsageError(in_flag_names(e.what()));
  }
  // A tolerance the precision cannot meet: raised here, so the .h5's options say what was used.
  const std::string floor =
      args.precision == "float32" ? apply_rtol_floor<float>(options) : apply_rtol_floor<double>(options);
  if (!floor.empty() && launcher_rank() == 0) err << "batchode: warning: --rtol: " << floor << '\n';
  if (args.precision == "float32") return run<float>(args, sweeps, format, options, out, err);
  return run<double>(args, sweeps, format, options, out, err);
}

}  // namespace

int run_command(const RunArgs& args, std::ostream& out, std::ostream& err) {
#if BATCHODE_WITH_MPI
  if (!launched_by_mpi()) return checked_run(args, out, err);
  // MPI for the whole command when a launcher started it; ranks other than 0 print nothing.
  const mpi::MpiSession session;
  if (launcher_rank() != 0) default_timelogger().set_output(&null_stream());
  // An error every process meets (bad input, a failed write, the same command line or model file on
  // each) is said by rank 0, which alone ends with its exit code (the launcher's): a process ending
  // first with an error had the launcher kill the job, rank 0 among it, before its line was out (CI,
  // cli_mpi_run). The others wait until rank 0 has said it, then end quietly.
  const auto said_by_rank_0 = [&] {
    const bool root = launcher_rank() == 0;
    const int code = report_current_error(root ? err : null_stream());
    err.flush();
    session.barrier();
    return root ? code : 0;
  };
  try {
    return checked_run(args, out, err);
  } catch (const distributed::ThrownOnEveryProcess&) {
    return said_by_rank_0();
  } catch (const UsageError&) {
    return said_by_rank_0();
  } catch (const models::ModelError&) {
    return said_by_rank_0();
  } catch (const std::exception& e) {
    // This process alone, perhaps (a model it could not compile, a GPU error): the others would
    // wait for it in the next collective call forever, so the job ends here.
    if (session.world_size() > 1) session.abort(fmt::format("batchode: rank {}: {}", launcher_rank(), e.what()));
    throw;
  }
#else
  if (launched_by_mpi()) {
    throw UsageError(
        "started by an MPI launcher (mpirun, mpiexec, srun), but this batchode was built without MPI: every "
        "process would solve and write the whole batch. Rebuild with MPI (Debian: libopenmpi-dev; "
        "-DBATCHODE_MPI=on), or run it without the launcher");
  }
  return checked_run(args, out, err);
#endif
}

}  // namespace batchode::cli
