// tests/timing/: waiting and bounding on the clock the timers read, so timing tests hold on a
// loaded machine: a busy wait gives an exact lower bound, the test's own readings around a
// measurement an upper one, however long the scheduler stalls any step.
#pragma once

#include <chrono>

namespace batchode::testing {

using WallClock = std::chrono::steady_clock;

/// Milliseconds from `since` to now.
inline double ms_since(WallClock::time_point since) {
  return std::chrono::duration<double, std::milli>(WallClock::now() - since).count();
}

/// Spins until `ms` milliseconds have passed on steady_clock. A sleep may end early on a clock other
/// than the timers' and says nothing about how long it really took; this wait is measured on theirs.
inline void busy_wait_ms(double ms) {
  const WallClock::time_point start = WallClock::now();
  while (ms_since(start) < ms) {
  }
}

}  // namespace batchode::testing
