// kernels/core/: a loop over compile-time indices, for the steppers' stages: each index is a constant
// expression in the body (not only through unroll pragmas, which the host pass of nvcc does not honour),
// so table lookups fold into immediates and per-stage arrays stay in registers on the device.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode::detail {

/// Calls f(std::integral_constant<int, I>{}) for I = Begin .. End - 1, in order.
template <int Begin, int End, class F>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void static_for(F&& f) {
  if constexpr (Begin < End) {
    f(port::integral_constant<int, Begin>{});
    static_for<Begin + 1, End>(f);
  }
}

}  // namespace batchode::detail
