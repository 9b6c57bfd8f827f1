// kernels/methods/: the implicit Runge-Kutta methods with an explicit first stage and one diagonal
// coefficient (ESDIRK), described once: kernels/methods/esdirk_stepper.hpp runs them on the GPU and the CPU
// (same layout rules as tableaux.hpp: constexpr accessors, so device code folds the coefficients into
// immediates).
//
// Form (Butcher): stage s has Y_s = y + h sum_{j<s} a_sj F_j + h gamma F_s, F_s = f(t + c_s h, Y_s),
// a_ss = gamma for s >= 1 and stage 0 explicit (Y_0 = y); y_new = y + h sum_s b_s F_s,
// err = h sum_s e_s F_s (e = b - bhat). a(i, j) is the whole lower triangle, diagonal included.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/methods/method.hpp"

namespace batchode::tableau {

/// KVAERNO5 (A. Kvaerno, BIT 44 (2004) 489-502, "Singly diagonally implicit Runge-Kutta methods with an
/// explicit first stage"): 7 stages, order 5 with an embedded order-4 estimate, L-stable and stiffly
/// accurate (b is the last row of A, bhat the row before it), gamma = 0.26. Values as in OrdinaryDiffEq.jl's
/// Kvaerno5Tableau.
struct Kvaerno5 {
  static constexpr Method method = Method::kvaerno5;
  static constexpr bool esdirk = true;
  static constexpr bool stiff = true;  // each stage is implicit: a Newton iteration with the Jacobian
  static constexpr int stages = 7, order = 5, error_order = 4;
  static constexpr int embedded_order = 4;
  static constexpr bool adaptive = true, fsal = false;
  BATCHODE_HOST_DEVICE static constexpr double gamma() { return 0.26; }
  BATCHODE_HOST_DEVICE static constexpr double a(int i, int j) {
    constexpr double g = 0.26;
    constexpr double A[7][7] = {
        {0, 0, 0, 0, 0, 0, 0},
        {g, g, 0, 0, 0, 0, 0},
        {0.13, 0.84033320996790809, g, 0, 0, 0, 0},
        {0.22371961478320505, 0.47675532319799699, -0.06470895363112615, g, 0, 0, 0},
        {0.16648564323248321, 0.10450018841591720, 0.03631482272098715, -0.13090704451073998, g, 0, 0},
        {0.13855640231268224, 0, -0.04245337201752043, 0.02446657898003141, 0.61943039072480676, g, 0},
        {0.13659751177640291, 0, -0.05496908796538376, -0.04118626728321046, 0.62993304899016403,
         0.06962479448202728, g}};
    return A[i][j];
  }
  /// c_s = sum_j a_sj (the last two are 1: the embedded and the final solution are stages at t + h).
  BATCHODE_HOST_DEVICE static constexpr double c(int i) {
    double sum = 0;
    for (int j = 0; j <= i; ++j) sum += a(i, j);
    return i >= 5 ? 1.0 : sum;
  }
  BATCHODE_HOST_DEVICE static constexpr double b(int i) { return a(6, i); }
  /// b - bhat, bhat the sixth row (the embedded solution, stage 5's value).
  BATCHODE_HOST_DEVICE static constexpr double e(int i) { return a(6, i) - (i < 6 ? a(5, i) : 0.0); }
};

namespace detail {
template <class Tab, class = void>
struct is_esdirk : port::false_type {};
template <class Tab>
struct is_esdirk<Tab, port::void_t<decltype(Tab::esdirk)>> : port::bool_constant<Tab::esdirk> {};
}  // namespace detail

/// True for the ESDIRK tables above (run by kernels/methods/esdirk_stepper.hpp).
template <class Tab>
inline constexpr bool is_esdirk_v = detail::is_esdirk<Tab>::value;

}  // namespace batchode::tableau
