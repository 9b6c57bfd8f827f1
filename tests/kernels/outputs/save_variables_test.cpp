// The series' variables chosen by name (SolveOptions::save_variables, issue 11): a chosen series holds
// exactly the full series' columns of the chosen states and observables, in the system's order, bit
// for bit, on the CPU path and the GPU kernel's body (device layout, masked sink), landed and
// interpolated, with per-run save times, beside summaries, past 64 variables; runs that fail leave NaN
// in the chosen columns only; the writers carry the chosen columns; bad names are refused by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <batchode/backends/cpu/run_range.hpp>
#include <batchode/batchode.hpp>
#include <batchode/kernels/launch/batch_kernel.hpp>
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
using batchode::testing::Lorenz;
using batchode::testing::run_kernel_body_on_host;
using ::testing::HasSubstr;

/// Lorenz with named states and two observables, x y and the distance from the origin.
struct NamedLorenz : Lorenz {
  static constexpr const char* state_names[] = {"x", "y", "z"};
  static constexpr std::size_t n_observables = 2;
  static constexpr const char* observable_names[] = {"xy", "distance"};
  template <class T>
  BATCHODE_HOST_DEVICE void observables(T, const T* y, const T*, T* out) const {
    out[0] = y[0] * y[1];
    out[1] = batchode::port::sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
  }
};

template <class T>
Batch<T> lorenz_runs(std::size_t runs) {
  Batch<T> b;
  b.n_runs = runs;
  b.y0.resize(3 * runs);
  b.params.resize(3 * runs);
  for (std::size_t r = 0; r < runs; ++r) {
    b.y0[3 * r] = T(1);
    b.y0[3 * r + 1] = T(1) + T(0.1) * T(r);
    b.y0[3 * r + 2] = T(1);
    b.params[3 * r] = T(10);
    b.params[3 * r + 1] = T(20) + T(r);
    b.params[3 * r + 2] = T(8) / T(3);
  }
  return b;
}

SolveOptions lorenz_options(Method m) {
  SolveOptions o = batchode::testing::quiet_cpu_options(m, 1.0);
  o.rtol = o.atol = 1e-8;
  if (m == Method::rk4) o.dt = 1e-3;
  o.save_every = 0.05;
  return o;
}

/// `chosen` holds, column by column, the full result's states `states` and observables `observables`,
/// bit for bit, and nothing else.
template <class T>
void expect_columns_of(const SolveResult<T>& chosen, const SolveResult<T>& full,
                       const std::vector<std::size_t>& states, const std::vector<std::size_t>& observables,
                       const std::string& what) {
  ASSERT_EQ(chosen.series_states(), states) << what;
  ASSERT_EQ(chosen.n_series_states(), states.size()) << what;
  ASSERT_EQ(chosen.n_observables(), observables.size()) << what;
  ASSERT_EQ(chosen.n_saves(), full.n_saves()) << what;
  ASSERT_EQ(chosen.series().size(), chosen.n_runs() * chosen.n_saves() * states.size()) << what;
  ASSERT_EQ(chosen.observables().size(), chosen.n_runs() * chosen.n_saves() * observables.size()) << what;
  auto same = [](T a, T b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  for (std::size_t r = 0; r < full.n_runs(); ++r) {
    for (std::size_t k = 0; k < full.n_saves(); ++k) {
      for (std::size_t c = 0; c < states.size(); ++c) {
        ASSERT_TRUE(same(chosen.state_at(r, k, c), full.state_at(r, k, states[c])))
            << what << " run " << r << " save " << k << " column " << c;
      }
      for (std::size_t c = 0; c < observables.size(); ++c) {
        ASSERT_TRUE(same(chosen.observable_at(r, k, c), full.observable_at(r, k, observables[c])))
            << what << " run " << r << " save " << k << " observable column " << c;
      }
    }
  }
  for (std::size_t i = 0; i < full.final_state().size(); ++i)
    ASSERT_EQ(chosen.final_state()[i], full.final_state()[i]);
}

TEST(SaveVariables, ChosenColumnsAreTheFullSeriesColumnsOnTheCpu) {
  const Batch<double> batch = lorenz_runs<double>(5);
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    for (SaveMode mode : {SaveMode::land, SaveMode::interpolate}) {
      SolveOptions o = lorenz_options(m);
      o.save_mode = mode;
      const std::string what = to_string(m) + (mode == SaveMode::land ? " landed" : " interpolated");
      const SolveResult<double> full = solve_ivp(NamedLorenz{}, batch, o);
      o.save_variables = {"distance", "z", "x"};  // kept in the system's order: x, z, then distance
      const SolveResult<double> chosen = solve_ivp(NamedLorenz{}, batch, o);
      ASSERT_TRUE(chosen.all_succeeded()) << what;
      EXPECT_FALSE(chosen.saves_every_variable());
      EXPECT_EQ(chosen.series_state_names(), (std::vector<std::string>{"x", "z"}));
      EXPECT_EQ(chosen.observable_names(), (std::vector<std::string>{"distance"}));
      EXPECT_EQ(chosen.series_column("z"), 1u);
      EXPECT_THROW((void)chosen.series_column("y"), std::out_of_range);
      expect_columns_of(chosen, full, {0, 2}, {1}, what);
    }
  }
}

