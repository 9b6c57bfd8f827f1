// kernels/methods/: every explicit Runge-Kutta method, described once: its Butcher tableau, its order and its
// error weights. The GPU stepper (kernels/methods/rk_stepper.hpp) reads these tables; the CPU path feeds them
// to Boost.Odeint's generic Runge-Kutta machinery for bogacki_shampine32, runs the register stepper
// for tsit5 (its dense output needs the stages, which odeint's generic stepper keeps private) and
// uses odeint's own steppers for the others, which tests pin to these tables.
//
// Coefficients live in local constexpr arrays inside constexpr accessors rather than static data
// members: device code may then use them under both hipcc and nvcc, and the unrolled stepper loops
// index them with constants, so they fold into immediate operands.
// Conventions: a(i, j) for stage i from stage j (j < i), c(i) node, b(i) weights of the propagated
// solution, e(i) = b(i) - bhat(i) weights of the error estimate (zero for fixed-step methods).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/methods/dense_form.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/kernels/methods/rosenbrock_tableaux.hpp"

namespace batchode::tableau {

struct Euler {
  static constexpr Method method = Method::euler;
  static constexpr int stages = 1, order = 1, error_order = 0;
  static constexpr bool adaptive = false, fsal = false;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int, int) { return 0.0; }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int) { return 0.0; }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int) { return 1.0; }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int) { return 0.0; }
};

