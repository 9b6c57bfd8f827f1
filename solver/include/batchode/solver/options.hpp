// solver/: the options of a batch solve and their validation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "batchode/solver/method.hpp"
#include "batchode/timing/verbosity.hpp"

namespace batchode {

/// Bad input to a solve: what() names the field, the run or the sizes at fault.
class InvalidInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The InvalidInput for a NaN or infinity in a batch: `what` is "initial value" or "parameter",
/// `index` the position within run `run`'s row. One wording for every place inputs are checked.
inline InvalidInput non_finite_input(const char* what, std::size_t run, std::size_t index, double value) {
  return InvalidInput(std::string(what) + " of run " + std::to_string(run) + " (index " + std::to_string(index) +
                      ") is " + std::to_string(value) + ": inputs must be finite");
}

/// Where a batch runs. `cpu` always works; `gpu` fails (throws) if no GPU path can run;
/// `automatic` uses the GPU when one is usable and falls back to the CPU otherwise.
enum class Backend { automatic, cpu, gpu };
std::string to_string(Backend b);

/// The PI step-size controller of adaptive methods (Hairer, Norsett & Wanner II.4; Gustafsson).
/// After a step with error norm err (<= 1 accepted) the next step is
///   h * clamp(safety * err^(-ki/k) * err_prev^(kp/k), min_factor, max_factor),  k = error_order + 1.
/// The default gains are those of Hairer's DOPRI5 code (err^-0.17 * err_prev^0.04 for k = 5); in steady
/// state they aim at err = safety^(k / (ki - kp)), about 0.45. Gustafsson's ki = 0.7, kp = 0.4 aim at
/// about 0.17, i.e. at a tighter accuracy than asked, and cost more at matched error on the CPU Lorenz
/// sweep at loose tolerances (benchmarks/cpu_work_precision).
struct StepControl {
  double safety = 0.9;
  double min_factor = 0.2;   ///< smallest shrink factor per step
  double max_factor = 10.0;  ///< largest growth factor per step
  double ki = 0.85;          ///< integral gain (scaled by 1/k)
  double kp = 0.2;           ///< proportional gain (scaled by 1/k); 0 gives the classic I controller
  double dt_min = 0.0;       ///< below this a run fails with step_size_underflow (0: rounding level)
  double dt_max = std::numeric_limits<double>::infinity();
};

/// Which outputs a solve produces beyond the final state (always produced).
struct OutputSelection {
  bool status = true;    ///< per-run Status (always computed; kept in the result only when true)
  bool counters = true;  ///< per-run RunCounters
};

/// GPU resource settings: the device-memory budget that sizes chunks.
struct GpuOptions {
  double memory_fraction = 0.8;  ///< of the device's free memory, when memory_bytes is 0
  std::size_t memory_bytes = 0;  ///< explicit budget in bytes (overrides memory_fraction)
  std::size_t chunks = 0;        ///< force this many chunks (0: as many as the budget needs)
  int device = 0;                ///< device index
  int block_size = 128;          ///< threads per block
  bool allow_cpu_fallback = true;  ///< under Backend::automatic: fall back to CPU if the GPU fails
};

/// Everything a solve needs besides the system and the batch.
struct SolveOptions {
  double t0 = 0.0;
  double t_end = 1.0;
  Method method = Method::dopri5;
  /// Fixed step (euler, rk4: required) or first step of an adaptive method (unset: Hairer's guess).
  std::optional<double> dt;
  double rtol = 1e-6;
  double atol = 1e-6;
  /// Save the state every save_every, at t0 + k * save_every (k = 0, 1, ...) up to t_end. Steps land
  /// exactly on save times, so saved values carry no interpolation error. Unset: final state only.
  std::optional<double> save_every;
  std::uint64_t max_steps = 1'000'000;  ///< per run, accepted + rejected
  Backend backend = Backend::automatic;
  /// Overrides the TimeLogger's level for this solve (BATCHODE_VERBOSITY overrides both).
  std::optional<Verbosity> verbosity;
  StepControl step_control;
  OutputSelection outputs;
  GpuOptions gpu;
  unsigned cpu_threads = 0;  ///< 0: all hardware threads
};

/// Checks every field; throws InvalidInput naming the first bad one.
void validate(const SolveOptions& options);

/// validate(), then the checks that depend on the solve's precision T (float or double): times, steps
/// and tolerances as they are once rounded to T (a span, a save spacing or a tolerance that rounds
/// to nothing, a time beyond T's range). Solver calls it on construction.
template <class T>
void validate_for(const SolveOptions& options);
extern template void validate_for<float>(const SolveOptions&);
extern template void validate_for<double>(const SolveOptions&);

/// The largest max_steps: per-run step counters (RunCounters) are 32-bit.
inline constexpr std::uint64_t max_steps_limit = std::numeric_limits<std::uint32_t>::max();

/// Number of saved points of a solve (0 when save_every is unset).
std::size_t count_saves(const SolveOptions& options);

}  // namespace batchode
