// solver/setup/: SolveOptions::statistics parsed and checked (statistics_plan.hpp).
#include "batchode/solver/setup/statistics_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "batchode/checks/invalid_input.hpp"

namespace batchode {

namespace {

constexpr const char* where = "SolveOptions.statistics.metrics";
/// Bins of a histogram at most: each save time and variable keeps its own counts.
constexpr std::size_t bins_limit = std::size_t(1) << 20;

/// The comma-separated numbers between the brackets of `asked` ("quantiles[0.05,0.5]"). Throws
/// InvalidInput naming the entry when one is not a number.
std::vector<double> bracketed_numbers(const std::string& asked, std::size_t open) {
  if (asked.back() != ']' || asked.size() < open + 3) {
    throw InvalidInput(fmt::format("{}: '{}' needs its values between brackets, as quantiles[0.05,0.5,0.95] or "
                                   "histogram[64]",
                                   where, asked));
  }
  std::vector<double> values;
  const std::string inside = asked.substr(open + 1, asked.size() - open - 2);
  std::size_t start = 0;
  while (start <= inside.size()) {
    const std::size_t comma = std::min(inside.find(',', start), inside.size());
    const std::string item = inside.substr(start, comma - start);
    char* end = nullptr;
    errno = 0;
    const double v = item.empty() ? 0.0 : std::strtod(item.c_str(), &end);
    const char* tail = end;
    const bool blank_tail = tail != nullptr && std::all_of(tail, item.c_str() + item.size(), [](char c) { return c == ' '; });
    if (item.empty() || !blank_tail || end == item.c_str() || errno == ERANGE || !std::isfinite(v)) {
      throw InvalidInput(fmt::format("{}: '{}': '{}' is not a finite number", where, asked, item));
    }
    values.push_back(v);
    start = comma + 1;
  }
  return values;
}

void set_once(bool& flag, const std::string& asked) {
  if (flag) throw InvalidInput(fmt::format("{} lists '{}' twice", where, asked));
  flag = true;
}

}  // namespace

const std::vector<std::string>& statistics_names() {
  static const std::vector<std::string> names = {"count", "mean", "var", "std", "min", "max",
                                                 "quantiles[...]", "histogram[...]"};
  return names;
}

StatisticsPlan plan_statistics(const EnsembleStatisticsOptions& options) {
  StatisticsPlan plan;
  const double eps = options.quantile_rank_error;
  if (!(eps > 0 && eps < 0.5)) {
    throw InvalidInput(fmt::format("SolveOptions.statistics.quantile_rank_error = {} is outside (0, 0.5)", eps));
  }
  plan.rank_error = eps;
  bool quantiles = false, histogram = false;
  for (const std::string& asked : options.metrics) {
    const std::size_t open = asked.find('[');
    const std::string base = asked.substr(0, open);
    if (base == "count") {
      set_once(plan.count, asked);
    } else if (base == "mean") {
      set_once(plan.mean, asked);
    } else if (base == "var") {
      set_once(plan.var, asked);
    } else if (base == "std") {
      set_once(plan.std_dev, asked);
    } else if (base == "min") {
      set_once(plan.min, asked);
    } else if (base == "max") {
      set_once(plan.max, asked);
    } else if (base == "quantiles") {
      set_once(quantiles, asked);
      if (open == std::string::npos) {
        throw InvalidInput(fmt::format("{}: 'quantiles' needs its levels, as quantiles[0.05,0.5,0.95]", where));
      }
      plan.quantiles = bracketed_numbers(asked, open);
      for (double q : plan.quantiles) {
        if (!(q >= 0 && q <= 1)) {
          throw InvalidInput(fmt::format("{}: '{}': level {} is outside [0, 1]", where, asked, q));
        }
      }
    } else if (base == "histogram") {
      set_once(histogram, asked);
      if (open == std::string::npos) {
        throw InvalidInput(fmt::format("{}: 'histogram' needs its bins, as histogram[64] or histogram[64,-1,1]", where));
      }
      const std::vector<double> v = bracketed_numbers(asked, open);
      if ((v.size() != 1 && v.size() != 3) || v[0] < 1 || v[0] > double(bins_limit) || v[0] != std::floor(v[0])) {
        throw InvalidInput(fmt::format("{}: '{}' takes a whole number of bins from 1 to {}, and optionally the "
                                       "range: histogram[64] or histogram[64,low,high]",
                                       where, asked, bins_limit));
      }
      plan.histogram_bins = static_cast<std::size_t>(v[0]);
      if (v.size() == 3) {
        if (!(v[1] < v[2])) {
          throw InvalidInput(fmt::format("{}: '{}': the range [{}, {}] needs low < high", where, asked, v[1], v[2]));
        }
        plan.histogram_range = std::array<double, 2>{v[1], v[2]};
      }
    } else {
      std::string known;
      for (const std::string& n : statistics_names()) known += (known.empty() ? "" : ", ") + n;
      throw InvalidInput(fmt::format("{}: unknown statistic '{}'; known: {}", where, asked, known));
    }
    if (open != std::string::npos && base != "quantiles" && base != "histogram") {
      throw InvalidInput(fmt::format("{}: '{}' takes nothing between brackets ('{}')", where, asked, base));
    }
    plan.metrics.push_back(base);
  }
  return plan;
}

}  // namespace batchode
