// kernels/methods/: Radau IIA of order 5 (three stages), described once: kernels/methods/radau_stepper.hpp
// runs it on the GPU and the CPU. Its coefficients are kept in the form Hairer's RADAU5 uses them (Hairer &
// Wanner II, IV.8): the nodes c, the eigen-decomposition A^-1 = T diag(gamma, [[alpha, -beta], [beta,
// alpha]]) T^-1 of the inverse of its Butcher matrix A, which splits each Newton iteration into one real and
// one complex N x N system, the error estimate's weights dd and the collocation polynomial's. Values as in
// radau5.f (T and T^-1 to 20 digits); tests/stiff/tableau_conditions_test.cpp checks them against A's
// closed form.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/methods/method.hpp"

namespace batchode::tableau {

/// RADAU IIA 5 (Hairer & Wanner II, IV.5; RADAU5 of Hairer & Wanner, 1996): collocation at the Radau
/// points, order 5, stage order 3, L-stable and stiffly accurate; an order-3 error estimate (so the step
/// controller's exponent is 1/4); solves index-1 DAEs with the mass matrix.
struct RadauIIA5 {
  static constexpr Method method = Method::radau5;
  static constexpr bool radau = true;
  static constexpr bool stiff = true;       // implicit: a Newton iteration with the Jacobian
  static constexpr bool solves_dae = true;  // written for M y' = f, as RADAU5
  static constexpr int stages = 3, order = 5, error_order = 3;
  static constexpr int embedded_order = 3;
  static constexpr bool adaptive = true, fsal = false;

  // Nodes: (4 - sqrt 6) / 10, (4 + sqrt 6) / 10, 1.
  static constexpr double c1 = 0.15505102572168219018027159252941086;
  static constexpr double c2 = 0.64494897427831780981972840747058914;
  // The real eigenvalue of A^-1 and the complex pair's parts (RADAU5's U1, ALPH, BETA after its
  // inversions).
  static constexpr double gamma = 3.6378342527444957322084185135778;
  static constexpr double alpha = 2.6810828736277521338957907432111;
  static constexpr double beta = 3.0504301992474105694263776247876;
  /// A^-1 = T Lambda T^-1: T's entries (T(3, 2) = 1, T(3, 3) = 0) and T^-1's.
  static constexpr double t11 = 9.1232394870892942792e-02, t12 = -0.14125529502095420843,
                          t13 = -3.0029194105147424492e-02;
  static constexpr double t21 = 0.24171793270710701896, t22 = 0.20412935229379993199,
                          t23 = 0.38294211275726193779;
  static constexpr double t31 = 0.96604818261509293619;
  static constexpr double ti11 = 4.3255798900631553510, ti12 = 0.33919925181580986954,
                          ti13 = 0.54177053993587487119;
  static constexpr double ti21 = -4.1787185915519047273, ti22 = -0.32768282076106238708,
                          ti23 = 0.47662355450055045196;
  static constexpr double ti31 = -0.50287263494578687595, ti32 = 2.5719269498556054292,
                          ti33 = -0.59603920482822492497;
  /// The error estimate's weights of the stage increments (times 1 / h): -(13 + 7 sqrt 6) / 3,
  /// (-13 + 7 sqrt 6) / 3, -1/3 (RADAU5's DD1..DD3).
  static constexpr double dd1 = -10.048809399827415562460331;
  static constexpr double dd2 = 1.3821427331607488957936630;
  static constexpr double dd3 = -1.0 / 3.0;
};

namespace detail {
template <class Tab, class = void>
struct is_radau : port::false_type {};
template <class Tab>
struct is_radau<Tab, port::void_t<decltype(Tab::radau)>> : port::bool_constant<Tab::radau> {};
}  // namespace detail

/// True for the Radau IIA table above (run by kernels/methods/radau_stepper.hpp).
template <class Tab>
inline constexpr bool is_radau_v = detail::is_radau<Tab>::value;

}  // namespace batchode::tableau
