// Tests' reference for summary metrics (issue 11): each metric of each window computed plainly from a
// densely saved series of the same runs (the series saved at every sample), against which the
// engine's summaries are checked (tests/kernels/outputs/summaries_test.cpp, tests/gpu/gpu_vs_cpu_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/batchode.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace batchode::testing {

inline const std::vector<std::string> every_metric = {"mean",
                                                      "std",
                                                      "rms",
                                                      "extrema",
                                                      "max_magnitude",
                                                      "max_time",
                                                      "min_time",
                                                      "dxdt_extrema",
                                                      "d2xdt2_extrema",
                                                      "peaks[4]",
                                                      "negative_peaks[3]"};

/// One window's metrics of samples x[0 .. ] (x[j]: sample j, at t[j]), computed plainly.
struct Reference {
  double mean, std, rms, max, min, max_magnitude, max_time, min_time, dxdt_max, dxdt_min, d2_max, d2_min;
  std::vector<double> peaks, troughs;
};

inline Reference reference(const std::vector<double>& x, const std::vector<double>& t, std::size_t w,
                           std::size_t n, std::size_t windows, double dt, std::size_t n_peaks,
                           std::size_t n_troughs) {
  Reference r{};
  const std::size_t first = w * n + 1, last = (w + 1) * n;
  long double sum = 0, squares = 0;
  for (std::size_t j = first; j <= last; ++j) sum += x[j], squares += (long double)x[j] * x[j];
  r.mean = double(sum / n);
  long double dev = 0;
  for (std::size_t j = first; j <= last; ++j)
    dev += (x[j] - (long double)r.mean) * (x[j] - (long double)r.mean);
  r.std = std::sqrt(double(dev / n));
  r.rms = std::sqrt(double(squares / n));
  r.max = -INFINITY, r.min = INFINITY;
  r.dxdt_max = r.d2_max = -INFINITY;
  r.dxdt_min = r.d2_min = INFINITY;
  for (std::size_t j = first; j <= last; ++j) {
    if (x[j] > r.max) r.max = x[j], r.max_time = t[j];
    if (x[j] < r.min) r.min = x[j], r.min_time = t[j];
    r.dxdt_max = std::max(r.dxdt_max, (x[j] - x[j - 1]) / dt);
    r.dxdt_min = std::min(r.dxdt_min, (x[j] - x[j - 1]) / dt);
    if (j >= 2) {
      const double d2 = ((x[j] - x[j - 1]) - (x[j - 1] - x[j - 2])) / (dt * dt);
      r.d2_max = std::max(r.d2_max, d2);
      r.d2_min = std::min(r.d2_min, d2);
    }
  }
  r.max_magnitude = std::max(std::fabs(r.max), std::fabs(r.min));
  // Peaks: samples of the window above (below) both neighbours; the last sample of the last window
  // has no next sample.
  for (std::size_t i = first; i <= last && i + 1 <= windows * n; ++i) {
    if (x[i] > x[i - 1] && x[i] > x[i + 1] && r.peaks.size() < n_peaks) r.peaks.push_back(t[i]);
    if (x[i] < x[i - 1] && x[i] < x[i + 1] && r.troughs.size() < n_troughs) r.troughs.push_back(t[i]);
  }
  return r;
}

/// Equal, or both NaN.
inline bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

template <class Array>
bool same_values(const Array& a, const Array& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (!same(a[k], b[k])) return false;
  }
  return true;
}

inline void expect_near_or_both_nan(double got, double want, double tol, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got << ", not NaN";
  } else {
    EXPECT_NEAR(got, want, tol) << what;
  }
}

