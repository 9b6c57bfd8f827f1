// The pieces of the stiff solver, each against an independent answer: the AD Jacobian against Jacobians
// written by hand, the LU against a known solve, the singular-matrix and Newton-failure statuses, and the
// convergence orders of ros3p (3), rodas4 (4), rodas5p (5), kvaerno5 (5) and radau5 (5) with fixed steps on a
// non-autonomous problem (f_t matters).
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <batchode/kernels/linalg/band_lu.hpp>
#include <batchode/kernels/linalg/complex.hpp>
#include <batchode/kernels/linalg/jacobian.hpp>
#include <batchode/kernels/linalg/lu.hpp>
#include <batchode/kernels/methods/stiff_stepper.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "stiff_systems.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using namespace batchode::testing;

template <class Plain, class ByHand>
void expect_ad_matches(std::vector<double> scale, std::vector<double> params, std::uint32_t seed) {
  constexpr std::size_t N = Plain::n_states, P = Plain::n_params;
  static_assert(!has_jacobian_v<Plain, double> && has_jacobian_v<ByHand, double>);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    double y[N], f_ad[N], f_hand[N], J_ad[N * N], J_hand[N * N], ft_ad[N], ft_hand[N];
    for (std::size_t i = 0; i < N; ++i) y[i] = scale[i] * u(rng);
    const double t = 10 * u(rng);
    kernels::linearize<N, P>(Plain{}, t, y, params.data(), f_ad, J_ad, ft_ad);
    kernels::linearize<N, P>(ByHand{}, t, y, params.data(), f_hand, J_hand, ft_hand);
    for (std::size_t i = 0; i < N; ++i) {
      EXPECT_LE(std::fabs(f_ad[i] - f_hand[i]), 1e-15 * std::fabs(f_hand[i]) + 1e-300);  // FMA contraction
      EXPECT_EQ(ft_ad[i], 0.0);  // autonomous
      for (std::size_t j = 0; j < N; ++j) {
        const double a = J_ad[i * N + j], b = J_hand[i * N + j];
        EXPECT_LE(std::fabs(a - b), 4e-16 * std::max(1.0, std::fabs(b))) << "J(" << i << "," << j << ")";
      }
    }
  }
}

TEST(AdJacobian, EqualsAnalyticOnRandomStates) {
  expect_ad_matches<Robertson, RobertsonWithJacobian>({1, 1e-4, 1}, {0.04, 3e7, 1e4}, 1);
  expect_ad_matches<Hires, HiresWithJacobian>({1, 1, 1, 1, 1, 1, 1, 0.01}, {}, 2);
  expect_ad_matches<VanDerPolScaled, VanDerPolScaledWithJacobian>({2, 2}, {1e-6}, 3);
}

// Every Dual rule against derivatives written out by hand, including df/dt.
TEST(AdJacobian, EveryRuleOnANonAutonomousSystem) {
  using std::cos, std::exp, std::log, std::sin, std::sqrt, std::tanh;
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const double y[3] = {u(rng), u(rng), u(rng)}, p[1] = {u(rng)}, t = 5 * u(rng);
    double f[3], J[9], ft[3];
    kernels::linearize<3, 1>(AdWorkout{}, t, y, p, f, J, ft);
    const double e = exp(-y[0] * y[1]), s2 = sqrt(y[2] * y[2] + 1), l = log(1 + y[0] * y[0]);
    const double den = 2 + cos(y[2]), th = tanh(y[0] - y[2]), q = 3 + y[0] * y[0];
    const double expect[9] = {-p[0] * y[1] * e,
                              -p[0] * y[0] * e,
                              sin(t),
                              2 * y[0] / (1 + y[0] * y[0]) * s2,
                              -3 * y[1] * y[1] / den,
                              l * y[2] / s2 - y[1] * y[1] * y[1] * sin(y[2]) / (den * den),
                              (1 - th * th) * y[1] + 2 * y[0] / (q * q),
                              th,
                              -(1 - th * th) * y[1]};
    const double expect_ft[3] = {cos(t) * y[2], 0, 0.1 * exp(0.1 * t)};
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(J[i], expect[i], 1e-14 * std::max(1.0, std::fabs(expect[i]))) << i;
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(ft[i], expect_ft[i], 1e-14) << i;
  }
}

