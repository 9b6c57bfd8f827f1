// cli/: the three `batchode` subcommands as functions: what each takes (filled in by main.cpp's CLI11
// wiring) and what it returns. One file per command implements it; main.cpp maps what they throw to
// exit codes (UsageError: 2, any other std::exception: 1).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace batchode::cli {

/// The flags of `batchode run`, as text where main.cpp's CLI11 checks already limited the choices.
struct RunArgs {
  std::string model;                ///< the model file (TOML)
  std::vector<std::string> sweeps;  ///< each --sweep's text (sweep.hpp)
  std::string grid = "combinatorial";
  double t0 = 0.0;
  double t_end = 0.0;
  std::string method = "dopri5";
  std::optional<double> rtol, atol, dt, dt_max, save_every;
  std::string save_at;                ///< --save-at's text (empty: none), parsed by parse_values
  std::string save_mode = "auto";     ///< auto | land | interpolate
  std::string save_variables;         ///< --save-variables: "z,energy" (empty: every state and observable)
  std::string max_steps_text;  ///< --max-steps as written (empty: the default), checked by run_command
  std::optional<double> event_tolerance;  ///< the model's [events] located to this width in t
  std::string precision = "float64";  ///< float32 | float64
  std::string backend = "auto";       ///< auto | cpu | gpu
  std::string run_order = "auto";     ///< auto | off
  std::string verbosity = "default";  ///< none | default | verbose | debug
  bool counters = false;
  bool allow_failed_runs = false;  ///< exit 0, not 3, when the output was written but some runs failed
  /// Summary metrics (SolveOptions::summaries), each flag's text as given: comma lists of names.
  std::string summaries;  ///< --summaries: "mean,max,peaks[3]" (empty: none)
  std::optional<double> summarise_every, sample_summaries_every;
  std::string summarise_variables;  ///< --summarise-variables: "x,v" (empty: all)
  std::string output_types;         ///< --output-types: CuBIE's list (empty: not given)
  /// --statistics: statistics across runs at the save times (SolveOptions::statistics), a comma list
  /// ("mean,var,quantiles[0.05,0.5,0.95],histogram[64]"; empty: none); written to an .h5 output.
  std::string statistics;
  std::optional<double> quantile_rank_error;  ///< --quantile-rank-error
  std::string output;  ///< .h5, .npy or .csv
  std::string trace;   ///< a Trace Event Format file of the run's timeline (empty: none)
};

/// Exit status of a run whose output was written but some of whose runs failed (main.cpp's list).
inline constexpr int exit_failed_runs = 3;

/// Solves the model over the grid and writes the output file; prints one line saying what was
/// written (stdout) and, when some runs failed, how many and why (stderr). Returns 0, or
/// exit_failed_runs when some runs failed (unless args.allow_failed_runs). Throws
/// UsageError for a mistake on the command line (found before the model is compiled where possible),
/// std::exception for a bad model, a failed solve or an output that cannot be written.
int run_command(const RunArgs& args, std::ostream& out, std::ostream& err);

/// Parses the model file and prints the generated C++ (with the symbolic Jacobian) and the Jacobian's
/// sparsity. Returns 0; throws models::ModelError ("file:line:col: ...") for a bad model.
int check_command(const std::string& model_path, std::ostream& out);

/// Prints the backends and devices, the runtime compilers and the cache folder with its entries.
/// Returns 0; never throws for what it cannot find (it says so instead).
int info_command(std::ostream& out);

}  // namespace batchode::cli
