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

/// KVAERNO3 (Kvaerno 2004, as above): 4 stages, order 3 with an embedded order-2 estimate, L-stable and
/// stiffly accurate (b the last row of A, bhat the row before it), gamma = 0.4358665215, the root of
/// L-stability's cubic to the 10 digits Kvaerno gives (the order conditions hold to ~1e-10). Values as in
/// OrdinaryDiffEq.jl's Kvaerno3Tableau (CuBIE's and DiffEqGPU's kvaerno3).
struct Kvaerno3 {
  static constexpr Method method = Method::kvaerno3;
  static constexpr bool esdirk = true;
  static constexpr bool stiff = true;
  static constexpr int stages = 4, order = 3, error_order = 2;
  static constexpr int embedded_order = 2;
  static constexpr bool adaptive = true, fsal = false;
  BATCHODE_HOST_DEVICE static constexpr double gamma() { return 0.4358665215; }
  BATCHODE_HOST_DEVICE static constexpr double a(int i, int j) {
    constexpr double g = 0.4358665215;
    constexpr double A[4][4] = {{0, 0, 0, 0},
                                {g, g, 0, 0},
                                {0.490563388419108, 0.073570090080892, g, 0},
                                {0.308809969973036, 1.490563388254106, -1.235239879727145, g}};
    return A[i][j];
  }
  /// 0, 2 gamma, 1, 1 (the embedded and the final solution are the stages at t + h).
  BATCHODE_HOST_DEVICE static constexpr double c(int i) { return i == 0 ? 0.0 : i == 1 ? 2 * gamma() : 1.0; }
  BATCHODE_HOST_DEVICE static constexpr double b(int i) { return a(3, i); }
  /// b - bhat, bhat the third row (the embedded solution, stage 2's value).
  BATCHODE_HOST_DEVICE static constexpr double e(int i) { return a(3, i) - (i < 3 ? a(2, i) : 0.0); }
};

/// KenCarp4's implicit part (C. A. Kennedy & M. H. Carpenter, Appl. Numer. Math. 44 (2003) 139-181,
/// ARK4(3)6L[2]SA-ESDIRK): 6 stages, order 4 with an embedded order-3 estimate, L-stable and stiffly
/// accurate, gamma = 1/4; the published rationals. Run as a plain ESDIRK (the whole right-hand side
/// implicit), as OrdinaryDiffEq.jl's KenCarp4 without a split problem.
struct KenCarp4 {
  static constexpr Method method = Method::kencarp4;
  static constexpr bool esdirk = true;
  static constexpr bool stiff = true;
  static constexpr int stages = 6, order = 4, error_order = 3;
  static constexpr int embedded_order = 3;
  static constexpr bool adaptive = true, fsal = false;
  BATCHODE_HOST_DEVICE static constexpr double gamma() { return 0.25; }
  BATCHODE_HOST_DEVICE static constexpr double a(int i, int j) {
    constexpr double g = 0.25;
    constexpr double A[6][6] = {{0, 0, 0, 0, 0, 0},
                                {g, g, 0, 0, 0, 0},
                                {8611.0 / 62500, -1743.0 / 31250, g, 0, 0, 0},
                                {5012029.0 / 34652500, -654441.0 / 2922500, 174375.0 / 388108, g, 0, 0},
                                {15267082809.0 / 155376265600, -71443401.0 / 120774400,
                                 730878875.0 / 902184768, 2285395.0 / 8070912, g, 0},
                                {82889.0 / 524892, 0, 15625.0 / 83664, 69875.0 / 102672, -2260.0 / 8211, g}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double c(int i) {
    constexpr double nodes[6] = {0, 0.5, 83.0 / 250, 31.0 / 50, 17.0 / 20, 1};
    return nodes[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double b(int i) { return a(5, i); }
  /// b - bhat (the published bhat is no row of A).
  BATCHODE_HOST_DEVICE static constexpr double e(int i) {
    constexpr double E[6] = {31666707.0 / 9881966720, 0,
                             -256875.0 / 105007616,   -2768025.0 / 128864768,
                             169839.0 / 3864644,      -5247.0 / 225920};
    return E[i];
  }
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