TEST(DenseLu, SolvesWithPivotingAndFlagsSingular) {
  // A zero leading entry forces a row exchange; x = (1, -2, 3, 0.5).
  double A[16] = {0, 2, 1, -1, 3, -1, 0, 2, 1, 1, 4, 0, -2, 0.5, 1, 3};
  const double x[4] = {1, -2, 3, 0.5};
  double b[4];
  for (int i = 0; i < 4; ++i) {
    b[i] = 0;
    for (int j = 0; j < 4; ++j) b[i] += A[i * 4 + j] * x[j];
  }
  int piv[4];
  ASSERT_TRUE(kernels::lu_factor<4>(A, piv));
  EXPECT_NE(piv[0], 0);
  kernels::lu_solve<4>(A, piv, b);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(b[i], x[i], 1e-14);
  double S[9] = {1, 2, 3, 2, 4, 6, 0, 1, 1};  // row 2 = 2 row 1
  int piv3[3];
  EXPECT_FALSE(kernels::lu_factor<3>(S, piv3));
}

// The defect a bad-input probe of the band LU found in the dense one: exchanges in two columns (rows 0
// and 2, then 1 and 3) also exchanged column 0's multipliers, which lu_solve (each column's exchange
// and then its elimination, in turn) does not expect: x came back as (-0.88, 2.99, 6.06, 2.32).
TEST(DenseLu, SolvesWithPivotsInSeveralColumns) {
  const double A[16] = {0, 2, 1, 3, 1, 1, 0, 2, 4, 0, 3, 1, 2, 5, 1, 0};
  const double x[4] = {1, 2, 3, 4};
  double LU[16], b[4];
  for (int i = 0; i < 16; ++i) LU[i] = A[i];
  for (int i = 0; i < 4; ++i) {
    b[i] = 0;
    for (int j = 0; j < 4; ++j) b[i] += A[i * 4 + j] * x[j];
  }
  int piv[4];
  ASSERT_TRUE(kernels::lu_factor<4>(LU, piv));
  EXPECT_EQ(piv[0], 2);
  EXPECT_EQ(piv[1], 3);
  kernels::lu_solve<4>(LU, piv, b);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(b[i], x[i], 1e-14) << i;
}

// The stiff step's unroll rule (kernels/core/annotations.hpp): the step's own loops over the states
// fully unrolled up to 32 states (its stage arrays then stay in registers on a GPU), the factorisations
// up to 16, loops of 4 past those.
static_assert(kernels::step_loop_unroll(20) == 20 && kernels::step_loop_unroll(32) == 32 &&
              kernels::step_loop_unroll(33) == 4);
static_assert(kernels::state_loop_unroll(16) == 16 && kernels::state_loop_unroll(20) == 4);

// Past unrolled_states (16) the dense LU is written as loops with rows swapped by index (lu.hpp): the
// same operations in the same order as the unrolled form, so on random matrices with small diagonals
// (rows exchanged) the loop form gives the unrolled form's pivots, factors and solution to the bit at
// 16 states, and at 40 states (loops only) a solution of A x = b.
TEST(DenseLu, TheLoopFormIsTheUnrolledOneBitForBit) {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  constexpr std::size_t N = 16;
  static_assert(N <= kernels::unrolled_states);
  int exchanges = 0;
  for (int trial = 0; trial < 20; ++trial) {
    double a[N * N], b[N * N], x[N], y[N];
    for (std::size_t i = 0; i < N * N; ++i) a[i] = b[i] = u(rng) * (i % (N + 1) == 0 ? 0.05 : 1.0);
    for (std::size_t i = 0; i < N; ++i) x[i] = y[i] = u(rng);
    int pa[N], pb[N];
    ASSERT_TRUE(kernels::lu_factor<N>(a, pa));
    ASSERT_TRUE(kernels::detail::lu_factor_loops<N>(b, pb));
    kernels::lu_solve<N>(a, pa, x);
    kernels::detail::lu_solve_loops<N>(b, pb, y);
    for (std::size_t k = 0; k < N; ++k) exchanges += pa[k] != static_cast<int>(k);
    EXPECT_EQ(std::memcmp(pa, pb, sizeof pa), 0) << "trial " << trial;
    EXPECT_EQ(std::memcmp(a, b, sizeof a), 0) << "trial " << trial;
    EXPECT_EQ(std::memcmp(x, y, sizeof x), 0) << "trial " << trial;
  }
  EXPECT_GT(exchanges, 100);  // the pivoting paths ran
}

