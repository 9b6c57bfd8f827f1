// tests/models: the reference interpreter against systems written by hand (Lorenz, Van der Pol, a
// model using every function, ifelse and auxiliaries), bit for bit where the operations are the
// same; the symbolic Jacobian and df/dt against 4th-order central finite differences and against
// forward AD (kernels::linearize with Dual numbers) through hand-written systems that use
// kernels/core/model_math.hpp as generated code does; sparsity; and kernels/linalg/jacobian.hpp's use of a
// system's own time_derivative.
#include "batchode/models/evaluate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "batchode/kernels/linalg/jacobian.hpp"
#include "batchode/kernels/core/model_math.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/models/model.hpp"
#include "compile_support.hpp"

namespace {

using namespace batchode::models;
namespace mm = batchode::model_math;

Model load(const std::string& file) { return load_model(batchode::models::testing::data_dir() + "/" + file); }
Model parse(const std::string& toml) { return parse_model(read_model_toml(toml, "test.toml")); }

// --- Hand-written twins of the models, templated like generated code ---------------------------

struct LorenzByHand {
  static constexpr std::size_t n_states = 3, n_params = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* f) const {
    const T sigma = T(10), beta = T(2.6666666666666665);
    f[0] = sigma * (y[1] - y[0]);
    f[1] = y[0] * (p[0] - y[2]) - y[1];
    f[2] = y[0] * y[1] - beta * y[2];
  }
};

constexpr const char* kVanDerPol = R"(name = "van_der_pol"
equations = """
dx = v
dv = mu * (1 - x^2) * v - x
"""
[states]
x = 2
v = 0
[parameters]
mu = 1
)";
struct VanDerPolByHand {
  static constexpr std::size_t n_states = 2, n_params = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = y[1];
    f[1] = p[0] * (T(1) - y[0] * y[0]) * y[1] - y[0];
  }
};

// tests/models/data/every_function.toml, line by line.
struct EveryFunctionByHand {
  static constexpr std::size_t n_states = 3, n_params = 1;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* f) const {
    const T x = y[0], w = y[1], z = y[2], k = p[0], c = T(0.125);
    const T q = mm::exp(-(x * x)) + mm::log(T(1) + w * w) + mm::sqrt(T(2) + mm::sin(x));
    const T r = mm::tan(T(0.3) * x) + mm::asin(T(0.5) * mm::tanh(w)) + mm::acos(T(0.25) * mm::cos(z)) +
                mm::atan(x * w) + mm::atan2(w, T(1) + x * x);
    const T s = q * r - k;
    f[0] = mm::sinh(T(0.1) * x) * mm::cosh(T(0.2) * w) + mm::abs(x - w) + mm::min(x, z) - mm::max(w, z) +
           mm::floor(t) + mm::pow(x * x + T(1), w / T(3)) - mm::pow(T(2), -x);
    const T z2 = z * z;
    f[1] = ((x < w && !(z >= T(1) || t == T(2))) ? q : r * k) - T(1) / (w * w) +
           z2 * z2 / (T(1) + x * x * x) + s / (T(1) + T(1) / w);
    f[2] = q * r / (T(1) + z * z) - k * t * mm::sin(t) + (x != z ? s : T(0)) * c;
  }
};

constexpr const char* kAuxiliaryChain = R"(name = "chain"
equations = """
a = x * y
b = sin(a) + t * a
c = b^2 - a / (1 + t)
dx = c - x
dy = b * x + exp(-t) * y
"""
[states]
x = 0.4
y = -0.7
)";
struct AuxiliaryChainByHand {
  static constexpr std::size_t n_states = 2, n_params = 0;
  template <class T>
  void operator()(T t, const T* y, const T*, T* f) const {
    const T a = y[0] * y[1];
    const T b = mm::sin(a) + t * a;
    const T c = b * b - a / (T(1) + t);
    f[0] = c - y[0];
    f[1] = b * y[0] + mm::exp(-t) * y[1];
  }
};