// A series of one observable holds no state (and no array for them); one of one state computes no
// observable; naming every variable is the unchosen series.
TEST(SaveVariables, OnlyObservablesOnlyStatesOrEveryVariable) {
  const Batch<double> batch = lorenz_runs<double>(3);
  SolveOptions o = lorenz_options(Method::dopri5);
  const SolveResult<double> full = solve_ivp(NamedLorenz{}, batch, o);
  o.save_variables = {"xy"};
  SolveResult<double> observed = solve_ivp(NamedLorenz{}, batch, o);
  EXPECT_TRUE(observed.series().empty());
  EXPECT_EQ(observed.view().series, nullptr);
  expect_columns_of(observed, full, {}, {0}, "xy alone");
  o.save_variables = {"y"};
  SolveResult<double> state = solve_ivp(NamedLorenz{}, batch, o);
  EXPECT_TRUE(state.observables().empty());
  EXPECT_TRUE(state.observable_names().empty());
  expect_columns_of(state, full, {1}, {}, "y alone");
  o.save_variables = {"distance", "xy", "z", "y", "x"};
  const SolveResult<double> every = solve_ivp(NamedLorenz{}, batch, o);
  EXPECT_TRUE(every.saves_every_variable());
  expect_columns_of(every, full, {0, 1, 2}, {0, 1}, "every variable named");
}

// A run that fails holds NaN in the chosen columns where it never got, as the full series does.
TEST(SaveVariables, FailedRunsLeaveNaNInTheChosenColumns) {
  const Batch<double> batch = lorenz_runs<double>(2);
  SolveOptions o = lorenz_options(Method::dopri5);
  o.max_steps = 30;
  const SolveResult<double> full = solve_ivp(NamedLorenz{}, batch, o);
  ASSERT_EQ(full.status(0), Status::max_steps_reached);
  o.save_variables = {"z", "xy"};
  const SolveResult<double> chosen = solve_ivp(NamedLorenz{}, batch, o);
  ASSERT_EQ(chosen.status(0), Status::max_steps_reached);
  EXPECT_TRUE(std::isnan(chosen.state_at(0, full.n_saves() - 1, 0)));
  EXPECT_TRUE(std::isnan(chosen.observable_at(0, full.n_saves() - 1, 0)));
  expect_columns_of(chosen, full, {2}, {0}, "failed runs");
}

// The GPU kernel's body (device layout, the masked device sinks) writes the same columns as its full
// series, bit for bit, with each run's own save times; and agrees with the CPU path.
TEST(SaveVariables, KernelBodyWritesTheChosenColumnsOfItsFullSeries) {
  const Batch<float> batch = lorenz_runs<float>(6);
  for (Method m : {Method::dopri5, Method::rk4, Method::rodas4}) {
    SolveOptions o = lorenz_options(m);
    o.rtol = o.atol = 1e-5;
    o.save_every.reset();
    std::vector<double> times;
    for (std::size_t r = 0; r < batch.n_runs; ++r) {
      for (int k = 0; k < 12; ++k) times.push_back(0.07 * (k + 1) + 0.01 * double(r));
    }
    o.save_at_per_run = PerRunSaveTimes(12, times);
    const SolveResult<float> full = run_kernel_body_on_host(NamedLorenz{}, batch, o);
    o.save_variables = {"y", "distance"};
    const SolveResult<float> body = run_kernel_body_on_host(NamedLorenz{}, batch, o);
    expect_columns_of(body, full, {1}, {1}, to_string(m) + " kernel body");
    const SolveResult<float> cpu = solve_ivp(NamedLorenz{}, batch, o);
    expect_columns_of(cpu,
                      solve_ivp(NamedLorenz{}, batch,
                                [&] {
                                  SolveOptions all = o;
                                  all.save_variables.clear();
                                  return all;
                                }()),
                      {1}, {1}, to_string(m) + " cpu");
    for (std::size_t v = 0; v < cpu.series().size(); ++v) {
      ASSERT_NEAR(cpu.series()[v], body.series()[v], 2e-2f * std::max(1.0f, std::fabs(cpu.series()[v])))
          << to_string(m) << " value " << v;
    }
  }
}