TEST(DenseLu, SolvesFortyStatesAsLoops) {
  constexpr std::size_t N = 40;
  static_assert(N > kernels::unrolled_states);
  std::mt19937_64 rng(22);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> A(N * N), LU(N * N), x(N), b(N, 0.0);
  for (std::size_t i = 0; i < N * N; ++i) LU[i] = A[i] = u(rng) * (i % (N + 1) == 0 ? 0.05 : 1.0);
  for (std::size_t i = 0; i < N; ++i) x[i] = u(rng);
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < N; ++j) b[i] += A[i * N + j] * x[j];
  }
  int piv[N];
  ASSERT_TRUE(kernels::lu_factor<N>(LU.data(), piv));
  kernels::lu_solve<N>(LU.data(), piv, b.data());
  for (std::size_t i = 0; i < N; ++i) EXPECT_NEAR(b[i], x[i], 1e-10) << i;
  std::vector<double> S(N * N, 1.0);  // rank one: singular
  EXPECT_FALSE(kernels::lu_factor<N>(S.data(), piv));
}

// Random band matrices of several shapes with small diagonals, so that rows are exchanged: the band LU
// gives the dense LU's pivots and solution to the bit (it leaves out only operations on exact zeros),
// and that solution solves A x = b. V: double, or the complex numbers of Radau IIA's second matrix
// (pivots chosen by |re| + |im|).
template <std::size_t N, std::size_t L, std::size_t U, class V = double>
void expect_band_lu_equals_dense(std::uint32_t seed) {
  using Shape = kernels::BandShape<N, L, U>;
  static_assert(Shape::banded);
  constexpr bool complex = !std::is_same_v<V, double>;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto draw = [&] {
    if constexpr (complex) {
      const double re = u(rng);
      return V(re, u(rng));
    } else {
      return u(rng);
    }
  };
  int exchanges = 0;
  for (int trial = 0; trial < 50; ++trial) {
    V dense[N * N] = {}, band[Shape::lu_size] = {}, x[N], b_dense[N], b_band[N];
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t j = i > L ? i - L : 0; j <= i + U && j < N; ++j) {
        const V a = draw() * V(i == j ? 0.1 : 1.0);
        dense[i * N + j] = a;
        band[kernels::band_lu_at<Shape>(i, j)] = a;
      }
      x[i] = draw();
    }
    for (std::size_t i = 0; i < N; ++i) {
      b_dense[i] = V(0);
      for (std::size_t j = 0; j < N; ++j) b_dense[i] += dense[i * N + j] * x[j];
      b_band[i] = b_dense[i];
    }
    int piv_dense[N], piv_band[N];
    ASSERT_TRUE(kernels::lu_factor<N>(dense, piv_dense));
    ASSERT_TRUE(kernels::band_lu_factor<Shape>(band, piv_band));
    kernels::lu_solve<N>(dense, piv_dense, b_dense);
    kernels::band_lu_solve<Shape>(band, piv_band, b_band);
    for (std::size_t i = 0; i < N; ++i) {
      EXPECT_EQ(piv_band[i], piv_dense[i]) << "N " << N << " L " << L << " U " << U << " column " << i;
      EXPECT_TRUE(b_band[i] == b_dense[i]) << "N " << N << " L " << L << " U " << U << " x " << i;
      EXPECT_LT(kernels::magnitude(b_band[i] - x[i]), 1e-8)
          << "N " << N << " L " << L << " U " << U << " x " << i;
      exchanges += piv_band[i] != static_cast<int>(i);
    }
  }
  EXPECT_GT(exchanges, 0) << "no row was exchanged: the test would not see a pivoting error";
}

TEST(BandLu, EqualsTheDenseLuBitForBit) {
  expect_band_lu_equals_dense<12, 1, 1>(11);
  expect_band_lu_equals_dense<12, 2, 1>(12);
  expect_band_lu_equals_dense<12, 1, 3>(13);
  expect_band_lu_equals_dense<16, 2, 2>(14);
  expect_band_lu_equals_dense<9, 3, 1>(15);
}

