// kernels/core/: what a user's ODE system must provide. A plain struct, usable on host and device:
//
//   struct Lorenz {
//     static constexpr std::size_t n_states = 3;
//     static constexpr std::size_t n_params = 3;
//     template <class T>
//     BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* dydt) const;
//   };
//
// The call operator is a template so float and double solves (and, later, dual numbers for
// Jacobians) share one definition. n_params may be 0, in which case p is nullptr. A system may also
// read time-varying inputs (drivers): kernels/outputs/driven_system.hpp.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode {

// C++17 on purpose: Debian's HIP compiler (clang 15) crashes on C++20 translation units that include
// GoogleTest or Boost.Odeint, so the public headers use a trait instead of a concept.
namespace detail {
template <class S, class = void>
struct driver_count : port::integral_constant<port::size_t, 0> {};
template <class S>
struct driver_count<S, port::void_t<decltype(port::size_t{S::n_drivers})>>
    : port::integral_constant<port::size_t, S::n_drivers> {};
}  // namespace detail

/// The number of drivers system S reads (kernels/outputs/driven_system.hpp): S::n_drivers, or 0.
template <class S>
inline constexpr port::size_t n_drivers_v = detail::driver_count<S>::value;

namespace detail {
template <class S, class T, class = void>
struct has_rhs : port::false_type {};
template <class S, class T>
struct has_rhs<S, T,
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

template <class S, class T, class = void>
struct is_ode_system : port::false_type {};
template <class S, class T>
struct is_ode_system<S, T, port::void_t<decltype(port::size_t{S::n_states}), decltype(port::size_t{S::n_params})>>
    : port::bool_constant<port::is_copy_constructible_v<S> && (S::n_states > 0) &&
                          (n_drivers_v<S> > 0 ? has_driven_rhs<S, T>::value : has_rhs<S, T>::value)> {};
}  // namespace detail

/// True when S is an ODE system integrable in precision T: n_states > 0, n_params, and a const call
/// operator (T t, const T* y, const T* p, T* dydt), or (t, y, p, const T* u, dydt) with n_drivers > 0.
template <class S, class T>
inline constexpr bool is_ode_system_v = detail::is_ode_system<S, T>::value;

}  // namespace batchode