// --- Points: a deterministic generator (the same numbers on every platform) ---------------------

struct Lcg {
  std::uint64_t s;
  double uniform(double lo, double hi) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
};

struct Point {
  double t;
  std::vector<double> y, p;
};

/// Points of every_function.toml away (by 0.02) from its kinks (abs, min, max, floor), and away from
/// x = -1, where 1 + x^3 vanishes (its high derivatives would dominate the finite differences).
std::vector<Point> every_function_points() {
  std::vector<Point> points;
  Lcg g{42};
  while (points.size() < 40) {
    Point pt{g.uniform(0, 3),
             {g.uniform(-0.6, 1.5), g.uniform(0.3, 2), g.uniform(-1.5, 1.5)},
             {g.uniform(0.5, 3)}};
    const double x = pt.y[0], w = pt.y[1], z = pt.y[2];
    const double gap = 0.02;
    if (std::fabs(x - w) < gap || std::fabs(x - z) < gap || std::fabs(w - z) < gap) continue;
    if (std::fabs(pt.t - std::round(pt.t)) < gap) continue;
    points.push_back(pt);
  }
  return points;
}

std::vector<Point> points(std::size_t n_states, std::size_t n_params, double lo, double hi,
                          std::uint64_t seed) {
  std::vector<Point> out;
  Lcg g{seed};
  for (int k = 0; k < 20; ++k) {
    Point pt{g.uniform(0, 3), {}, {}};
    for (std::size_t i = 0; i < n_states; ++i) pt.y.push_back(g.uniform(lo, hi));
    for (std::size_t i = 0; i < n_params; ++i) pt.p.push_back(g.uniform(0.5, 30));
    out.push_back(pt);
  }
  return out;
}

template <class Hand>
void expect_rhs_equal(const Model& m, const std::vector<Point>& pts) {
  ASSERT_EQ(m.n_states(), Hand::n_states);
  ASSERT_EQ(m.n_params(), Hand::n_params);
  for (const Point& pt : pts) {
    std::vector<double> got(m.n_states()), expected(m.n_states());
    evaluate_rhs(m, pt.t, pt.y.data(), pt.p.data(), got.data());
    Hand{}(pt.t, pt.y.data(), pt.p.data(), expected.data());
    for (std::size_t i = 0; i < m.n_states(); ++i) {
      // The same operations in the same order: the same double.
      EXPECT_EQ(got[i], expected[i]) << m.name() << " f[" << i << "] at t = " << pt.t;
    }
  }
}

bool close(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(b), 1.0);
}

