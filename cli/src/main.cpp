// cli/: `batchode`, the command line: CLI11 wiring of the subcommands run, check and info (each in its
// own file, commands.hpp) and the one place that turns errors into exit codes, so the program never
// ends with an uncaught exception:
//   0  success: every run finished (reached t_end, or stopped at a terminal event)
//   1  the model, the solve or the output failed (bad model text: "file:line:col: ...")
//   2  a mistake on the command line (CLI11's own checks, a bad --sweep, a bad option value, an output
//      that cannot be written)
//   3  the output was written, but some runs failed (their statuses say how; --allow-failed-runs: 0)
//   130, 143  stopped by SIGINT (Ctrl-C) or SIGTERM, once what was running has ended cleanly
//             (stop_signals.hpp)
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "batchode/kernels/methods/method_registry.hpp"
#include "commands.hpp"
#include "error_exit.hpp"
#include "launcher.hpp"
#include "stop_signals.hpp"
#include "sweep.hpp"

#ifndef BATCHODE_VERSION_STRING
#error "BATCHODE_VERSION_STRING (the project's version) is defined by cli/CMakeLists.txt"
#endif

namespace {

using batchode::cli::RunArgs;

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const batchode::MethodInfo& info : batchode::method_registry) names.emplace_back(info.name);
  return names;
}

