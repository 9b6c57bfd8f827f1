// The Rosenbrock tables (kernels/methods/rosenbrock_tableaux.hpp) against the theory they come from, in the
// original (untransformed) variables of Hairer & Wanner, Solving ODEs II, IV.7: from the transformed
// a, C, m the test recovers Gamma = (I / gamma - C)^-1, alpha = a Gamma and b = m Gamma, then checks
//  - consistency: c_i = sum_j alpha_ij and d_i = gamma_i = sum_j gamma_ij (d multiplies h f_t);
//  - the order conditions of Table 7.1 for b (up to the method's order) and for the embedded
//    b_hat = (m - e) Gamma (up to its order), and that the next order fails (the tables are not
//    accidentally of higher order, which would make the checks vacuous);
//  - ROS3P's embedded pair has the main method's stability function (why ros3p estimates its error by
//    step doubling), RODAS4's does not;
//  - Boost.Odeint's default rosenbrock4 coefficients break d4 = gamma_4 (why rosenbrock4 runs with
//    RODAS4's table), and the coefficient set batchode hands odeint meets it.
#include <gtest/gtest.h>

#include <batchode/backends/cpu/rosenbrock4_stepper.hpp>
#include <batchode/kernels/methods/rosenbrock_tableaux.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

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

/// Residuals of the order conditions of orders 1..4 (Hairer & Wanner II, Table 7.1), grouped by order.
std::vector<Vector> order_residuals(const Original& m, const Vector& b) {
  const std::size_t n = b.size();
  const double g = m.gamma;
  Vector a(n, 0.0), bp(n, 0.0);  // alpha_i = sum_j alpha_ij, beta'_i = sum_{j<i} (alpha_ij + gamma_ij)
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      a[i] += m.alpha[i][j];
      bp[i] += m.alpha[i][j] + m.Gamma[i][j];
    }
  }
  auto beta_times = [&](const Vector& v) {  // (beta v)_i over j < i
    Vector r(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < i; ++j) r[i] += (m.alpha[i][j] + m.Gamma[i][j]) * v[j];
    }
    return r;
  };
  auto alpha_times = [&](const Vector& v) {
    Vector r(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < i; ++j) r[i] += m.alpha[i][j] * v[j];
    }
    return r;
  };
  auto dot = [&](const Vector& x, auto&& f) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += x[i] * f(i);
    return s;
  };
  const Vector a2 = [&] {
    Vector r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = a[i] * a[i];
    return r;
  }();
  const Vector bbp = beta_times(bp), abp = alpha_times(bp), ba2 = beta_times(a2), bbbp = beta_times(bbp);
  return {
      {dot(b, [](std::size_t) { return 1.0; }) - 1},
      {dot(b, [&](std::size_t i) { return bp[i]; }) - (0.5 - g)},
      {dot(b, [&](std::size_t i) { return a2[i]; }) - 1.0 / 3, dot(b, [&](std::size_t i) { return bbp[i]; }) -
                                                                    (1.0 / 6 - g + g * g)},
      {dot(b, [&](std::size_t i) { return a2[i] * a[i]; }) - 0.25,
       dot(b, [&](std::size_t i) { return a[i] * abp[i]; }) - (1.0 / 8 - g / 3),
       dot(b, [&](std::size_t i) { return ba2[i]; }) - (1.0 / 12 - g / 3),
       dot(b, [&](std::size_t i) { return bbbp[i]; }) - (1.0 / 24 - g / 2 + 1.5 * g * g - g * g * g)},
  };
}

/// True when every condition up to `order` holds to `tol`, and (below order 4) some condition of the
/// next order fails by more than 100 tol.
void expect_order_exactly(const Original& m, const Vector& b, int order, const char* what) {
  const std::vector<Vector> r = order_residuals(m, b);
  for (int p = 1; p <= order; ++p) {
    for (double x : r[p - 1]) EXPECT_LT(std::fabs(x), 1e-12) << what << ": order-" << p << " condition";
  }
  if (order < 4) {
    double worst = 0;
    for (double x : r[order]) worst = std::max(worst, std::fabs(x));
    EXPECT_GT(worst, 1e-10) << what << " meets every order-" << order + 1 << " condition";
  }
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
