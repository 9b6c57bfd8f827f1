// solver/scheduling/: the measured cost model behind Backend::automatic. For one backend running one system
// with one method in one precision, a batch of n runs taking s steps each and writing b output
// bytes each is predicted to take
//   fixed_ms [+ setup_ms on the backend's first solve in a Solver] + n * (s * ns_per_run_step + b *
// ns_per_byte) * 1e-6 milliseconds. fixed_ms is what every solve pays (launches, transfer latency, thread
// start-up); setup_ms what only a Solver's first solve on that backend pays (a GPU's device and pinned
// buffers, streams, staging threads). Costs paid once per process (context creation, module load) are kept
// out of both: calibration pays them before it times anything.
// The coefficients are measured on this machine (a short calibration solve, see calibrator.hpp),
// cached in a text file the user may delete (the next automatic solve then recalibrates), and
// refined after every real solve by an exponential moving average of the term that dominated it.
// The process keeps each file's entries in memory and reads the file again only when it changed on
// disk; refinements are written at most once a second (by the next refine or store) and when the
// process ends: reading and rewriting the file around every solve cost about a millisecond of each
// automatic solve.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "batchode/kernels/methods/method.hpp"

namespace batchode {

/// Measured coefficients of one (system, method, precision, device) on this machine.
struct CostCoefficients {
  double fixed_ms = 0;          ///< launch and transfer latency every solve pays (warm)
  double setup_ms = 0;          ///< extra cost of a Solver's first solve on this backend (buffers, streams)
  double ns_per_run_step = 0;   ///< throughput: nanoseconds per step of one run
  double ns_per_byte = 0;       ///< output volume: nanoseconds per byte of one run's outputs (< 0: unknown)
  std::uint64_t observations = 0;  ///< calibration solves plus real solves folded in

  /// Predicted wall time of `runs` runs of `steps_per_run` steps writing `bytes_per_run` bytes each;
  /// `first_use`: the Solver has not used this backend yet, so it pays setup_ms. Positive and
  /// non-decreasing in `runs` for any stored coefficients (negative ones count as 0).
  double predict_ms(std::size_t runs, double steps_per_run, double bytes_per_run, bool first_use = false) const {
    return std::max(0.0, fixed_ms) + (first_use ? std::max(0.0, setup_ms) : 0.0) +
           static_cast<double>(runs) * per_run_ns(steps_per_run, bytes_per_run) * 1e-6;
  }
  /// The variable cost of one run in nanoseconds.
  double per_run_ns(double steps_per_run, double bytes_per_run) const {
    return std::max(0.0, steps_per_run) * std::max(0.0, ns_per_run_step) +
           std::max(0.0, bytes_per_run) * std::max(0.0, ns_per_byte);
  }
};

/// The cache key: "<system>|<method>|<float|double>|<device name or cpu>"; <system> is
/// system_cost_name<System>() (system_key.hpp).
std::string cost_key(const std::string& system, Method method, bool is_double, const std::string& device);

/// Coefficients by key, backed by a cache file. Thread-safe: the entries of a file are shared by every
/// CostModel of the process on that path, behind one lock.
class CostModel {
 public:
  /// Uses default_cache_path() when `path` is empty.
  explicit CostModel(std::string path = {});

  /// $BATCHODE_CACHE_DIR/cost_model.txt, else $XDG_CACHE_HOME/batchode/cost_model.txt, else
  /// $HOME/.cache/batchode/cost_model.txt, else ./batchode_cost_model.txt.
  static std::string default_cache_path();
  const std::string& path() const noexcept { return path_; }

  /// The cached coefficients of `key` (the file is read again when it changed; a deleted file means
  /// none).
  std::optional<CostCoefficients> find(const std::string& key) const;
  /// Stores `c` under `key`, merging with the file's other entries. A file that cannot be written
  /// is not an error: the model then lives only in this process (returns false).
  bool store(const std::string& key, const CostCoefficients& c);
  /// Folds an observed solve into `key` (if present), moving one coefficient by weight `alpha`
  /// towards the value the observation implies: setup_ms for a first-use solve whose warm prediction
  /// is below the setup (observed minus the warm prediction; larger first uses are ignored, their
  /// buffer growth would be mistaken for setup); otherwise ns_per_run_step when the per-run term dominates
  /// the prediction, else fixed_ms. Coefficients stay positive. Returns the updated coefficients. Written to
  /// the file by the first refine or store a second or more after the last write, and when the process ends
  /// (if the file still exists then: a deleted cache stays deleted).
  std::optional<CostCoefficients> refine(const std::string& key, std::size_t runs, double steps_per_run,
                                         double bytes_per_run, double observed_ms, bool first_use = false,
                                         double alpha = 0.3);

 private:
  std::string path_;
};

}  // namespace batchode