void add_run_options(CLI::App& run, RunArgs& a) {
  run.add_option("model", a.model,
                 "The model file (TOML: name, equations, [states], [parameters], [constants])")
      ->required();
  run.add_option("--sweep", a.sweeps,
                 "NAME=linspace(a,b,n): n values from a to b inclusive; NAME=logspace(a,b,n): 10^a to 10^b "
                 "(numpy's convention: a and b are exponents); NAME=v1,v2,...: these values. NAME is a state "
                 "(its initial value) or a parameter. Repeat for more axes; quote it in a shell: "
                 "--sweep 'rho=linspace(0,50,100)'")
      ->allow_extra_args(false);
  run.add_option("--grid", a.grid,
                 "combinatorial: every combination of the sweeps (the first slowest); verbatim: run i takes "
                 "the i-th value of every sweep (all of one length)")
      ->check(CLI::IsMember({"combinatorial", "verbatim"}))
      ->capture_default_str();
  run.add_option("--t0", a.t0, "Start time")->capture_default_str();
  run.add_option("--t-end", a.t_end, "End time")->required();
  run.add_option(
         "--method", a.method,
         "Integration method: dopri5 (the default, as scipy's RK45), tsit5, rodas5p, rodas4, rodas4p2, "
         "kvaerno5, kvaerno3, kencarp4 or radau5 for stiff models, rk4 with --dt, ...")
      ->check(CLI::IsMember(method_names()))
      ->capture_default_str();
  run.add_option_function<double>(
      "--rtol", [&a](const double& v) { a.rtol = v; }, "Relative tolerance (1e-6)");
  run.add_option_function<double>(
      "--atol", [&a](const double& v) { a.atol = v; }, "Absolute tolerance (1e-6)");
  run.add_option_function<double>(
      "--dt", [&a](const double& v) { a.dt = v; },
      "Step (euler, rk4: required) or first step of adaptive methods");
  run.add_option_function<double>(
      "--dt-max", [&a](const double& v) { a.dt_max = v; },
      "Largest step of adaptive methods (default: none; scipy's max_step). Events are seen by the sign "
      "change of their function between steps: a crossing and its return inside one step go unseen, so "
      "give --dt-max below the spacing of the crossings you expect");
  run.add_option_function<double>(
      "--save-every", [&a](const double& v) { a.save_every = v; },
      "Save the state at t0 + k * save_every (the series goes to .h5 and .csv; .npy holds final states)");
  run.add_option("--save-at", a.save_at,
                 "Save the state at these times instead: linspace(a,b,n), logspace(a,b,n) or t1,t2,... "
                 "(strictly increasing, in [t0, t-end]); interpolated (see --save-mode), so the steps stay "
                 "those of a solve without saves");
  run.add_option("--save-mode", a.save_mode,
                 "auto: --save-every lands, --save-at interpolates (lands for cash_karp54, fehlberg78, "
                 "whose long steps the Hermite cubic cannot keep up with); land: steps end on every save time "
                 "(values are the method's own, a dense grid shortens the steps); interpolate: dense output "
                 "(the method's own: dopri5's, tsit5's, vern7's, ...; else the cubic Hermite) between the steps a solve without saves takes")
      ->check(CLI::IsMember({"auto", "land", "interpolate"}))
      ->capture_default_str();
  run.add_option("--save-variables", a.save_variables,
                 "States and observables the series keeps, a comma list of names, kept in the model's order "
                 "(default: all); needs --save-every or --save-at");
  run.add_option_function<double>(
      "--event-tolerance", [&a](const double& v) { a.event_tolerance = v; },
      "Width in t to which the model's [events] are located (default: 100 ulps of the span's end); each "
      "event's crossings go to the .h5 (/events/<name>), to <output>_event_<name>_{t,state,count}.npy or "
      "to <output>_events.csv");
  run.add_option("--max-steps", a.max_steps_text, "Steps (accepted and rejected) per run at most (1000000)");
  run.add_option("--precision", a.precision, "Arithmetic of the solve and of the output")
      ->check(CLI::IsMember({"float32", "float64"}))
      ->capture_default_str();
  run.add_option("--backend", a.backend, "Where the batch runs (auto: a GPU when usable, else the CPU)")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  run.add_option("--run-order", a.run_order,
                 "auto: on the GPU, adaptive and stiff methods hand each chunk's runs to threads in the order of "
                 "their inputs, so that a warp's runs cost about the same (results are the same bit for bit; "
                 "not when --backend auto's cost probe saw the runs take the same steps); off: the grid's order")
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  run.add_option("--verbosity", a.verbosity,
                 "Timing printed on stderr: none, default (one summary), verbose (a line per phase), debug "
                 "(BATCHODE_VERBOSITY overrides it)")
      ->check(CLI::IsMember({"none", "default", "verbose", "debug"}))
      ->capture_default_str();
  run.add_flag("--counters", a.counters, "Also write per-run step counters (accepted, rejected, rhs) to .h5");
  run.add_flag("--allow-failed-runs", a.allow_failed_runs,
               "Exit with 0 when the output was written even though some runs failed (their statuses say how; "
               "without this flag such a run exits with 3): for sweeps where some runs are expected to fail");
  run.add_option("--summaries", a.summaries,
                 "Summary metrics kept per run and window, a comma list: mean, std, rms, max, min, max_magnitude, "
                 "max_time, min_time, extrema, mean_std, std_rms, mean_std_rms, dxdt_max, dxdt_min, dxdt_extrema, "
                 "d2xdt2_max, d2xdt2_min, d2xdt2_extrema, peaks[n], negative_peaks[n] (the times of the first n). "
                 "To the .h5 (/summaries/<name>), <output>_summary_<name>.npy or <output>_summaries.csv");
  run.add_option_function<double>(
      "--summarise-every", [&a](const double& v) { a.summarise_every = v; },
      "Length of the summaries' windows (t0 + w T, t0 + (w + 1) T] (default: the whole span)");
  run.add_option_function<double>(
      "--sample-summaries-every", [&a](const double& v) { a.sample_summaries_every = v; },
      "Spacing of the samples summarised, a whole number of them per window (default: --summarise-every / "
      "10, or the span / 100); with --save-every, that must be a whole number of samples");
  run.add_option("--summarise-variables", a.summarise_variables,
                 "States and observables summarised, a comma list of names (default: all)");
  run.add_option("--statistics", a.statistics,
                 "Statistics across the runs at every save time, a comma list: count, mean, var, std, min, max, "
                 "quantiles[0.05,0.5,0.95], histogram[64] or histogram[64,low,high]. Needs --save-every or "
                 "--save-at and an .h5 output (/statistics); with --output-types that keep no series, only the "
                 "statistics and each run's row are kept (moments alone on GPUs: reduced on the device; else the "
                 "runs are solved in slices). Under mpiexec, histograms need their range");
  run.add_option_function<double>(
      "--quantile-rank-error", [&a](const double& v) { a.quantile_rank_error = v; },
      "The quantiles' rank error, a fraction of the runs (default 0.001)");
  run.add_option("--output-types", a.output_types,
                 "What is kept, in one comma list (CuBIE's output_types): state, observables (the series at "
                 "--save-every / --save-at), time, status, iteration_counters (as --counters) and summary names "
                 "(as --summaries, which it replaces); without state or observables no series is kept");
  run.add_option(
         "--output", a.output,
         "The results: FILE.h5 (HDF5: final states, series, statuses and stop times, summaries, the grid and "
         "the options), FILE.npy (final states, shape (n_runs, n_states), grid order, beside "
         "FILE_status.npy, int32 status codes: 0 success, 1 max_steps_reached, 2 step_size_underflow, 3 "
         "non_finite_state, 4 singular_matrix, 5 not_solved, 6 stopped_by_event, 7 "
         "inconsistent_initial_values, 8 zeno_events, 9 newton_failure, and FILE_t_stop.npy, the time each "
         "run's final state "
         "is at) or "
         "FILE.csv (columns named by the model's states; t is each "
         "run's stop time, with a series its save times and t_stop a column). Its folder must exist; an "
         "existing file is replaced, and only once the new one is complete: a failed write leaves it as "
         "it was")
      ->required();
  run.add_option("--trace", a.trace,
                 "Also write the run's timeline to FILE.json (Trace Event Format: open it in Perfetto or "
                 "chrome://tracing, or draw it with scripts/plot_trace.py); BATCHODE_TRACE does the same");
}

