// solver/setup/: the checks a batch passes before any work: its sizes (cheap, refused at once), whether
// its result fits in host memory, and that its values are finite. Values are scanned on the
// Solver's worker pool (arrays::HostWorkers): 10^7 runs' inputs are hundreds of MB, which one
// thread reads in tens of milliseconds. Each refusal is an InvalidInput naming the field, the run
// or the sizes at fault.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/host_workers.hpp"
#include "batchode/checks/checked_size.hpp"
#include "batchode/checks/finite.hpp"
#include "batchode/checks/invalid_input.hpp"

namespace batchode::detail {

/// The number of runs of a batch given as `y0_values` initial values and `param_values`
/// parameters. Throws InvalidInput for an empty batch or sizes that do not match n_states/n_params.
inline std::size_t runs_of_batch(std::size_t y0_values, std::size_t param_values, std::size_t n_states,
                                 std::size_t n_params) {
  if (y0_values == 0) throw InvalidInput("empty batch: no initial values given");
  if (y0_values % n_states != 0) {
    throw InvalidInput("initial values: " + std::to_string(y0_values) + " values is not a multiple of n_states = " +
                       std::to_string(n_states));
  }
  const std::size_t runs = y0_values / n_states;
  const std::size_t expected = checks::checked_mul(runs, n_params, "parameters (n_runs x n_params)");
  if (param_values != expected) {
    throw InvalidInput("parameters: expected n_runs x n_params = " + std::to_string(runs) + " x " +
                       std::to_string(n_params) + " = " + std::to_string(expected) + " values, got " +
                       std::to_string(param_values));
  }
  return runs;
}

/// Throws InvalidInput for an empty batch, a null array that must hold values, or a batch whose
/// arrays' sizes do not fit in size_t (refused naming them, not wrapped).
inline void check_batch_pointers(const void* y0, const void* params, std::size_t runs, std::size_t n_states,
                                 std::size_t n_params) {
  if (runs == 0) throw InvalidInput("empty batch: n_runs is 0");
  if (y0 == nullptr) throw InvalidInput("initial values: null pointer");
  if (n_params > 0 && params == nullptr) throw InvalidInput("parameters: null pointer but n_params > 0");
  (void)checks::checked_mul(runs, n_states, "initial values (n_runs x n_states)");
  (void)checks::checked_mul(runs, n_params, "parameters (n_runs x n_params)");
}

/// The result is allocated in full before any work: throws InvalidInput when `runs` results of
/// `bytes_per_run` bytes cannot fit in the host memory available now.
inline void check_result_fits(std::size_t runs, std::size_t bytes_per_run) {
  arrays::check_host_memory(checks::checked_mul(runs, bytes_per_run, "result bytes (n_runs x bytes per run)"),
                            arrays::available_host_memory());
}

/// Values per worker below which waking one costs more than it saves: 2^20 doubles take about a
/// millisecond to scan on one thread.
inline constexpr std::size_t finite_scan_grain = std::size_t(1) << 20;

/// Index of the first NaN or infinity in values[0, n), or n, scanned on `workers` and the calling
/// thread (which must not be one of the workers' jobs).
template <class T>
std::size_t first_non_finite(const T* values, std::size_t n, arrays::HostWorkers& workers) {
  const std::size_t parts = workers.parts_for(n, finite_scan_grain);
  if (parts <= 1) return checks::first_non_finite_in(values, 0, n);
  std::vector<std::size_t> found(parts, n);
  workers.parallel_parts(n, parts, [&](std::size_t part, std::size_t begin, std::size_t end) {
    const std::size_t i = checks::first_non_finite_in(values, begin, end);
    found[part] = i == end ? n : i;
  });
  return *std::min_element(found.begin(), found.end());
}

/// Throws InvalidInput naming the first NaN or infinity of runs [first_run, first_run + count) of a
/// run-major array of `width` values per run (`what`: "initial value" or "parameter").
template <class T>
void check_finite_rows(const T* values, std::size_t first_run, std::size_t count, std::size_t width, const char* what,
                       arrays::HostWorkers& workers) {
  if (width == 0) return;
  const T* range = values + first_run * width;
  const std::size_t i = first_non_finite(range, count * width, workers);
  if (i == count * width) return;
  throw non_finite_input(what, first_run + i / width, i % width, static_cast<double>(range[i]));
}

/// Throws InvalidInput naming the first NaN or infinity among the initial values, then the
/// parameters, of runs [first_run, first_run + count).
template <class T>
void check_finite_runs(const T* y0, const T* params, std::size_t first_run, std::size_t count, std::size_t n_states,
                       std::size_t n_params, arrays::HostWorkers& workers) {
  check_finite_rows(y0, first_run, count, n_states, "initial value", workers);
  if (n_params > 0) check_finite_rows(params, first_run, count, n_params, "parameter", workers);
}

}  // namespace batchode::detail
