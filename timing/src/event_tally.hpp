// timing/ (private to timing/src): the running sums behind EventStats, the rows of the summary
// table and the JSON statistics, and how a report reads a GPU time. One definition, so the three
// reports cannot disagree on a mean or a rate.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>

#include "batchode/timing/gpu_time.hpp"
#include "batchode/timing/metadata.hpp"

namespace batchode::detail {

// A GPU time for reporting: a runtime error while reading it means "unknown", never an exception
// out of a summary.
inline std::optional<double> reported_gpu_ms(const GpuTime& gpu, bool wait) noexcept {
  try {
    return wait ? gpu.wait() : gpu.peek();
  } catch (...) {
    return std::nullopt;
  }
}

struct EventTally {
  std::size_t count = 0;
  double total = 0, min = 0, max = 0;
  std::size_t gpu_count = 0;
  double gpu_total = 0;
  std::size_t nbytes_count = 0;
  double nbytes = 0, nbytes_wall = 0, nbytes_gpu = 0;
  bool nbytes_all_gpu = true;

  void add(double wall, const std::optional<double>& gpu, const Metadata& metadata) {
    min = count == 0 ? wall : std::min(min, wall);
    max = count == 0 ? wall : std::max(max, wall);
    ++count;
    total += wall;
    if (gpu) {
      ++gpu_count;
      gpu_total += *gpu;
    }
    double bytes = 0;
    if (const MetaValue* value = metadata.find("nbytes"); value && value->numeric(bytes)) {
      ++nbytes_count;
      nbytes += bytes;
      nbytes_wall += wall;
      if (gpu) {
        nbytes_gpu += *gpu;
      } else {
        nbytes_all_gpu = false;
      }
    }
  }
  double mean() const { return count > 0 ? total / static_cast<double>(count) : 0; }
  // Device time measures a transfer more precisely than the host clock, when every one has it.
  double bytes_per_second() const {
    if (nbytes_count == 0) return 0;
    const double ms = nbytes_all_gpu ? nbytes_gpu : nbytes_wall;
    return ms > 0 ? nbytes / (ms * 1e-3) : 0;
  }
};

}  // namespace batchode::detail
