// tests/timing/: the solver event list and the default logger that has it registered.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include <batchode/timing/timed_events.hpp>
#include <batchode/timing/time_logger.hpp>

namespace {

TEST(SolverEvents, EveryEventIsRegisteredWithItsCategoryAndADescription) {
  std::ostringstream out;
  batchode::TimeLogger log(&out);
  batchode::register_solver_events(log);
  batchode::register_solver_events(log);  // idempotent
  std::map<std::string, std::string> category;
  for (const auto& info : log.registered_events()) {
    category[info.label] = info.category;
    EXPECT_FALSE(info.description.empty()) << info.label;
  }
  const char* runtime[] = {batchode::events::solve_ivp_execution,
                           batchode::events::solver_solve_execution,
                           batchode::events::kernel_run_execution,
                           batchode::events::kernel_launch,
                           batchode::events::h2d_transfer_initial_values,
                           batchode::events::h2d_transfer_parameters,
                           batchode::events::h2d_transfer_driver_coefficients,
                           batchode::events::h2d_transfer_save_times,
                           batchode::events::d2h_transfer_state,
                           batchode::events::d2h_transfer_observables,
                           batchode::events::d2h_transfer_summaries,
                           batchode::events::d2h_transfer_status_codes,
                           batchode::events::d2h_transfer_iteration_counters,
                           batchode::events::d2h_transfer_events,
                           batchode::events::cpu_integration,
                           batchode::events::host_transpose,
                           batchode::events::host_staging,
                           batchode::events::input_validation,
                           batchode::events::result_allocation,
                           batchode::events::ensemble_statistics,
                           batchode::events::chunk_planning,
                           batchode::events::execution_part,
                           batchode::events::execution_planning,
                           batchode::events::gpu_buffer_allocation,
                           batchode::events::run_ordering,
                           batchode::events::run_order_probe};
  for (const char* label : runtime) EXPECT_EQ(category[label], "runtime") << label;
  EXPECT_EQ(category["kernel_compile"], "compile");
  EXPECT_EQ(category["codegen"], "codegen");
  EXPECT_EQ(category["model_parse"], "codegen");
  EXPECT_EQ(category["model_codegen"], "codegen");
  EXPECT_EQ(category["model_linear_solve_plan"], "codegen");
  EXPECT_EQ(category["model_compile"], "compile");
  EXPECT_EQ(category["model_cache_hit"], "compile");
  EXPECT_EQ(category["model_load"], "compile");
  EXPECT_EQ(category["model_prelude_compile"], "compile");
  EXPECT_EQ(category.size(), 35u);
  EXPECT_STREQ(batchode::events::kernel_launch, "kernel_launch");
}

TEST(SolverEvents, ConflictingEarlierRegistrationIsReported) {
  std::ostringstream out;
  batchode::TimeLogger log(&out);
  log.register_event("kernel_launch", "my_category", "");
  log.register_event("codegen", "mine_too", "");
  try {
    batchode::register_solver_events(log);
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("'kernel_launch'"), std::string::npos) << what;
    EXPECT_NE(what.find("'codegen'"), std::string::npos) << what;
  }
  // The conflicting labels keep their owner's category; every other one is registered.
  EXPECT_EQ(log.registered_events().size(), 35u);
  EXPECT_EQ(log.stats("kernel_launch").category, "my_category");
  EXPECT_TRUE(log.is_registered(batchode::events::kernel_compile));  // registered after the conflict
}

TEST(DefaultTimeLogger, IsOneInstanceWithTheSolverEvents) {
  batchode::TimeLogger& log = batchode::default_timelogger();
  EXPECT_EQ(&log, &batchode::default_timelogger());
  EXPECT_TRUE(log.is_registered(batchode::events::solve_ivp_execution));
  EXPECT_TRUE(log.is_registered(batchode::events::kernel_compile));
}

}  // namespace
