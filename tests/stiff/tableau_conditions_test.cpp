// The Rosenbrock tables (kernels/methods/rosenbrock_tableaux.hpp) against the theory they come from, in the
// original (untransformed) variables of Hairer & Wanner, Solving ODEs II, IV.7: from the transformed
// a, C, m the test recovers Gamma = (I / gamma - C)^-1, alpha = a Gamma and b = m Gamma, then checks
//  - consistency: c_i = sum_j alpha_ij and d_i = gamma_i = sum_j gamma_ij (d multiplies h f_t);
//  - the order conditions, one per rooted tree (Table 7.1's up to order 4, the same rule past it), for
//    b (up to the method's order) and for the embedded b_hat = (m - e) Gamma (up to its order), and
//    that the next order fails (the tables are not accidentally of higher order, which would make the
//    checks vacuous);
//  - ROS3P's embedded pair has the main method's stability function (why ros3p estimates its error by
//    step doubling), RODAS4's does not;
//  - Boost.Odeint's default rosenbrock4 coefficients break d4 = gamma_4 (why rosenbrock4 runs with
//    RODAS4's table), and the coefficient set batchode hands odeint meets it.
// And the ESDIRK table (kernels/methods/esdirk_tableaux.hpp) as a Runge-Kutta method: its shape (explicit
// first stage, gamma on the diagonal, stiffly accurate, c the row sums) and its order conditions.
#include <gtest/gtest.h>

#include <algorithm>
#include <batchode/backends/cpu/rosenbrock4_stepper.hpp>
#include <batchode/kernels/methods/esdirk_tableaux.hpp>
#include <batchode/kernels/methods/radau_tableau.hpp>
#include <batchode/kernels/methods/rosenbrock_tableaux.hpp>
#include <cmath>
#include <vector>

#include "rooted_trees.hpp"

namespace {

using namespace batchode;
using Matrix = std::vector<std::vector<double>>;
using Vector = std::vector<double>;

/// The inverse of a lower-triangular matrix, by forward substitution.
Matrix inverse_lower(const Matrix& M) {
  const std::size_t n = M.size();
  Matrix X(n, Vector(n, 0.0));
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = j; i < n; ++i) {
      double s = i == j ? 1.0 : 0.0;
      for (std::size_t k = j; k < i; ++k) s -= M[i][k] * X[k][j];
      X[i][j] = s / M[i][i];
    }
  }
  return X;
}

/// A Rosenbrock method in Hairer & Wanner's original variables.
struct Original {
  double gamma;
  Matrix alpha, Gamma;  // Gamma with gamma on its diagonal
  Vector b, b_hat;
};

template <class Tab>
Original original_of() {
  constexpr int n = Tab::stages;
  Matrix inv_gamma(n, Vector(n, 0.0)), a(n, Vector(n, 0.0));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      inv_gamma[i][j] = (i == j ? 1.0 / Tab::gamma() : 0.0) - (j < i ? Tab::C(i, j) : 0.0);
      a[i][j] = j < i ? Tab::a(i, j) : 0.0;
    }
  }
  Original o;
  o.gamma = Tab::gamma();
  o.Gamma = inverse_lower(inv_gamma);
  o.alpha.assign(n, Vector(n, 0.0));
  o.b.assign(n, 0.0);
  o.b_hat.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) o.alpha[i][j] += a[i][k] * o.Gamma[k][j];
      o.b[j] += Tab::b(i) * o.Gamma[i][j];
      o.b_hat[j] += (Tab::b(i) - Tab::e(i)) * o.Gamma[i][j];
    }
  }
  return o;
}

/// The residuals of the order conditions of orders 1 .. max_order for weights b (rooted_trees.hpp: a
/// node with one child reaches it through beta = alpha + Gamma, the diagonal gamma included, one with
/// several through alpha; for orders up to 4 these are Table 7.1's conditions with its polynomials in
/// gamma expanded).
std::vector<Vector> order_residuals(const Original& m, const Vector& b, int max_order) {
  Matrix beta = m.alpha;
  for (std::size_t i = 0; i < b.size(); ++i) {
    for (std::size_t j = 0; j <= i; ++j) beta[i][j] += m.Gamma[i][j];
  }
  return batchode::testing::order_residuals(m.alpha, beta, b, max_order);
}

