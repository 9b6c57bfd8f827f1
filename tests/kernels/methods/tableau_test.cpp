// Every method's Butcher tableau (kernels/methods/tableaux.hpp) checked on its own (consistency and order
// conditions) and against the arithmetic of the two steppers that use it: the GPU's register stepper
// (kernels/methods/rk_stepper.hpp, plain C++ here) and the CPU path's Boost.Odeint stepper. odeint's built-in
// steppers carry their own coefficients, so agreement step for step pins them to our tables.
#include <gtest/gtest.h>

#include <array>
#include <batchode/backends/cpu/odeint_steppers.hpp>
#include <batchode/batchode.hpp>
#include <batchode/kernels/methods/rk_stepper.hpp>
#include <batchode/kernels/methods/tableaux.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "rooted_trees.hpp"
#include "test_systems.hpp"

namespace {

namespace tableau = batchode::tableau;
using batchode::testing::Lorenz;

template <class Tab>
class Tableau : public ::testing::Test {};
using AllTableaux = ::testing::Types<tableau::Euler, tableau::Rk4, tableau::BogackiShampine32,
                                     tableau::CashKarp54, tableau::Dopri5, tableau::Tsit5,
                                     tableau::Fehlberg78, tableau::Vern7, tableau::Vern9, tableau::Dop853>;
class TableauName {
 public:
  template <class Tab>
  static std::string GetName(int) {
    return batchode::to_string(Tab::method);
  }
};
TYPED_TEST_SUITE(Tableau, AllTableaux, TableauName);

// Exact rational tables agree to a few ulps; Tsit5's are published as 16-17 digit decimals, whose
// rounding leaves residuals near 1e-15. A wrong digit anywhere gives residuals far above 1e-12.
constexpr double kCoefTol = 1e-12;

TYPED_TEST(Tableau, DescribesTheMethodItClaims) {
  using Tab = TypeParam;
  const batchode::MethodInfo& info = batchode::method_info(Tab::method);
  EXPECT_EQ(info.order, Tab::order);
  EXPECT_EQ(info.error_order, Tab::error_order);
  EXPECT_EQ(info.adaptive, Tab::adaptive);
  EXPECT_EQ(info.fsal, Tab::fsal);
  // FSAL methods evaluate their last stage at (t + h, y_new): its row of a must equal b, with c = 1.
  if (Tab::fsal) {
    EXPECT_EQ(Tab::c(Tab::stages - 1), 1.0);
    for (int j = 0; j < Tab::stages; ++j) EXPECT_NEAR(Tab::a(Tab::stages - 1, j), Tab::b(j), kCoefTol) << j;
  }
}

// A dense output in polynomial weights (tsit5, vern7, vern9, dop853) is the step itself at theta = 1
// and of its order (the weights' degree) inside it: the weights b_s(theta), over the step's stages and
// the interpolant's own (dense_a, dense_c), meet the order condition of every rooted tree up to that
// order with the right-hand sides scaled by theta^p (a tree of order p: theta^p / gamma(tree)), and
// fail some tree of the next order (else the check would pin nothing). The coefficients reach 4e3
// (vern9), so their rounding leaves residuals near 1e-12; a wrong digit, far more.
TYPED_TEST(Tableau, OwnDenseOutputWeightsMeetTheStepAndTheirOrder) {
  using Tab = TypeParam;
  if constexpr (tableau::dense_form_v<Tab> == tableau::DenseForm::weights) {
    constexpr int n = tableau::dense_stages_v<Tab>, order = Tab::dense_degree;
    auto weight = [](int s, double theta) {
      double w = 0;
      for (int m = Tab::dense_degree - 1; m >= 0; --m) w = w * theta + Tab::dense_weight(s, m);
      return theta * w;
    };
    for (int s = 0; s < n; ++s) {
      EXPECT_NEAR(weight(s, 1.0), s < Tab::stages ? Tab::b(s) : 0.0, kCoefTol) << "stage " << s;
    }
    // The step's stages and the interpolant's: explicit rows summing to their c.
    batchode::testing::TreeMatrix A(n, std::vector<double>(n, 0.0));
    for (int i = 0; i < n; ++i) {
      double row = 0;
      for (int j = 0; j < n; ++j) {
        if (i < Tab::stages) {
          A[i][j] = j < Tab::stages ? Tab::a(i, j) : 0.0;
        } else if constexpr (n > Tab::stages) {
          A[i][j] = Tab::dense_a(i, j);
        }
        if (j >= i) {
          EXPECT_EQ(A[i][j], 0.0) << "explicit stages: a(" << i << "," << j << ")";
        }
        row += A[i][j];
      }
      if constexpr (n > Tab::stages) {
        if (i >= Tab::stages) {
          EXPECT_NEAR(row, Tab::dense_c(i), kCoefTol) << "stage " << i;
        }
      }
    }
    for (double theta : {0.1, 0.5, 0.9}) {
      // Order p's residuals with the weights divided by theta^p (sum w Phi / theta^p - 1 / gamma):
      // below order + 1 times theta^p (the condition itself, rounding not magnified at small
      // theta), at order + 1 as they are (where theta^p would shrink a failing tree's residual too).
      double worst = 0, top = 0, next = 0;
      for (int p = 1; p <= order + 1; ++p) {
        std::vector<double> w(n);
        for (int s = 0; s < n; ++s) w[s] = weight(s, theta) / std::pow(theta, p);
        const double r =
            batchode::testing::worst_residual(batchode::testing::order_residuals(A, A, w, p), p, p);
        if (p < order) {
          worst = std::max(worst, r * std::pow(theta, p));
        } else if (p == order) {
          top = r * std::pow(theta, p);
        } else {
          next = r;
        }
      }
      EXPECT_LT(worst, 1e-10) << "theta " << theta;
      // Verner's vern7 data (its 40 digits too) meets the order-7 trees to 0.9-1.5e-7 at these theta,
      // not to rounding: a free coefficient published to ten digits (a(11, 10) = -0.0160443457), the
      // others solved for it unrounded. The others meet their top order to rounding.
      EXPECT_LT(top, Tab::method == batchode::Method::vern7 ? 2e-7 : 1e-10) << "theta " << theta;
      // (At theta = 0.1 the rounding of w / theta^p alone would pass this.)
      if (theta >= 0.5) {
        EXPECT_GT(next, 1e-6) << "theta " << theta << ": of order " << order + 1 << " too";
      }
    }
  } else {
    SUCCEED() << "no dense output in weights";
  }
}

TYPED_TEST(Tableau, RowsOfASumToCAndWeightsToOne) {
  using Tab = TypeParam;
  for (int i = 0; i < Tab::stages; ++i) {
    double row = 0;
    for (int j = 0; j < i; ++j) row += Tab::a(i, j);
    for (int j = i; j < Tab::stages; ++j)
      EXPECT_EQ(Tab::a(i, j), 0.0) << "explicit method: a(" << i << "," << j << ")";
    EXPECT_NEAR(row, Tab::c(i), kCoefTol) << "stage " << i;
  }
  double b = 0, e = 0;
  for (int s = 0; s < Tab::stages; ++s) {
    b += Tab::b(s);
    e += Tab::e(s);
    if (!Tab::adaptive) {
      EXPECT_EQ(Tab::e(s), 0.0) << "fixed-step methods have no error weights";
    }
  }
  EXPECT_NEAR(b, 1.0, kCoefTol);
  EXPECT_NEAR(e, 0.0, kCoefTol);  // the embedded weights b - e also sum to 1
}

// The order conditions of every rooted tree up to order p for weights w (rooted_trees.hpp), grouped by
// order: sum w Phi(tree) = 1 / gamma(tree).
template <class Tab>
std::vector<std::vector<double>> order_residuals(const std::vector<double>& w, int p) {
  batchode::testing::TreeMatrix A(Tab::stages, std::vector<double>(Tab::stages, 0.0));
  for (int i = 0; i < Tab::stages; ++i) {
    for (int j = 0; j < Tab::stages; ++j) A[i][j] = Tab::a(i, j);
  }
  return batchode::testing::order_residuals(A, A, w, p);
}

TEST(RootedTrees, CountsAreButchersSequence) {
  const auto trees = batchode::testing::rooted_trees(10);
  const std::size_t counts[] = {0, 1, 1, 2, 4, 9, 20, 48, 115, 286, 719};
  for (int p = 1; p <= 10; ++p) EXPECT_EQ(trees[p].size(), counts[p]) << "order " << p;
}

/// The order of the embedded solution b - e: Tab::embedded_order where the table says (dop853, whose
/// error_order is that of its combined estimate), else error_order.
template <class Tab, class = void>
struct embedded_order {
  static constexpr int value = Tab::error_order;
};
template <class Tab>
struct embedded_order<Tab, std::void_t<decltype(Tab::embedded_order)>> {
  static constexpr int value = Tab::embedded_order;
};

TYPED_TEST(Tableau, WeightsSatisfyTheOrderConditions) {
  using Tab = TypeParam;
  constexpr int q = embedded_order<Tab>::value;
  std::vector<double> b(Tab::stages), bhat(Tab::stages);
  for (int s = 0; s < Tab::stages; ++s) {
    b[s] = Tab::b(s);
    bhat[s] = Tab::b(s) - Tab::e(s);
  }
  using batchode::testing::worst_residual;
  // Every tree up to the order, and some tree of the next order failing (else the method would be
  // of higher order than claimed and the check would pin nothing).
  const auto r = order_residuals<Tab>(b, Tab::order + 1);
  EXPECT_LT(worst_residual(r, 1, Tab::order), kCoefTol);
  EXPECT_GT(worst_residual(r, Tab::order + 1, Tab::order + 1), 1e-7);
  if (Tab::adaptive) {
    const auto rhat = order_residuals<Tab>(bhat, q + 1);
    EXPECT_LT(worst_residual(rhat, 1, q), kCoefTol);
    EXPECT_GT(worst_residual(rhat, q + 1, q + 1), 1e-7);
  }
  if constexpr (tableau::combines_estimates_v<Tab>) {
    // dop853's second estimate: b - e3 is of order 3.
    std::vector<double> b3(Tab::stages);
    for (int s = 0; s < Tab::stages; ++s) b3[s] = Tab::b(s) - Tab::e3(s);
    const auto r3 = order_residuals<Tab>(b3, 4);
    EXPECT_LT(worst_residual(r3, 1, 3), kCoefTol);
    EXPECT_GT(worst_residual(r3, 4, 4), 1e-7);
  }
}

// One or two steps of the GPU register stepper and of the CPU path's odeint stepper, from the same
// random Lorenz states. Both sum the same stages in double with different association, so they agree
// to rounding: 1e-14 relative on the state. The error estimate is a small difference of O(h |f|)
// terms, so its rounding is relative to h |f|, not to itself; a wrong coefficient (even in the 6th
// digit) moves it by > 1e-8 h |f|.
// (The body of RegisterStepperMatchesOdeintStepper, for the tables odeint has a stepper for.)
template <class Tab>
void expect_register_stepper_matches_odeint() {
  constexpr std::size_t N = 3;
  const Lorenz sys;
  const double p[3] = {10.0, 28.0, 8.0 / 3.0};
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> coord(-15.0, 15.0);
  double largest_err = 0;  // of |err| / (h |f|) over all trials
  for (int trial = 0; trial < 20; ++trial) {
    const double t = 0.3 * trial;
    // Fehlberg78's estimate is O(h^8): larger steps keep it well above rounding.
    const double h = (Tab::order >= 8 ? 4.0 : 1.0) * (trial % 2 ? 0.01 : 0.004);
    batchode::RkStepper<Tab, double, N> ours;
    batchode::cpu::OdeintStepper<Tab, Lorenz, double> odeint;
    typename batchode::RkStepper<Tab, double, N>::state_type y{}, y_new{}, err{};
    typename batchode::cpu::OdeintStepper<Tab, Lorenz, double>::state_type oy{}, oy_new{}, oerr{};
    for (std::size_t i = 0; i < N; ++i) oy[i] = y[i] = coord(rng) + (i == 2 ? 25.0 : 0.0);
    ours.reset(sys, t, y, p);
    odeint.reset(sys, t, oy, p);
    double tt = t;
    for (int step = 0; step < 2; ++step) {  // the second step checks what accept() hands on
      ours.step(sys, tt, y, p, h, y_new, err);
      odeint.step(sys, tt, oy, p, h, oy_new, oerr);
      double fscale = 0;
      {
        double f[N];
        sys(tt, &y[0], p, f);
        for (double v : f) fscale = std::max(fscale, std::fabs(v));
      }
      for (std::size_t i = 0; i < N; ++i) {
        EXPECT_NEAR(y_new[i], oy_new[i], 1e-14 * std::max(1.0, std::fabs(y_new[i])))
            << "trial " << trial << " step " << step << " state " << i;
        if (Tab::adaptive) {
          EXPECT_NEAR(err[i], oerr[i], 1e-13 * h * fscale)
              << "trial " << trial << " step " << step << " error " << i;
        }
      }
      for (std::size_t i = 0; i < N; ++i)
        largest_err = std::max(largest_err, std::fabs(err[i]) / (h * fscale));
      tt += h;
      y = y_new;
      oy = oy_new;
      ours.accept(sys, tt, y, p);
      odeint.accept(sys, tt, oy, p);
    }
  }
  // The estimates compared were not all at rounding level (that would make the check empty).
  if (Tab::adaptive) {
    EXPECT_GT(largest_err, 1e-9);
  }
}

TYPED_TEST(Tableau, RegisterStepperMatchesOdeintStepper) {
  using Tab = TypeParam;
  if constexpr (!batchode::cpu::has_odeint_stepper_v<Tab>) {
    // Not a skip (CTest would read "[  SKIPPED ]" as the whole file's): nothing to compare with.
    SUCCEED() << "odeint has no stepper for " << batchode::to_string(Tab::method)
              << ": the CPU path runs the register stepper (its order: convergence_test.cpp)";
  } else {
    expect_register_stepper_matches_odeint<Tab>();
  }
}

}  // namespace
