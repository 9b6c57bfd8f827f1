// Observables (issue 11): a system's named auxiliary quantities saved beside the state at every save.
// Each saved observable is the system's function of that saved point (landed or interpolated), bit for
// bit, on the CPU path and the GPU kernel's body; the oscillator's energy keeps its closed form; points
// a failed run never reached are NaN; names (given or default), writers and a system without saves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/batchode.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kernel_body_on_host.hpp"
#include "oscillator_batch.hpp"
#include "test_systems.hpp"

namespace {

using namespace batchode;
using batchode::testing::Oscillator;
using batchode::testing::run_kernel_body_on_host;
using ::testing::HasSubstr;

constexpr auto oscillators = batchode::testing::oscillator_batch;
constexpr auto options = batchode::testing::quiet_cpu_options;

/// The oscillator with two observables: its energy (v^2 + w^2 x^2) / 2, w^2 / 2 from (1, 0), and x v.
struct OscillatorObserved : Oscillator {
  static constexpr std::size_t n_observables = 2;
  static constexpr const char* observable_names[] = {"energy", "xv"};
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T, const T* y, const T* p, T* out) const {
    out[0] = T(0.5) * (y[1] * y[1] + p[0] * p[0] * y[0] * y[0]);
    out[1] = y[0] * y[1];
  }
};

/// The same without names: "observable0", "observable1".
struct OscillatorUnnamed : Oscillator {
  static constexpr std::size_t n_observables = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T t, const T* y, const T*, T* out) const {
    out[0] = t + y[0];
  }
};

/// Every saved observable equals the system's function of the saved state and time, bit for bit.
template <class T>
void expect_observables_of_saved_points(const SolveResult<T>& r, const Batch<T>& batch, const std::string& what) {
  ASSERT_EQ(r.n_observables(), 2u);
  ASSERT_EQ(r.observables().size(), r.n_runs() * r.n_saves() * 2);
  for (std::size_t i = 0; i < r.n_runs(); ++i) {
    for (std::size_t k = 0; k < r.n_saves(); ++k) {
      const T y[2] = {r.state_at(i, k, 0), r.state_at(i, k, 1)};
      T expected[2];
      OscillatorObserved{}.observables(r.time(i, k), y, &batch.params[i], expected);
      ASSERT_EQ(r.observable_at(i, k, 0), expected[0]) << what << " run " << i << " save " << k;
      ASSERT_EQ(r.observable_at(i, k, 1), expected[1]) << what << " run " << i << " save " << k;
    }
  }
}

TEST(Observables, SavedBesideEveryPointLandedOrInterpolatedOnTheCpu) {
  const Batch<double> batch = oscillators(7, 0.5, 3.0);
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    for (SaveMode mode : {SaveMode::land, SaveMode::interpolate}) {
      SolveOptions o = options(m, 3.0);
      o.rtol = o.atol = 1e-10;
      if (m == Method::rk4) o.dt = 1e-3;
      o.save_mode = mode;
      o.save_every = 0.1;
      const SolveResult<double> r = solve_ivp(OscillatorObserved{}, batch, o);
      ASSERT_TRUE(r.all_succeeded());
      EXPECT_EQ(r.observable_names(), (std::vector<std::string>{"energy", "xv"}));
      const std::string what = to_string(m) + (mode == SaveMode::land ? " landed" : " interpolated");
      expect_observables_of_saved_points(r, batch, what);
      // The energy is conserved: w^2 / 2 at every point, to the tolerance.
      for (std::size_t i = 0; i < batch.n_runs; ++i) {
        const double w = batch.params[i];
        for (std::size_t k = 0; k < r.n_saves(); ++k) {
          EXPECT_NEAR(r.observable_at(i, k, 0), 0.5 * w * w, m == Method::rodas4 ? 1e-6 : 1e-7) << what;
        }
      }
      // The states are those of the system without observables: saving them changes nothing else.
      const SolveResult<double> plain = solve_ivp(Oscillator{}, batch, o);
      ASSERT_EQ(plain.series().size(), r.series().size());
      for (std::size_t v = 0; v < r.series().size(); ++v) ASSERT_EQ(plain.series()[v], r.series()[v]) << what;
    }
  }
}