/// J and f_t against forward AD through the hand-written twin (Dual<double, N + 1>, as a Rosenbrock
/// method computes them for a system without its own Jacobian), to 1e-10 relative (scaled by
/// max(|value|, 1)); and against 4th-order central differences of evaluate_rhs (truncation ~h^4 with
/// h = 5e-4 times the variable's scale, rounding ~1e-16/h) to 1e-9.
template <class Hand>
void expect_jacobian_matches(const Model& m, const std::vector<Point>& pts) {
  constexpr std::size_t N = Hand::n_states, P = Hand::n_params;
  double worst_ad = 0, worst_fd = 0;
  for (const Point& pt : pts) {
    double J[N * N], ft[N], J_ad[N * N], ft_ad[N], f_ad[N];
    evaluate_jacobian(m, pt.t, pt.y.data(), pt.p.data(), J, ft);
    batchode::kernels::linearize<N, P>(Hand{}, pt.t, pt.y.data(),
                                       P > 0 ? pt.p.data() : static_cast<const double*>(nullptr), f_ad, J_ad,
                                       ft_ad);
    // Finite differences in y_j (column j) and in t.
    double J_fd[N * N], ft_fd[N];
    auto rhs = [&](double t, const std::vector<double>& y, std::vector<double>& f) {
      evaluate_rhs(m, t, y.data(), pt.p.data(), f.data());
    };
    for (std::size_t j = 0; j <= N; ++j) {
      const double base = j < N ? pt.y[j] : pt.t;
      const double h = 5e-4 * std::max(1.0, std::fabs(base));
      std::vector<double> fm2(N), fm1(N), fp1(N), fp2(N);
      std::vector<double> y = pt.y;
      auto at = [&](double offset, std::vector<double>& f) {
        if (j < N) {
          y[j] = base + offset;
          rhs(pt.t, y, f);
        } else {
          rhs(base + offset, y, f);
        }
      };
      at(-2 * h, fm2);
      at(-h, fm1);
      at(h, fp1);
      at(2 * h, fp2);
      for (std::size_t i = 0; i < N; ++i) {
        const double d = (fm2[i] - 8 * fm1[i] + 8 * fp1[i] - fp2[i]) / (12 * h);
        (j < N ? J_fd[i * N + j] : ft_fd[i]) = d;
      }
    }
    auto check = [&](double value, double ad, double fd, const std::string& what) {
      EXPECT_TRUE(close(value, ad, 1e-10))
          << m.name() << " " << what << ": symbolic " << value << ", AD " << ad;
      EXPECT_TRUE(close(value, fd, 1e-9))
          << m.name() << " " << what << ": symbolic " << value << ", FD " << fd;
      worst_ad = std::max(worst_ad, std::fabs(value - ad) / std::max(std::fabs(ad), 1.0));
      worst_fd = std::max(worst_fd, std::fabs(value - fd) / std::max(std::fabs(fd), 1.0));
    };
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t j = 0; j < N; ++j) {
        check(J[i * N + j], J_ad[i * N + j], J_fd[i * N + j],
              "J(" + std::to_string(i) + "," + std::to_string(j) + ")");
      }
      check(ft[i], ft_ad[i], ft_fd[i], "f_t(" + std::to_string(i) + ")");
    }
  }
  std::cout << "  " << m.name() << ": worst relative difference to AD " << worst_ad << ", to FD " << worst_fd
            << "\n";
}

TEST(Evaluate, LorenzEqualsHandWritten) {
  const Model m = load("lorenz.toml");
  expect_rhs_equal<LorenzByHand>(m, points(3, 1, -20, 20, 1));
  expect_jacobian_matches<LorenzByHand>(m, points(3, 1, -20, 20, 2));
}

TEST(Evaluate, VanDerPolEqualsHandWritten) {
  const Model m = parse(kVanDerPol);
  expect_rhs_equal<VanDerPolByHand>(m, points(2, 1, -3, 3, 3));
  expect_jacobian_matches<VanDerPolByHand>(m, points(2, 1, -3, 3, 4));
}

TEST(Evaluate, EveryFunctionEqualsHandWritten) {
  const Model m = load("every_function.toml");
  const std::vector<Point> pts = every_function_points();
  // Both sides of the kinks and branches occur (x < y selects ifelse's first branch, x < z min's).
  const auto below = [&](std::size_t a, std::size_t b) {
    return std::count_if(pts.begin(), pts.end(), [&](const Point& p) { return p.y[a] < p.y[b]; });
  };
  EXPECT_GT(below(0, 1), 5);
  EXPECT_GT(below(1, 0), 5);
  EXPECT_GT(below(0, 2), 5);
  EXPECT_GT(below(2, 0), 5);
  expect_rhs_equal<EveryFunctionByHand>(m, pts);
  expect_jacobian_matches<EveryFunctionByHand>(m, pts);
}

