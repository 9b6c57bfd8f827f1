// The stiff methods over a system's own sparse LU (kernels/linalg/sparse_lu.hpp), written here by
// hand as generated model code writes it: the layout a step takes, a solve against the closed form and
// the dense path, and the fixed pivot order meeting a zero pivot of W = I / (gamma h) - J at a large
// step: the step is rejected (never a factorisation of noise, never the end of the run) and the retry
// at a smaller step succeeds.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <batchode/kernels/linalg/jacobian.hpp>
#include <batchode/kernels/linalg/sparse_lu.hpp>
#include <batchode/kernels/methods/rosenbrock_stepper.hpp>
#include <cmath>
#include <limits>
#include <vector>

namespace {

using namespace batchode;

// y0' = a y0 + b y1, y1' = d y1: an upper triangular J with a growing mode a > 0 beside a stiff one d.
// Closed form: y1 = y1(0) e^{d t}, y0 = y0(0) e^{a t} + b y1(0) (e^{d t} - e^{a t}) / (d - a).
struct Triangular {
  static constexpr std::size_t n_states = 2;
  static constexpr std::size_t n_params = 3;  // a, b, d
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* f) const {
    f[0] = p[0] * y[0] + p[1] * y[1];
    f[1] = p[2] * y[1];
  }
  template <class T>
  BATCHODE_HOST_DEVICE void time_derivative(T, const T*, const T*, T* ft) const {
    ft[0] = ft[1] = T(0);
  }
};

// The same system with the sparse LU members, as codegen.cpp writes them: J's nonzeros (0,0), (0,1),
// (1,1); the pivot order 1, 0 (Markowitz takes the row of one entry first); slots (row, column) in pivot
// positions: 0 = (0, 0) state 1's diagonal, 1 = (1, 0) state 0's column of state 1, 2 = (1, 1).
struct TriangularSparse : Triangular {
  static constexpr std::size_t jacobian_nonzeros = 3;
  static constexpr std::size_t sparse_lu_size = 3;
  template <class T>
  BATCHODE_HOST_DEVICE void sparse_jacobian(T, const T*, const T* p, T* Js) const {
    Js[0] = p[0];
    Js[1] = p[1];
    Js[2] = p[2];
  }
  template <class T>
  BATCHODE_HOST_DEVICE bool sparse_lu_factor(T diag, const T* Js, T* W) const {
    namespace kl = batchode::kernels;
    T terms;
    W[0] = diag - Js[2];
    W[1] = -Js[1];
    W[2] = diag - Js[0];
    terms = kl::magnitude(diag) + kl::magnitude(Js[2]);
    if (!kl::usable_pivot(W[0], terms)) return false;
    W[0] = T(1) / W[0];
    terms = kl::magnitude(diag) + kl::magnitude(Js[0]);
    if (!kl::usable_pivot(W[2], terms)) return false;
    W[2] = T(1) / W[2];
    return true;
  }
  template <class T>
  BATCHODE_HOST_DEVICE void sparse_lu_solve(const T* W, T* b) const {
    b[1] *= W[0];
    b[0] -= W[1] * b[1];
    b[0] *= W[2];
  }
};

static_assert(has_sparse_lu_v<TriangularSparse, double> && !has_sparse_lu_v<Triangular, double>);
static_assert(kernels::RosenbrockShape<TriangularSparse, double>::sparse &&
              kernels::RosenbrockShape<TriangularSparse, double>::lu_size == 3);
static_assert(!kernels::RosenbrockShape<Triangular, double>::sparse);

std::vector<double> exact(double a, double b, double d, double t) {
  const double y0 = 1.0, y1 = 1.0;
  return {y0 * std::exp(a * t) + b * y1 * (std::exp(d * t) - std::exp(a * t)) / (d - a), y1 * std::exp(d * t)};
}

/// `method` on the CPU to t_end at rtol 1e-8, atol 1e-10, with counters.
SolveOptions cpu_options(Method method, double t_end) {
  SolveOptions o;
  o.method = method;
  o.t_end = t_end;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  o.backend = Backend::cpu;
  o.verbosity = Verbosity::none;
  o.outputs.counters = true;
  return o;
}