// The same for complex matrices: the dense and band LU's solutions of A x = b (Radau IIA's E2).
TEST(BandLu, ComplexEqualsTheDenseLuBitForBit) {
  using C = kernels::Complex<double>;
  expect_band_lu_equals_dense<12, 1, 1, C>(21);
  expect_band_lu_equals_dense<16, 2, 2, C>(22);
  expect_band_lu_equals_dense<9, 3, 1, C>(23);
}

TEST(BandLu, FlagsASingularBand) {
  using Shape = kernels::BandShape<8, 1, 1>;
  double band[Shape::lu_size] = {};
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = i > 0 ? i - 1 : 0; j <= i + 1 && j < 8; ++j) band[kernels::band_lu_at<Shape>(i, j)] = 1.0;
  }
  int piv[8];
  EXPECT_FALSE(kernels::band_lu_factor<Shape>(band, piv));  // rows 0 and 1 are equal
}

// The band by AD (columns L + U + 1 apart share a direction) against the dense AD of the same system:
// the same bits in the band, zeros outside it. With 16 states the dense AD is one call with every
// column; with 24 it takes its columns 8 at a time (jacobian.hpp's dense_ad_group).
template <std::size_t M>
void expect_band_ad_equals_dense_ad() {
  using Banded = Bruss<M>;
  using Dense = Bruss<M, false>;
  constexpr std::size_t N = Banded::n_states;
  using Shape = kernels::RosenbrockShape<Banded, double>;
  static_assert(Shape::banded && Shape::lower == 2 && Shape::upper == 2);
  static_assert(!kernels::RosenbrockShape<Dense, double>::banded);
  static_assert(can_linearize_v<Banded, double> && can_linearize_v<Banded, float>);
  static_assert(can_linearize_v<Dense, double> && can_linearize_v<Dense, float>);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.5, 3.5);
  for (int trial = 0; trial < 20; ++trial) {
    double y[N], p[1] = {u(rng)}, f[N], J[N * N], ft[N], fb[N], Jb[Shape::jacobian_size], ftb[N];
    for (std::size_t i = 0; i < N; ++i) y[i] = u(rng);
    kernels::linearize<N, 1>(Dense{}, 0.0, y, p, f, J, ft);
    kernels::linearize_band<N, 1>(Banded{}, 0.0, y, p, fb, Jb, ftb);
    for (std::size_t i = 0; i < N; ++i) {
      EXPECT_EQ(fb[i], f[i]);
      EXPECT_EQ(ftb[i], ft[i]);
      for (std::size_t j = 0; j < N; ++j) {
        const bool in_band = j + Shape::lower >= i && j <= i + Shape::upper;
        if (in_band) {
          EXPECT_EQ(Jb[i * Shape::jacobian_width + (j + Shape::lower - i)], J[i * N + j]) << i << "," << j;
        } else {
          EXPECT_EQ(J[i * N + j], 0.0) << "outside the declared band: " << i << "," << j;
        }
      }
    }
  }
}

TEST(BandJacobian, ColumnGroupsGiveTheDenseAdBitForBit) {
  static_assert(kernels::detail::DenseColumns<16>::calls == 1 &&
                kernels::detail::DenseColumns<24>::calls == 3);
  expect_band_ad_equals_dense_ad<8>();
  expect_band_ad_equals_dense_ad<12>();
}

// Every state in every right-hand side: f_i = p0 sum_j a_ij sin(y_j) - y_i^3 + t y_i, a_ij = 1 / (1 + i +
// 2 j). J_ij = p0 a_ij cos(y_j) + (t - 3 y_i^2) [i = j], f_t = y.
template <std::size_t N>
struct AllCoupled {
  static constexpr std::size_t n_states = N;
  static constexpr std::size_t n_params = 1;
  static double a(std::size_t i, std::size_t j) { return 1.0 / double(1 + i + 2 * j); }
  template <class T>
  void operator()(T t, const T* y, const T* p, T* f) const {
    using std::sin;
    for (std::size_t i = 0; i < N; ++i) {
      T s(0.0);
      for (std::size_t j = 0; j < N; ++j) s += T(a(i, j)) * sin(y[j]);
      f[i] = p[0] * s - y[i] * y[i] * y[i] + t * y[i];
    }
  }
};

