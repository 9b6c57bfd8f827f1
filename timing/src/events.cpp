// timing/: registration of every event batchode's solvers record, with its category and meaning.
#include "batchode/timing/timed_events.hpp"

#include <stdexcept>
#include <string>

#include "batchode/timing/time_logger.hpp"

namespace batchode {

void register_solver_events(TimeLogger& logger) {
  struct Entry {
    const char* label;
    const char* category;
    const char* description;
  };
  static const Entry entries[] = {
      {events::solve_ivp_execution, event_category::runtime, "one solve_ivp call, end to end"},
      {events::solver_solve_execution, event_category::runtime, "one Solver::solve call, end to end"},
      {events::kernel_run_execution, event_category::runtime,
       "one run of the integration over every chunk (launches, transfers, waits)"},
      {events::kernel_launch, event_category::runtime,
       "one integration kernel launch (GPU time: the kernel itself)"},
      {events::h2d_transfer_initial_values, event_category::runtime,
       "copy of initial values, host to device"},
      {events::h2d_transfer_parameters, event_category::runtime, "copy of parameters, host to device"},
      {events::h2d_transfer_driver_coefficients, event_category::runtime,
       "copy of driver (forcing) coefficients, host to device"},
      {events::h2d_transfer_save_times, event_category::runtime,
       "copy of the save times, host to device: SolveOptions::save_at once per GPU run, save_at_per_run "
       "with each chunk's runs"},
      {events::d2h_transfer_state, event_category::runtime, "copy of saved states, device to host"},
      {events::d2h_transfer_observables, event_category::runtime,
       "copy of saved observables, device to host"},
      {events::d2h_transfer_summaries, event_category::runtime, "copy of summary metrics, device to host"},
      {events::d2h_transfer_status_codes, event_category::runtime,
       "copy of per-run status codes, device to host"},
      {events::d2h_transfer_iteration_counters, event_category::runtime,
       "copy of per-run iteration counters, device to host"},
      {events::d2h_transfer_events, event_category::runtime,
       "copy of the runs' event records (times, states) and counts, device to host"},
      {events::cpu_integration, event_category::runtime,
       "integration of runs on the host (Boost.Odeint path)"},
      {events::host_transpose, event_category::runtime, "host-side layout change of GPU results"},
      {events::host_staging, event_category::runtime, "copies between the user's arrays and pinned staging"},
      {events::input_validation, event_category::runtime, "checking the batch's sizes and values"},
      {events::result_allocation, event_category::runtime, "allocating the result's arrays"},
      {events::ensemble_statistics, event_category::runtime,
       "reducing a slice of runs' series into the statistics across runs (SolveOptions::statistics)"},
      {events::chunk_planning, event_category::runtime, "choice of chunk sizes from the memory available"},
      {events::execution_planning, event_category::runtime,
       "choice of where the batch runs: GPU discovery (the runtime's start on first use), the cost model "
       "and its calibration"},
      {events::gpu_buffer_allocation, event_category::runtime,
       "device and pinned staging buffers of the chunk pipeline (allocated when a run needs more)"},
      {events::execution_part, event_category::runtime,
       "one part of a batch on one backend (metadata: backend, reason, runs, predicted_ms)"},
      {events::run_ordering, event_category::runtime,
       "ordering a GPU chunk's runs by their inputs so that the runs of a warp cost about the same (plan on "
       "the host from a sample; GPU time: the order kernel)"},
      {events::run_order_probe, event_category::runtime,
       "Backend::gpu: the cost probe (16 runs spread over the batch, one CPU thread) run beside the GPU, "
       "whose step counts decide whether the next solve of the same batch orders its runs (metadata: "
       "completed, 0 when the GPU finished first and it was stopped, the next solve of the batch resuming "
       "it; "
       "samples_done, the runs integrated so far)"},
      {events::kernel_compile, event_category::compile, "first-launch load of the GPU module"},
      {events::codegen, event_category::codegen, "code generation (reserved)"},
      {events::model_parse, event_category::codegen, "parsing and checking a model's text"},
      {events::model_codegen, event_category::codegen, "generating a model's C++ source"},
      {events::model_linear_solve_plan, event_category::codegen,
       "planning a model's linear solve for the Rosenbrock methods: the sparsity of its Jacobian, the "
       "operations of each layout, the sparse LU's pivot order and fill (metadata: layout, slots)"},
      {events::model_compile, event_category::compile,
       "compiling a model's generated source (host compiler)"},
      {events::model_cache_hit, event_category::compile, "a compiled model found, verified, in the cache"},
      {events::model_load, event_category::compile, "loading a compiled model (dlopen)"},
      {events::model_prelude_compile, event_category::compile,
       "precompiling the headers every CPU model includes (once per compiler and headers)"},
  };
  // Every label that can be registered is, before a conflict is reported: a logger whose owner
  // took one of these labels for something else still times all the others.
  std::string conflicts;
  for (const Entry& entry : entries) {
    try {
      logger.register_event(entry.label, entry.category, entry.description);
    } catch (const std::invalid_argument& error) {
      conflicts += conflicts.empty() ? error.what() : std::string("; ") + error.what();
    }
  }
  if (!conflicts.empty()) throw std::invalid_argument("register_solver_events: " + conflicts);
}

}  // namespace batchode
