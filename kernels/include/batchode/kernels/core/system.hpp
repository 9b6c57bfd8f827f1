// kernels/core/: the System concept, in one place: every member a user's ODE system may have (what it
// is, its signature, what it turns on, which header uses it) and the traits that detect each optional
// one. The other headers ask these traits; none detects a member of a system on its own. A system is a
// plain struct, usable on host and device, with a few static constants and const member templates.
//
// Required (is_ode_system_v):
//   static constexpr std::size_t n_states;   // > 0
//   static constexpr std::size_t n_params;   // may be 0: then p is nullptr
//   template <class T>
//   BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* dydt) const;
// The call operator is a template so float and double solves share one definition, and so that the
// Rosenbrock methods can call it with dual numbers (kernels/core/dual.hpp) to differentiate it
// (kernels/linalg/jacobian.hpp) when the system gives no Jacobian of its own.
//
// Optional, each detected below (the trait in brackets; "T" members are templates over the number):
//   n_algebraic          static constexpr size_t K < n_states: the last K states are algebraic variables
//                        z of a semi-explicit index-1 DAE y' = f(t, y, z, p), 0 = g(t, y, z, p); the call
//                        operator writes g into dydt[n_states - K ..]. Solved with the mass matrix
//                        M = diag(1 .. 1, 0 .. 0) by the methods built for it (solves_dae: rodas4, rodas5p;
//                        kernels/methods/rosenbrock_stepper.hpp), after a Newton iteration makes z consistent
//                        at t0 (Status::inconsistent_initial_values if it cannot); dg/dz must be regular.
//                        Saves, observables, events and summaries see z as states. [n_algebraic_v]
//   n_drivers            static constexpr size_t; the system reads that many time-varying inputs, and
//                        its call operator is (T t, const T* y, const T* p, const T* u, T* dydt); its
//                        other T members take u after p too. kernels/outputs/driven_system.hpp wraps it
//                        into a plain system (Driven). [n_drivers_v]
//   jacobian             void jacobian(T t, const T* y, const T* p, T* J) const: J = df/dy, row-major
//                        (J[i * N + j] = df_i/dy_j); the Rosenbrock methods then make no dual-number call
//                        for J (kernels/linalg/jacobian.hpp). [has_jacobian_v]
//   time_derivative      void time_derivative(T t, const T* y, const T* p, T* f_t) const: df/dt; with
//                        jacobian, linearisation makes no dual-number call at all, so the call operator
//                        need not accept dual numbers. [has_time_derivative_v,
//                        has_analytic_linearization_v]
//   jacobian_lower_bandwidth, jacobian_upper_bandwidth
//                        static constexpr size_t L, U: f_i reads only y_j with j - i in [-L, U]; a
//                        promise, entries outside are never computed. Narrow enough, the Rosenbrock
//                        methods factorise a band (kernels/linalg/band.hpp, band_lu.hpp).
//                        [declares_band_v, jacobian_lower_bandwidth_v, jacobian_upper_bandwidth_v]
//   band_jacobian        void band_jacobian(T t, const T* y, const T* p, T* Jb) const: the band in
//                        BandShape's storage (kernels/linalg/band.hpp), instead of AD over L + U + 1
//                        column groups. [has_band_jacobian_v]
//   jacobian_nonzeros, sparse_lu_size, sparse_jacobian, sparse_lu_factor, sparse_lu_solve
//                        static constexpr size_t NZ and S, and
//                        void sparse_jacobian(T t, const T* y, const T* p, T* Js) const: J's NZ structural
//                          nonzeros, in an order of the system's own;
//                        bool sparse_lu_factor(T diag, const T* Js, T* W) const: W = diag M - J factorised
//                          (M = I, or zero in the rows of algebraic states: n_algebraic below)
//                          into S slots in a pivot order of the system's own; false for a pivot lost in
//                          rounding (kernels/linalg/sparse_lu.hpp's usable_pivot);
//                        void sparse_lu_solve(const T* W, T* b) const: b := W^-1 b.
//                        The Rosenbrock methods then keep J and W so (kernels/linalg/sparse_lu.hpp).
//                        Generated model code has them where they cost the fewest operations
//                        (models/sparse_lu_plan.hpp). [has_sparse_lu_v, jacobian_nonzeros_v,
//                        sparse_lu_size_v]
//   n_observables, observables
//                        static constexpr size_t O and void observables(T t, const T* y, const T* p,
//                        T* out) const writing out[0 .. O): saved beside the state at every saved point
//                        (kernels/outputs/observables.hpp). [n_observables_v]
//   n_events, events     static constexpr size_t E (at most 8) and void events(T t, const T* y,
//                        const T* p, T* g) const writing g[0 .. E): located, recorded or terminal zero
//                        crossings (kernels/loop/events.hpp). [n_events_v]
//   event_assignments, event_assign
//                        static constexpr uint32_t mask (bit e: event e changes the state when it
//                        fires) and void event_assign(size_t e, T t, T* y, const T* p) const: applies
//                        event e's assignments to y at its crossing time t (a driven system takes u
//                        after p). The run then restarts there from the new state; a terminal event
//                        applies them and ends the run (kernels/loop/events.hpp). [event_assignments_v]
//   parameter_assignments
//                        static constexpr uint32_t mask (bit e: event e's assignments change the run's
//                        parameters too); event_assign then takes them mutable, (size_t e, T t, T* y,
//                        T* p): the run's own copy, which its later steps, events and times read (the
//                        batch's stay as given). [parameter_assignments_v]
//   time_events, event_time
//                        static constexpr uint32_t mask (bit e: event e happens at given times, not at
//                        a zero crossing: events() need not write g[e]) and T event_time(size_t e,
//                        uint32_t i, const T* p) const: event e's i-th time (i = 0, 1, ..., increasing
//                        in i; +inf past the last; a run's parameters may set them: doses every p[k]).
//                        Steps land on each time in [t0, t_end] (one at t0 fires after the save there);
//                        it is recorded and its assignments applied there as a crossing's
//                        (kernels/loop/events.hpp). [time_events_v]
//   next_break           T next_break(T t) const: the first time after t where f is not smooth; adaptive
//                        steps end there (kernels/loop/adaptive_loop.hpp; Driven has it). [has_breaks_v]
//   summary_kinds        static constexpr uint32_t, summary_bit(SummaryKind::mean) | ...: the summary
//                        metrics a solve keeps, so a lean summary kernel is built for exactly those
//                        (kernels/outputs/summary_metrics.hpp). [declares_summary_kinds_v]
//   compiled_methods     static constexpr batchode::Method compiled_methods[] = {...}: the methods code is
//                        built for (kernels/methods/method_registry.hpp: compiles_method). [detected
//                        here: has_compiled_methods_v; whether its entries are Methods is asked there,
//                        where Method lives: declares_compiled_methods_v]
//   rhs_component        template <class T, class State> T rhs_component(size_t i, T t, const State& y,
//                        const T* p) const: dydt[i], reading state k as y[k]; lets several GPU lanes
//                        share a run (kernels/launch/lane_group.hpp). [detail::has_rhs_component over a
//                        State type; has_rhs_component_v is defined in lane_group.hpp, where the State
//                        a lane group passes (LaneGroupState) lives]
//   lanes_per_run        static constexpr size_t: the lanes of such a run, instead of the choice by
//                        size (kernels/launch/lane_group.hpp). [declared_lanes_per_run_v, 0 if none]
//   simd_runs            static constexpr bool = true: the call operator also takes the values of W runs
//                        at once (T = kernels::RunPack<U, W>, kernels/core/run_pack.hpp: arithmetic and
//                        the math functions lane by lane, no comparison of values), so the CPU path
//                        integrates blocks of runs in the lanes of its vector registers
//                        (backends/cpu/run_blocks.hpp). Generated model code declares it where its
//                        equations compare nothing. [simd_runs_v]
//   simd_linearization   static constexpr bool = true: so do sparse_jacobian, time_derivative and the
//                        sparse LU (kernels/linalg/sparse_lu.hpp: its factorisation then tells which
//                        lanes kept their pivots), so the Rosenbrock methods run in blocks too. Generated
//                        model code with a sparse LU declares it where its derivatives compare nothing.
//                        [simd_linearization_v]
//   state_names, observable_names, driver_names
//                        static constexpr const char* x[] = {...}: the names results, summaries and
//                        driver specs go by (solver/systems/system_traits.hpp), else y<s>,
//                        observable<o>, the drivers' order. [has_state_names_v, has_observable_names_v,
//                        has_driver_names_v]
//   name                 static constexpr const char* name = "lorenz"; or a static function name(): the
//                        key of the cost model's measurements (solver/systems/system_key.hpp, which
//                        detects it: it is a host-only std::string matter, and telling a static member
//                        from a non-static one takes std::is_member_pointer, which port:: lacks).
//
// For example:
//   struct Decay {
//     static constexpr std::size_t n_states = 2, n_params = 1, n_observables = 1, n_events = 1;
//     static constexpr const char* state_names[] = {"a", "b"};
//     template <class T>
//     BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
//       dydt[0] = -p[0] * y[0];
//       dydt[1] = p[0] * y[0];
//     }
//     template <class T>
//     BATCHODE_HOST_DEVICE void jacobian(T, const T*, const T* p, T* J) const {
//       J[0] = -p[0], J[1] = T(0), J[2] = p[0], J[3] = T(0);
//     }
//     template <class T>
//     BATCHODE_HOST_DEVICE void time_derivative(T, const T*, const T*, T* f_t) const {
//       f_t[0] = f_t[1] = T(0);
//     }
//     template <class T>
//     BATCHODE_HOST_DEVICE void observables(T, const T* y, const T*, T* out) const {
//       out[0] = y[0] + y[1];
//     }
//     template <class T>
//     BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* g) const {
//       g[0] = y[0] - y[1];
//     }
//   };
// tests/kernels/core/system_test.cpp checks that each member is detected, and not where it is absent.
//
// Namespaces of kernels/ (docs/architecture.md): what a user's program or a backend names to describe
// and run one system (the System concept and its traits, Status, RunSettings, Method, the steppers,
// integrate_run, the sinks: rooms core, methods, loop, outputs) is in `batchode`; the tableaux in
// `batchode::tableau`, the portable standard subset in `batchode::port`, the model language's functions
// in `batchode::model_math`; the machinery under them that only batchode's own layers call (dual
// numbers, LU and band solves, linearisation, the batch kernels and device views: rooms linalg,
// launch, and core/dual.hpp) in `batchode::kernels`. Helpers of either go in a nested `detail`. A trait
// over a user's system type is in `batchode` wherever it is defined.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode {

// C++17 on purpose: Debian's HIP compiler (clang 15) crashes on C++20 translation units that include
// GoogleTest or Boost.Odeint, so the public headers use traits instead of concepts.
namespace detail {
// A static size_t constant S::Member, or Default when S has none.
#define BATCHODE_SYSTEM_COUNT(trait, member, default_value)               \
  template <class S, class = void>                                        \
  struct trait : port::integral_constant<port::size_t, default_value> {}; \
  template <class S>                                                      \
  struct trait<S, port::void_t<decltype(port::size_t{S::member})>>        \
      : port::integral_constant<port::size_t, S::member> {};
BATCHODE_SYSTEM_COUNT(driver_count, n_drivers, 0)
BATCHODE_SYSTEM_COUNT(observable_count, n_observables, 0)
BATCHODE_SYSTEM_COUNT(event_count, n_events, 0)
BATCHODE_SYSTEM_COUNT(algebraic_count, n_algebraic, 0)
BATCHODE_SYSTEM_COUNT(declared_lanes, lanes_per_run, 0)
BATCHODE_SYSTEM_COUNT(sparse_jacobian_nonzeros, jacobian_nonzeros, 0)
BATCHODE_SYSTEM_COUNT(sparse_lu_slots, sparse_lu_size, 0)
#undef BATCHODE_SYSTEM_COUNT
template <class S, class = void>
struct assignment_mask : port::integral_constant<port::uint32_t, 0> {};
template <class S>
struct assignment_mask<S, port::void_t<decltype(port::uint32_t{S::event_assignments})>>
    : port::integral_constant<port::uint32_t, S::event_assignments> {};
template <class S, class = void>
struct parameter_assignment_mask : port::integral_constant<port::uint32_t, 0> {};
template <class S>
struct parameter_assignment_mask<S, port::void_t<decltype(port::uint32_t{S::parameter_assignments})>>
    : port::integral_constant<port::uint32_t, S::parameter_assignments> {};
template <class S, class = void>
struct time_event_mask : port::integral_constant<port::uint32_t, 0> {};
template <class S>
struct time_event_mask<S, port::void_t<decltype(port::uint32_t{S::time_events})>>
    : port::integral_constant<port::uint32_t, S::time_events> {};

// A const member `member(T t, const T* y, const T* p, T* out)` in precision T (a driven system's take
// u after p: Driven gives them the plain form).
#define BATCHODE_SYSTEM_MEMBER(trait, member)                                                               \
  template <class S, class T, class = void>                                                                 \
  struct trait : port::false_type {};                                                                       \
  template <class S, class T>                                                                               \
  struct trait<                                                                                             \
      S, T,                                                                                                 \
      port::void_t<decltype(port::declval<const S&>().member(                                               \
          port::declval<T>(), port::declval<const T*>(), port::declval<const T*>(), port::declval<T*>()))>> \
      : port::true_type {};
BATCHODE_SYSTEM_MEMBER(has_jacobian, jacobian)
BATCHODE_SYSTEM_MEMBER(has_time_derivative, time_derivative)
BATCHODE_SYSTEM_MEMBER(has_band_jacobian, band_jacobian)
BATCHODE_SYSTEM_MEMBER(has_sparse_jacobian, sparse_jacobian)
#undef BATCHODE_SYSTEM_MEMBER

// sparse_lu_factor(T diag, const T* Js, T* W) -> bool and sparse_lu_solve(const T* W, T* b) in precision T.
template <class S, class T, class = void>
struct has_sparse_lu_members : port::false_type {};
template <class S, class T>
struct has_sparse_lu_members<
    S, T,
    port::void_t<decltype(bool{port::declval<const S&>().sparse_lu_factor(
                     port::declval<T>(), port::declval<const T*>(), port::declval<T*>())}),
                 decltype(port::declval<const S&>().sparse_lu_solve(port::declval<const T*>(),
                                                                    port::declval<T*>()))>>
    : port::true_type {};

// The call operator in number type T (float, double, or a dual number: kernels/linalg/jacobian.hpp's
// can_linearize asks with the one it would call).
template <class S, class T, class = void>
struct has_rhs : port::false_type {};
template <class S, class T>
struct has_rhs<
    S, T,
    port::void_t<decltype(port::declval<const S&>()(port::declval<T>(), port::declval<const T*>(),
                                                    port::declval<const T*>(), port::declval<T*>()))>>
    : port::true_type {};
// A driven system's: the drivers' values before dydt.
template <class S, class T, class = void>
struct has_driven_rhs : port::false_type {};
template <class S, class T>
struct has_driven_rhs<S, T,
                      port::void_t<decltype(port::declval<const S&>()(
                          port::declval<T>(), port::declval<const T*>(), port::declval<const T*>(),
                          port::declval<const T*>(), port::declval<T*>()))>> : port::true_type {};
}  // namespace detail