// Past 16 states the dense AD takes its columns in groups (several calls, a loop): each entry has the
// bits of one call with all N + 1 directions (the layout up to 16 states), and is the derivative.
template <std::size_t N>
void expect_grouped_ad_equals_one_call() {
  using System = AllCoupled<N>;
  using D = kernels::Dual<double, int(N) + 1>;
  static_assert(can_linearize_v<System, double>);
  static_assert(kernels::detail::DenseColumns<N>::calls == (N + 7) / 8, "8 columns a call past 16 states");
  std::mt19937_64 rng(N);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (int trial = 0; trial < 5; ++trial) {
    const double t = u(rng);
    double y[N], p[1] = {u(rng)}, f[N], J[N * N], ft[N];
    for (std::size_t i = 0; i < N; ++i) y[i] = u(rng);
    kernels::linearize<N, 1>(System{}, t, y, p, f, J, ft);
    D yd[N], pd[1] = {D(p[0])}, fd[N];
    for (std::size_t i = 0; i < N; ++i) yd[i] = D::variable(y[i], int(i));
    System{}(D::variable(t, int(N)), yd, pd, fd);
    for (std::size_t i = 0; i < N; ++i) {
      ASSERT_EQ(f[i], fd[i].v) << i;
      ASSERT_EQ(ft[i], fd[i].d[N]) << i;
      EXPECT_NEAR(ft[i], y[i], 1e-15);
      for (std::size_t j = 0; j < N; ++j) {
        ASSERT_EQ(J[i * N + j], fd[i].d[j]) << N << " states, entry " << i << "," << j;
        const double exact = p[0] * System::a(i, j) * std::cos(y[j]) + (i == j ? t - 3 * y[i] * y[i] : 0.0);
        EXPECT_NEAR(J[i * N + j], exact, 1e-14 * (1 + std::abs(exact))) << i << "," << j;
      }
    }
  }
}

TEST(DenseJacobian, ColumnGroupsGiveTheOneCallAdBitForBit) {
  expect_grouped_ad_equals_one_call<17>();  // two full groups and one column
  expect_grouped_ad_equals_one_call<40>();
}

// Whole solves: the band path gives the dense path's final states and step counts to the bit, for
// rodas4 and ros3p (whose step doubling linearises at the midpoint too), in both precisions.
template <class T, std::size_t M = 8>
void expect_band_solve_equals_dense(Method m) {
  SolveOptions o;
  o.method = m;
  o.t_end = 1;
  o.rtol = 1e-6;
  o.atol = 1e-6;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.outputs.counters = true;
  const std::vector<double> y1 = bruss_initial_state(M);
  const std::vector<double> A{0.9, 1.0, 1.1, 1.3};
  std::vector<T> y0, p;
  for (double a : A) {
    for (double v : y1) y0.push_back(T(v));
    p.push_back(T(a));
  }
  const SolveResult<T> band = solve_ivp(Bruss<M>{}, y0, p, o);
  const SolveResult<T> dense = solve_ivp(Bruss<M, false>{}, y0, p, o);
  for (std::size_t r = 0; r < A.size(); ++r) {
    ASSERT_EQ(band.status(r), Status::success) << to_string(m) << " run " << r;
    ASSERT_EQ(dense.status(r), Status::success) << to_string(m) << " run " << r;
    EXPECT_EQ(band.counters(r).accepted_steps, dense.counters(r).accepted_steps) << to_string(m);
    EXPECT_EQ(band.counters(r).rejected_steps, dense.counters(r).rejected_steps) << to_string(m);
    EXPECT_GT(band.counters(r).accepted_steps, 10u) << to_string(m);
    for (std::size_t s = 0; s < y1.size(); ++s) {
      EXPECT_EQ(band.final_state(r, s), dense.final_state(r, s)) << to_string(m) << " run " << r << " state " << s;
    }
  }
}

TEST(BandRosenbrock, SolvesAsTheDensePathBitForBit) {
  expect_band_solve_equals_dense<double>(Method::rodas4);
  expect_band_solve_equals_dense<double>(Method::ros3p);
  expect_band_solve_equals_dense<float>(Method::rodas4);
  // 24 states: the dense path's J by AD in three calls, its LU as loops (past 16 states).
  expect_band_solve_equals_dense<double, 12>(Method::rodas4);
}

