// tests/support/: two EnsembleStatistics of the same values reduced in other groupings (the GPU's
// chunks and parts against the host's rows, slices merged against one piece): the same counts, min and
// max exactly; means and variances to the rounding of a sum in another order.
#pragma once

#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <algorithm>
#include <cmath>
#include <string>

namespace batchode::testing {

inline void expect_same_statistics(const EnsembleStatistics& a, const EnsembleStatistics& b, const std::string& what) {
  ASSERT_EQ(a.variables(), b.variables()) << what;
  ASSERT_EQ(a.times(), b.times()) << what;
  EXPECT_EQ(a.count(), b.count()) << what;
  EXPECT_EQ(a.min(), b.min()) << what;
  EXPECT_EQ(a.max(), b.max()) << what;
  const std::vector<double> a_var = a.var(), b_var = b.var(), b_mean = b.mean();
  for (std::size_t c = 0; c < b.count().size(); ++c) {
    if (b.count()[c] == 0) continue;
    // A sum of n values in double, in any order, is within (n - 1) u of the sum of their magnitudes
    // (u = 2^-53; Higham): a mean within n u of the values' size |mean| + std, which bounds their mean
    // magnitude (a mean near 0 of values near 1 is known to about 1e-16 of them, not of itself); the
    // two groupings' results within twice that. Variances (sums of squared deviations) likewise.
    const double n = static_cast<double>(b.count()[c]), u = 0x1p-53;
    const double size = std::abs(b_mean[c]) + std::sqrt(b_var[c]);
    EXPECT_NEAR(a.mean()[c], b_mean[c], 2 * n * u * size + 1e-300) << what << ", column " << c;
    EXPECT_NEAR(a_var[c], b_var[c], std::max(1e-13, 4 * n * u) * b_var[c] + 1e-30 * size * size)
        << what << ", column " << c;
  }
}

}  // namespace batchode::testing
