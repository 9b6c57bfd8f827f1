// distributed/: how many runs each process solves. Shares are contiguous ranges in rank order, sized by each
// process's predicted throughput (runs per millisecond, from its own measured cost model), so a
// process with a GPU takes more than one with only its CPU cores and all finish together.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace batchode::distributed {

/// A contiguous range of a batch's runs.
struct RunRange {
  std::size_t first_run = 0;
  std::size_t runs = 0;
};

/// Splits `runs` into one range per entry of `rates` (in order), proportional to the rates (largest
/// remainders rounded up, so the counts sum to `runs`). A rate that is not positive and finite gets
/// nothing; when none is, the split is even.
inline std::vector<RunRange> split_by_rate(const std::vector<double>& rates, std::size_t runs) {
  const std::size_t n = rates.size();
  std::vector<RunRange> ranges(n);
  if (n == 0) return ranges;
  std::vector<double> weight(n, 0.0);
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isfinite(rates[i]) && rates[i] > 0) weight[i] = rates[i];
    total += weight[i];
  }
  if (!(total > 0)) {
    std::fill(weight.begin(), weight.end(), 1.0);
    total = static_cast<double>(n);
  }
  std::vector<std::size_t> count(n);
  std::vector<std::pair<double, std::size_t>> remainder(n);
  std::size_t given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double exact = static_cast<double>(runs) * weight[i] / total;
    count[i] = std::min(runs - given, static_cast<std::size_t>(std::floor(exact)));
    given += count[i];
    remainder[i] = {weight[i] > 0 ? exact - std::floor(exact) : -1.0, i};
  }
  std::sort(remainder.begin(), remainder.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (std::size_t k = 0; given < runs; k = (k + 1) % n) {
    if (remainder[k].first < 0) continue;  // a process without throughput takes nothing
    ++count[remainder[k].second];
    ++given;
  }
  std::size_t first = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ranges[i] = {first, count[i]};
    first += count[i];
  }
  return ranges;
}

/// Splits the range `range` over the processes with a positive rate in `rates` (the others get an
/// empty range starting at range.first_run), proportional to those rates.
inline std::vector<RunRange> split_range_by_rate(const std::vector<double>& rates, RunRange range) {
  std::vector<RunRange> ranges = split_by_rate(rates, range.runs);
  for (RunRange& r : ranges) r.first_run += range.first_run;
  return ranges;
}

}  // namespace batchode::distributed