/// The number of drivers system S reads (kernels/outputs/driven_system.hpp): S::n_drivers, or 0.
template <class S>
inline constexpr port::size_t n_drivers_v = detail::driver_count<S>::value;

namespace detail {
template <class S, class T, class = void>
struct is_ode_system : port::false_type {};
template <class S, class T>
struct is_ode_system<S, T,
                     port::void_t<decltype(port::size_t{S::n_states}), decltype(port::size_t{S::n_params})>>
    : port::bool_constant<port::is_copy_constructible_v<S> && (S::n_states > 0) &&
                          (n_drivers_v<S> > 0 ? has_driven_rhs<S, T>::value : has_rhs<S, T>::value)> {};
}  // namespace detail

/// True when S is an ODE system integrable in precision T: n_states > 0, n_params, and a const call
/// operator (T t, const T* y, const T* p, T* dydt), or (t, y, p, const T* u, dydt) with n_drivers > 0.
template <class S, class T>
inline constexpr bool is_ode_system_v = detail::is_ode_system<S, T>::value;

/// True when System provides an analytic `jacobian(t, y, p, J)` in precision T.
template <class System, class T>
inline constexpr bool has_jacobian_v = detail::has_jacobian<System, T>::value;

/// True when System provides an analytic `time_derivative(t, y, p, f_t)` (df/dt) in precision T.
template <class System, class T>
inline constexpr bool has_time_derivative_v = detail::has_time_derivative<System, T>::value;