// Summaries keep every variable they were asked for while the series keeps the chosen ones: the
// summaries are the unchosen solve's, bit for bit.
TEST(SaveVariables, SummariesBesideAChosenSeries) {
  const Batch<double> batch = lorenz_runs<double>(4);
  SolveOptions o = lorenz_options(Method::rk4);
  o.summaries.metrics = {"mean", "max", "peaks[2]"};
  o.summaries.summarise_every = 0.5;
  o.summaries.sample_summaries_every = 0.01;
  o.save_every = 0.1;
  const SolveResult<double> full = solve_ivp(NamedLorenz{}, batch, o);
  o.save_variables = {"x"};
  const SolveResult<double> chosen = solve_ivp(NamedLorenz{}, batch, o);
  expect_columns_of(chosen, full, {0}, {}, "with summaries");
  ASSERT_EQ(chosen.summaries().size(), full.summaries().size());
  for (std::size_t v = 0; v < full.summaries().size(); ++v) {
    const double a = full.summaries()[v], b = chosen.summaries()[v];
    ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << v;
  }
  // The kernel body, whose summary kernel takes the same masked sinks.
  const SolveResult<double> body_full = [&] {
    SolveOptions all = o;
    all.save_variables.clear();
    return run_kernel_body_on_host(NamedLorenz{}, batch, all);
  }();
  expect_columns_of(run_kernel_body_on_host(NamedLorenz{}, batch, o), body_full, {0}, {},
                    "kernel body, summaries");
}

// Past the 64 variables summaries can choose from: the mask has room for 512, and the series sink, in
// the CPU's layout and the device's (run here on the host), places the chosen states of a 70-state
// system and an observable after them in the same columns. (The sinks alone: a 70-state system solved would
// instantiate every method's stepper for it, minutes of the sanitized build.)
TEST(SaveVariables, StatesPast64AreChosenByNameAndPlacedAlikeByBothSinks) {
  constexpr std::size_t N = 70;
  std::vector<std::string> states;
  for (std::size_t i = 0; i < N; ++i) states.push_back("y" + std::to_string(i));
  SolveOptions o = lorenz_options(Method::rk4);
  o.save_variables = {"y69", "y3", "w", "y66"};
  const SeriesLayout layout = plan_series(o, states, {"u", "w"});
  EXPECT_EQ(layout.state_names, (std::vector<std::string>{"y3", "y66", "y69"}));
  EXPECT_EQ(layout.observables, (std::vector<std::size_t>{1}));
  RunSettings<double> plan = make_run_settings<double>(o, nullptr, nullptr, nullptr, &layout);
  ASSERT_EQ(plan.series_chosen, 1u);
  ASSERT_EQ(plan.series_states, 3u);
  ASSERT_EQ(plan.series_observables, 1u);
  EXPECT_TRUE(variable_chosen(plan.series_variables, 66));
  EXPECT_TRUE(variable_chosen(plan.series_variables, N + 1));
  EXPECT_FALSE(variable_chosen(plan.series_variables, N));
  double y[N];
  for (std::size_t i = 0; i < N; ++i) y[i] = double(i) + 0.5;
  // Room for 2 saves of every state (the sinks' unchosen path), of which 2 x 3 columns are written;
  // the device's 2 runs fastest.
  std::vector<double> cpu(2 * N, -1.0), device(2 * N * 2, -1.0);
  // One sink, two layouts: the CPU's run row (stride 1) and run 1 of the device's 2 (stride 2).
  StridedSeriesSink<double, N> cpu_sink{cpu.data(), 1, 0, &plan};
  StridedSeriesSink<double, N> device_sink{device.data(), 2, 1, &plan};
  cpu_sink.save(1, 0.0, y);
  device_sink.save(1, 0.0, y);
  EXPECT_EQ(std::vector<double>(cpu.begin() + 3, cpu.begin() + 6), (std::vector<double>{3.5, 66.5, 69.5}));
  EXPECT_EQ(cpu[6], -1.0);
  for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(device[(3 + c) * 2 + 1], cpu[3 + c]) << c;
  cpu_sink.mark_unsaved(0);
  EXPECT_TRUE(std::isnan(cpu[0]) && std::isnan(cpu[2]));
  EXPECT_EQ(cpu[3], 3.5);
}

