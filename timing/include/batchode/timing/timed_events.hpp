// timing/: the names of every event batchode's solvers time, in one place, with their categories
// and descriptions (register_solver_events()).
#pragma once

namespace batchode {

class TimeLogger;

/// Event categories used by batchode. Categories are open-ended: other strings are allowed.
namespace event_category {
inline constexpr const char* runtime = "runtime";  ///< work done while solving
inline constexpr const char* compile = "compile";  ///< loading/compiling GPU code
inline constexpr const char* codegen = "codegen";  ///< generating code (reserved)
}  // namespace event_category

/// Labels of the events batchode's solvers record; pass them to TimeLogger's start/stop calls.
namespace events {
// category runtime
inline constexpr const char* solve_ivp_execution = "solve_ivp_execution";
inline constexpr const char* solver_solve_execution = "solver_solve_execution";
inline constexpr const char* kernel_run_execution = "kernel_run_execution";
inline constexpr const char* kernel_launch = "kernel_launch";
inline constexpr const char* h2d_transfer_initial_values = "h2d_transfer_initial_values";
inline constexpr const char* h2d_transfer_parameters = "h2d_transfer_parameters";
inline constexpr const char* h2d_transfer_driver_coefficients = "h2d_transfer_driver_coefficients";
inline constexpr const char* h2d_transfer_save_times = "h2d_transfer_save_times";  ///< save_at per run, or per chunk
inline constexpr const char* d2h_transfer_state = "d2h_transfer_state";
inline constexpr const char* d2h_transfer_observables = "d2h_transfer_observables";
inline constexpr const char* d2h_transfer_summaries = "d2h_transfer_summaries";
inline constexpr const char* d2h_transfer_status_codes = "d2h_transfer_status_codes";
inline constexpr const char* d2h_transfer_iteration_counters = "d2h_transfer_iteration_counters";
inline constexpr const char* d2h_transfer_events = "d2h_transfer_events";  ///< event records and counts
inline constexpr const char* cpu_integration = "cpu_integration";
inline constexpr const char* host_transpose = "host_transpose";
inline constexpr const char* host_staging = "host_staging";
inline constexpr const char* input_validation = "input_validation";
inline constexpr const char* result_allocation = "result_allocation";
inline constexpr const char* ensemble_statistics = "ensemble_statistics";  ///< a slice's series reduced
inline constexpr const char* chunk_planning = "chunk_planning";
inline constexpr const char* execution_planning = "execution_planning";        ///< where the batch runs
inline constexpr const char* gpu_buffer_allocation = "gpu_buffer_allocation";  ///< the chunk pipeline's buffers
inline constexpr const char* execution_part = "execution_part";
inline constexpr const char* run_ordering = "run_ordering";  ///< GPU chunks' runs ordered by their inputs
inline constexpr const char* run_order_probe =
    "run_order_probe";  ///< Backend::gpu: the probe behind the next solve's order
// category compile
inline constexpr const char* kernel_compile = "kernel_compile";
// category codegen
inline constexpr const char* codegen = "codegen";
inline constexpr const char* model_parse = "model_parse";      ///< model text to checked expression trees
inline constexpr const char* model_codegen = "model_codegen";  ///< expression trees to C++ source
/// the Rosenbrock methods' linear solve planned: layouts' costs, sparse LU's pivot order and fill
inline constexpr const char* model_linear_solve_plan = "model_linear_solve_plan";
// category compile (models defined at run time)
inline constexpr const char* model_compile = "model_compile";        ///< host compiler: source to shared object
inline constexpr const char* model_cache_hit = "model_cache_hit";    ///< a compiled model found in the cache
inline constexpr const char* model_load = "model_load";              ///< dlopen of a compiled model
inline constexpr const char* model_prelude_compile = "model_prelude_compile";  ///< the CPU path's precompiled header
}  // namespace events

/// Registers every event above, with its category and a description, on `logger`. Idempotent.
/// A label already registered with another category keeps it: every other label is registered,
/// then std::invalid_argument names the conflicting ones. (Solver registers them itself, and
/// ignores that error: such a label is still timed, in its owner's category.)
void register_solver_events(TimeLogger& logger);

}  // namespace batchode
