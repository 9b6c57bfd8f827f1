// The shared Solvers of test_systems.hpp's Oscillator (tests/support/shared_solvers.hpp), one source per
// system so that they compile side by side.
#include "shared_solvers.hpp"

template class batchode::Solver<batchode::testing::Oscillator, float>;
template class batchode::Solver<batchode::testing::Oscillator, double>;