int run_cli(int argc, char** argv) {
  CLI::App app{"batchode " BATCHODE_VERSION_STRING
               ": integrate a batch of ODEs defined in a model file, on GPUs and CPUs.\n"
               "Exit codes: 0 success (every run finished), 1 model, solve or output error, 2 command-line "
               "error, 3 output written but some runs failed (--allow-failed-runs: 0), 130 / 143 stopped by "
               "SIGINT (Ctrl-C) / SIGTERM.",
               "batchode"};
  app.set_version_flag("--version", BATCHODE_VERSION_STRING);
  app.require_subcommand(1);

  RunArgs run_args;
  CLI::App* run = app.add_subcommand("run", "Solve a model over a grid of runs and write the results");
  add_run_options(*run, run_args);

  std::string check_path;
  CLI::App* check = app.add_subcommand(
      "check",
      "Parse a model; print its errors (file:line:col), or the generated code and the Jacobian's sparsity");
  check->add_option("model", check_path, "The model file (TOML)")->required();

  CLI::App* info =
      app.add_subcommand("info", "List backends, devices, runtime compilers and the compiled-model cache");

  // A first word that is no flag names the command: say which exist (CLI11 would say "A subcommand is
  // required", as if none had been given).
  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    if (command != "run" && command != "check" && command != "info") {
      if (batchode::cli::launcher_rank() == 0) {
        std::cerr << "batchode: unknown command '" << command
                  << "': the commands are run, check and info (batchode --help)\n";
      }
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Prints the help, the version, or the error and a hint (rank 0's only, as main's errors).
    const bool root = batchode::cli::launcher_rank() == 0;
    const int code = root ? app.exit(e) : app.exit(e, batchode::cli::null_stream(), batchode::cli::null_stream());
    return code == 0 ? 0 : 2;
  }
  if (run->parsed()) return batchode::cli::run_command(run_args, std::cout, std::cerr);
  if (check->parsed()) return batchode::cli::check_command(check_path, std::cout);
  if (info->parsed()) return batchode::cli::info_command(std::cout);
  return 2;  // unreachable: CLI11 requires one subcommand
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG instead of killing the process: the
  // writers then say so and leave an older output as it was (files::AtomicFile).
  std::signal(SIGXFSZ, SIG_IGN);
  // Under mpirun every process meets the same error (the same command line; they check the batch
  // together): rank 0 says it and alone ends with its exit code, the launcher's. Were others to end
  // with one too, the first to end would have the launcher kill the job, rank 0 among it, perhaps
  // before its line was out (run_command's MPI path waits for rank 0 for the same reason).
  const bool root = batchode::cli::launcher_rank() == 0;
  // Not under a launcher: a process that left the job's collective calls would leave the others
  // waiting for it, so there the launcher's signal ends the job as it always has.
  if (!batchode::cli::launched_by_mpi()) batchode::cli::install_stop_signals();
  int code = 0;
  try {
    code = run_cli(argc, argv);
  } catch (...) {
    code = batchode::cli::report_current_error(root ? std::cerr : batchode::cli::null_stream());
  }
  // A signal that came once nothing was left to stop still says the command was stopped.
  if (code == 0 && batchode::cli::stop_signal() != 0) code = batchode::cli::report_stop(std::cerr, nullptr);
  return root ? code : 0;
}