/// Every metric the solve kept (those of every_metric), of every run, window and summarised variable, against
/// Reference of the saved series (the result must save every sample: save_every = sample_summaries_every,
/// with the observables when they are summarised). Sums within `sum_ulps` ulps of the window's scale per
/// sample; comparisons, times and differences exact (up to the divide).
template <class T>
void expect_metrics_of_the_series(const SolveResult<T>& r, const std::string& label, double sum_ulps = 1e3) {
  const SummaryLayout& layout = *r.summary_layout();
  ASSERT_EQ(r.n_saves(), layout.windows * layout.samples + 1) << label << ": every sample saved";
  const double dt = layout.sample_period;
  const double eps = std::numeric_limits<T>::epsilon();
  // The metrics the solve kept (every_metric, or a few of them) and the counts of the peaks.
  auto find = [&](const char* name) -> const SummaryOutput* {
    for (const SummaryOutput& out : layout.outputs) {
      if (out.name == name) return &out;
    }
    return nullptr;
  };
  auto has = [&](const char* name) { return find(name) != nullptr; };
  auto width = [&](const char* name) -> std::size_t { return find(name) ? find(name)->width : 0; };
  for (std::size_t i = 0; i < r.n_runs(); ++i) {
    ASSERT_EQ(r.status(i), Status::success) << label;
    for (std::size_t v = 0; v < layout.variables.size(); ++v) {
      const std::size_t index = layout.variables[v];  // a state, or an observable past the states
      std::vector<double> x, t;
      for (std::size_t k = 0; k < r.n_saves(); ++k) {
        x.push_back(index < r.n_states() ? double(r.state_at(i, k, index))
                                         : double(r.observable_at(i, k, index - r.n_states())));
        t.push_back(double(r.time(i, k)));
      }
      for (std::size_t w = 0; w < layout.windows; ++w) {
        const Reference ref =
            reference(x, t, w, layout.samples, layout.windows, dt, width("peaks"), width("negative_peaks"));
        const std::string what = label + " run " + std::to_string(i) + " " + r.summary_variables()[v] +
                                 " window " + std::to_string(w);
        const double scale = std::max(1.0, ref.max_magnitude);
        // Sums in another order (shifted, in T): a few ulps of the scale per sample.
        const double sums = sum_ulps * eps * scale;
        if (has("mean")) {
          EXPECT_NEAR(r.summary_at(i, w, "mean", v), ref.mean, sums) << what << " mean";
        }
        if (has("rms")) {
          EXPECT_NEAR(r.summary_at(i, w, "rms", v), ref.rms, sums) << what << " rms";
        }
        // std from shifted sums: the square root of a variance known to `sums` times the scale.
        if (has("std")) {
          EXPECT_NEAR(r.summary_at(i, w, "std", v), ref.std, std::sqrt(sums * scale) + sums)
              << what << " std";
        }
        // Comparisons of the same samples: exact.
        if (has("extrema")) {
          EXPECT_EQ(r.summary_at(i, w, "extrema", v, 0), T(ref.max)) << what << " max";
          EXPECT_EQ(r.summary_at(i, w, "extrema", v, 1), T(ref.min)) << what << " min";
        }
        if (has("max")) {
          EXPECT_EQ(r.summary_at(i, w, "max", v), T(ref.max)) << what << " max";
        }
        if (has("max_magnitude")) {
          EXPECT_EQ(r.summary_at(i, w, "max_magnitude", v), T(ref.max_magnitude)) << what;
        }
        if (has("max_time")) {
          EXPECT_EQ(r.summary_at(i, w, "max_time", v), T(ref.max_time)) << what << " max_time";
        }
        if (has("min_time")) {
          EXPECT_EQ(r.summary_at(i, w, "min_time", v), T(ref.min_time)) << what << " min_time";
        }
        // Differences of the same samples, in T then divided.
        const double diffs = 4 * eps * scale / dt;
        if (has("dxdt_extrema")) {
          EXPECT_NEAR(r.summary_at(i, w, "dxdt_extrema", v, 0), ref.dxdt_max, diffs) << what << " dxdt_max";
          EXPECT_NEAR(r.summary_at(i, w, "dxdt_extrema", v, 1), ref.dxdt_min, diffs) << what << " dxdt_min";
        }
        if (has("d2xdt2_extrema")) {
          EXPECT_NEAR(r.summary_at(i, w, "d2xdt2_extrema", v, 0), ref.d2_max, 8 * eps * scale / (dt * dt))
              << what;
          EXPECT_NEAR(r.summary_at(i, w, "d2xdt2_extrema", v, 1), ref.d2_min, 8 * eps * scale / (dt * dt))
              << what;
        }
        for (std::size_t c = 0; c < width("peaks"); ++c) {
          const double want = c < ref.peaks.size() ? ref.peaks[c] : NAN;
          expect_near_or_both_nan(r.summary_at(i, w, "peaks", v, c), want, 0,
                                  what + " peak " + std::to_string(c));
        }
        for (std::size_t c = 0; c < width("negative_peaks"); ++c) {
          const double want = c < ref.troughs.size() ? ref.troughs[c] : NAN;
          expect_near_or_both_nan(r.summary_at(i, w, "negative_peaks", v, c), want, 0,
                                  what + " trough " + std::to_string(c));
        }
      }
    }
  }
}

}  // namespace batchode::testing
