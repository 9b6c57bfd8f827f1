// Batches whose sizes do not fit in size_t: refused with InvalidInput naming the sizes, before any
// memory is touched, instead of wrapping (a 2^64 + 4 run grid solved as 4 runs, a 2^63-run batch's
// host-memory estimate wrapping to 0 and the solve writing through a null pointer).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "expect_invalid_input.hpp"
#include "test_systems.hpp"

namespace {

using batchode::GridKind;
using batchode::InvalidInput;
using batchode::testing::Oscillator;

// The sizes reach the library through a volatile, so the compiler cannot fold them into the inlined
// loops that the size checks make unreachable (GCC's -Waggressive-loop-optimizations warns there).
std::size_t opaque(std::size_t v) {
  volatile std::size_t held = v;
  return held;
}
const std::size_t kMax = opaque(std::numeric_limits<std::size_t>::max());
const std::size_t k2to63 = opaque(std::size_t(1) << 63);

using batchode::testing::expect_contains;
using batchode::testing::invalid_input_message;

// n distinct finite values.
std::vector<double> values(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return v;
}

batchode::SolveOptions cpu_options() {
  batchode::SolveOptions opt;
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  return opt;
}

// Issue 20, item 3: 20 x 5581 x 8681 x 49477 x 384773 = 2^64 + 4 runs gave n_runs = 4 (solved with
// success), and four axes of 65536 (2^64) gave 0 runs and "empty batch".
TEST(SizeOverflow, CombinatorialGridRunCountNamesTheAxesSizes) {
  batchode::GridBuilder<double> wraps_to_four({1, 0, 0}, {10, 28, 8.0 / 3});
  wraps_to_four.state(0, values(20)).state(1, values(5581)).state(2, values(8681)).param(0, values(49477));
  wraps_to_four.param(1, values(384773));
  std::string message = invalid_input_message([&] { (void)wraps_to_four.build(GridKind::combinatorial); });
  expect_contains(message, "combinatorial grid");
  expect_contains(message, "20 x 5581 x 8681 x 49477 x 384773");
  expect_contains(message, "size_t");

  batchode::GridBuilder<double> wraps_to_zero({1, 0, 0}, {10, 28, 8.0 / 3});
  wraps_to_zero.state(0, values(65536))
      .state(1, values(65536))
      .param(0, values(65536))
      .param(1, values(65536));
  message = invalid_input_message([&] { (void)wraps_to_zero.build(GridKind::combinatorial); });
  expect_contains(message, "65536 x 65536 x 65536 x 65536");
  // The same axes are fine verbatim (65536 runs).
  EXPECT_EQ(wraps_to_zero.build(GridKind::verbatim).n_runs, 65536u);
}

// 2^63 runs fit in size_t, but their 3 x 2^63 initial values do not.
TEST(SizeOverflow, CombinatorialGridArraysNameTheirSizes) {
  const std::size_t axis = std::size_t(1) << 21;
  batchode::GridBuilder<double> grid({1, 0, 0}, {10, 28, 8.0 / 3});
  grid.state(0, values(axis)).state(1, values(axis)).state(2, values(axis));
  const std::string message = invalid_input_message([&] { (void)grid.build(GridKind::combinatorial); });
  expect_contains(message, "grid initial values");
  expect_contains(message, "9223372036854775808 x 3");
}

// Issue 20, item 4: 2 states x 2^63 runs through the pointer form: with counters and status off the
// host-memory estimate wrapped to 0 and the solve wrote through a null pointer; with the default
// outputs it ended in std::length_error.
TEST(SizeOverflow, PointerSolveNamesRunsTimesStates) {
  const std::vector<double> y0 = {1, 0}, params = {1};
  for (bool outputs : {false, true}) {
    batchode::SolveOptions opt = cpu_options();
    opt.outputs.status = outputs;
    opt.outputs.counters = outputs;
    batchode::Solver<Oscillator> solver(Oscillator{}, opt);
    const std::string message =
        invalid_input_message([&] { (void)solver.solve(y0.data(), params.data(), k2to63); });
    expect_contains(message, "initial values");
    expect_contains(message, "9223372036854775808 x 2");
  }
}

// 2^62 runs x 2 states fit in size_t, but the result's 32 bytes per run (2 doubles, status,
// counters) do not: the host-memory estimate must not wrap either.
TEST(SizeOverflow, PointerSolveHostMemoryEstimate) {
  const std::vector<double> y0 = {1, 0}, params = {1};
  batchode::Solver<Oscillator> solver(Oscillator{}, cpu_options());
  const std::string message = invalid_input_message(
      [&] { (void)solver.solve(y0.data(), params.data(), opaque(std::size_t(1) << 62)); });
  expect_contains(message, "result bytes");
  // 2 states (16 bytes), a status (4) and a stop time (8), counters (12).
  expect_contains(message, "4611686018427387904 x 40");
}

// A batch whose result fits in size_t but not in memory: refused up front, naming the GiB.
TEST(SizeOverflow, PointerSolveBeyondHostMemory) {
  const std::vector<double> y0 = {1, 0}, params = {1};
  batchode::Solver<Oscillator> solver(Oscillator{}, cpu_options());
  const std::string message = invalid_input_message(
      [&] { (void)solver.solve(y0.data(), params.data(), opaque(std::size_t(1) << 50)); });
  expect_contains(message, "host memory");
  expect_contains(message, "GiB");
}

TEST(SizeOverflow, ResultShapesNameTheirSizes) {
  const batchode::SolveOptions opt = cpu_options();
  std::string message = invalid_input_message([&] { batchode::SolveResult<double> r(k2to63, 2, 0, opt); });
  expect_contains(message, "result final states");
  expect_contains(message, "9223372036854775808 x 2");
  message = invalid_input_message([&] { batchode::SolveResult<double> r(2, 1, kMax, opt); });
  expect_contains(message, "result series");
  expect_contains(message, "2 x 18446744073709551615 x 1");
  // An allocation's byte count is checked too.
  message =
      invalid_input_message([] { (void)batchode::DefaultInitAllocator<double>().allocate(kMax / 8 + 1); });
  expect_contains(message, "2305843009213693952 x 8");
}

}  // namespace