// y' = 8 y: with rodas4 (gamma = 1/4) and a first step of 1/2, W = 1/(gamma h) - 8 = 0 exactly.
TEST(StiffStatus, SingularMatrixEndsTheRun) {
  SolveOptions o;
  o.method = Method::rodas4;
  o.t_end = 1;
  o.dt = 0.5;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  const auto r = solve_ivp(Decay{}, std::vector<double>{1.0, 1.0}, std::vector<double>{-8.0, -7.5}, o);
  EXPECT_EQ(r.status(0), Status::singular_matrix);
  EXPECT_EQ(r.final_state(0, 0), 1.0);  // the last accepted state: the start
  EXPECT_EQ(r.status(1), Status::success);
}

TEST(StiffStatus, StepSizeUnderflow) {
  // dy/dt = y^2 blows up at t = 1: the controller shrinks the step until it underflows (or the state
  // stops being finite); either way the run fails and says why.
  SolveOptions o;
  o.method = Method::rodas4;
  o.t_end = 2;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.step_control.dt_min = 1e-10;
  const auto r = solve_ivp(BlowUp{}, std::vector<double>{1.0}, std::vector<double>{1.0}, o);
  EXPECT_EQ(r.status(0), Status::step_size_underflow);
}

// y' = -2 (y - cos t) - sin t, y(0) = 2: y = cos t + exp(-2 t). Fixed steps through the stepper.
struct Forced {
  static constexpr std::size_t n_states = 2;
  static constexpr std::size_t n_params = 0;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T*, T* f) const {
    using std::cos, std::sin;
    f[0] = -2 * (y[0] - cos(t)) - sin(t);
    f[1] = -y[1] + y[0] * y[0];  // nonlinear coupling: y1 = exp(-t) (1 + int_0^t exp(s) y0(s)^2 ds)
  }
};

/// The stepper of stiff table Tab for Forced, started at (0, y). An ESDIRK or Radau stepper's Newton
/// iteration stops at tolerances far below the errors measured (rounding level).
template <class Tab>
StiffStepper<Tab, Forced, double> forced_stepper(const Vec<double, 2>& y) {
  StiffStepper<Tab, Forced, double> stepper;
  if constexpr (tableau::is_esdirk_v<Tab> || tableau::is_radau_v<Tab>) stepper.use_tolerances(1e-14, 1e-14);
  stepper.reset(Forced{}, 0.0, y, nullptr);
  return stepper;
}

template <class Tab>
double fixed_step_error(int steps, double t_end) {
  Vec<double, 2> y{{2.0, 1.0}}, y_new{}, err{};
  auto stepper = forced_stepper<Tab>(y);
  const double h = t_end / steps;
  for (int k = 0; k < steps; ++k) {
    stepper.step(Forced{}, k * h, y, nullptr, h, y_new, err);
    y = y_new;
    stepper.accept(Forced{}, (k + 1) * h, y, nullptr);
  }
  return std::fabs(y[0] - (std::cos(t_end) + std::exp(-2 * t_end)));
}

template <class Tab>
void expect_order(int order) {
  const double e1 = fixed_step_error<Tab>(20, 2.0), e2 = fixed_step_error<Tab>(40, 2.0),
               e3 = fixed_step_error<Tab>(80, 2.0);
  const double p1 = std::log2(e1 / e2), p2 = std::log2(e2 / e3);
  std::printf("[ %s ] fixed-step errors %.3g %.3g %.3g, observed orders %.3f %.3f\n", to_string(Tab::method).c_str(),
              e1, e2, e3, p1, p2);
  EXPECT_NEAR(p2, order, 0.25);
  EXPECT_GT(p1, order - 0.4);
}

TEST(StiffOrder, Ros3pIsThirdOrder) { expect_order<tableau::Ros3p>(3); }
TEST(StiffOrder, Rodas4IsFourthOrder) { expect_order<tableau::Rodas4>(4); }
TEST(StiffOrder, Rodas5pIsFifthOrder) { expect_order<tableau::Rodas5p>(5); }
TEST(StiffOrder, Kvaerno5IsFifthOrder) { expect_order<tableau::Kvaerno5>(5); }
TEST(StiffOrder, Radau5IsFifthOrder) { expect_order<tableau::RadauIIA5>(5); }
TEST(StiffOrder, Kvaerno3IsThirdOrder) { expect_order<tableau::Kvaerno3>(3); }
TEST(StiffOrder, KenCarp4IsFourthOrder) { expect_order<tableau::KenCarp4>(4); }
TEST(StiffOrder, Rodas4p2IsFourthOrder) { expect_order<tableau::Rodas4p2>(4); }

