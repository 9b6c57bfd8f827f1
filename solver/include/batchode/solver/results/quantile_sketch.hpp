// solver/results/: a deterministic, mergeable quantile sketch with a proven rank-error bound: the
// quantiles of ensemble statistics over more runs than memory holds (ensemble_statistics.hpp).
//
// Manku, Rajagopalan and Lindsay's compactor hierarchy (SIGMOD 1998; KLL's deterministic core): values
// enter level 0 with weight 1; a level holding 2k values is sorted and halved, every other value (the
// odd or the even ones, alternately) going up one level with twice the weight. Halving a sorted level
// of weight w changes the estimated rank of any x by at most w (only the pair around x can move across
// it), and keeps the total weight exact. So the sketch's rank of any x is within error_bound() of the
// true one, error_bound() being the sum of the weights of the halvings so far: each level h halves at
// most n / (2k 2^h) times, so error_bound() <= H n / (2k) over its H levels. capacity_for() picks k
// so that this is at most eps n for the runs a solve has; error_bound() reports what was reached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace batchode {

class QuantileSketch {
 public:
  /// A sketch whose levels halve at 2k values (k >= 1).
  explicit QuantileSketch(std::size_t k = 1024);

  /// The k for which n values give a rank error of at most eps n (eps in (0, 0.5)): the smallest with
  /// levels(n, k) / (2k) <= eps, where levels(n, k) = floor(log2(n / (2k))) + 1 bounds the levels that
  /// halve. Memory is then about 2k values per level; n values fewer than that plus 4 / eps are kept
  /// whole (k above n / 2: no halving, exact quantiles).
  static std::size_t capacity_for(double eps, std::uint64_t n);

  /// Adds `n` values (none may be NaN: the caller leaves those out).
  void add(const double* values, std::size_t n);
  /// Adds every value `other` holds (same k), as if added here. Its error adds to this one's.
  void merge(const QuantileSketch& other);

  /// Values added.
  std::uint64_t count() const noexcept { return n_; }
  /// A bound on |estimated rank - true rank| of any value, in values (0 while nothing was halved: the
  /// quantiles are then exact order statistics).
  std::uint64_t error_bound() const noexcept { return error_; }
  /// The smallest value v held whose estimated rank (weight of the values <= v) reaches q n (at least
  /// 1): its true rank lies within error_bound() of q n. NaN when empty. q in [0, 1].
  double quantile(double q) const;
  /// quantile() of each level in `qs`, sorting the held values once.
  std::vector<double> quantiles(const std::vector<double>& qs) const;

  std::size_t k() const noexcept { return k_; }
  /// Values held now (memory).
  std::size_t held() const noexcept;

  /// The sketch as bytes (another process's merge: EnsembleStatistics::to_bytes), appended to `out`.
  void append_bytes(std::vector<char>& out) const;
  /// A sketch read back from append_bytes' bytes at `at` (advanced past them, up to `end`). Throws
  /// std::runtime_error when they are cut short or not a sketch.
  static QuantileSketch from_bytes(const char*& at, const char* end);

 private:
  void halve(std::size_t level);  // level's values sorted and halved into level + 1

  std::size_t k_;
  std::vector<std::vector<double>> levels_;  // level h: values of weight 2^h
  std::uint64_t n_ = 0, error_ = 0;
  bool odd_ = false;  // which half the next halving keeps
};

}  // namespace batchode