// The kernel body (device layout, runs fastest) saves them too, with each run's own save times.
TEST(Observables, KernelBodySavesThemInTheDeviceLayout) {
  const Batch<float> batch = batchode::testing::in_precision<float>(oscillators(9, 0.5, 3.0));
  for (Method m : {Method::dopri5, Method::rodas4}) {
    SolveOptions o = options(m, 2.0);
    o.rtol = o.atol = 1e-5;
    std::vector<double> times;
    for (std::size_t r = 0; r < batch.n_runs; ++r) {
      for (int k = 0; k < 20; ++k) times.push_back(0.05 * (k + 1) + 0.01 * double(r));
    }
    o.save_at_per_run = PerRunSaveTimes(20, times);
    const SolveResult<float> body = run_kernel_body_on_host(OscillatorObserved{}, batch, o);
    expect_observables_of_saved_points(body, batch, to_string(m) + " kernel body");
    const SolveResult<float> cpu = solve_ivp(OscillatorObserved{}, batch, o);
    for (std::size_t v = 0; v < cpu.observables().size(); ++v) {
      ASSERT_NEAR(cpu.observables()[v], body.observables()[v], 1e-3) << to_string(m) << " value " << v;
    }
  }
}

// A run that fails leaves NaN observables where it never got; default names; no saves, no observables.
TEST(Observables, UnreachedPointsAreNaNAndNamesDefault) {
  Batch<double> batch = oscillators(2, 1.0, 1.0);
  SolveOptions o = options(Method::dopri5, 10.0);
  o.save_every = 1.0;
  o.max_steps = 20;  // not enough to reach t = 10
  const SolveResult<double> r = solve_ivp(OscillatorUnnamed{}, batch, o);
  EXPECT_EQ(r.observable_names(), (std::vector<std::string>{"observable0"}));
  ASSERT_EQ(r.status(0), Status::max_steps_reached);
  EXPECT_EQ(r.observable_at(0, 0, 0), 0.0 + 1.0);  // t + x at t = 0
  EXPECT_TRUE(std::isnan(r.observable_at(0, 10, 0)));
  EXPECT_THROW((void)r.observable_at(0, 11, 0), std::out_of_range);
  EXPECT_THROW((void)r.observable_index("energy"), std::out_of_range);

  SolveOptions final_only = options(Method::dopri5, 1.0);
  SolveResult<double> none = solve_ivp(OscillatorUnnamed{}, batch, final_only);
  EXPECT_TRUE(none.observables().empty());
  EXPECT_EQ(none.view().observables, nullptr);
}

// NPY and CSV carry them, by name.
TEST(Observables, WritersCarryThem) {
  const Batch<double> batch = oscillators(2, 1.0, 2.0);
  SolveOptions o = options(Method::dopri5, 1.0);
  o.save_every = 0.5;
  const SolveResult<double> r = solve_ivp(OscillatorObserved{}, batch, o);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "batchode_observables_test";
  std::filesystem::create_directories(dir);
  write_npy(r, (dir / "out").string());
  std::ifstream npy(dir / "out_observables.npy", std::ios::binary);
  const std::string header((std::istreambuf_iterator<char>(npy)), std::istreambuf_iterator<char>());
  EXPECT_THAT(header, HasSubstr("'shape': (2,3,2)"));
  write_csv(r, (dir / "out.csv").string());
  std::ifstream csv(dir / "out.csv");
  std::string first;
  std::getline(csv, first);
  EXPECT_EQ(first, "run,t,status,t_stop,y0,y1,energy,xv");
  std::filesystem::remove_all(dir);
}

}  // namespace
