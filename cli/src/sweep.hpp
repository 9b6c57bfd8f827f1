// cli/: the text of `batchode run --sweep` turned into values, and the sweeps into the batch to solve.
// Apart from main.cpp so the tests can check every form and every error without running the binary
// (tests/cli/sweep_test.cpp links batchode_cli_lib).
//
//   NAME=linspace(a, b, n)   n values from a to b, both included (numpy.linspace; n = 1 gives a)
//   NAME=logspace(a, b, n)   10^x for x in linspace(a, b, n) (numpy.logspace: exponents, base 10)
//   NAME=v1,v2,...           the values as listed (one value overrides the default)
//
// NAME is a state (its initial value) or a parameter of the model. Spaces around tokens are allowed.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/solver/setup/grid.hpp"

namespace batchode::cli {

/// A mistake on the command line (a malformed flag, an unknown name): main prints what() and exits
/// with 2, as for the errors CLI11 finds itself.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One --sweep flag: the swept name, its values, and the flag's text (for messages).
struct Sweep {
  std::string name;
  std::vector<double> values;
  std::string text;
};

/// Parses one --sweep text. Throws UsageError naming the flag and its text ("--sweep 'rho=linspace(0,1)':
/// linspace takes 3 arguments (a, b, n), got 2"): no '=', a name that is not an identifier, an unknown
/// function, a wrong argument count, a number that does not parse or is not finite (logspace(0, 400, 2)
/// included), n < 1 or not an integer, an empty list item.
Sweep parse_sweep(const std::string& text);

/// Parses values written as a sweep's right side (linspace(a,b,n), logspace(a,b,n) or v1,v2,...) for
/// another flag (--save-at): UsageError names `flag` and the text.
std::vector<double> parse_values(const std::string& text, const char* flag);

/// parse_sweep of every text, in order; also throws UsageError when a name is swept twice.
std::vector<Sweep> parse_sweeps(const std::vector<std::string>& texts);

/// The names and default values of a model's states and parameters.
template <class T>
struct GridDefaults {
  std::vector<std::string> state_names, parameter_names;
  std::vector<T> y0, params;
};

/// The batch of `sweeps` over `defaults` (GridBuilder): combinatorial (the Cartesian product, first
/// sweep slowest) or verbatim (run i takes the i-th value of every sweep). No sweep: one run of the
/// defaults. Throws UsageError naming the flag for a name that is neither a state nor a parameter
/// (listing those that are), for a value that T cannot hold (1e50 in float32), and, for a verbatim
/// grid, for sweeps of different lengths (naming both flags).
template <class T>
Batch<T> build_grid(const std::vector<Sweep>& sweeps, GridKind kind, const GridDefaults<T>& defaults);

extern template Batch<float> build_grid<float>(const std::vector<Sweep>&, GridKind,
                                               const GridDefaults<float>&);
extern template Batch<double> build_grid<double>(const std::vector<Sweep>&, GridKind,
                                                 const GridDefaults<double>&);

}  // namespace batchode::cli