/// True when System gives both J and f_t itself: linearize() then makes no dual-number call.
template <class System, class T>
inline constexpr bool has_analytic_linearization_v = (has_jacobian_v<System, T> &&
                                                      has_time_derivative_v<System, T>);

namespace detail {
template <class S, class = void>
struct declared_band {
  static constexpr bool declared = false;
  static constexpr port::size_t lower = S::n_states - 1, upper = S::n_states - 1;
};
template <class S>
struct declared_band<S, port::void_t<decltype(port::size_t{S::jacobian_lower_bandwidth}),
                                     decltype(port::size_t{S::jacobian_upper_bandwidth})>> {
  static constexpr bool declared = true;
  static constexpr port::size_t lower = S::jacobian_lower_bandwidth, upper = S::jacobian_upper_bandwidth;
};
}  // namespace detail

/// True when System declares both bandwidths of its Jacobian.
template <class System>
inline constexpr bool declares_band_v = detail::declared_band<System>::declared;
/// System's declared sub- and superdiagonals, or n_states - 1 (dense) when it declares none
/// (kernels/linalg/band.hpp's JacobianBand).
template <class System>
inline constexpr port::size_t jacobian_lower_bandwidth_v = detail::declared_band<System>::lower;
template <class System>
inline constexpr port::size_t jacobian_upper_bandwidth_v = detail::declared_band<System>::upper;

