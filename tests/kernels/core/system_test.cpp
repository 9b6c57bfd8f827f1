// tests/kernels/core/: the System concept (kernels/core/system.hpp): each optional member is detected
// where a system has it, with its documented signature, and not where it is absent or has another
// one; the traits defined beside a later room's type (can_linearize_v, declares_compiled_methods_v,
// has_rhs_component_v, summary_kinds_v, JacobianBand, RosenbrockShape) agree.
#include <gtest/gtest.h>

#include <batchode/kernels/core/system.hpp>
#include <batchode/kernels/launch/lane_group.hpp>
#include <batchode/kernels/linalg/band.hpp>
#include <batchode/kernels/linalg/jacobian.hpp>
#include <batchode/kernels/methods/method_registry.hpp>
#include <batchode/kernels/outputs/summary_metrics.hpp>
#include <cstddef>
#include <cstdint>

namespace {

using namespace batchode;

// Only what is required.
struct Plain {
  static constexpr std::size_t n_states = 2, n_params = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = -p[0] * y[0];
    dydt[1] = p[0] * y[0];
  }
};

// Every optional member (but drivers: a driven system's call operator is another, below).
struct Full : Plain {
  static constexpr std::size_t n_observables = 1, n_events = 1, lanes_per_run = 2;
  static constexpr std::size_t jacobian_lower_bandwidth = 1, jacobian_upper_bandwidth = 0;
  static constexpr std::uint32_t summary_kinds = summary_bit(SummaryKind::mean);
  static constexpr Method compiled_methods[] = {Method::rodas4};
  static constexpr const char* state_names[] = {"a", "b"};
  static constexpr const char* observable_names[] = {"total"};
  static constexpr const char* driver_names[] = {"u"};
  template <class T>
  void jacobian(T, const T*, const T* p, T* J) const {
    J[0] = -p[0], J[1] = T(0), J[2] = p[0], J[3] = T(0);
  }
  template <class T>
  void time_derivative(T, const T*, const T*, T* f_t) const {
    f_t[0] = f_t[1] = T(0);
  }
  template <class T>
  void band_jacobian(T, const T*, const T* p, T* Jb) const {
    Jb[0] = T(0), Jb[1] = -p[0], Jb[2] = p[0], Jb[3] = T(0);
  }
  // J's nonzeros (0, 0), (1, 0); W's slots (0, 0), (1, 0), (1, 1) in the pivot order 0, 1.
  static constexpr std::size_t jacobian_nonzeros = 2, sparse_lu_size = 3;
  template <class T>
  void sparse_jacobian(T, const T*, const T* p, T* Js) const {
    Js[0] = -p[0], Js[1] = p[0];
  }
  template <class T>
  bool sparse_lu_factor(T diag, const T* Js, T* W) const {
    W[0] = T(1) / (diag - Js[0]), W[1] = -Js[1] * W[0], W[2] = T(1) / diag;
    return true;
  }
  template <class T>
  void sparse_lu_solve(const T* W, T* b) const {
    b[1] -= W[1] * b[0];
    b[1] *= W[2];
    b[0] *= W[0];
  }
  template <class T>
  void observables(T, const T* y, const T*, T* out) const {
    out[0] = y[0] + y[1];
  }
  template <class T>
  void events(T, const T* y, const T*, T* g) const {
    g[0] = y[0] - y[1];
  }
  template <class T>
  T next_break(T t) const {
    return t + T(1);
  }
  template <class T, class State>
  T rhs_component(std::size_t i, T, const State& y, const T* p) const {
    return i == 0 ? -p[0] * y[0] : p[0] * y[0];
  }
};

// Members under the right names with other signatures: not the concept's, so not detected.
struct WrongSignatures : Plain {
  static constexpr const char* n_observables = "one";  // not a size
  template <class T>
  void jacobian(T, const T*, T* J) const {  // no parameters
    J[0] = T(0);
  }
  void time_derivative() const {}
  static constexpr std::size_t jacobian_nonzeros = 2, sparse_lu_size = 3;
  template <class T>
  void sparse_jacobian(T, const T*, const T* p, T* Js) const {
    Js[0] = p[0];
  }
  void sparse_lu_factor() const {}  // no arguments
  int next_break() const { return 0; }
  template <class T>
  T rhs_component(std::size_t, T) const {
    return T(0);
  }
};

// A driven system: its call operator takes the drivers' values u after p.
struct Forced {
  static constexpr std::size_t n_states = 1, n_params = 1, n_drivers = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, const T* u, T* dydt) const {
    dydt[0] = -p[0] * y[0] + u[0];
  }
};

// Its call operator takes double only: no dual numbers, so no linearisation without J and f_t.
struct DoubleOnly {
  static constexpr std::size_t n_states = 1, n_params = 0;
  void operator()(double, const double* y, const double*, double* dydt) const { dydt[0] = -y[0]; }
};

static_assert(is_ode_system_v<Plain, double> && is_ode_system_v<Full, float> &&
              is_ode_system_v<Forced, double>);
