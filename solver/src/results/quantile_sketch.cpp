// solver/results/: the compactor hierarchy of quantile_sketch.hpp.
#include "batchode/solver/results/quantile_sketch.hpp"

#include "bytes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace batchode {

QuantileSketch::QuantileSketch(std::size_t k) : k_(k) {
  if (k == 0) throw std::invalid_argument("QuantileSketch: k = 0");
  levels_.emplace_back();
}

std::size_t QuantileSketch::capacity_for(double eps, std::uint64_t n) {
  if (!(eps > 0 && eps < 0.5)) throw std::invalid_argument("QuantileSketch::capacity_for: eps outside (0, 0.5)");
  auto levels = [n](std::size_t k) {
    const double ratio = static_cast<double>(n) / (2.0 * static_cast<double>(k));
    return ratio < 1 ? 1.0 : std::floor(std::log2(ratio)) + 1;
  };
  std::size_t k = 1;
  while (levels(k) / (2.0 * static_cast<double>(k)) > eps) k += std::max<std::size_t>(1, k / 8);
  // Values about as many as the levels would hold anyway (or a few times 1 / eps) are kept whole:
  // exact quantiles at the memory of the bound's.
  const double held = 2.0 * static_cast<double>(k) * levels(k) + 4.0 / eps;
  if (static_cast<double>(n) < held) k = std::max<std::size_t>(k, static_cast<std::size_t>(n / 2 + 1));
  return k;
}

std::size_t QuantileSketch::held() const noexcept {
  std::size_t held = 0;
  for (const std::vector<double>& level : levels_) held += level.size();
  return held;
}

void QuantileSketch::halve(std::size_t h) {
  std::vector<double>& level = levels_[h];
  std::sort(level.begin(), level.end());
  // An odd count leaves its largest value at this level: the total weight stays exact.
  const std::size_t pairs = level.size() / 2;
  if (h + 1 == levels_.size()) levels_.emplace_back();
  std::vector<double>& up = levels_[h + 1];  // (after emplace_back: `level` may have moved)
  std::vector<double>& here = levels_[h];
  for (std::size_t i = 0; i < pairs; ++i) up.push_back(here[2 * i + (odd_ ? 1 : 0)]);
  odd_ = !odd_;
  here.erase(here.begin(), here.begin() + static_cast<std::ptrdiff_t>(2 * pairs));
  error_ += std::uint64_t(1) << h;
}

void QuantileSketch::add(const double* values, std::size_t n) {
  const std::size_t full = 2 * k_;
  for (std::size_t i = 0; i < n;) {
    const std::size_t take = std::min(n - i, full - std::min(full, levels_[0].size()));
    levels_[0].insert(levels_[0].end(), values + i, values + i + take);
    i += take;
    n_ += take;
    for (std::size_t h = 0; h < levels_.size() && levels_[h].size() >= full; ++h) halve(h);
  }
}

void QuantileSketch::merge(const QuantileSketch& other) {
  if (other.k_ != k_) throw std::invalid_argument("QuantileSketch::merge: sketches of different k");
  if (other.levels_.size() > levels_.size()) levels_.resize(other.levels_.size());
  for (std::size_t h = 0; h < other.levels_.size(); ++h) {
    levels_[h].insert(levels_[h].end(), other.levels_[h].begin(), other.levels_[h].end());
  }
  n_ += other.n_;
  error_ += other.error_;
  for (std::size_t h = 0; h < levels_.size(); ++h) {
    if (levels_[h].size() >= 2 * k_) halve(h);
  }
}

std::vector<double> QuantileSketch::quantiles(const std::vector<double>& qs) const {
  std::vector<std::pair<double, std::uint64_t>> weighted;
  weighted.reserve(held());
  for (std::size_t h = 0; h < levels_.size(); ++h) {
    for (double v : levels_[h]) weighted.emplace_back(v, std::uint64_t(1) << h);
  }
  std::sort(weighted.begin(), weighted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<double> out;
  out.reserve(qs.size());
  for (double q : qs) {
    if (weighted.empty()) {
      out.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    const double target = std::max(1.0, q * static_cast<double>(n_));
    std::uint64_t rank = 0;
    double value = weighted.back().first;
    for (const auto& [v, w] : weighted) {
      rank += w;
      if (static_cast<double>(rank) >= target) {
        value = v;
        break;
      }
    }
    out.push_back(value);
  }
  return out;
}

double QuantileSketch::quantile(double q) const { return quantiles({q})[0]; }

void QuantileSketch::append_bytes(std::vector<char>& out) const {
  bytes::append(out, static_cast<std::uint64_t>(k_));
  bytes::append(out, n_);
  bytes::append(out, error_);
  bytes::append(out, static_cast<std::uint8_t>(odd_));
  bytes::append(out, static_cast<std::uint64_t>(levels_.size()));
  for (const std::vector<double>& level : levels_) bytes::append_array(out, level);
}

QuantileSketch QuantileSketch::from_bytes(const char*& at, const char* end) {
  const auto k = bytes::read<std::uint64_t>(at, end);
  if (k == 0) throw std::runtime_error("statistics' bytes: a quantile sketch of k = 0");
  QuantileSketch s(static_cast<std::size_t>(k));
  s.n_ = bytes::read<std::uint64_t>(at, end);
  s.error_ = bytes::read<std::uint64_t>(at, end);
  s.odd_ = bytes::read<std::uint8_t>(at, end) != 0;
  const auto levels = bytes::read<std::uint64_t>(at, end);
  if (levels > 64) throw std::runtime_error("statistics' bytes: a quantile sketch of more than 64 levels");
  s.levels_.clear();
  for (std::uint64_t h = 0; h < levels; ++h) s.levels_.push_back(bytes::read_array<double>(at, end));
  return s;
}

}  // namespace batchode
