// checks/fits_precision.hpp: the one wording of a value the solve's precision cannot hold, as every
// front end gives it (model constants, Python's parameters, the command line's sweeps).
#include <gtest/gtest.h>

#include <batchode/checks/fits_precision.hpp>
#include <cmath>
#include <limits>

namespace {

using batchode::checks::narrow_to;
using batchode::checks::precision_problem;

TEST(FitsPrecision, ValuesBeyondFloat32AreNamedWithTheLargest) {
  EXPECT_EQ(precision_problem<float>(1e39, "parameter k", "run 0"),
            "parameter k = 1e+39 (run 0) does not fit float32 (largest 3.4028235e+38)");
  EXPECT_EQ(precision_problem<float>(-1e300, "constant c"),
            "constant c = -1e+300 does not fit float32 (largest 3.4028235e+38)");
  EXPECT_EQ(precision_problem<double>(1e300, "constant c"), "");
  // float's largest itself fits; the next double above it does not (it would round up to inf or down).
  const double largest = std::numeric_limits<float>::max();
  EXPECT_EQ(precision_problem<float>(largest, "x"), "");
  EXPECT_NE(precision_problem<float>(std::nextafter(largest, 1e39), "x"), "");
}

TEST(FitsPrecision, NaNAndInfinitiesAreNamedAsSuch) {
  EXPECT_EQ(precision_problem<double>(std::nan(""), "parameter rho", "run 1"), "parameter rho (run 1) is NaN");
  EXPECT_EQ(precision_problem<float>(-INFINITY, "x"), "x = -inf is not finite");
}

TEST(FitsPrecision, NarrowToGivesTheValueOrThrowsTheMessage) {
  EXPECT_EQ(narrow_to<float>(0.1, "x"), 0.1f);
  try {
    (void)narrow_to<float>(1e39, "parameter k", "run 3");
    ADD_FAILURE() << "no InvalidInput";
  } catch (const batchode::InvalidInput& e) {
    EXPECT_STREQ(e.what(), "parameter k = 1e+39 (run 3) does not fit float32 (largest 3.4028235e+38)");
  }
}

}  // namespace
