// kernels/methods/: every Rosenbrock (linearly implicit) method, described once: the GPU stepper and the CPU
// path both run kernels/methods/rosenbrock_stepper.hpp over these tables (same layout rules as tableaux.hpp:
// constexpr accessors, so device code folds the coefficients into immediates).
//
// Form (Hairer & Wanner, Solving ODEs II, IV.7, "transformed" variables, as in Hairer's rodas.f and
// OrdinaryDiffEq.jl): with W = I / (gamma h) - J, J = df/dy(t, y), f_t = df/dt(t, y), stage s solves
//   W k_s = f(t + c_s h, y + sum_{j<s} a_sj k_j) + h d_s f_t + sum_{j<s} (C_sj / h) k_j,
//   y_new = y + sum_s b_s k_s,   err = sum_s e_s k_s   (e = b - bhat).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/methods/dense_form.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/methods/method.hpp"

namespace batchode::tableau {

/// ROS3P (J. Lang & J. Verwer, BIT 41 (2001) 731-738): 3 stages, order 3 with an embedded order-2
/// estimate, A-stable, no order reduction on parabolic problems. Coefficients in transformed form as
/// derived in OrdinaryDiffEq.jl's ROS3PTableau from gamma = 1/2 + sqrt(3)/6 (1/gamma = 3 - sqrt(3)).
///
/// The published embedded pair (b - e, order 2) is useless for step control: on a linear autonomous
/// problem y' = J y its stability function equals the main method's, so sum_s e_s k_s is zero to
/// rounding at every step size and the estimate sees only nonlinear and df/dt terms (y' = 8 y on
/// [0, 1] at 1e-6 came out 54 instead of 2981, as success). This is a property of the coefficients,
/// not a transcription error: stages 1 and 2 are proportional on linear problems (k_2 = -(e_1/e_2) k_1),
/// so every order-2 combination of the three stages has the main method's stability function
/// (tests/solver/rosenbrock_tableau_test.cpp shows it; OrdinaryDiffEq.jl issue 4291 reports the same
/// for its ROS3P, ROS3PR and ROS34PW1a). batchode therefore estimates ros3p's error by step doubling
/// (estimate_by_doubling: a step of h against two of h/2, which are kept; the estimate y_h/2 - y_h is
/// about the whole step's error, 2^3 - 1 times the kept halves' own): about 3x the linear algebra of
/// a step, an estimate of order 4 (error_order 3) that sees every error. rodas4 has a true embedded pair and
/// is the faster choice where ROS3P's no-order-reduction property on parabolic problems does not matter. e()
/// stays the published pair, for the tests.
struct Ros3p {
  static constexpr Method method = Method::ros3p;
  static constexpr bool rosenbrock = true;
  static constexpr int stages = 3, order = 3, error_order = 3;
  static constexpr bool adaptive = true, fsal = false;
  static constexpr bool estimate_by_doubling = true;
  static constexpr int embedded_order = 2;  ///< of the published pair b - e (unused for step control)
  static constexpr double ig = 1.2679491924311228;  // 1 / gamma = 3 - sqrt(3)
  BATCHODE_HOST_DEVICE static constexpr double gamma() { return 0.7886751345948129; }
  BATCHODE_HOST_DEVICE static constexpr double a(int i, int j) {
    constexpr double A[3][3] = {{0, 0, 0}, {ig, 0, 0}, {ig, 0, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double C(int i, int j) {
    constexpr double c32 = -ig * (2.0 - 0.5 * ig);
    constexpr double A[3][3] = {{0, 0, 0}, {-ig * ig, 0, 0}, {-ig * (1.0 - c32), c32, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double c(int i) {
    constexpr double Cn[3] = {0, 1, 1};
    return Cn[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double d(int i) {
    constexpr double D[3] = {0.7886751345948129, -0.2113248654051871, -1.077350269189626};
    return D[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double b(int i) {
    constexpr double b2 = ig * (2.0 / 3 - ig / 6);
    constexpr double B[3] = {ig * (1.0 + b2), b2, ig / 3};
    return B[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double e(int i) {
    constexpr double Bhat[3] = {2.113248654051871, 1.0, 0.4226497308103742};
    return b(i) - Bhat[i];
  }
};

/// RODAS4 (Hairer & Wanner, Solving ODEs II, IV.7; Hairer's rodas.f, coefficient set RO4COE):
/// 6 stages, order 4 with an embedded order-3 estimate, L-stable and stiffly accurate: the last two
/// stage arguments are the embedded and the final solution, so y_new = y + sum_{j<5} a_5j k_j + k_5
/// + k_6 and the estimate is k_6. Values as transcribed in OrdinaryDiffEq.jl's Rodas4Tableau.
struct Rodas4 {
  static constexpr Method method = Method::rodas4;
  static constexpr bool rosenbrock = true;
  static constexpr bool solves_dae = true;  // built for M y' = f (Hairer & Wanner VI.4): index-1 DAEs
  static constexpr int stages = 6, order = 4, error_order = 3;
  static constexpr int embedded_order = 3;
  static constexpr bool adaptive = true, fsal = false;
  BATCHODE_HOST_DEVICE static constexpr double gamma() { return 0.25; }
  BATCHODE_HOST_DEVICE static constexpr double a(int i, int j) {
    constexpr double A[6][6] = {
        {0, 0, 0, 0, 0, 0},
        {1.544, 0, 0, 0, 0, 0},
        {0.9466785280815826, 0.2557011698983284, 0, 0, 0, 0},
        {3.314825187068521, 2.896124015972201, 0.9986419139977817, 0, 0, 0},
        {1.221224509226641, 6.019134481288629, 12.53708332932087, -0.6878860361058950, 0, 0},
        {1.221224509226641, 6.019134481288629, 12.53708332932087, -0.6878860361058950, 1.0, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double C(int i, int j) {
    constexpr double A[6][6] = {
        {0, 0, 0, 0, 0, 0},
        {-5.6688, 0, 0, 0, 0, 0},
        {-2.430093356833875, -0.2063599157091915, 0, 0, 0, 0},
        {-0.1073529058151375, -9.594562251023355, -20.47028614809616, 0, 0, 0},
        {7.496443313967647, -10.24680431464352, -33.99990352819905, 11.70890893206160, 0, 0},
        {8.083246795921522, -7.981132988064893, -31.52159432874371, 16.31930543123136, -6.058818238834054, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double c(int i) {
    constexpr double Cn[6] = {0, 0.386, 0.21, 0.63, 1.0, 1.0};
    return Cn[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double d(int i) {
    constexpr double D[6] = {0.25, -0.1043, 0.1035, -0.03620000000000023, 0, 0};
    return D[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double b(int i) { return i < 5 ? a(5, i) : 1.0; }
  BATCHODE_HOST_DEVICE static constexpr double e(int i) { return i == 5 ? 1.0 : 0.0; }
  /// Its own dense output, third order (rodas.f's D21..D35, CONTRO): over the first five stages,
  /// K1 = sum_s dense_h(0, s) k_s, K2 = sum_s dense_h(1, s) k_s and
  /// y(t0 + theta h) = y0 + theta (y1 - y0 + (1 - theta) (K1 + theta K2)).
  static constexpr DenseForm dense = DenseForm::rosenbrock;
  BATCHODE_HOST_DEVICE static constexpr double dense_h(int r, int s) {
    constexpr double H[2][6] = {
        {10.12623508344586, -7.487995877610167, -34.80091861555747, -7.992771707568823, 1.025137723295662, 0},
        {-0.6762803392801253, 6.087714651680015, 16.43084320892478, 24.76722511418386, -6.594389125716872, 0}};
    return H[r][s];
  }
};

/// RODAS5P (G. Steinebach, BIT 63 (2023) 27): 8 stages, order 5 with an embedded order-4 estimate,
/// L-stable and stiffly accurate like RODAS4 (the last two stage arguments are the embedded and the
/// final solution: y_new = y + sum_{j<7} a_7j k_j + k_7, the estimate k_7), built to keep its order on
/// index-1 DAEs and on the Prothero-Robinson test of very stiff problems, with a dense output of order 4
/// (three combinations of the stages instead of RODAS4's two). Values as in OrdinaryDiffEq.jl's
/// Rodas5PTableau (RODAS5PA, RODAS5PC, RODAS5Pc, RODAS5Pd, RODAS5PH).
struct Rodas5p {
  static constexpr Method method = Method::rodas5p;
  static constexpr bool rosenbrock = true;
  static constexpr bool solves_dae = true;  // its order conditions include the index-1 DAE ones
  static constexpr int stages = 8, order = 5, error_order = 4;
  static constexpr int embedded_order = 4;
  static constexpr bool adaptive = true, fsal = false;
  BATCHODE_HOST_DEVICE static constexpr double gamma() { return 0.21193756319429014; }
  BATCHODE_HOST_DEVICE static constexpr double a(int i, int j) {
    constexpr double A[8][8] = {
        {0, 0, 0, 0, 0, 0, 0, 0},
        {3.0, 0, 0, 0, 0, 0, 0, 0},
        {2.849394379747939, 0.45842242204463923, 0, 0, 0, 0, 0, 0},
        {-6.954028509809101, 2.489845061869568, -10.358996098473584, 0, 0, 0, 0, 0},
        {2.8029986275628964, 0.5072464736228206, -0.3988312541770524, -0.04721187230404641, 0, 0, 0, 0},
        {-7.502846399306121, 2.561846144803919, -11.627539656261098, -0.18268767659942256,
         0.030198172008377946, 0, 0, 0},
        {-7.502846399306121, 2.561846144803919, -11.627539656261098, -0.18268767659942256,
         0.030198172008377946, 1.0, 0, 0},
        {-7.502846399306121, 2.561846144803919, -11.627539656261098, -0.18268767659942256,
         0.030198172008377946, 1.0, 1.0, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double C(int i, int j) {
    constexpr double A[8][8] = {
        {0, 0, 0, 0, 0, 0, 0, 0},
        {-14.155112264123755, 0, 0, 0, 0, 0, 0, 0},
        {-17.97296035885952, -2.859693295451294, 0, 0, 0, 0, 0, 0},
        {147.12150275711716, -1.41221402718213, 71.68940251302358, 0, 0, 0, 0, 0},
        {165.43517024871676, -0.4592823456491126, 42.90938336958603, -5.961986721573306, 0, 0, 0, 0},
        {24.854864614690072, -3.0009227002832186, 47.4931110020768, 5.5814197821558125, -0.6610691825249471,
         0, 0, 0},
        {30.91273214028599, -3.1208243349937974, 77.79954646070892, 34.28646028294783, -19.097331116725623,
         -28.087943162872662, 0, 0},
        {37.80277123390563, -3.2571969029072276, 112.26918849496327, 66.9347231244047, -40.06618937091002,
         -54.66780262877968, -9.48861652309627, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double c(int i) {
    constexpr double Cn[8] = {
        0, 0.6358126895828704, 0.4095798393397535, 0.9769306725060716, 0.4288403609558664, 1, 1, 1};
    return Cn[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double d(int i) {
    constexpr double D[8] = {0.21193756319429014,
                             -0.42387512638858027,
                             -0.3384627126235924,
                             1.8046452872882734,
                             2.325825639765069,
                             0,
                             0,
                             0};
    return D[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double b(int i) { return i < 7 ? a(7, i) : 1.0; }
  BATCHODE_HOST_DEVICE static constexpr double e(int i) { return i == 7 ? 1.0 : 0.0; }
  /// Its own dense output, fourth order (Steinebach 2023): K_r = sum_s dense_h(r, s) k_s over all eight
  /// stages for r < 3 and y(t0 + theta h) = y0 + theta (y1 - y0 + (1 - theta) (K1 + theta (K2 +
  /// theta K3))).
  static constexpr DenseForm dense = DenseForm::rosenbrock;
  static constexpr int dense_rows = 3;
  BATCHODE_HOST_DEVICE static constexpr double dense_h(int r, int s) {
    constexpr double H[3][8] = {
        {25.948786856663858, -2.5579724845846235, 10.433815404888879, -2.3679251022685204, 0.524948541321073,
         1.1241088310450404, 0.4272876194431874, -0.17202221070155493},
        {-9.91568850695171, -0.9689944594115154, 3.0438037242978453, -24.495224566215796, 20.176138334709044,
         15.98066361424651, -6.789040303419874, -6.710236069923372},
        {11.419903575922262, 2.8879645146136994, 72.92137995996029, 80.12511834622643, -52.072871366152654,
         -59.78993625266729, -0.15582684282751913, 4.883087185713722}};
    return H[r][s];
  }
};

/// RODAS4P2 (G. Steinebach, "Improvement of Rosenbrock-Wanner method RODASP", Progress in
/// Differential-Algebraic Equations II (2020) 165-184): RODAS4's form (6 stages, order 4 with an embedded
/// order-3 estimate, L-stable, stiffly accurate, gamma = 1/4, its own third-order dense output over the
/// first five stages), with coefficients that also meet the conditions of index-1 DAEs and of the
/// Prothero-Robinson test of very stiff problems, where RODAS4 loses order. Values as in OrdinaryDiffEq.jl's
/// Rodas4P2Tableau (RODAS4P2A, RODAS4P2C, RODAS4P2c, RODAS4P2d, RODAS4P2H).
struct Rodas4p2 {
  static constexpr Method method = Method::rodas4p2;
  static constexpr bool rosenbrock = true;
  static constexpr bool solves_dae = true;
  static constexpr int stages = 6, order = 4, error_order = 3;
  static constexpr int embedded_order = 3;
  static constexpr bool adaptive = true, fsal = false;
  BATCHODE_HOST_DEVICE static constexpr double gamma() { return 0.25; }
  BATCHODE_HOST_DEVICE static constexpr double a(int i, int j) {
    constexpr double A[6][6] = {
        {0, 0, 0, 0, 0, 0},
        {3.0, 0, 0, 0, 0, 0},
        {0.906377755268814, -0.189707390391685, 0, 0, 0, 0},
        {3.758617027739064, 1.161741776019525, -0.849258085312803, 0, 0, 0},
        {7.089566927282776, 4.573591406461604, -8.423496976860259, -0.959280113459775, 0, 0},
        {7.089566927282776, 4.573591406461604, -8.423496976860259, -0.959280113459775, 1.0, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double C(int i, int j) {
    constexpr double A[6][6] = {
        {0, 0, 0, 0, 0, 0},
        {-12.0, 0, 0, 0, 0, 0},
        {-6.354581592719008, 0.338972550544623, 0, 0, 0, 0},
        {-8.575016317114033, -7.606483992117508, 12.22499765012482, 0, 0, 0},
        {-5.888975457523102, -8.157396617841821, 24.805546872612922, 12.790401512796979, 0, 0},
        {-4.408651676063871, -6.692003137674639, 24.625568527593117, 16.627521966636085, -5.714285714285718,
         0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE static constexpr double c(int i) {
    constexpr double Cn[6] = {0, 0.75, 0.321448134013046, 0.519745732277726, 1.0, 1.0};
    return Cn[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double d(int i) {
    constexpr double D[6] = {0.25, -0.5, -0.189532918363016, 0.085612108792769, 0, 0};
    return D[i];
  }
  BATCHODE_HOST_DEVICE static constexpr double b(int i) { return i < 5 ? a(5, i) : 1.0; }
  BATCHODE_HOST_DEVICE static constexpr double e(int i) { return i == 5 ? 1.0 : 0.0; }
  /// Its own dense output, third order, in RODAS4's form (K1, K2 over the first five stages).
  static constexpr DenseForm dense = DenseForm::rosenbrock;
  BATCHODE_HOST_DEVICE static constexpr double dense_h(int r, int s) {
    constexpr double H[2][6] = {{-5.323528268423303, -10.042123754867493, 17.175254928256965,
                                 -5.079931171878093, -0.016185991706112, 0},
                                {6.984505741529879, 6.914061169603662, -0.849178943070653, 18.104410789349338,
                                 -3.516963011559032, 0}};
    return H[r][s];
  }
};

/// Boost.Odeint's rosenbrock4 (Kaps-Rentrop form with Shampine's coefficients), CPU only: a tag, not a
/// table; the CPU path runs odeint's own stepper for it (backends/cpu/rosenbrock4_stepper.hpp).
struct OdeintRosenbrock4 {
  static constexpr Method method = Method::rosenbrock4;
  static constexpr bool rosenbrock = false;  // no table for kernels/methods/rosenbrock_stepper.hpp
  static constexpr bool host_only = true;
  static constexpr bool stiff = true;  // linearly implicit although it carries no table of ours
  static constexpr int stages = 6, order = 4, error_order = 3;  // RODAS4's six stages (odeint's g1..g6)
  static constexpr bool adaptive = true, fsal = false;
};

namespace detail {
template <class Tab, class = void>
struct is_rosenbrock : port::false_type {};
template <class Tab>
struct is_rosenbrock<Tab, port::void_t<decltype(Tab::rosenbrock)>> : port::bool_constant<Tab::rosenbrock> {};
template <class Tab, class = void>
struct by_doubling : port::false_type {};
template <class Tab>
struct by_doubling<Tab, port::void_t<decltype(Tab::estimate_by_doubling)>>
    : port::bool_constant<Tab::estimate_by_doubling> {};
template <class Tab, class = void>
struct host_only : port::false_type {};
template <class Tab>
struct host_only<Tab, port::void_t<decltype(Tab::host_only)>> : port::bool_constant<Tab::host_only> {};
template <class Tab, class = void>
struct declared_dae : port::false_type {};
template <class Tab>
struct declared_dae<Tab, port::void_t<decltype(Tab::solves_dae)>> : port::bool_constant<Tab::solves_dae> {};
template <class Tab, class = void>
struct declared_stiff : port::false_type {};
template <class Tab>
struct declared_stiff<Tab, port::void_t<decltype(Tab::stiff)>> : port::bool_constant<Tab::stiff> {};
}  // namespace detail

/// True for the Rosenbrock tables above (run by kernels/methods/rosenbrock_stepper.hpp); false for explicit
/// RK.
template <class Tab>
inline constexpr bool is_rosenbrock_v = detail::is_rosenbrock<Tab>::value;

/// True for tables whose error is estimated by step doubling instead of their embedded pair (Ros3p).
template <class Tab>
inline constexpr bool estimates_by_doubling_v = detail::by_doubling<Tab>::value;

/// True for every linearly implicit method (they need the Jacobian): the tables above and the
/// CPU-only tag.
template <class Tab>
inline constexpr bool is_stiff_v = detail::is_rosenbrock<Tab>::value || detail::declared_stiff<Tab>::value;

/// True for the tables built for a mass matrix M y' = f (RODAS4, RODAS5P: stiffly accurate, with the
/// order conditions of index-1 DAEs), which solve systems with algebraic states (kernels/core/system.hpp's
/// n_algebraic). ROS3P is not among them: its error is estimated by step doubling, whose two half steps
/// are no check of the algebraic equations' order.
template <class Tab>
inline constexpr bool solves_dae_v = detail::declared_dae<Tab>::value;

/// False for methods with no GPU kernel (OdeintRosenbrock4).
template <class Tab>
inline constexpr bool runs_on_gpu_v = !detail::host_only<Tab>::value;

}  // namespace batchode::tableau