TEST(Evaluate, AuxiliaryChainEqualsHandWritten) {
  const Model m = parse(kAuxiliaryChain);
  expect_rhs_equal<AuxiliaryChainByHand>(m, points(2, 0, -2, 2, 5));
  expect_jacobian_matches<AuxiliaryChainByHand>(m, points(2, 0, -2, 2, 6));
  // The auxiliaries' values, in order.
  const double y[2] = {0.4, -0.7}, t = 0.3;
  double aux[3];
  evaluate_auxiliaries(m, t, y, nullptr, aux);
  const double a = 0.4 * -0.7, b = std::sin(a) + t * a;
  EXPECT_EQ(aux[0], a);
  EXPECT_EQ(aux[1], b);
  EXPECT_EQ(aux[2], b * b - a / (1 + t));
}

TEST(Evaluate, IfelseTakesTheBranchOfItsCondition) {
  const Model m = parse(R"(name = "branches"
equations = """
dx = ifelse(x > 1 or not (x >= -1), 10 * x, ifelse(x == 0, 5, x^3)) + ifelse(x <= 0.5 and x != 0.25, 1, 2)
"""
[states]
x = 0
)");
  auto f = [&](double x) {
    double d = 0;
    evaluate_rhs(m, 0, &x, nullptr, &d);
    return d;
  };
  EXPECT_EQ(f(2), 20 + 2);
  EXPECT_EQ(f(-3), -30 + 1);
  EXPECT_EQ(f(0), 5 + 1);
  EXPECT_EQ(f(0.25), 0.25 * 0.25 * 0.25 + 2);
  EXPECT_EQ(f(0.5), 0.125 + 1);
  EXPECT_EQ(f(0.75), 0.75 * 0.75 * 0.75 + 2);
  double J = 0;
  const double x = 2;
  evaluate_jacobian(m, 0, &x, nullptr, &J, nullptr);
  EXPECT_EQ(J, 10);
}

TEST(Evaluate, SparsityOfLorenz96) {
  // Each state depends on four others (its neighbours i-2, i-1, i+1 and itself): 4 of 8 per row.
  std::string eq;
  const int n = 8;
  auto name = [&](int i) { return "x" + std::to_string(((i % n) + n) % n); };
  for (int i = 0; i < n; ++i) {
    eq += "d" + name(i) + " = (" + name(i + 1) + " - " + name(i - 2) + ") * " + name(i - 1) + " - " +
          name(i) + " + F\n";
  }
  std::string toml = "name = \"lorenz96\"\nequations = \"\"\"\n" + eq + "\"\"\"\n[states]\n";
  for (int i = 0; i < n; ++i) toml += name(i) + " = " + std::to_string(i) + "\n";
  toml += "[parameters]\nF = 8\n";
  const Model m = parse(toml);
  std::vector<std::pair<std::size_t, std::size_t>> expected;
  for (int i = 0; i < n; ++i) {
    std::vector<std::size_t> cols = {static_cast<std::size_t>((i - 2 + n) % n),
                                     static_cast<std::size_t>((i - 1 + n) % n), static_cast<std::size_t>(i),
                                     static_cast<std::size_t>((i + 1) % n)};
    std::sort(cols.begin(), cols.end());
    for (std::size_t c : cols) expected.emplace_back(i, c);
  }
  EXPECT_EQ(m.jacobian_nonzeros(), expected);
  EXPECT_NE(describe_sparsity(m).find("32 of 64 entries"), std::string::npos) << describe_sparsity(m);
}

TEST(Evaluate, StructuralZerosAfterSimplification) {
  // floor is piecewise constant, 0 * z vanishes, d(y - y)/dy = 1 - 1 folds to 0, and an ifelse of
  // two constants has no derivative in x.
  const Model m = parse(R"(name = "zeros"
equations = """
dx = floor(y) + 0 * z + x
dy = y - y
dz = ifelse(x < 0, 2, 3) * t
"""
[states]
x = 0
y = 0
z = 0
)");
  const std::vector<std::pair<std::size_t, std::size_t>> expected = {{0, 0}};
  EXPECT_EQ(m.jacobian_nonzeros(), expected);
  const double y[3] = {-1, 2, 3};
  double J[9], ft[3];
  evaluate_jacobian(m, 4, y, nullptr, J, ft);
  EXPECT_EQ(J[0], 1);
  EXPECT_EQ(J[4], 0);
  EXPECT_EQ(ft[2], 2);
}

