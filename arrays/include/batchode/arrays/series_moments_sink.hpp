// arrays/: where a GPU part hands its chunks' series reduced on the device (kernels/outputs/
// series_moments.hpp) when the solve keeps statistics across runs and no series (issue 52): the few
// moments per save time and column of each chunk cross to the host instead of its runs' series. The
// solver's side (solver/results/ensemble_statistics.hpp: EnsembleMomentsSink) joins them.
#pragma once

#include <cstddef>

namespace batchode::arrays {

class SeriesMomentsSink {
 public:
  virtual ~SeriesMomentsSink() = default;
  /// The moments of runs [first_run, first_run + runs) of the batch: save k, column c (the series'
  /// states, then the observables), part p of the chunk's runs at ((k * columns + c) * parts + p) *
  /// kernels::moments_values, as n, mean, m2, min, max. Called once per chunk by the thread of the
  /// GPU part that ran it, after its stream finished; the parts of several GPUs call it concurrently.
  virtual void add_moments(const double* moments, std::size_t parts, std::size_t first_run, std::size_t runs) = 0;
};

}  // namespace batchode::arrays
