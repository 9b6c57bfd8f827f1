// The Solver of the test systems most CPU tests solve (test_systems.hpp's Decay, Oscillator and
// Lorenz, float and double), compiled once in batchode_test_solvers (tests/support/shared_solvers/)
// instead of in every test source that solves them: each such Solver is the whole CPU path, every
// method with every sink, about 8 s of a sanitized -O0 compile (clang 15) that 10-12 sources each
// repeated. A CPU test's source sees these declarations through test_systems.hpp when CMake defines
// BATCHODE_TEST_SHARED_SOLVERS (tests/CMakeLists.txt's batchode_add_test, CPU tests only: a GPU
// test's Solver holds the GPU path its compiler builds, so it instantiates its own).
#pragma once

#include <batchode/solver/solver.hpp>

#include "test_systems.hpp"

extern template class batchode::Solver<batchode::testing::Decay, float>;
extern template class batchode::Solver<batchode::testing::Decay, double>;
extern template class batchode::Solver<batchode::testing::Oscillator, float>;
extern template class batchode::Solver<batchode::testing::Oscillator, double>;
extern template class batchode::Solver<batchode::testing::Lorenz, float>;
extern template class batchode::Solver<batchode::testing::Lorenz, double>;