// --- kernels/linalg/jacobian.hpp: a system's own time_derivative -----------------------------------------

// Its call operator takes doubles only: a dual-number call would not compile, so linearize() using it
// proves that the analytic J and f_t are all it calls.
struct DoubleOnlyWithDerivatives {
  static constexpr std::size_t n_states = 2, n_params = 1;
  void operator()(double t, const double* y, const double* p, double* f) const {
    f[0] = y[1];
    f[1] = -p[0] * y[0] + t * t;
  }
  template <class T>
  void jacobian(T, const T*, const T* p, T* J) const {
    J[0] = T(0);
    J[1] = T(1);
    J[2] = -p[0];
    J[3] = T(0);
  }
  template <class T>
  void time_derivative(T t, const T*, const T*, T* f_t) const {
    f_t[0] = T(0);
    f_t[1] = T(2) * t;
  }
};
struct DoubleOnlyWithJacobian {
  [[maybe_unused]] static constexpr std::size_t n_states = 2, n_params = 1;
  void operator()(double, const double*, const double*, double*) const {}
  template <class T>
  void jacobian(T, const T*, const T*, T*) const {}
};
struct TemplatedWithJacobian {
  [[maybe_unused]] static constexpr std::size_t n_states = 1, n_params = 0;
  template <class T>
  void operator()(T t, const T* y, const T*, T* f) const {
    f[0] = t * y[0];
  }
  template <class T>
  void jacobian(T t, const T*, const T*, T* J) const {
    J[0] = t;
  }
};

TEST(Linearize, UsesTheSystemsTimeDerivative) {
  using namespace batchode;           // the traits over a system (kernels/core/system.hpp's rule)
  using namespace batchode::kernels;  // linearize, machinery
  static_assert(batchode::is_ode_system_v<DoubleOnlyWithDerivatives, double>);
  static_assert(has_jacobian_v<DoubleOnlyWithDerivatives, double> &&
                has_time_derivative_v<DoubleOnlyWithDerivatives, double> &&
                has_analytic_linearization_v<DoubleOnlyWithDerivatives, double>);
  static_assert(can_linearize_v<DoubleOnlyWithDerivatives, double>);
  // Without time_derivative, f_t still needs dual numbers, which this call operator does not take.
  static_assert(!has_time_derivative_v<DoubleOnlyWithJacobian, double> &&
                !can_linearize_v<DoubleOnlyWithJacobian, double>);
  static_assert(can_linearize_v<TemplatedWithJacobian, double> &&
                !has_analytic_linearization_v<TemplatedWithJacobian, double>);

  const double y[2] = {0.5, -2}, p[1] = {3}, t = 1.5;
  double f[2], J[4], ft[2];
  linearize<2, 1>(DoubleOnlyWithDerivatives{}, t, y, p, f, J, ft);
  EXPECT_EQ(f[0], -2);
  EXPECT_EQ(f[1], -1.5 + 2.25);
  EXPECT_EQ(J[0], 0);
  EXPECT_EQ(J[1], 1);
  EXPECT_EQ(J[2], -3);
  EXPECT_EQ(J[3], 0);
  EXPECT_EQ(ft[0], 0);
  EXPECT_EQ(ft[1], 3);

  // Unchanged: an analytic J alone gets f_t from one dual direction in t.
  double f1, J1, ft1;
  const double y1 = 4;
  linearize<1, 0>(TemplatedWithJacobian{}, 2.0, &y1, static_cast<const double*>(nullptr), &f1, &J1, &ft1);
  EXPECT_EQ(f1, 8);
  EXPECT_EQ(J1, 2);
  EXPECT_EQ(ft1, 4);
}

}  // namespace