/// True when System gives its banded Jacobian itself: band_jacobian(t, y, p, Jb) in precision T.
template <class System, class T>
inline constexpr bool has_band_jacobian_v = detail::has_band_jacobian<System, T>::value;

/// System's jacobian_nonzeros and sparse_lu_size, or 0 when it declares none.
template <class System>
inline constexpr port::size_t jacobian_nonzeros_v = detail::sparse_jacobian_nonzeros<System>::value;
template <class System>
inline constexpr port::size_t sparse_lu_size_v = detail::sparse_lu_slots<System>::value;

/// True when System gives its own sparse LU in precision T: both counts, sparse_jacobian,
/// sparse_lu_factor and sparse_lu_solve (kernels/linalg/sparse_lu.hpp).
template <class System, class T>
inline constexpr bool has_sparse_lu_v = jacobian_nonzeros_v<System> > 0 && sparse_lu_size_v<System> > 0 &&
                                        detail::has_sparse_jacobian<System, T>::value &&
                                        detail::has_sparse_lu_members<System, T>::value;

/// The number of observables of system S: S::n_observables, or 0 when it has none.
template <class S>
inline constexpr port::size_t n_observables_v = detail::observable_count<S>::value;

/// The number of event functions of system S: S::n_events, or 0 when it has none.
template <class S>
inline constexpr port::size_t n_events_v = detail::event_count<S>::value;

/// The events of system S that change the state when they fire (bit e: event e; its event_assign):
/// S::event_assignments, or 0.
template <class S>
inline constexpr port::uint32_t event_assignments_v = detail::assignment_mask<S>::value;

/// The events of system S whose assignments change the run's parameters (bit e: event e; its
/// event_assign takes T* p): S::parameter_assignments, or 0.
template <class S>
inline constexpr port::uint32_t parameter_assignments_v = detail::parameter_assignment_mask<S>::value;

/// The events of system S that happen at given times (bit e: event e; its event_time): S::time_events,
/// or 0.
template <class S>
inline constexpr port::uint32_t time_events_v = detail::time_event_mask<S>::value;

/// The number of algebraic states of system S (the last ones): S::n_algebraic, or 0 for an ODE.
template <class S>
inline constexpr port::size_t n_algebraic_v = detail::algebraic_count<S>::value;

