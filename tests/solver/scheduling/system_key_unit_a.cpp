// tests/solver/scheduling/: unit a of two that define an anonymous-namespace `Lorenz` each (the other's
// equations differ), as two programs or two files of one program may: see system_key_units.hpp.
#include <batchode/solver/systems/system_key.hpp>
#include <cstddef>
#include <string>
#include <typeinfo>

#include "system_key_units.hpp"

namespace {

struct Lorenz {
  [[maybe_unused]] static constexpr std::size_t n_states = 3;
  [[maybe_unused]] static constexpr std::size_t n_params = 3;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * (y[1] - y[0]);
    dydt[1] = y[0] * (p[1] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - p[2] * y[2];
  }
};

}  // namespace

namespace batchode::testing {

std::string unit_a_lorenz_typeid_name() { return typeid(Lorenz).name(); }
std::string unit_a_lorenz_cost_name() { return system_cost_name<Lorenz>(); }

}  // namespace batchode::testing