// The embedded estimates: local error ~ h^(error_order + 1).
template <class Tab>
double one_step_estimate(double h) {
  Vec<double, 2> y{{2.0, 1.0}}, y_new{}, err{};
  auto stepper = forced_stepper<Tab>(y);
  stepper.step(Forced{}, 0.0, y, nullptr, h, y_new, err);
  return std::hypot(err[0], err[1]);
}
/// The estimate's observed local order, from steps of 0.02 and 0.01: error_order + 1 within 0.3.
template <class Tab>
void expect_estimate_order() {
  const double order = std::log2(one_step_estimate<Tab>(0.02) / one_step_estimate<Tab>(0.01));
  std::printf("[ estimates ] %s local order %.3f\n", to_string(Tab::method).c_str(), order);
  EXPECT_NEAR(order, Tab::error_order + 1, 0.3) << to_string(Tab::method);
}
TEST(StiffOrder, EmbeddedEstimatesHaveTheirOrder) {
  expect_estimate_order<tableau::Ros3p>();
  expect_estimate_order<tableau::Rodas4>();
  expect_estimate_order<tableau::Rodas5p>();
  expect_estimate_order<tableau::Rodas4p2>();
  // The ESDIRKs' estimates are filtered by (I - gamma h J)^-1, which is I + O(h): the order stays.
  expect_estimate_order<tableau::Kvaerno5>();
  expect_estimate_order<tableau::Kvaerno3>();
  expect_estimate_order<tableau::KenCarp4>();
  // radau5's (order 3): RADAU5's second form on a first step, E1^-1 (f(y + first form) + ...).
  expect_estimate_order<tableau::RadauIIA5>();
}

// y' = -k (y - cos t), y(0) = 1 (on its slow solution, y ~ cos t), with a Jacobian member that is wrong
// (zero; the true one is -k): kvaerno5's Newton iteration is then the fixed-point iteration
// Y = base + gamma h f(Y), which contracts only for gamma h k < 1, i.e. h below 4e-6 at k = 1e6 (radau5's
// likewise, for h k of order one). With
// dt_min = 1e-5 no step that large can converge: the run ends as newton_failure once its steps must grow
// past it, not at a wrong answer. With the true Jacobian the same settings succeed.
struct StiffRelaxation {
  static constexpr std::size_t n_states = 1;
  static constexpr std::size_t n_params = 0;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T t, const T* y, const T*, T* f) const {
    using std::cos;
    f[0] = T(-1e6) * (y[0] - cos(t));
  }
};
struct StiffRelaxationWrongJacobian : StiffRelaxation {
  template <class T>
  BATCHODE_HOST_DEVICE void jacobian(T, const T*, const T*, T* J) const {
    J[0] = 0;
  }
};
class NewtonFailure : public ::testing::TestWithParam<Method> {};
TEST_P(NewtonFailure, WithAWrongJacobian) {
  SolveOptions o;
  o.method = GetParam();
  o.t_end = 1;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.step_control.dt_min = 1e-5;
  const auto wrong = solve_ivp(StiffRelaxationWrongJacobian{}, std::vector<double>{1.0}, {}, o);
  EXPECT_EQ(wrong.status(0), Status::newton_failure) << to_string(wrong.status(0));
  EXPECT_LT(wrong.stop_time(0), 1e-3);  // the first steps, below 4e-6, converge
  EXPECT_EQ(to_string(Status::newton_failure), "newton_failure");
  const auto right = solve_ivp(StiffRelaxation{}, std::vector<double>{1.0}, {}, o);
  EXPECT_EQ(right.status(0), Status::success) << to_string(right.status(0));
  EXPECT_NEAR(right.final_state(0, 0), std::cos(1.0), 1e-5);
}
INSTANTIATE_TEST_SUITE_P(ImplicitMethods, NewtonFailure,
                         ::testing::Values(Method::kvaerno5, Method::radau5, Method::kvaerno3,
                                           Method::kencarp4),
                         [](const ::testing::TestParamInfo<Method>& param_info) {
                           return to_string(param_info.param);
                         });

}  // namespace