namespace detail {
template <class S, class T, class = void>
struct has_breaks : port::false_type {};
template <class S, class T>
struct has_breaks<S, T, port::void_t<decltype(port::declval<const S&>().next_break(port::declval<T>()))>>
    : port::true_type {};

// S::summary_kinds, or every bit (kernels/outputs/summary_metrics.hpp masks it to the kinds there are).
template <class S, class = void>
struct declared_summary_kinds : port::integral_constant<port::uint32_t, ~0u> {
  static constexpr bool declared = false;
};
template <class S>
struct declared_summary_kinds<S, port::void_t<decltype(port::uint32_t{S::summary_kinds})>>
    : port::integral_constant<port::uint32_t, S::summary_kinds> {
  static constexpr bool declared = true;
};

// A static array S::compiled_methods (whether it holds Methods: method_registry.hpp).
template <class S, class = void>
struct has_compiled_methods : port::false_type {};
template <class S>
struct has_compiled_methods<S, port::void_t<decltype(S::compiled_methods[0])>> : port::true_type {};

// rhs_component(i, t, y, p) with y a `const State&`: the State is the launch room's (lane_group.hpp).
template <class S, class T, class State, class = void>
struct has_rhs_component : port::false_type {};
template <class S, class T, class State>
struct has_rhs_component<
    S, T, State,
    port::void_t<decltype(T{port::declval<const S&>().rhs_component(
        port::size_t{}, port::declval<T>(), port::declval<const State&>(), port::declval<const T*>())})>>
    : port::true_type {};

// S::simd_runs, or false.
template <class S, class = void>
struct declares_simd_runs : port::false_type {};
template <class S>
struct declares_simd_runs<S, port::void_t<decltype(bool{S::simd_runs})>> : port::bool_constant<S::simd_runs> {
};
template <class S, class = void>
struct declares_simd_linearization : port::false_type {};
template <class S>
struct declares_simd_linearization<S, port::void_t<decltype(bool{S::simd_linearization})>>
    : port::bool_constant<S::simd_linearization> {};

#define BATCHODE_SYSTEM_NAMES(trait, member) \
  template <class S, class = void>           \
  struct trait : port::false_type {};        \
  template <class S>                         \
  struct trait<S, port::void_t<decltype(S::member[0])>> : port::true_type {};
BATCHODE_SYSTEM_NAMES(names_states, state_names)
BATCHODE_SYSTEM_NAMES(names_observables, observable_names)
BATCHODE_SYSTEM_NAMES(names_drivers, driver_names)
#undef BATCHODE_SYSTEM_NAMES
}  // namespace detail

/// True when System has `next_break(t)` in precision T: adaptive steps end on its breaks.
template <class System, class T>
inline constexpr bool has_breaks_v = detail::has_breaks<System, T>::value;

/// True when System declares the summary kinds it is solved with (S::summary_kinds).
template <class System>
inline constexpr bool declares_summary_kinds_v = detail::declared_summary_kinds<System>::declared;

/// True when System has a static `compiled_methods` array.
template <class System>
inline constexpr bool has_compiled_methods_v = detail::has_compiled_methods<System>::value;

/// The lanes per run System declares (S::lanes_per_run), or 0 when it leaves the choice to the size.
template <class System>
inline constexpr port::size_t declared_lanes_per_run_v = detail::declared_lanes<System>::value;

/// True when System's call operator takes packs of runs (S::simd_runs).
template <class System>
inline constexpr bool simd_runs_v = detail::declares_simd_runs<System>::value;

/// True when System's sparse linearisation and LU take packs of runs too (S::simd_linearization).
template <class System>
inline constexpr bool simd_linearization_v = detail::declares_simd_linearization<System>::value;

/// True when System names its states, observables, drivers (static arrays of strings).
template <class System>
inline constexpr bool has_state_names_v = detail::names_states<System>::value;
template <class System>
inline constexpr bool has_observable_names_v = detail::names_observables<System>::value;
template <class System>
inline constexpr bool has_driver_names_v = detail::names_drivers<System>::value;

}  // namespace batchode
