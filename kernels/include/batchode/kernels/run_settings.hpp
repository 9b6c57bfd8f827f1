// kernels/: the per-solve constants every run of a batch integrates with, in the run's precision,
// and the one formula for save times that both the integrator and the result use.
#pragma once

#include "batchode/kernels/annotations.hpp"
#include "batchode/kernels/portable.hpp"

namespace batchode {

/// The per-solve constants of every run, in the run's precision (passed by value to kernels).
template <class T>
struct RunSettings {
  T t0{}, t_end{};
  T dt{};          ///< fixed step, or first adaptive step (<= 0: Hairer's estimate)
  T save_every{};  ///< spacing of saved points (used when n_saves > 0)
  port::uint32_t n_saves = 0;
  T rtol{}, atol{};
  T safety{}, min_factor{}, max_factor{}, ki{}, kp{}, dt_min{}, dt_max{};
  port::uint64_t max_steps = 0;
};

/// Save time k of a solve: t0 + k * save_every, in the run's precision. The integrator lands its steps
/// on these values and SolveResult::times() reports them, so the two never differ by an ulp.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T save_time(const RunSettings<T>& plan, port::uint32_t k) {
  // One fused multiply-add on every compiler: nvcc would contract t0 + k * save_every into an fma on
  // the device and the host compiler would not, and the two would then differ in the last bit.
  return port::fma(static_cast<T>(k), plan.save_every, plan.t0);
}

}  // namespace batchode
