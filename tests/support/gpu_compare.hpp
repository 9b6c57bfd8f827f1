// Comparison of two results run by run: shared by the GPU-vs-CPU tests and the host test of the
// kernel body, so both hold the GPU path to the same expectations.
#pragma once

#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace batchode::testing {

/// How close two paths must be for `method` in precision T.
///  fixed-step: the same steps with different rounding (odeint's algebra vs the register stepper,
///    FMA contraction): a few ulps per step, times the step count, times Lorenz's growth over t=1.
///  adaptive: an accept/reject decision may flip on rounding, after which both runs still honour
///    the tolerance: a small multiple of rtol.
/// The largest difference between two arrays of the same points (interpolated against landed, say),
/// relative to max(1, |landed|).
template <class Array>
double relative_difference(const Array& landed, const Array& dense) {
  double worst = 0;
  for (std::size_t v = 0; v < landed.size() && v < dense.size(); ++v) {
    const double a = landed[v], b = dense[v];
    worst = std::max(worst, std::fabs(b - a) / std::max(1.0, std::fabs(a)));
  }
  return worst;
}

template <class T>
double agreement_bound(Method method, double rtol, std::size_t steps) {
  const double eps = std::numeric_limits<T>::epsilon();
  if (!method_info(method).adaptive) return 8.0 * eps * static_cast<double>(steps);
  return std::max(200.0 * rtol, 1e3 * eps);
}

/// Every run: same status, and for one that finished the same stop time (within `bound`, relative to
/// max(1, |t|)); final states (and
/// series, when present) within `bound` relative to max(1, |reference|); fixed-step methods take the
/// same number of steps.
template <class T>
void expect_runs_agree(const SolveResult<T>& got, const SolveResult<T>& ref, double bound, const std::string& what) {
  ASSERT_EQ(got.n_runs(), ref.n_runs()) << what;
  ASSERT_EQ(got.n_saves(), ref.n_saves()) << what;
  const bool fixed = !method_info(ref.method()).adaptive;
  std::size_t reported = 0;
  for (std::size_t r = 0; r < ref.n_runs(); ++r) {
    EXPECT_EQ(got.status(r), ref.status(r)) << what << " run " << r;
    // The stop time of a run that finished (t_end, or its terminal event's). A failed run's is where its
    // last accepted step ended, and two arithmetics may part there: after max_steps = 2 of fehlberg78,
    // the GPU had rejected an attempt the CPU accepted (Lorenz-96 in float), as their states may part.
    if (finished(ref.status(r))) {
      const double t_got = got.stop_time(r), t_ref = ref.stop_time(r);
      if (!(std::fabs(t_got - t_ref) <= bound * std::max(1.0, std::fabs(t_ref))) && reported++ < 10) {
        ADD_FAILURE() << what << " run " << r << " stop time: " << t_got << " vs " << t_ref;
      }
    }
    if (fixed) {
      EXPECT_EQ(got.counters(r).accepted_steps, ref.counters(r).accepted_steps) << what << " run " << r;
    }
    if (ref.status(r) != Status::success) continue;
    for (std::size_t s = 0; s < ref.n_states(); ++s) {
      const double a = got.final_state(r, s), b = ref.final_state(r, s);
      if (!(std::fabs(a - b) <= bound * std::max(1.0, std::fabs(b))) && reported++ < 10) {
        ADD_FAILURE() << what << " run " << r << " state " << s << ": " << a << " vs " << b << " (bound " << bound
                      << ")";
      }
      for (std::size_t k = 0; k < ref.n_saves(); ++k) {
        const double x = got.state_at(r, k, s), y = ref.state_at(r, k, s);
        if (!(std::fabs(x - y) <= bound * std::max(1.0, std::fabs(y))) && reported++ < 10) {
          ADD_FAILURE() << what << " run " << r << " save " << k << " state " << s << ": " << x << " vs " << y;
        }
      }
    }
  }
  EXPECT_EQ(reported, 0u) << what << ": runs outside the bound";
}

}  // namespace batchode::testing