static_assert(!is_ode_system_v<DoubleOnly, float> && is_ode_system_v<DoubleOnly, double>);
static_assert(n_drivers_v<Forced> == 1 && n_drivers_v<Plain> == 0);

static_assert(has_jacobian_v<Full, double> && !has_jacobian_v<Plain, double> &&
              !has_jacobian_v<WrongSignatures, double>);
static_assert(has_time_derivative_v<Full, float> && !has_time_derivative_v<Plain, float> &&
              !has_time_derivative_v<WrongSignatures, float>);
static_assert(has_analytic_linearization_v<Full, double> && !has_analytic_linearization_v<Plain, double>);
static_assert(has_band_jacobian_v<Full, double> && !has_band_jacobian_v<Plain, double>);
static_assert(declares_band_v<Full> && !declares_band_v<Plain>);
static_assert(jacobian_lower_bandwidth_v<Full> == 1 && jacobian_upper_bandwidth_v<Full> == 0);
static_assert(jacobian_lower_bandwidth_v<Plain> == 1 && jacobian_upper_bandwidth_v<Plain> == 1,
              "dense: N - 1");
static_assert(kernels::JacobianBand<Full>::lower == 1 && kernels::JacobianBand<Full>::upper == 0);
static_assert(has_sparse_lu_v<Full, double> && !has_sparse_lu_v<Plain, double> &&
              !has_sparse_lu_v<WrongSignatures, double>);
static_assert(jacobian_nonzeros_v<Full> == 2 && sparse_lu_size_v<Full> == 3 && jacobian_nonzeros_v<Plain> == 0 &&
              sparse_lu_size_v<Plain> == 0);
static_assert(kernels::RosenbrockShape<Full, double>::sparse && kernels::RosenbrockShape<Full, double>::lu_size == 3 &&
                  kernels::RosenbrockShape<Full, double>::jacobian_size == 2,
              "a system's own sparse LU goes before its band");
static_assert(!kernels::RosenbrockShape<Plain, double>::sparse);
static_assert(can_linearize_v<Plain, double> && can_linearize_v<Full, double>);
static_assert(!can_linearize_v<DoubleOnly, double>);

static_assert(n_observables_v<Full> == 1 && n_observables_v<Plain> == 0 &&
              n_observables_v<WrongSignatures> == 0);
static_assert(n_events_v<Full> == 1 && n_events_v<Plain> == 0);
static_assert(has_breaks_v<Full, double> && !has_breaks_v<Plain, double> &&
              !has_breaks_v<WrongSignatures, double>);

static_assert(declares_summary_kinds_v<Full> && !declares_summary_kinds_v<Plain>);
static_assert(summary_kinds_v<Full> == summary_bit(SummaryKind::mean) &&
              summary_kinds_v<Plain> == all_summary_kinds);

static_assert(has_compiled_methods_v<Full> && !has_compiled_methods_v<Plain>);
static_assert(declares_compiled_methods_v<Full> && !declares_compiled_methods_v<Plain>);
static_assert(compiles_method<Full>(Method::rodas4) && !compiles_method<Full>(Method::rk4));

static_assert(has_rhs_component_v<Full, double> && !has_rhs_component_v<Plain, double> &&
              !has_rhs_component_v<WrongSignatures, double>);
static_assert(declared_lanes_per_run_v<Full> == 2 && declared_lanes_per_run_v<Plain> == 0);

static_assert(has_state_names_v<Full> && has_observable_names_v<Full> && has_driver_names_v<Full>);
static_assert(!has_state_names_v<Plain> && !has_observable_names_v<Plain> && !has_driver_names_v<Plain>);

TEST(SystemConcept, DetectedMembersAreTheOnesCalled) {
  // The members the traits found compute what the system says (the traits are static_asserts above).
  const Full sys;
  const double y[2] = {3.0, 1.0}, p[1] = {0.5};
  double dydt[2], J[4], out[1], g[1];
  sys(0.0, y, p, dydt);
  sys.jacobian(0.0, y, p, J);
  sys.observables(0.0, y, p, out);
  sys.events(0.0, y, p, g);
  EXPECT_DOUBLE_EQ(dydt[0], J[0] * y[0] + J[1] * y[1]);
  EXPECT_DOUBLE_EQ(dydt[1], J[2] * y[0] + J[3] * y[1]);
  EXPECT_DOUBLE_EQ(out[0], 4.0);
  EXPECT_DOUBLE_EQ(g[0], 2.0);
  // W = 2 I - J by the sparse members: W x = b for b = W (1, 1).
  double Js[2], W[3], b[2];
  sys.sparse_jacobian(0.0, y, p, Js);
  ASSERT_TRUE(sys.sparse_lu_factor(2.0, Js, W));
  b[0] = (2.0 - J[0]) * 1.0 - J[1] * 1.0;
  b[1] = -J[2] * 1.0 + (2.0 - J[3]) * 1.0;
  sys.sparse_lu_solve(W, b);
  EXPECT_DOUBLE_EQ(b[0], 1.0);
  EXPECT_DOUBLE_EQ(b[1], 1.0);
}

}  // namespace
