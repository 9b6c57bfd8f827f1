// kernels/outputs/: systems driven by time-varying inputs (issue 11). A system that reads drivers declares
// how many and takes their values at t, u[0 .. n_drivers), in every member that sees the state:
//
//   struct Forced {
//     static constexpr std::size_t n_states = 1, n_params = 1, n_drivers = 1;
//     template <class T>
//     BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, const T* u, T* dydt) const;
//     // optional, as for any system, each with u before its output:
//     //   observables(t, y, p, u, out), events(t, y, p, u, g)
//   };
//
// The integrator never sees that signature: where a run starts, the system is wrapped in
// Driven<System, T>, an ordinary system whose members evaluate the drivers (kernels/core/drivers.hpp) at
// their t and pass them on. So steppers, events, observables, summaries and the Rosenbrock Jacobian
// (forward AD in y and t: df/dt includes the drivers' slopes) work unchanged, and systems without
// drivers compile none of it. A driven system may give J = df/dy itself, jacobian(t, y, p, u, J) (generated
// model code does; and band_jacobian or sparse_jacobian likewise, with u); df/dt then still comes from AD
// in t, through the drivers' pieces.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/linalg/band.hpp"
#include "batchode/kernels/core/drivers.hpp"
#include "batchode/kernels/loop/events.hpp"
#include "batchode/kernels/outputs/observables.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/system.hpp"

namespace batchode {

/// System with its drivers evaluated: the system the integrator runs for one run. `set` is the run's
/// index among per-run driver sets (RunSettings::driver_sets), 0 when the batch shares them.
template <class System, class T>
struct Driven {
  static constexpr port::size_t n_states = System::n_states;
  static constexpr port::size_t n_params = System::n_params;
  static constexpr port::size_t n_observables = n_observables_v<System>;
  static constexpr port::size_t n_events = n_events_v<System>;
  static constexpr port::uint32_t event_assignments = event_assignments_v<System>;
  static constexpr port::uint32_t time_events = time_events_v<System>;
  static constexpr port::uint32_t parameter_assignments = parameter_assignments_v<System>;
  static constexpr port::size_t n_algebraic = n_algebraic_v<System>;  // a DAE's algebraic states, the last
  static constexpr port::size_t D = n_drivers_v<System>;
  static_assert(D > 0, "Driven<System>: System reads no drivers");
  /// System's Jacobian band (kernels/linalg/band.hpp), or dense.
  static constexpr port::size_t jacobian_lower_bandwidth = kernels::JacobianBand<System>::lower;
  static constexpr port::size_t jacobian_upper_bandwidth = kernels::JacobianBand<System>::upper;
  /// System's sparse LU's sizes (kernels/linalg/sparse_lu.hpp), or 0.
  static constexpr port::size_t jacobian_nonzeros = jacobian_nonzeros_v<System>;
  static constexpr port::size_t sparse_lu_size = sparse_lu_size_v<System>;

  System driven;
  const DriverPieces<T>* pieces;  ///< D drivers (RunSettings::drivers)
  port::size_t set;

