// arrays/: the host-side transposes between the user's run-major arrays and the device's
// runs-fastest layout (see device_views.hpp). Pure functions, no runtime: the array managers use them
// on pinned staging buffers and the CPU tests check them directly.
#pragma once

#include <algorithm>
#include <cstddef>

namespace batchode::arrays {

namespace detail {
// Tile edge of the blocked transpose. Both sides of a tile (32 rows of 32 values) stay in L1, so
// neither the strided reads nor the strided writes miss the cache on every element, even when a
// run has thousands of values (long series).
inline constexpr std::size_t transpose_tile = 32;
}  // namespace detail

/// Copies `count` runs of `width` values from run-major `src` (run r's value j at src[r * width + j])
/// into runs-fastest `dst` (at dst[j * stride + r]). Requires stride >= count. Converts each value
/// with static_cast<Dst>. Never throws.
template <class Src, class Dst>
void pack_runs_fastest(const Src* src, std::size_t count, std::size_t width, Dst* dst,
                       std::size_t stride) noexcept {
  constexpr std::size_t tile = detail::transpose_tile;
  for (std::size_t r0 = 0; r0 < count; r0 += tile) {
    const std::size_t r1 = std::min(r0 + tile, count);
    for (std::size_t j0 = 0; j0 < width; j0 += tile) {
      const std::size_t j1 = std::min(j0 + tile, width);
      for (std::size_t r = r0; r < r1; ++r) {
        for (std::size_t j = j0; j < j1; ++j) dst[j * stride + r] = static_cast<Dst>(src[r * width + j]);
      }
    }
  }
}

/// The inverse of pack_runs_fastest: copies `count` runs of `width` values from runs-fastest `src`
/// (run r's value j at src[j * stride + r]) into run-major `dst` (at dst[r * width + j]). Requires
/// stride >= count. Converts each value with static_cast<Dst>. Never throws.
template <class Src, class Dst>
void unpack_to_run_major(const Src* src, std::size_t stride, std::size_t count, std::size_t width,
                         Dst* dst) noexcept {
  constexpr std::size_t tile = detail::transpose_tile;
  for (std::size_t j0 = 0; j0 < width; j0 += tile) {
    const std::size_t j1 = std::min(j0 + tile, width);
    for (std::size_t r0 = 0; r0 < count; r0 += tile) {
      const std::size_t r1 = std::min(r0 + tile, count);
      for (std::size_t r = r0; r < r1; ++r) {
        for (std::size_t j = j0; j < j1; ++j) dst[r * width + j] = static_cast<Dst>(src[j * stride + r]);
      }
    }
  }
}

}  // namespace batchode::arrays