/// True when every condition up to `order` holds to 1e-12 (relative to 1 / gamma(t)'s scale: the
/// published tables carry 16-17 digits) and some condition of the next order fails by more than
/// 1e-10 (the tables are not accidentally of higher order, which would make the checks vacuous).
void expect_order_exactly(const Original& m, const Vector& b, int order, const char* what) {
  const std::vector<Vector> r = order_residuals(m, b, order + 1);
  for (int p = 1; p <= order; ++p) {
    for (double x : r[p - 1]) EXPECT_LT(std::fabs(x), 1e-12) << what << ": order-" << p << " condition";
  }
  EXPECT_GT(batchode::testing::worst_residual(r, order + 1, order + 1), 1e-10)
      << what << " meets every order-" << order + 1 << " condition";
}

template <class Tab>
void expect_consistent(const char* name) {
  const Original m = original_of<Tab>();
  for (int i = 0; i < Tab::stages; ++i) {
    double c = 0, d = 0;
    for (int j = 0; j < i; ++j) c += m.alpha[i][j];
    for (int j = 0; j <= i; ++j) d += m.Gamma[i][j];
    EXPECT_NEAR(c, Tab::c(i), 1e-12) << name << " c_" << i + 1 << " = sum_j alpha_ij";
    EXPECT_NEAR(d, Tab::d(i), 1e-12) << name << " d_" << i + 1 << " = sum_j gamma_ij";
  }
}

TEST(RosenbrockTableau, Ros3pMeetsItsOrderConditions) {
  expect_consistent<tableau::Ros3p>("ros3p");
  const Original m = original_of<tableau::Ros3p>();
  expect_order_exactly(m, m.b, tableau::Ros3p::order, "ros3p b");
  expect_order_exactly(m, m.b_hat, tableau::Ros3p::embedded_order, "ros3p b_hat");
}

TEST(RosenbrockTableau, Rodas4MeetsItsOrderConditions) {
  expect_consistent<tableau::Rodas4>("rodas4");
  const Original m = original_of<tableau::Rodas4>();
  expect_order_exactly(m, m.b, tableau::Rodas4::order, "rodas4 b");
  expect_order_exactly(m, m.b_hat, tableau::Rodas4::embedded_order, "rodas4 b_hat");
}

TEST(RosenbrockTableau, Rodas5pMeetsItsOrderConditions) {
  expect_consistent<tableau::Rodas5p>("rodas5p");
  const Original m = original_of<tableau::Rodas5p>();
  expect_order_exactly(m, m.b, tableau::Rodas5p::order, "rodas5p b");
  expect_order_exactly(m, m.b_hat, tableau::Rodas5p::embedded_order, "rodas5p b_hat");
}

// Radau IIA 5 is kept as RADAU5 keeps it (nodes, A^-1's eigen-decomposition T Lambda T^-1, the
// estimate's weights): each checked against the Butcher matrix's closed form (Hairer & Wanner II,
// Table IV.5.6), whose order conditions are checked first.
TEST(RosenbrockTableau, Rodas4p2MeetsItsOrderConditions) {
  expect_consistent<tableau::Rodas4p2>("rodas4p2");
  const Original m = original_of<tableau::Rodas4p2>();
  expect_order_exactly(m, m.b, tableau::Rodas4p2::order, "rodas4p2 b");
  expect_order_exactly(m, m.b_hat, tableau::Rodas4p2::embedded_order, "rodas4p2 b_hat");
}