  template <class X>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void inputs(X t, X* u) const {
    BATCHODE_UNROLL
    for (port::size_t d = 0; d < D; ++d) u[d] = driver_value(pieces[d], set, t);
  }
  /// Callable with X exactly where System is (so a call operator that is not a template over the
  /// number type leaves the Rosenbrock methods unavailable, as without drivers).
  template <class X, class S = System>
  BATCHODE_HOST_DEVICE auto operator()(X t, const X* y, const X* p, X* dydt) const
      -> decltype(port::declval<const S&>()(t, y, p, static_cast<const X*>(nullptr), dydt), void()) {
    X u[D];
    inputs(t, u);
    driven(t, y, p, u, dydt);
  }
  /// The first knot after t of the drivers that land (+inf: none), where adaptive steps end.
  BATCHODE_HOST_DEVICE T next_break(T t) const {
    T next = port::numeric_limits<T>::infinity();
    BATCHODE_UNROLL
    for (port::size_t d = 0; d < D; ++d) {
      const T knot = driver_next_knot(pieces[d], t);
      next = knot < next ? knot : next;
    }
    return next;
  }
  /// J = df/dy, where System gives it (with u): has_jacobian_v (kernels/core/system.hpp) sees it then.
  template <class X, class S = System>
  BATCHODE_HOST_DEVICE auto jacobian(X t, const X* y, const X* p, X* J) const
      -> decltype(port::declval<const S&>().jacobian(t, y, p, static_cast<const X*>(nullptr), J), void()) {
    X u[D];
    inputs(t, u);
    driven.jacobian(t, y, p, u, J);
  }
  /// J = df/dy in band storage, where System gives it (with u): has_band_jacobian_v
  /// (kernels/core/system.hpp).
  template <class X, class S = System>
  BATCHODE_HOST_DEVICE auto band_jacobian(X t, const X* y, const X* p, X* Jb) const
      -> decltype(port::declval<const S&>().band_jacobian(t, y, p, static_cast<const X*>(nullptr), Jb), void()) {
    X u[D];
    inputs(t, u);
    driven.band_jacobian(t, y, p, u, Jb);
  }
  /// J's nonzeros, where System has a sparse LU (with u): has_sparse_lu_v (kernels/core/system.hpp).
  template <class X, class S = System>
  BATCHODE_HOST_DEVICE auto sparse_jacobian(X t, const X* y, const X* p, X* Js) const
      -> decltype(port::declval<const S&>().sparse_jacobian(t, y, p, static_cast<const X*>(nullptr), Js), void()) {
    X u[D];
    inputs(t, u);
    driven.sparse_jacobian(t, y, p, u, Js);
  }
  /// The sparse LU's factorisation and solve read no driver: System's own.
  template <class X, class S = System>
  BATCHODE_HOST_DEVICE auto sparse_lu_factor(X diag, const X* Js, X* W) const
      -> decltype(port::declval<const S&>().sparse_lu_factor(diag, Js, W)) {
    return driven.sparse_lu_factor(diag, Js, W);
  }
  template <class X, class S = System>
  BATCHODE_HOST_DEVICE auto sparse_lu_solve(const X* W, X* b) const
      -> decltype(port::declval<const S&>().sparse_lu_solve(W, b), void()) {
    driven.sparse_lu_solve(W, b);
  }
  template <class X>
  BATCHODE_HOST_DEVICE void observables(X t, const X* y, const X* p, X* out) const {
    X u[D];
    inputs(t, u);
    driven.observables(t, y, p, u, out);
  }
  template <class X>
  BATCHODE_HOST_DEVICE void events(X t, const X* y, const X* p, X* g) const {
    X u[D];
    inputs(t, u);
    driven.events(t, y, p, u, g);
  }
  /// (Param: const X, or X where the system's assignments change parameters: parameter_assignments.)
  template <class X, class Param, class S = System>
  BATCHODE_HOST_DEVICE auto event_assign(port::size_t e, X t, X* y, Param* p) const
      -> decltype(port::declval<const S&>().event_assign(e, t, y, p, y), void()) {
    X u[D];
    inputs(t, u);
    driven.event_assign(e, t, y, p, u);
  }
  /// An event's times depend on the run's parameters alone, not on the drivers.
  template <class X, class S = System>
  BATCHODE_HOST_DEVICE auto event_time(port::size_t e, port::uint32_t i, const X* p) const
      -> decltype(port::declval<const S&>().event_time(e, i, p)) {
    return driven.event_time(e, i, p);
  }
};

/// The system the integrator runs for System: Driven<System, T> when it reads drivers, else System.
template <class System, class T>
using integrated_system_t = port::conditional_t<(n_drivers_v<System> > 0), Driven<System, T>, System>;

/// Run `run`'s driven system: its driver set is the run's own (per-run drivers, modulo the sets a
/// plan holds, so a probe of more runs than the batch still reads sets that exist) or the batch's.
template <class System, class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE Driven<System, T> drive(const System& sys, const RunSettings<T>& plan,
                                                                   port::size_t run) {
  const port::size_t at = plan.driver_run_offset + run;
  return Driven<System, T>{sys, plan.drivers, plan.driver_sets > 1 ? at % plan.driver_sets : 0};
}

}  // namespace batchode
