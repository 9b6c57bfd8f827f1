// kernels/core/: how a run's tolerances measure a state's error or change, described once for the step
// controller's norm (kernels/loop/step_control.hpp), dop853's combined estimate (kernels/methods/
// rk_stepper.hpp) and the implicit steppers' Newton iterations (kernels/methods/esdirk_stepper.hpp,
// radau_stepper.hpp).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_pack.hpp"

namespace batchode::kernels {

/// atol + rtol max(|a|, |b|): the scale of an error or a change of a state that went from a to b
/// (Hairer's sc_i).
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T tolerance_scale(T atol, T rtol, T a, T b) {
  const T fa = port::fabs(a), fb = port::fabs(b);
  return atol + rtol * (fa > fb ? fa : fb);
}

/// The same for a block of runs in SIMD lanes (backends/cpu/run_blocks.hpp), each lane by the run's
/// formula.
template <class T, port::size_t W>
BATCHODE_FORCEINLINE RunPack<T, W> tolerance_scale(const RunPack<T, W>& atol, const RunPack<T, W>& rtol,
                                                   const RunPack<T, W>& a, const RunPack<T, W>& b) {
  RunPack<T, W> r;
  for (port::size_t l = 0; l < W; ++l) r[l] = tolerance_scale(atol[l], rtol[l], a[l], b[l]);
  return r;
}

/// The fraction of the tolerances below which a simplified Newton iteration's remaining error counts as
/// converged: RADAU5's FNEWT, max(min(kappa, rtol^(1/2)), 10 eps / rtol) (the last: updates at rounding
/// level). scipy's Radau takes the same.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T newton_stopping_fraction(T rtol, double kappa) {
  const T rounding = T(10) * port::numeric_limits<T>::epsilon() / rtol;
  const T root = port::sqrt(rtol);
  const T most = root < T(kappa) ? root : T(kappa);
  return rounding > most ? rounding : most;
}

}  // namespace batchode::kernels