struct Rk4 {
  static constexpr Method method = Method::rk4;
  static constexpr int stages = 4, order = 4, error_order = 0;
  static constexpr bool adaptive = false, fsal = false;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[4][4] = {{0, 0, 0, 0}, {0.5, 0, 0, 0}, {0, 0.5, 0, 0}, {0, 0, 1.0, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[4] = {0, 0.5, 0.5, 1.0};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    constexpr double B[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    return B[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int) { return 0.0; }
};

/// Bogacki-Shampine 3(2), FSAL (MATLAB's ode23).
struct BogackiShampine32 {
  static constexpr Method method = Method::bogacki_shampine32;
  static constexpr int stages = 4, order = 3, error_order = 2;
  static constexpr bool adaptive = true, fsal = true;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[4][4] = {
        {0, 0, 0, 0}, {0.5, 0, 0, 0}, {0, 0.75, 0, 0}, {2.0 / 9, 1.0 / 3, 4.0 / 9, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[4] = {0, 0.5, 0.75, 1.0};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    constexpr double B[4] = {2.0 / 9, 1.0 / 3, 4.0 / 9, 0};
    return B[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int i) {
    // b - bhat, bhat = (7/24, 1/4, 1/3, 1/8)
    constexpr double E[4] = {2.0 / 9 - 7.0 / 24, 1.0 / 3 - 0.25, 4.0 / 9 - 1.0 / 3, -0.125};
    return E[i];
  }
};

/// Cash-Karp 5(4).
struct CashKarp54 {
  static constexpr Method method = Method::cash_karp54;
  static constexpr int stages = 6, order = 5, error_order = 4;
  static constexpr bool adaptive = true, fsal = false;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[6][6] = {
        {0, 0, 0, 0, 0, 0},
        {1.0 / 5, 0, 0, 0, 0, 0},
        {3.0 / 40, 9.0 / 40, 0, 0, 0, 0},
        {3.0 / 10, -9.0 / 10, 6.0 / 5, 0, 0, 0},
        {-11.0 / 54, 5.0 / 2, -70.0 / 27, 35.0 / 27, 0, 0},
        {1631.0 / 55296, 175.0 / 512, 575.0 / 13824, 44275.0 / 110592, 253.0 / 4096, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[6] = {0, 1.0 / 5, 3.0 / 10, 3.0 / 5, 1.0, 7.0 / 8};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    constexpr double B[6] = {37.0 / 378, 0, 250.0 / 621, 125.0 / 594, 0, 512.0 / 1771};
    return B[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int i) {
    constexpr double E[6] = {37.0 / 378 - 2825.0 / 27648,
                             0,
                             250.0 / 621 - 18575.0 / 48384,
                             125.0 / 594 - 13525.0 / 55296,
                             -277.0 / 14336,
                             512.0 / 1771 - 0.25};
    return E[i];
  }
};

/// Dormand-Prince 5(4), FSAL.
struct Dopri5 {
  static constexpr Method method = Method::dopri5;
  static constexpr int stages = 7, order = 5, error_order = 4;
  static constexpr bool adaptive = true, fsal = true;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[7][7] = {
        {0, 0, 0, 0, 0, 0, 0},
        {1.0 / 5, 0, 0, 0, 0, 0, 0},
        {3.0 / 40, 9.0 / 40, 0, 0, 0, 0, 0},
        {44.0 / 45, -56.0 / 15, 32.0 / 9, 0, 0, 0, 0},
        {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729, 0, 0, 0},
        {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656, 0, 0},
        {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    constexpr double B[7] = {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0};
    return B[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int i) {
    constexpr double E[7] = {35.0 / 384 - 5179.0 / 57600,
                             0,
                             500.0 / 1113 - 7571.0 / 16695,
                             125.0 / 192 - 393.0 / 640,
                             -2187.0 / 6784 + 92097.0 / 339200,
                             11.0 / 84 - 187.0 / 2100,
                             -1.0 / 40};
    return E[i];
  }
  /// Its own dense output, fourth order (Hairer's DOPRI5 code, CONTD5; Hairer, Norsett & Wanner I,
  /// II.6): with d = y1 - y0, e = h k1 - d, g = d - h k7 - e and q = h sum_s dense_d(s) k_s,
  /// y(t0 + theta h) = y0 + theta (d + (1 - theta) (e + theta (g + (1 - theta) q))).
  static constexpr DenseForm dense = DenseForm::contd5;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_d(int i) {
    constexpr double D[7] = {-12715105075.0 / 11282082432.0,  0,
                             87487479700.0 / 32700410799.0,   -10690763975.0 / 1880347072.0,
                             701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                             69997945.0 / 29380423.0};
    return D[i];
  }
};

/// Tsitouras 5(4) (Ch. Tsitouras, Comput. Math. Appl. 62 (2011) 770-775), FSAL; the coefficients
/// as published with OrdinaryDiffEq.jl's Tsit5.
struct Tsit5 {
  static constexpr Method method = Method::tsit5;
  static constexpr int stages = 7, order = 5, error_order = 4;
  static constexpr bool adaptive = true, fsal = true;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[7][7] = {
        {0, 0, 0, 0, 0, 0, 0},
        {0.161, 0, 0, 0, 0, 0, 0},
        {-0.008480655492356989, 0.335480655492357, 0, 0, 0, 0, 0},
        {2.897153057105493, -6.359448489975075, 4.3622954328695815, 0, 0, 0, 0},
        {5.325864828439257, -11.748883564062828, 7.4955393428898365, -0.09249506636175525, 0, 0, 0},
        {5.86145544294642, -12.92096931784711, 8.159367898576159, -0.071584973281401, -0.028269050394068383,
         0, 0},
        {0.09646076681806523, 0.01, 0.4798896504144996, 1.379008574103742, -3.290069515436081,
         2.324710524099774, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[7] = {0, 0.161, 0.327, 0.9, 0.9800255409045097, 1.0, 1.0};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    return i < 6 ? a(6, i) : 0.0;
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int i) {
    constexpr double E[7] = {-0.00178001105222577714, -0.0008164344596567469, 0.007880878010261995,
                             -0.1447110071732629,     0.5823571654525552,     -0.45808210592918697,
                             0.015151515151515152};
    return E[i];
  }
  /// Its own dense output, fourth order (Tsitouras 2011, the interpolant published with
  /// OrdinaryDiffEq.jl's Tsit5): y(t0 + theta h) = y0 + h sum_s b_s(theta) k_s with
  /// b_s(theta) = sum_m dense_weight(s, m) theta^(m + 1); at theta = 1 the b_s are the method's
  /// weights (tests/kernels/methods/tableau_test.cpp checks it).
  static constexpr DenseForm dense = DenseForm::weights;
  static constexpr int dense_degree = 4;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_weight(int s, int m) {
    constexpr double R[7][4] = {{1.0, -2.763706197274826, 2.9132554618219126, -1.0530884977290216},
                                {0, 0.13169999999999998, -0.2234, 0.1017},
                                {0, 3.9302962368947516, -5.941033872131505, 2.490627285651253},
                                {0, -12.411077166933676, 30.33818863028232, -16.548102889244902},
                                {0, 37.50931341651104, -88.1789048947664, 47.37952196281928},
                                {0, -27.896526289197286, 65.09189467479366, -34.87065786149661},
                                {0, 1.5, -4.0, 2.5}};
    return R[s][m];
  }
};

/// Runge-Kutta-Fehlberg 7(8): propagates the 8th-order solution, as Boost.Odeint's
/// runge_kutta_fehlberg78 does (its coefficients, E. Fehlberg, NASA TR R-287, 1968).
struct Fehlberg78 {
  static constexpr Method method = Method::fehlberg78;
  static constexpr int stages = 13, order = 8, error_order = 7;
  static constexpr bool adaptive = true, fsal = false;
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[13][12] = {
        {0},
        {2.0 / 27},
        {1.0 / 36, 1.0 / 12},
        {1.0 / 24, 0, 1.0 / 8},
        {5.0 / 12, 0, -25.0 / 16, 25.0 / 16},
        {1.0 / 20, 0, 0, 1.0 / 4, 1.0 / 5},
        {-25.0 / 108, 0, 0, 125.0 / 108, -65.0 / 27, 125.0 / 54},
        {31.0 / 300, 0, 0, 0, 61.0 / 225, -2.0 / 9, 13.0 / 900},
        {2.0, 0, 0, -53.0 / 6, 704.0 / 45, -107.0 / 9, 67.0 / 90, 3.0},
        {-91.0 / 108, 0, 0, 23.0 / 108, -976.0 / 135, 311.0 / 54, -19.0 / 60, 17.0 / 6, -1.0 / 12},
        {2383.0 / 4100, 0, 0, -341.0 / 164, 4496.0 / 1025, -301.0 / 82, 2133.0 / 4100, 45.0 / 82, 45.0 / 164,
         18.0 / 41},
        {3.0 / 205, 0, 0, 0, 0, -6.0 / 41, -3.0 / 205, -3.0 / 41, 3.0 / 41, 6.0 / 41, 0},
        {-1777.0 / 4100, 0, 0, -341.0 / 164, 4496.0 / 1025, -289.0 / 82, 2193.0 / 4100, 51.0 / 82, 33.0 / 164,
         12.0 / 41, 0, 1.0}};
    return j < 12 ? A[i][j] : 0.0;
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[13] = {0,       2.0 / 27, 1.0 / 9, 1.0 / 6, 5.0 / 12, 0.5, 5.0 / 6,
                              1.0 / 6, 2.0 / 3,  1.0 / 3, 1.0,     0.0,      1.0};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    constexpr double B[13] = {0,        0,         0,         0, 0,          34.0 / 105, 9.0 / 35,
                              9.0 / 35, 9.0 / 280, 9.0 / 280, 0, 41.0 / 840, 41.0 / 840};
    return B[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int i) {
    // 8th-order weights minus 7th-order weights (which put 41/840 on stages 0 and 10 instead).
    constexpr double E[13] = {-41.0 / 840, 0, 0, 0, 0, 0, 0, 0, 0, 0, -41.0 / 840, 41.0 / 840, 41.0 / 840};
    return E[i];
  }
};

/// Verner's "most efficient" 7(6) pair (J. H. Verner, Numer. Algorithms 53 (2010) 383-396; his table
/// "RK7(6)10:1"): 10 stages, order 7 with an embedded order-6 estimate (stage 10 serves only the
/// estimate), for tolerances of 1e-8 and tighter. Values as in OrdinaryDiffEq.jl's Vern7Tableau
/// (decimal forms of Verner's rationals); tests/kernels/methods/tableau_test.cpp checks every rooted
/// tree up to order 8 on them. Dense output: Verner's own interpolant of order 7 (six more stages,
/// evaluated on the steps that are interpolated: RkStepper::prepare_dense).
struct Vern7 {
  static constexpr Method method = Method::vern7;
  static constexpr int stages = 10, order = 7, error_order = 6;
  static constexpr bool adaptive = true, fsal = false;
  static constexpr DenseForm dense = DenseForm::weights;
  static constexpr int dense_degree = 7, dense_stages = 16;
  /// Verner's interpolant of order 7: six stages more, at c = 1 (f at the step's end), 0.29, 0.125, 0.25,
  /// 0.53, 0.79 (OrdinaryDiffEq.jl's Vern7ExtraStages and Vern7InterpolationCoefficients, from Verner's
  /// 40-digit values); dense_a(i, j) for i in [stages, dense_stages).
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_a(int i, int j) {
    constexpr double A[6][15] = {
        {0.04715561848627222, 0, 0, 0.25750564298434153, 0.2621665397741262, 0.15216092656738558,
         0.49399691700324844, -0.29430311714032503, 0.0813174723249511, 0},
        {0.0523222769159969, 0, 0, 0.22495861826705715, 0.017443709248776376, -0.007669379876829393,
         0.03435896044073285, -0.0410209723009395, 0.025651133005205617, 0, -0.0160443457},
        {0.053053341257859085, 0, 0, 0.12195301011401886, 0.017746840737602496, -0.0005928372667681495,
         0.008381833970853752, -0.01293369259698612, 0.009412056815253861, 0, -0.005353253107275676,
         -0.06666729992455811},
        {0.03887903257436304, 0, 0, -0.0024403203308301317, -0.0013928917214672623, -0.00047446291558680135,
         0.00039207932413159514, -0.00040554733285128004, 0.00019897093147716726, 0, -0.00010278198793179169,
         0.03385661513870267, 0.1814893063199928},
        {0.05723681204690013, 0, 0, 0.22265948066761182, 0.12344864200186899, 0.04006332526666491,
         -0.05269894848581452, 0.04765971214244523, -0.02138895885042213, 0, 0.015193891064036402,
         0.12060546716289655, -0.022779423016187374, 0},
        {0.051372038802756814, 0, 0, 0.5414214473439406, 0.350399806692184, 0.14193112269692182,
         0.10527377478429423, -0.031081847805874016, -0.007401883149519145, 0, -0.006377932504865363,
         -0.17325495908361865, -0.18228156777622026, 0, 0},
    };
    return j < 15 ? A[i - stages][j] : 0.0;
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_c(int i) {
    constexpr double C[6] = {1.0, 0.29, 0.125, 0.25, 0.53, 0.79};
    return C[i - stages];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_weight(int s, int m) {
    constexpr double R[16][7] = {
        {1.0, -8.413387198332767, 33.675508884490895, -70.80159089484886, 80.64695108301298,
         -47.19413969837522, 11.133813442539243},
        {0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0},
        {0, 8.754921980674396, -88.4596828699771, 346.9017638429916, -629.2580030059837, 529.6773755604193,
         -167.35886986514018},
        {0, 8.913387586637922, -90.06081846893218, 353.1807459217058, -640.6476819744374, 539.2646279047156,
         -170.38809442991547},
        {0, 5.1733120298478, -52.271115900055385, 204.9853867374073, -371.8306118563603, 312.9880934374529,
         -98.89290352172495},
        {0, 16.79537744079696, -169.70040000059728, 665.4937727009246, -1207.1638892336007,
         1016.1291515818546, -321.06001557237494},
        {0, -10.005997536098665, 101.1005433052275, -396.47391512378437, 719.1787707014183,
         -605.3681033918824, 191.27439892797935},
        {0, 2.764708833638599, -27.934602637390462, 109.54779186137893, -198.7128113064482,
         167.26633571640318, -52.85010499525706},
        {0, 0, 0, 0, 0, 0, 0},
        {0, -2.1696320280163506, 22.016696037569876, -86.90152427798948, 159.22388973861476,
         -135.9618306534588, 43.792401183280006},
        {0, -4.890070188793804, 22.75407737425176, -30.78034218537731, -2.797194317207249, 31.369456637508403,
         -15.655927320381801},
        {0, 10.862170929551967, -50.542971417827104, 68.37148040407511, 6.213326521632409, -69.68006323194157,
         34.776056794509195},
        {0, -11.37286691922923, 130.79058078246717, -488.65113677785604, 832.2148793276441,
         -664.7743368554426, 201.79288044241662},
        {0, -5.919778732715007, 63.27679965889219, -265.432682088738, 520.1009254140611, -467.412109533902,
         155.3868452824017},
        {0, -10.492146197961823, 105.35538525188011, -409.43975011988937, 732.831448907654,
         -606.3044574733512, 188.0495196316683},
    };
    return R[s][m];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[10][10] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0.005, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {-1.07679012345679, 1.185679012345679, 0, 0, 0, 0, 0, 0, 0, 0},
        {0.04083333333333333, 0, 0.1225, 0, 0, 0, 0, 0, 0, 0},
        {0.6389139236255726, 0, -2.455672638223657, 2.272258714598084, 0, 0, 0, 0, 0, 0},
        {-2.6615773750187572, 0, 10.804513886456137, -8.3539146573962, 0.820487594956657, 0, 0, 0, 0, 0},
        {6.067741434696772, 0, -24.711273635911088, 20.427517930788895, -1.9061579788166472,
         1.006172249242068, 0, 0, 0, 0},
        {12.054670076253203, 0, -49.75478495046899, 41.142888638604674, -4.461760149974004, 2.042334822239175,
         -0.09834843665406107, 0, 0, 0},
        {10.138146522881808, 0, -42.6411360317175, 35.76384003992257, -4.3480228403929075, 2.0098622683770357,
         0.3487490460338272, -0.27143900510483127, 0, 0},
        {-45.030072034298676, 0, 187.3272437654589, -154.02882369350186, 18.56465306347536,
         -7.141809679295079, 1.3088085781613787, 0, 0, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[10] = {
        0,   0.005, 0.10888888888888888, 0.16333333333333333, 0.4555, 0.6095094489978381, 0.884, 0.925,
        1.0, 1.0};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    constexpr double B[10] = {0.04715561848627222,
                              0,
                              0,
                              0.25750564298434153,
                              0.26216653977412624,
                              0.15216092656738558,
                              0.4939969170032485,
                              -0.29430311714032503,
                              0.08131747232495111,
                              0};
    return B[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int i) {
    constexpr double E[10] = {0.002547011879931045,
                              0,
                              0,
                              -0.00965839487279575,
                              0.04206470975639691,
                              -0.0666822437469301,
                              0.2650097464621281,
                              -0.29430311714032503,
                              0.08131747232495111,
                              -0.02029518466335628};
    return E[i];
  }
};

/// Verner's "most efficient" 9(8) pair (Verner 2010, "RK9(8)16:1"): 16 stages, order 9 with an
/// embedded order-8 estimate (stage 16 serves only the estimate), for tolerances of 1e-10 and
/// tighter in double. Values as in OrdinaryDiffEq.jl's Vern9Tableau; checked by every rooted tree up
/// to order 10. Dense output: Verner's own interpolant of order 9 (ten more stages, evaluated on the
/// steps that are interpolated).
struct Vern9 {
  static constexpr Method method = Method::vern9;
  static constexpr int stages = 16, order = 9, error_order = 8;
  static constexpr bool adaptive = true, fsal = false;
  static constexpr DenseForm dense = DenseForm::weights;
  static constexpr int dense_degree = 9, dense_stages = 26;
  /// Verner's interpolant of order 9: ten stages more, the first at c = 1 (f at the step's end)
  /// (OrdinaryDiffEq.jl's Vern9ExtraStages and Vern9InterpolationCoefficients, from Verner's 40-digit
  /// values); dense_a(i, j) for i in [stages, dense_stages).
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_a(int i, int j) {
    constexpr double A[10][25] = {
        {0.014611976858423152, 0, 0, 0, 0, 0, 0, -0.3915211862331339, 0.23109325002895065,
         0.12747667699928525, 0.2246434176204158, 0.5684352689748513, 0.058258715572158275,
         0.13643174034822156, 0.030570139830827976, 0},
        {0.015499736681895594, 0, 0, 0, 0, 0, 0, 0.3355153219059635, 0.20036139441918607, 0.12520606592835493,
         0.22986763931842066, -0.20202506534761813, 0.05917103230665457, -0.026518347830476387,
         -0.023840946021309713, 0, 0.027181715702085017},
        {0.013024539431143383, 0, 0, 0, 0, 0, 0, -0.7452850902413112, 0.2643867896429301, 0.1313961758372754,
         0.21672538151229273, 0.8734117564076053, 0.011859056439357767, 0.05876002941689551,
         0.003266518630202088, 0, -0.00895930864841793, 0.06941415157202692},
        {0.013970899969259426, 0, 0, 0, 0, 0, 0, -0.46657653359576745, 0.24163727872162571,
         0.12903633413456747, 0.22167006717351054, 0.6257275123364645, 0.04355312415679284,
         0.10119624916672908, 0.01808582254679721, 0, -0.020798755876891697, -0.09022232517086219,
         -0.12127967356222542},
        {0.016046388883181127,
         0,
         0,
         0,
         0,
         0,
         0,
         0.09517712399458336,
         0.13591872646553177,
         0.1237765280959854,
         0.2335656264102966,
         -0.09051508172625873,
         -0.02537574270006131,
         -0.13596316968871622,
         -0.04679214284145113,
         0,
         0.05177958859391748,
         0.09672595677476774,
         0.14773126903407427,
         -0.11507507129585039},
        {0.018029186238936207,
         0,
         0,
         0,
         0,
         0,
         0,
         0.06983601042028874,
         -0.025412476607916634,
         0.008487827035463275,
         -0.002427525516089802,
         -0.10478397528938199,
         -0.014731477952480419,
         -0.03916338390816177,
         -0.010056573432939595,
         0,
         0.011025103922048344,
         0.005092830749095398,
         0.04759715599420645,
         0.03386307003288383,
         0.02764422831404798},
        {0.01677431640522778,
         0,
         0,
         0,
         0,
         0,
         0,
         0.6220437408820475,
         -0.2060859809768842,
         0.11563949897660589,
         0.026641017933783588,
         -0.937681079341877,
         -0.13678064667021603,
         -0.3678480995268297,
         -0.09547871314402478,
         0,
         0.10134920184223697,
         -0.08911323084568594,
         0.46641409889747604,
         0.450273629235458,
         0.18385224633268188,
         0},
        {0.010711497314914442,
         0,
         0,
         0,
         0,
         0,
         0,
         -0.07094336118221108,
         0.10021649003400916,
         0.13834539804680251,
         0.17963306335781634,
         0.09048246545576182,
         -0.005460662294523339,
         -0.030004579051196197,
         -0.011451920269627991,
         0,
         0.010033946861093851,
         -0.09506485282809046,
         0.04853358804093592,
         0.08013325919783924,
         -0.1251643326835242,
         0,
         0},
        {0.014101720888692213,
         0,
         0,
         0,
         0,
         0,
         0,
         -0.3713379753704491,
         0.22312655481171803,
         0.12870053459181202,
         0.22246006596754947,
         0.5382853042550702,
         0.05417202616988763,
         0.1256968791308744,
         0.027844927890020542,
         0,
         -0.0307740924620506,
         0.008569805293689777,
         -0.15351746905870445,
         -0.021799570305481963,
         0.014471288197371868,
         0,
         0,
         0},
        {0.014246004117356466,
         0,
         0,
         0,
         0,
         0,
         0,
         -0.3767107393295407,
         0.22523997807304214,
         0.128360307629253,
         0.22302387052616926,
         0.5463127827750747,
         0.0552619079137578,
         0.12856135087499826,
         0.028572506812964065,
         0,
         -0.02398761886357109,
         0.055562244589105095,
         -0.017406756507628386,
         -0.03815462365996979,
         0.011118785048989178,
         0,
         0,
         0,
         0},
    };
    return j < 25 ? A[i - stages][j] : 0.0;
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_c(int i) {
    constexpr double C[10] = {1.0, 0.7404185470631561, 0.888, 0.696, 0.487, 0.025, 0.15, 0.32, 0.78, 0.96};
    return C[i - stages];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_weight(int s, int m) {
    constexpr double R[26][9] = {
        {1.0, -28.330488700617398, 257.6535452078578, -1152.1544557434572, 2909.390878345409,
         -4355.005172868188, 3834.083497036262, -1835.419052683407, 368.7958613829998},
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 2.649656243770091, -96.30312807816006, 869.3095462492796, -3395.688567551074, 6796.933987158715,
         -7340.848417712072, 4082.8488969923656, -919.2934944890586},
        {0, -1.5639451819287329, 56.8423973927286, -513.1052300304285, 2004.2867021103232,
         -4011.8533059139295, 4332.895839278586, -2409.8793479371448, 542.6079835318221},
        {0, -0.8627103334967224, 31.355653751851733, -283.0413682227354, 1105.613463426007,
         -2213.0362006784526, 2390.1310977541207, -1329.3482661468738, 299.31580712657853},
        {0, -1.5202953379012147, 55.25592121120227, -498.7844190970741, 1948.346888525776,
         -3899.8821364075516, 4211.964345158858, -2342.619408856117, 527.4637482204279},
        {0, -3.8469388441255234, 139.81898409868404, -1262.1186876216004, 4930.075848057311,
         -9868.21948606954, 10657.908924348867, -5927.738759872814, 1334.688551172191},
        {0, -0.39427130612001415, 14.329994760676497, -129.35406659945582, 505.28160770025175,
         -1011.3900801394333, 1092.3250517818917, -607.531701930281, 136.79172444804232},
        {0, -0.9233145622082102, 33.55834582309799, -302.9246397549736, 1183.2813069678675,
         -2368.4989867901113, 2558.034559755808, -1422.7331755778803, 320.3423358787482},
        {0, -0.20688628029300538, 7.519388975651663, -67.87605708082904, 265.136799698415, -530.7074807559026,
         573.176549564149, -318.7905688834869, 71.77882490212657},
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, -0.44724419067440996, 16.44684676010504, -154.40861059212955, 641.8986298540249,
         -1391.9392256879823, 1643.890568302952, -1004.0652972233179, 248.6243327770223},
        {0, -0.1507876007899798, 5.527328824824632, -51.33833743084619, 209.60220027032804,
         -442.7692650421826, 505.0579312588053, -295.63364106156195, 69.70457078142275},
        {0, -0.6413652207435296, 23.510132486246846, -218.36426832469724, 891.5292818535365,
         -1883.290177206008, 2148.2309544883997, -1257.4584015217124, 296.4838434449778},
        {0, 1.8107293134448457, -66.37479657295337, 616.4952025401107, -2517.0030307773227, 5316.984175781034,
         -6064.976140789574, 3550.1095388883914, -837.0456783831302},
        {0, 0.05176008760353718, -1.8973378625803488, 17.622648207936294, -71.94907400242467,
         151.9871383765666, -173.36864987478606, 101.4806461521468, -23.927131084462175},
        {0, 31.321782556688, -355.6570858339106, 1752.6852824895159, -4708.092293138363, 7370.900776193489,
         -6716.504964764566, 3303.940398161186, -678.5938956640391},
        {0, -2.7196073341859246, 86.64045615858264, -454.1926030939031, 1014.7492211005434,
         -1133.583456714544, 610.4671827718666, -109.02334994495438, -12.337842943405471},
        {0, 3.1772148014329233, -113.8098697715143, 978.0935981825675, -3575.1293776236703,
         6764.3615198384505, -6987.161043852012, 3751.9057627895713, -821.4378043648254},
        {0, 0.877284308346553, -31.51810423988375, 273.1229151353221, -993.2198643101782, 1787.888078312664,
         -1677.394835799641, 781.3579535062688, -141.11342691289855},
        {0, 1.7194275817987157, -62.89867309250732, 580.333550787398, -2348.110620506761, 4921.119298612906,
         -5597.912448707917, 3288.5977751496216, -782.8483098245397},
    };
    return R[s][m];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[16][16] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0.03462, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {-0.03893354388572875, 0.13595789452450918, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0.03638413148954267, 0, 0.10915239446862801, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {2.0257639143939694, 0, -7.638023836496291, 6.173259922102322, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0.05112275589406061, 0, 0, 0.17708237945550218, 0.0008027762409222536, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
         0},
        {0.13160063579752163, 0, 0, -0.2957276252669636, 0.08781378035642955, 0.6213052975225274, 0, 0, 0, 0,
         0, 0, 0, 0, 0, 0},
        {0.07166666666666667, 0, 0, 0, 0, 0.33055335789153195, 0.2427799754418014, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0.071806640625, 0, 0, 0, 0, 0.3294380283228177, 0.1165190029271823, -0.034013671875, 0, 0, 0, 0, 0,
         0, 0, 0},
        {0.04836757646340646, 0, 0, 0, 0, 0.03928989925676164, 0.10547409458903446, -0.021438652846483126,
         -0.10412291746271944, 0, 0, 0, 0, 0, 0, 0},
        {-0.026645614872014785, 0, 0, 0, 0, 0.03333333333333333, -0.1631072244872467, 0.03396081684127761,
         0.1572319413814626, 0.21522674780318796, 0, 0, 0, 0, 0, 0},
        {0.03689009248708622, 0, 0, 0, 0, -0.1465181576725543, 0.2242577768172024, 0.02294405717066073,
         -0.0035850052905728597, 0.08669223316444385, 0.43838406519683376, 0, 0, 0, 0, 0},
        {-0.4866012215113341, 0, 0, 0, 0, -6.304602650282853, -0.2812456182894729, -2.679019236219849,
         0.5188156639241577, 1.3653531876033418, 5.8850910885039465, 2.8028087862720628, 0, 0, 0, 0},
        {0.4185367457753472, 0, 0, 0, 0, 6.724547581906459, -0.42544428016461133, 3.3432791530012653,
         0.6170816631175374, -0.9299661239399329, -6.099948804751011, -3.002206187889399, 0.2553202529443446,
         0, 0, 0},
        {-0.7793740861228848, 0, 0, 0, 0, -13.937342538107776, 1.2520488533793563, -14.691500408016868,
         -0.494705058533141, 2.2429749091462368, 13.367893803828643, 14.396650486650687, -0.79758133317768,
         0.4409353709534278, 0, 0},
        {2.0580513374668867, 0, 0, 0, 0, 22.357937727968032, 0.9094981099755646, 35.89110098240264,
         -3.442515027624454, -4.865481358036369, -18.909803813543427, -34.26354448030452, 1.2647565216956427,
         0, 0, 0}};
    return A[i][j];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[16] = {0,
                              0.03462,
                              0.09702435063878045,
                              0.14553652595817068,
                              0.561,
                              0.22900791159048503,
                              0.544992088409515,
                              0.645,
                              0.48375,
                              0.06757,
                              0.25,
                              0.6590650618730999,
                              0.8206,
                              0.9012,
                              1.0,
                              1.0};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    constexpr double B[16] = {0.014611976858423152,
                              0,
                              0,
                              0,
                              0,
                              0,
                              0,
                              -0.3915211862331339,
                              0.23109325002895065,
                              0.12747667699928525,
                              0.2246434176204158,
                              0.5684352689748513,
                              0.058258715572158275,
                              0.13643174034822156,
                              0.030570139830827976,
                              0};
    return B[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int i) {
    constexpr double E[16] = {-0.005357988290444578,
                              0,
                              0,
                              0,
                              0,
                              0,
                              0,
                              -2.583020491182464,
                              0.14252253154686625,
                              0.013420653512688676,
                              -0.02867296291409493,
                              2.624999655215792,
                              -0.2825509643291537,
                              0.13643174034822156,
                              0.030570139830827976,
                              -0.04834231373823958};
    return E[i];
  }
};

/// DOP853 (E. Hairer, S. P. Norsett, G. Wanner, Solving ODEs I, II.10; Hairer's dop853.f): 12 stages and
/// a 13th that is the next step's first (FSAL), order 8, for tolerances of 1e-7 to 1e-13. Its error is
/// estimated from two embedded solutions, of orders 5 (e) and 3 (e3), combined in the norm as dop853.f
/// does: |err5|^2 / sqrt(|err5|^2 + 0.01 |err3|^2), which behaves as h^8 (error_order 7) while the
/// order-3 term keeps the estimate honest at large steps (kernels/methods/rk_stepper.hpp:
/// combined_estimate). Values as in scipy's dop853_coefficients.py (Hairer's digits). Dense output:
/// dop853.f's own of order 7 (three more stages, evaluated on the steps that are interpolated).
struct Dop853 {
  static constexpr Method method = Method::dop853;
  static constexpr int stages = 13, order = 8, error_order = 7;
  static constexpr int embedded_order = 5;  ///< of b - e; b - e3 is of order 3
  static constexpr bool adaptive = true, fsal = true;
  static constexpr bool combined_estimate = true;
  static constexpr DenseForm dense = DenseForm::weights;
  static constexpr int dense_degree = 7, dense_stages = 16;
  /// dop853.f's seventh-order dense output (CONTD8): three stages more (scipy's A_EXTRA, C_EXTRA), and
  /// its polynomial y0 + theta (F0 + (1 - theta) (F1 + theta (F2 + ... + theta F6))), F0 = y1 - y0,
  /// F1 = h f0 - F0, F2 = 2 F0 - h (f0 + f1), F3..F6 = h D k, written out as weights of the stages
  /// (exact products of its double coefficients, then rounded); dense_a(i, j) for i in [stages,
  /// dense_stages).
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_a(int i, int j) {
    constexpr double A[3][15] = {
        {0.056167502283047954, 0, 0, 0, 0, 0, 0.25350021021662483, -0.2462390374708025, -0.12419142326381637,
         0.15329179827876568, 0.00820105229563469, 0.007567897660545699, -0.008298},
        {0.03183464816350214, 0, 0, 0, 0, 0.028300909672366776, 0.053541988307438566, -0.05492374857139099, 0,
         0, -0.00010834732869724932, 0.0003825710908356584, -0.00034046500868740456, 0.1413124436746325},
        {-0.42889630158379194, 0, 0, 0, 0, -4.697621415361164, 7.683421196062599, 4.06898981839711,
         0.3567271874552811, 0, 0, 0, -0.0013990241651590145, 2.9475147891527724, -9.15095847217987},
    };
    return j < 15 ? A[i - stages][j] : 0.0;
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_c(int i) {
    constexpr double C[3] = {0.1, 0.2, 0.7777777777777778};
    return C[i - stages];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double dense_weight(int s, int m) {
    constexpr double R[16][7] = {
        {1.0, -10.266057073759308, 48.161850968566455, -114.93304874997833, 147.46446875669767,
         -97.06685363011368, 25.69393346270375},
        {0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0},
        {0, 13.917653631776606, -154.78787266663718, 522.921908960822, -456.2591884020879, -75.5319373213575,
         154.18974869023643},
        {0, 2.605603751993609, -21.62282238462651, 2.5351820289667772, 292.25417465990404,
         -505.40999933296894, 231.5293791760455},
        {0, -15.018944223519686, 160.09447708973047, -474.3071826037643, 135.96036916173836,
         545.1091945264187, -357.6391179106141},
        {0, 3.050527683318488, -38.54396729189063, 174.47140009219885, -337.05134702387716, 291.7898750908326,
         -93.40532418362432},
        {0, -1.3278744327655212, 16.661770430049543, -74.44027814126304, 140.75210016191608,
         -119.2562021040512, 37.45832313645163},
        {0, 2.844533632672879, -36.558295489910115, 170.69007169147514, -345.9748485480496, 313.299553623578,
         -104.0996495089623},
        {0, 0.7657106259527865, -9.906995535619368, 46.8029919188744, -96.5198694669957, 88.74316650017616,
         -29.8402934266605},
        {0, -1.0889903364513334, 14.097013042320002, -66.68230591294363, 137.96299063474373,
         -127.82216401767991, 43.53345659001114},
        {0, 18.148505520854727, -127.63310949253875, 357.3419516129657, -500.7031507909224,
         349.17035710882897, -96.32455395918828},
        {0, -9.194632392478356, 93.3567459327894, -282.6272618704363, 361.14007718803333, -201.85219053352347,
         39.17726167561544},
        {0, -4.436036387594894, 56.68120539776666, -261.7734290269171, 520.9742236688994, -461.1727999101397,
         149.72683625798564},
    };
    return R[s][m];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double a(int i, int j) {
    constexpr double A[13][12] = {
        {0},
        {5.26001519587677318785587544488e-2},
        {1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2},
        {2.95875854768068491816892993775e-2, 0, 8.87627564304205475450678981324e-2},
        {2.41365134159266685502369798665e-1, 0, -8.84549479328286085344864962717e-1,
         9.24834003261792003115737966543e-1},
        {3.7037037037037037037037037037e-2, 0, 0, 1.70828608729473871279604482173e-1,
         1.25467687566822425016691814123e-1},
        {3.7109375e-2, 0, 0, 1.70252211019544039314978060272e-1, 6.02165389804559606850219397283e-2,
         -1.7578125e-2},
        {3.70920001185047927108779319836e-2, 0, 0, 1.70383925712239993810214054705e-1,
         1.07262030446373284651809199168e-1, -1.53194377486244017527936158236e-2,
         8.27378916381402288758473766002e-3},
        {6.24110958716075717114429577812e-1, 0, 0, -3.36089262944694129406857109825,
         -8.68219346841726006818189891453e-1, 2.75920996994467083049415600797e1,
         2.01540675504778934086186788979e1, -4.34898841810699588477366255144e1},
        {4.77662536438264365890433908527e-1, 0, 0, -2.48811461997166764192642586468,
         -5.90290826836842996371446475743e-1, 2.12300514481811942347288949897e1,
         1.52792336328824235832596922938e1, -3.32882109689848629194453265587e1,
         -2.03312017085086261358222928593e-2},
        {-9.3714243008598732571704021658e-1, 0, 0, 5.18637242884406370830023853209,
         1.09143734899672957818500254654, -8.14978701074692612513997267357,
         -1.85200656599969598641566180701e1, 2.27394870993505042818970056734e1,
         2.49360555267965238987089396762, -3.0467644718982195003823669022},
        {2.27331014751653820792359768449, 0, 0, -1.05344954667372501984066689879e1,
         -2.00087205822486249909675718444, -1.79589318631187989172765950534e1,
         2.79488845294199600508499808837e1, -2.85899827713502369474065508674,
         -8.87285693353062954433549289258, 1.23605671757943030647266201528e1,
         6.43392746015763530355970484046e-1},
        {5.42937341165687622380535766363e-2, 0, 0, 0, 0, 4.45031289275240888144113950566,
         1.89151789931450038304281599044, -5.8012039600105847814672114227, 3.1116436695781989440891606237e-1,
         -1.52160949662516078556178806805e-1, 2.01365400804030348374776537501e-1,
         4.47106157277725905176885569043e-2}};
    return j < 12 ? A[i][j] : 0.0;
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double c(int i) {
    constexpr double C[13] = {0.0,
                              0.526001519587677318785587544488e-01,
                              0.789002279381515978178381316732e-01,
                              0.118350341907227396726757197510,
                              0.281649658092772603273242802490,
                              0.333333333333333333333333333333,
                              0.25,
                              0.307692307692307692307692307692,
                              0.651282051282051282051282051282,
                              0.6,
                              0.857142857142857142857142857142,
                              1.0,
                              1.0};
    return C[i];
  }
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double b(int i) {
    return i < 12 ? a(12, i) : 0.0;
  }
  /// The order-8 solution minus the order-5 one (dop853.f's ER1..ER12).
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e(int i) {
    constexpr double E[13] = {0.1312004499419488073250102996e-1,
                              0,
                              0,
                              0,
                              0,
                              -0.1225156446376204440720569753e+1,
                              -0.4957589496572501915214079952,
                              0.1664377182454986536961530415e+1,
                              -0.3503288487499736816886487290,
                              0.3341791187130174790297318841,
                              0.8192320648511571246570742613e-1,
                              -0.2235530786388629525884427845e-1,
                              0};
    return E[i];
  }
  /// The order-8 solution minus the order-3 one (b - dop853.f's BHH1..BHH3).
  BATCHODE_HOST_DEVICE BATCHODE_TABLE_LOOKUP static constexpr double e3(int i) {
    return i == 0    ? b(0) - 0.244094488188976377952755905512
           : i == 8  ? b(8) - 0.733846688281611857341361741547
           : i == 11 ? b(11) - 0.220588235294117647058823529412e-1
                     : b(i);
  }
};

namespace detail {
template <class Tab, class = void>
struct combined_estimate : port::false_type {};
template <class Tab>
struct combined_estimate<Tab, port::void_t<decltype(Tab::combined_estimate)>>
    : port::bool_constant<Tab::combined_estimate> {};
}  // namespace detail

/// True for tables whose error estimate combines two embedded solutions in the norm (Dop853: e and
/// e3), so that the stepper needs the run's tolerances.
template <class Tab>
inline constexpr bool combines_estimates_v = detail::combined_estimate<Tab>::value;

/// A tableau as a value: `[&](auto tag) { using Tab = typename decltype(tag)::type; ... }`.
template <class Tab>
struct Tag {
  using type = Tab;
};

}  // namespace batchode::tableau