TEST(RadauTableau, RadauIIA5IsItsButcherMatrixInRadau5sCoordinates) {
  using Tab = tableau::RadauIIA5;
  const double s6 = std::sqrt(6.0);
  const Matrix A = {{(88 - 7 * s6) / 360, (296 - 169 * s6) / 1800, (-2 + 3 * s6) / 225},
                    {(296 + 169 * s6) / 1800, (88 + 7 * s6) / 360, (-2 - 3 * s6) / 225},
                    {(16 - s6) / 36, (16 + s6) / 36, 1.0 / 9}};
  const Vector b = A[2];  // stiffly accurate
  using batchode::testing::order_residuals;
  using batchode::testing::worst_residual;
  const auto r = order_residuals(A, A, b, Tab::order + 1);
  EXPECT_LT(worst_residual(r, 1, Tab::order), 1e-14);
  EXPECT_GT(worst_residual(r, Tab::order + 1, Tab::order + 1), 1e-6);
  EXPECT_NEAR(A[0][0] + A[0][1] + A[0][2], Tab::c1, 1e-15);
  EXPECT_NEAR(A[1][0] + A[1][1] + A[1][2], Tab::c2, 1e-15);
  EXPECT_NEAR(Tab::c1, (4 - s6) / 10, 1e-16);
  EXPECT_NEAR(Tab::c2, (4 + s6) / 10, 1e-16);

  const Matrix T = {{Tab::t11, Tab::t12, Tab::t13}, {Tab::t21, Tab::t22, Tab::t23}, {Tab::t31, 1.0, 0.0}};
  const Matrix TI = {{Tab::ti11, Tab::ti12, Tab::ti13},
                     {Tab::ti21, Tab::ti22, Tab::ti23},
                     {Tab::ti31, Tab::ti32, Tab::ti33}};
  const Matrix Lambda = {{Tab::gamma, 0, 0}, {0, Tab::alpha, -Tab::beta}, {0, Tab::beta, Tab::alpha}};
  auto product = [](const Matrix& X, const Matrix& Y) {
    Matrix P(3, Vector(3, 0.0));
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int k = 0; k < 3; ++k) P[i][j] += X[i][k] * Y[k][j];
      }
    }
    return P;
  };
  const Matrix identity = product(T, TI);
  const Matrix should_be_identity = product(product(product(T, Lambda), TI), A);  // A^-1 A
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(identity[i][j], i == j ? 1.0 : 0.0, 1e-15) << "T T^-1 at " << i << j;
      EXPECT_NEAR(should_be_identity[i][j], i == j ? 1.0 : 0.0, 1e-14) << "T Lambda T^-1 A at " << i << j;
    }
  }
  EXPECT_NEAR(Tab::dd1, -(13 + 7 * s6) / 3, 1e-14);
  EXPECT_NEAR(Tab::dd2, (-13 + 7 * s6) / 3, 1e-14);
}

/// An ESDIRK table: lower triangular with gamma on the diagonal below an explicit first stage, c the
/// row sums, stiffly accurate (b the last row), and its order conditions (explicit methods' rule for
/// every tree, with the whole A) met to `within` up to its order and not past it, its embedded pair's
/// likewise.
template <class Tab>
void expect_esdirk(double within) {
  constexpr int n = Tab::stages;
  Matrix A(n, Vector(n, 0.0));
  Vector b(n), b_hat(n);
  for (int i = 0; i < n; ++i) {
    double row = 0;
    for (int j = 0; j < n; ++j) {
      A[i][j] = Tab::a(i, j);
      row += A[i][j];
      if (j > i) {
        EXPECT_EQ(A[i][j], 0.0) << "a_" << i << j << " above the diagonal";
      }
    }
    EXPECT_EQ(A[i][i], i == 0 ? 0.0 : Tab::gamma()) << "diagonal " << i;
    EXPECT_NEAR(row, Tab::c(i), within) << "c_" << i << " = sum_j a_ij";
    b[i] = Tab::b(i);
    b_hat[i] = Tab::b(i) - Tab::e(i);
  }
  for (int i = 0; i < n; ++i) EXPECT_EQ(b[i], A[n - 1][i]) << "stiffly accurate: b is the last row";
  using batchode::testing::order_residuals;
  using batchode::testing::worst_residual;
  const auto r = order_residuals(A, A, b, Tab::order + 1);
  EXPECT_LT(worst_residual(r, 1, Tab::order), within);
  EXPECT_GT(worst_residual(r, Tab::order + 1, Tab::order + 1), 1e-6);
  const auto r_hat = order_residuals(A, A, b_hat, Tab::embedded_order + 1);
  EXPECT_LT(worst_residual(r_hat, 1, Tab::embedded_order), within);
  EXPECT_GT(worst_residual(r_hat, Tab::embedded_order + 1, Tab::embedded_order + 1), 1e-6);
}

