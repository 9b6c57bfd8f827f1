// tests/solver/scheduling/: two translation units (system_key_unit_a.cpp, system_key_unit_b.cpp) that each
// define an anonymous-namespace `Lorenz`: same typeid name, different types. What each reports.
#pragma once

#include <string>

namespace batchode::testing {

std::string unit_a_lorenz_typeid_name();
std::string unit_a_lorenz_cost_name();
std::string unit_b_lorenz_typeid_name();
std::string unit_b_lorenz_cost_name();

}  // namespace batchode::testing