TEST(SaveVariables, BadNamesAndSeriesWithoutSavesAreRefusedByName) {
  const Batch<double> batch = lorenz_runs<double>(1);
  SolveOptions o = lorenz_options(Method::dopri5);
  auto refused = [&](std::vector<std::string> names, const std::string& message) {
    SolveOptions bad = o;
    bad.save_variables = std::move(names);
    try {
      (void)solve_ivp(NamedLorenz{}, batch, bad);
      ADD_FAILURE() << "not refused: " << message;
    } catch (const InvalidInput& e) {
      EXPECT_THAT(e.what(), HasSubstr(message));
    }
  };
  refused({"q"},
          "SolveOptions.save_variables: no state or observable 'q' (there are: x, y, z, xy, distance)");
  refused({"x", "x"}, "SolveOptions.save_variables names 'x' twice");
  refused({"x", ""}, "SolveOptions.save_variables[1] is an empty name");
  o.save_every.reset();
  refused({"x"}, "SolveOptions.save_variables is set but no series is saved");
  // The summaries' variables share the resolution, and its messages.
  SolveOptions summaries = lorenz_options(Method::dopri5);
  summaries.summaries.metrics = {"mean"};
  summaries.summaries.variables = {"w"};
  EXPECT_THROW(
      {
        try {
          (void)solve_ivp(NamedLorenz{}, batch, summaries);
        } catch (const InvalidInput& e) {
          EXPECT_THAT(e.what(),
                      HasSubstr("SolveOptions.summaries.variables: no state or observable 'w' (there are: "
                                "x, y, z, xy, distance)"));
          throw;
        }
      },
      InvalidInput);
  // A chosen variable past the mask's 512 (resolved without a system of 600 states to compile).
  std::vector<std::string> states;
  for (int i = 0; i < 600; ++i) states.push_back("s" + std::to_string(i));
  SolveOptions wide = lorenz_options(Method::dopri5);
  wide.save_variables = {"s3", "s550"};
  try {
    (void)plan_series(wide, states, {});
    ADD_FAILURE() << "s550 not refused";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr("'s550' is variable 550"));
    EXPECT_THAT(e.what(), HasSubstr("the first 512 only"));
  }
  wide.save_variables = {"s3", "s511"};
  EXPECT_EQ(plan_series(wide, states, {}).states, (std::vector<std::size_t>{3, 511}));
}

// What a run takes in memory counts the chosen columns only.
TEST(SaveVariables, AChosenSeriesTakesItsColumnsOnly) {
  const OutputSelection outputs;
  const arrays::RunFootprint every = arrays::run_footprint(50, 0, 1000, sizeof(float), outputs);
  const arrays::RunFootprint one =
      arrays::run_footprint(50, 0, 1000, sizeof(float), outputs, {}, false, 0, 0, 1);
  EXPECT_EQ(every.device_bytes_per_run - one.device_bytes_per_run, 1000 * 49 * sizeof(float));
  EXPECT_EQ(every.result_bytes_per_run - one.result_bytes_per_run, 1000 * 49 * sizeof(float));
}

// NPY and CSV carry the chosen columns: `_series.npy` (runs, saves, 2), the CSV's saved states and
// observables by name, after each run's status and stop time.
TEST(SaveVariables, WritersCarryTheChosenColumns) {
  const Batch<double> batch = lorenz_runs<double>(2);
  SolveOptions o = lorenz_options(Method::dopri5);
  o.save_every = 0.5;
  o.save_variables = {"z", "x", "distance"};
  const SolveResult<double> r = solve_ivp(NamedLorenz{}, batch, o);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "batchode_save_variables_test";
  std::filesystem::create_directories(dir);
  write_csv(r, (dir / "r.csv").string());
  std::ifstream csv(dir / "r.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "run,t,status,t_stop,x,z,distance");
  std::string row;
  std::getline(csv, row);
  EXPECT_THAT(row, HasSubstr("0,0,success,1,1,1,"));
  write_npy(r, (dir / "r").string());
  std::ifstream npy(dir / "r_series.npy", std::ios::binary);
  std::string head(128, '\0');
  npy.read(head.data(), 128);
  EXPECT_THAT(head, HasSubstr("'shape': (2,3,2)"));
  o.save_variables = {"xy"};
  std::filesystem::remove(dir / "s_series.npy");
  write_npy(solve_ivp(NamedLorenz{}, batch, o), (dir / "s").string());
  EXPECT_FALSE(std::filesystem::exists(dir / "s_series.npy"));
  EXPECT_TRUE(std::filesystem::exists(dir / "s_observables.npy"));
  std::filesystem::remove_all(dir);
}

}  // namespace
