// solver/: what a user's ODE system must provide. A plain struct, usable on host and device:
//
//   struct Lorenz {
//     static constexpr std::size_t n_states = 3;
//     static constexpr std::size_t n_params = 3;
//     template <class T>
//     BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T* p, T* dydt) const;
//   };
//
// The call operator is a template so float and double solves (and, later, dual numbers for
// Jacobians) share one definition. n_params may be 0, in which case p is nullptr.
#pragma once

#include "batchode/kernels/annotations.hpp"
#include "batchode/kernels/portable.hpp"

namespace batchode {

// C++17 on purpose: Debian's HIP compiler (clang 15) crashes on C++20 translation units that include
// GoogleTest or Boost.Odeint, so the public headers use a trait instead of a concept.
namespace detail {
template <class S, class T, class = void>
struct is_ode_system : port::false_type {};
template <class S, class T>
struct is_ode_system<S, T,
                     port::void_t<decltype(port::declval<const S&>()(port::declval<T>(), port::declval<const T*>(),
                                                                     port::declval<const T*>(), port::declval<T*>())),
                                 decltype(port::size_t{S::n_states}), decltype(port::size_t{S::n_params})>>
    : port::bool_constant<port::is_copy_constructible_v<S> && (S::n_states > 0)> {};
}  // namespace detail

/// True when S is an ODE system integrable in precision T: n_states > 0, n_params, and a const call
/// operator (T t, const T* y, const T* p, T* dydt).
template <class S, class T>
inline constexpr bool is_ode_system_v = detail::is_ode_system<S, T>::value;

}  // namespace batchode