TEST(EsdirkTableau, Kvaerno5IsAStifflyAccurateEsdirkOfOrderFiveWithAnEmbeddedFour) {
  expect_esdirk<tableau::Kvaerno5>(1e-14);
}
// Kvaerno gives gamma and the coefficients to 10-15 digits: the conditions hold to that.
TEST(EsdirkTableau, Kvaerno3IsAStifflyAccurateEsdirkOfOrderThreeWithAnEmbeddedTwo) {
  expect_esdirk<tableau::Kvaerno3>(1e-10);
}
TEST(EsdirkTableau, KenCarp4IsAStifflyAccurateEsdirkOfOrderFourWithAnEmbeddedThree) {
  expect_esdirk<tableau::KenCarp4>(1e-14);
}

/// R(z) of weights w (transformed form) on y' = lambda y with h lambda = z, y = 1.
template <class Tab>
double stability(double z, bool embedded) {
  double k[Tab::stages];
  double r = 1;
  for (int s = 0; s < Tab::stages; ++s) {
    double arg = 1, extra = 0;
    for (int j = 0; j < s; ++j) {
      arg += Tab::a(s, j) * k[j];
      extra += Tab::C(s, j) * k[j];
    }
    k[s] = (z * arg + extra) / (1 / Tab::gamma() - z);
    r += (Tab::b(s) - (embedded ? Tab::e(s) : 0.0)) * k[s];
  }
  return r;
}

// ROS3P's published embedded method has the same stability function as ROS3P itself, so its
// estimate vanishes on every linear autonomous problem: the reason behind estimate_by_doubling.
TEST(RosenbrockTableau, Ros3pEmbeddedPairIsBlindOnLinearProblems) {
  static_assert(tableau::estimates_by_doubling_v<tableau::Ros3p>);
  static_assert(!tableau::estimates_by_doubling_v<tableau::Rodas4>);
  for (double z : {-100.0, -3.0, -0.5, 0.1, 0.5, 2.0}) {
    EXPECT_NEAR(stability<tableau::Ros3p>(z, true), stability<tableau::Ros3p>(z, false),
                1e-13 * std::fabs(stability<tableau::Ros3p>(z, false)))
        << "z = " << z;
    // RODAS4's embedded pair is of order 3: its stability function differs from the main one by
    // about 5.5e-3 z^4 near 0 (0.037 at z = -100).
    EXPECT_GT(std::fabs(stability<tableau::Rodas4>(z, true) - stability<tableau::Rodas4>(z, false)),
              1e-4 * std::pow(std::min(std::fabs(z), 1.0), 4.0))
        << "z = " << z;
  }
}

// Boost's d4 = +0.0362 (Debian 12's Boost 1.74); Hairer's RODAS4 has gamma_4 = -0.0362.
TEST(RosenbrockTableau, OdeintGetsRodas4sD4) {
  const Original m = original_of<tableau::Rodas4>();
  const double gamma_4 = m.Gamma[3][0] + m.Gamma[3][1] + m.Gamma[3][2] + m.Gamma[3][3];
  EXPECT_NEAR(gamma_4, -0.0362, 1e-12);
  const cpu::Rodas4CoefficientsForOdeint<double> ours;
  EXPECT_NEAR(ours.d4, gamma_4, 1e-15);
  EXPECT_NEAR(ours.d2, tableau::Rodas4::d(1), 0.0);
  EXPECT_EQ(ours.c65, tableau::Rodas4::C(5, 4));
  const boost::numeric::odeint::default_rosenbrock_coefficients<double> boost_default;
  if (std::fabs(boost_default.d4 - gamma_4) > 1e-12) {
    std::printf("[ note ] Boost.Odeint's default rosenbrock4 coefficients have d4 = %g (RODAS4: %g); "
                "batchode hands odeint RODAS4's\n",
                boost_default.d4, gamma_4);
  }
}

}  // namespace
