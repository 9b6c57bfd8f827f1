// checks/: checked size arithmetic, the one helper for every place a count is multiplied or added
// (grid run counts, batch and result array sizes, series sizes, per-run footprints, chunk plans,
// buffer bytes, the host-memory estimate). A size that does not fit in size_t would wrap silently
// (a 2^64 + 4 run grid becoming 4 runs, a host-memory estimate becoming 0); these functions throw
// InvalidInput instead, with a message naming what was being sized and every operand:
//   "combinatorial grid runs (the product of the axes' sizes) overflows: 65536 x 65536 x 65536 x
//    65536 does not fit in size_t (max 18446744073709551615)"
// Plain C++17 without fmt: GPU compilers include it too.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <limits>
#include <string>

#include "batchode/checks/invalid_input.hpp"

namespace batchode::checks {

inline constexpr std::size_t max_size_t = std::numeric_limits<std::size_t>::max();

namespace detail {
// The InvalidInput for `what`, whose operands [first, last) joined by `op` do not fit in size_t.
template <class It>
[[noreturn]] void throw_size_overflow(const char* what, It first, It last, const char* op) {
  std::string terms;
  for (It it = first; it != last; ++it) {
    if (!terms.empty()) terms += op;
    terms += std::to_string(static_cast<std::size_t>(*it));
  }
  throw InvalidInput(std::string(what) + " overflows: " + terms + " does not fit in size_t (max " +
                     std::to_string(max_size_t) + ")");
}
}  // namespace detail

/// a x b, or InvalidInput naming `what`, a and b when the product does not fit in size_t.
inline std::size_t checked_mul(std::size_t a, std::size_t b, const char* what) {
  if (a != 0 && b > max_size_t / a) {
    const std::size_t terms[] = {a, b};
    detail::throw_size_overflow(what, terms, terms + 2, " x ");
  }
  return a * b;
}

/// a + b, or InvalidInput naming `what`, a and b when the sum does not fit in size_t.
inline std::size_t checked_add(std::size_t a, std::size_t b, const char* what) {
  if (b > max_size_t - a) {
    const std::size_t terms[] = {a, b};
    detail::throw_size_overflow(what, terms, terms + 2, " + ");
  }
  return a + b;
}

/// The product of the counts in [first, last) (1 when empty; 0 when any is 0, however large the
/// others), or InvalidInput naming `what` and every factor when it does not fit in size_t.
template <class It>
std::size_t checked_product(It first, It last, const char* what) {
  for (It it = first; it != last; ++it) {
    if (static_cast<std::size_t>(*it) == 0) return 0;
  }
  std::size_t product = 1;
  for (It it = first; it != last; ++it) {
    const std::size_t factor = static_cast<std::size_t>(*it);
    if (factor > max_size_t / product) detail::throw_size_overflow(what, first, last, " x ");
    product *= factor;
  }
  return product;
}

/// checked_product of a list: checked_product({runs, n_saves, n_states}, "series").
inline std::size_t checked_product(std::initializer_list<std::size_t> factors, const char* what) {
  return checked_product(factors.begin(), factors.end(), what);
}

/// a x b, or max_size_t when it does not fit: for comparisons against a budget and for messages,
/// where "more than anything" is the right answer and no throw is wanted.
/// `value` rounded up to a multiple of `multiple` (> 0); throws InvalidInput naming `what` when that
/// does not fit in size_t.
inline std::size_t checked_round_up(std::size_t value, std::size_t multiple, const char* what) {
  return checked_add(value, multiple - 1, what) / multiple * multiple;
}

inline std::size_t saturating_mul(std::size_t a, std::size_t b) noexcept {
  return (a != 0 && b > max_size_t / a) ? max_size_t : a * b;
}

}  // namespace batchode::checks
