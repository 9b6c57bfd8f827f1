// checks/: finiteness checks of input arrays, alone or fused with the copy into staging. Blocks are
// tested branch-free (so the common all-finite case vectorises) and searched element by element only
// when a block holds a NaN or an infinity. Fusing the check into the staging copy reads the inputs
// once instead of twice: on the H100 machine a separate check of a 2^22-run float batch cost 3.3 ms
// in front of 8 ms of kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace batchode::checks {

namespace detail {
template <class T>
inline bool is_finite_value(T v) noexcept {
  return std::fabs(v) <= std::numeric_limits<T>::max();  // false for NaN and both infinities
}
constexpr std::size_t finite_block = 1024;
}  // namespace detail

/// Index of the first NaN or infinity in values[begin, end), or `end`.
template <class T>
std::size_t first_non_finite_in(const T* values, std::size_t begin, std::size_t end) {
  for (std::size_t b = begin; b < end; b += detail::finite_block) {
    const std::size_t e = std::min(end, b + detail::finite_block);
    bool bad = false;
    for (std::size_t i = b; i < e; ++i) bad |= !detail::is_finite_value(values[i]);
    if (bad) {
      for (std::size_t i = b; i < e; ++i) {
        if (!detail::is_finite_value(values[i])) return i;
      }
    }
  }
  return end;
}

/// Copies src[0, n) to dst and returns the index of the first NaN or infinity in it, or n. The whole
/// range is copied either way.
template <class T>
std::size_t copy_checking_finite(T* dst, const T* src, std::size_t n) {
  std::size_t first_bad = n;
  for (std::size_t b = 0; b < n; b += detail::finite_block) {
    const std::size_t e = std::min(n, b + detail::finite_block);
    bool bad = false;
    for (std::size_t i = b; i < e; ++i) {
      const T v = src[i];
      dst[i] = v;
      bad |= !detail::is_finite_value(v);
    }
    if (bad && first_bad == n) first_bad = first_non_finite_in(src, b, e);
  }
  return first_bad;
}

}  // namespace batchode::checks