TEST(SparseLuSteps, SolveAsTheClosedFormAndTheDensePath) {
  const std::vector<double> y0 = {1.0, 1.0, 1.0, 1.0}, params = {0.5, 3.0, -200.0, 0.25, -1.0, -50.0};
  // kvaerno5's real W, and radau5's real E1 and complex E2 through the same generated code.
  for (const Method method : {Method::rodas4, Method::ros3p, Method::kvaerno5, Method::radau5}) {
    const SolveOptions o = cpu_options(method, 2.0);
    const auto sparse = solve_ivp(TriangularSparse{}, y0, params, o);
    const auto dense = solve_ivp(Triangular{}, y0, params, o);
    ASSERT_TRUE(sparse.all_succeeded() && dense.all_succeeded());
    for (std::size_t r = 0; r < 2; ++r) {
      const std::vector<double> want = exact(params[3 * r], params[3 * r + 1], params[3 * r + 2], o.t_end);
      for (std::size_t i = 0; i < 2; ++i) {
        // Global error: within 50 local tolerances (reference_test.cpp's factor).
        EXPECT_NEAR(sparse.final_state(r, i), want[i], 50 * (o.atol + o.rtol * std::fabs(want[i])))
            << to_string(method) << " run " << r << " state " << i;
        EXPECT_NEAR(sparse.final_state(r, i), dense.final_state(r, i), 1e-12 * std::fabs(want[i]) + 1e-14);
      }
      EXPECT_EQ(sparse.counters(r).accepted_steps, dense.counters(r).accepted_steps) << to_string(method);
    }
  }
}

TEST(SparseLuSteps, AZeroPivotAtALargeStepRejectsTheStepAndASmallerOneSucceeds) {
  // a = 2 and rodas4's gamma = 0.25: at h = 2, 1 / (gamma h) = 2 = a, so state 0's pivot is exactly 0.
  const double p[3] = {2.0, 3.0, -200.0};
  const TriangularSparse sys;
  using Stepper = RosenbrockStepper<tableau::Rodas4, double, 2, kernels::RosenbrockShape<TriangularSparse, double>>;
  Stepper stepper;
  const Vec<double, 2> y = {{1.0, 1.0}};
  Vec<double, 2> y_new{}, err{};
  stepper.reset(sys, 0.0, y, p);
  stepper.step(sys, 0.0, y, p, 2.0, y_new, err);
  EXPECT_EQ(stepper.failure(), Status::success) << "a lost pivot ends no run";
  EXPECT_TRUE(std::isinf(err[0]) && std::isinf(err[1]));
  EXPECT_EQ(y_new[0], 1.0);
  EXPECT_EQ(y_new[1], 1.0);
  stepper.step(sys, 0.0, y, p, 0.01, y_new, err);
  EXPECT_EQ(stepper.failure(), Status::success);
  EXPECT_TRUE(std::isfinite(err[0]) && std::isfinite(err[1]));
  // The same step through the dense LU (partial pivoting, no zero pivot there): the same step.
  using DenseStepper = RosenbrockStepper<tableau::Rodas4, double, 2, kernels::RosenbrockShape<Triangular, double>>;
  DenseStepper dense;
  Vec<double, 2> y_dense{}, err_dense{};
  dense.reset(Triangular{}, 0.0, y, p);
  dense.step(Triangular{}, 0.0, y, p, 0.01, y_dense, err_dense);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_NEAR(y_new[i], y_dense[i], 1e-14) << i;
    EXPECT_NEAR(err[i], err_dense[i], 1e-14) << i;
  }

  // The whole solve, started at that step (t_end past it, so that it is not shortened to land):
  // rejected there, then solved to the closed form.
  SolveOptions o = cpu_options(Method::rodas4, 4.0);
  o.dt = 2.0;
  const auto r = solve_ivp(sys, std::vector<double>{1.0, 1.0}, std::vector<double>(p, p + 3), o);
  ASSERT_EQ(r.status(0), Status::success);
  EXPECT_GE(r.counters(0).rejected_steps, 1u);
  const std::vector<double> at_end = exact(2.0, 3.0, -200.0, o.t_end);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_NEAR(r.final_state(0, i), at_end[i], 50 * (o.atol + o.rtol * std::fabs(at_end[i]))) << i;
  }
}

}  // namespace
