// Exact solutions, swept over the batch: every run against its own analytic value at every save.
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>

#include "test_systems.hpp"

namespace {

using batchode::testing::Decay;
using batchode::testing::Oscillator;

template <class T>
class Analytic : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Analytic, Precisions);

TYPED_TEST(Analytic, DecayRateSweptEverySave) {
  using T = TypeParam;
  const std::size_t runs = 64;
  std::vector<T> y0(runs, T(1)), k = batchode::linspace<T>(0.1, 5.0, runs);
  batchode::SolveOptions opt;
  opt.outputs.counters = true;  // read below (counters are off by default)
  opt.t_end = 2.0;
  opt.save_every = 0.25;
  opt.rtol = std::is_same_v<T, float> ? 1e-5 : 1e-8;
  opt.atol = opt.rtol * 1e-2;
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  for (batchode::Method m : {batchode::Method::dopri5, batchode::Method::tsit5, batchode::Method::cash_karp54,
                             batchode::Method::fehlberg78, batchode::Method::bogacki_shampine32}) {
    opt.method = m;
    const auto r = batchode::solve_ivp(Decay{}, y0, k, opt);
    ASSERT_EQ(r.n_saves(), 9u);
    for (std::size_t i = 0; i < runs; ++i) {
      ASSERT_EQ(r.status(i), batchode::Status::success);
      for (std::size_t s = 0; s < r.n_saves(); ++s) {
        const double exact = std::exp(-double(k[i]) * double(r.times()[s]));
        // Global error of a tolerance-controlled run stays within a small multiple of rtol here.
        EXPECT_NEAR(r.state_at(i, s, 0), exact, 50 * opt.rtol * std::max(exact, 1e-2))
            << to_string(m) << " run " << i << " save " << s;
      }
    }
  }
}

TYPED_TEST(Analytic, OscillatorFrequencySweptFixedStep) {
  using T = TypeParam;
  const std::size_t runs = 32;
  std::vector<T> y0;
  for (std::size_t i = 0; i < runs; ++i) {
    y0.push_back(T(1));
    y0.push_back(T(0.5));
  }
  const std::vector<T> w = batchode::linspace<T>(0.5, 3.0, runs);
  batchode::SolveOptions opt;
  opt.outputs.counters = true;  // read below (counters are off by default)
  opt.method = batchode::Method::rk4;
  opt.dt = 1e-3;
  opt.t_end = 3.0;
  opt.save_every = 0.5;
  opt.backend = batchode::Backend::cpu;
  opt.verbosity = batchode::Verbosity::none;
  const auto r = batchode::solve_ivp(Oscillator{}, y0, w, opt);
  const double tol = std::is_same_v<T, float> ? 2e-4 : 1e-9;
  for (std::size_t i = 0; i < runs; ++i) {
    EXPECT_EQ(r.counters(i).accepted_steps, 3000u);
    for (std::size_t s = 0; s < r.n_saves(); ++s) {
      const double t = double(r.times()[s]), om = double(w[i]);
      EXPECT_NEAR(r.state_at(i, s, 0), std::cos(om * t) + 0.5 / om * std::sin(om * t), tol);
    }
  }
}

}  // namespace
