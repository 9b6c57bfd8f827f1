// solver/systems/: a model defined at run time (models::Model: equations as text), solved like a compiled-in
// system. The host side knows its sizes only at run time; the right-hand side exists as generated C++
// (models/codegen) compiled for one method and precision into a shared object by the host compiler
// (jit/), cached on disk, and loaded on first use. The CPU path runs the very per-run loop of
// compiled-in systems (backends/cpu/run_range.hpp, Boost.Odeint's steppers) inside that object, on the
// Solver's worker threads, so a runtime model and the same system compiled in give the same numbers.
// The GPU path compiles the same generated source with the core's batch kernel by the runtime
// compiler (NVRTC / hipRTC: backends/gpu/runtime_kernel_source.hpp) into a code image for the
// device's architecture, cached on disk like the CPU objects, and runs it in the chunk pipeline of
// compiled-in systems (RuntimeGpuRunner): the same kernel text, so the same numbers as compiled in.
//
//   batchode::RuntimeModel<double> lorenz(batchode::models::load_model("lorenz.toml"));
//   batchode::SolveResult<double> r = batchode::solve_ivp(lorenz, y0, params, options);
//
// Copies share one compiled state (entries per method, loaded objects), so copying is cheap and a
// method compiled once serves every copy. Thread-safe: concurrent solves compile a method once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batchode/backends/cpu/runtime_entry.hpp"
#include "batchode/backends/gpu/runtime_kernels.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/models/codegen.hpp"
#include "batchode/models/model.hpp"
#include "batchode/models/sparse_lu_plan.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode {

/// How a RuntimeModel compiles. Defaults suit everyone; tests point the cache elsewhere.
struct RuntimeModelOptions {
  std::string cache_directory;  ///< "" : jit::cache_directory() (the cost model's folder)
  bool use_cache = true;        ///< false: compile every time into a private temporary folder
  /// How the Rosenbrock methods factorise W (models/sparse_lu_plan.hpp): automatic picks the layout with the
  /// fewest operations (dense, the Jacobian's band, or a sparse LU in a pivot order fixed per model).
  models::LinearSolver linear_solver = models::LinearSolver::automatic;
  /// From this many slots a sparse LU's factorisation is generated with its repeated rows as loops, and its
  /// solve from sparse_lu_solve_loops_from (never by default: a shorter compile, a slower step), below as
  /// straight-line code (models::CodegenOptions: the same numbers either way).
  /// $BATCHODE_SPARSE_LU_LOOPS_FROM and $BATCHODE_SPARSE_LU_SOLVE_LOOPS_FROM, where set, override them (a
  /// count of slots).
  std::size_t sparse_lu_loops_from = models::CodegenOptions::default_sparse_lu_loops_from;
  std::size_t sparse_lu_solve_loops_from = models::CodegenOptions::default_sparse_lu_solve_loops_from;
};

namespace detail {
struct RuntimeModelState;  // defined in solver/src/systems/runtime_model_parts.hpp
}

/// models::load_model(path) (read, parse and check a TOML model file), timed as model_parse.
/// Throws models::ModelError naming the file, line and column.
models::Model load_model(const std::string& path, TimeLogger& logger = default_timelogger());

/// A model defined at run time (models::Model: equations as text or a TOML file), solved like a
/// compiled-in system in precision T: its generated C++ is compiled for the CPU by the host compiler
/// and for the GPU by the runtime compiler (NVRTC, hipRTC), per method, on first use, and cached on
/// disk. Copies share the compiled state. Thread-safe.
///
///     batchode::RuntimeModel<double> lorenz(batchode::load_model("lorenz.toml"));
///     batchode::SolveResult<double> r = batchode::solve_ivp(lorenz, y0, params, options);
template <class T>
class RuntimeModel {
 public:
  /// Keeps the parsed model and generates its C++ source (timed as model_codegen); compiles nothing
  /// yet (prepare() or the first solve does). Throws models::ModelError at its declaration for a
  /// constant, or a state's or parameter's default, that T cannot hold (1e300 in float32).
  explicit RuntimeModel(models::Model model, RuntimeModelOptions options = {},
                        TimeLogger& logger = default_timelogger());

  std::size_t n_states() const noexcept { return n_states_; }
  std::size_t n_params() const noexcept { return n_params_; }
  /// The model's algebraic variables ([algebraic]), its last states: 0 for an ODE.
  std::size_t n_algebraic() const noexcept { return model().n_algebraic(); }
  /// The model's event functions ([events]; kernels/loop/events.hpp).
  std::size_t n_events() const noexcept { return n_events_; }
  /// The model's events as a solve's default SolveOptions::events (names, directions, actions, max).
  std::vector<EventSpec> event_specs() const;
  /// Refuses (InvalidInput, naming the event and the time) an event at given times whose times are
  /// the same in every run (`at` without parameters) and cannot act in a solve over [t0, t_end]: one
  /// before t0 (a run starts there: it would be passed over, a dose silently not given), or all of
  /// them after t_end. A schedule that runs on past t_end is fine: the run ends first.
  void check_event_times(double t0, double t_end) const;
  /// The model's observables (its `observables` list of auxiliaries; kernels/outputs/observables.hpp), saved
  /// beside the state at every save.
  std::size_t n_observables() const noexcept;
  std::vector<std::string> observable_names() const;
  /// The model's drivers ([drivers]; kernels/outputs/driven_system.hpp), in order.
  std::size_t n_drivers() const noexcept;
  std::vector<std::string> driver_names() const;
  /// The drivers whose samples the model file gives, as SolveOptions::drivers entries (a solve that
  /// names none takes them; one that names some takes the file's for the others).
  std::vector<DriverSpec> driver_specs() const;
  const models::Model& model() const noexcept;
  std::vector<std::string> state_names() const;
  std::vector<std::string> parameter_names() const;
  std::vector<T> default_y0() const;      ///< the [states] values, in state order
  std::vector<T> default_params() const;  ///< the [parameters] values, in parameter order
  /// The cost model's name: the model's name and a digest of its generated source.
  const std::string& cost_name() const;

  /// Compiles (or loads from the cache) `method`'s CPU code now, timed in `logger` as model_codegen,
  /// model_compile (or model_cache_hit) and model_load. Throws jit::CompileError, jit::JitError;
  /// SolveInterrupted when `stop` (null: none; SolveOptions.stop in a solve) is set before or while the
  /// host compiler runs, which is then ended with all it started and leaves no file behind.
  void prepare(Method method, TimeLogger& logger = default_timelogger(),
               const std::atomic<bool>* stop = nullptr) const;
  /// The loaded CPU entry of `method` (compiled on first use, as prepare()).
  cpu::RuntimeEntry<T> cpu_entry(Method method, TimeLogger& logger,
                                 const std::atomic<bool>* stop = nullptr) const;
  /// Whether `method`'s CPU code is loaded, or can be from the cache (then it is, now): true where
  /// cpu_entry would compile nothing. Compiles nothing and throws nothing (no host compiler: false).
  /// What a GPU solve's run-order probe and Backend::automatic's cost model ask first, so that a solve
  /// on the GPU never waits for the host compiler (run_order_probe.hpp, planner.hpp).
  bool cpu_code_ready(Method method, TimeLogger& logger) const;

  /// Why `method` cannot run on a GPU for this model, as far as can be told without compiling ("" when
  /// it can): a CPU-only method, a build without a GPU backend, no runtime compiler (NVRTC / hipRTC).
  std::string gpu_unavailable(Method method) const;
  /// `method`'s batch kernels in T that `choice` names, loaded on `device`: compiled by the runtime
  /// compiler for the device's architecture on first use (or read from the on-disk cache), timed in
  /// `logger` as model_compile (or model_cache_hit) and model_load, each with target "gpu". Later calls
  /// for the same method, device and choice return the loaded kernels. The batch kernels chosen share
  /// one module (its summary kernel built for exactly choice.summary_kinds); the run order's kernel,
  /// which does not depend on the model, has a module of its own per precision and device. A solve
  /// asks for the one batch kernel it launches (RuntimeKernelChoice::only); the default, every kernel
  /// but the summary kernel. Throws gpu::RuntimeCompileError (with the compiler's log), GpuError,
  /// jit::JitError.
  /// The threads per run of `method`'s final-state kernel on a GPU (RuntimeKernelChoice::lanes_per_run):
  /// several where the model's components are a few formulas over their index (rhs_component,
  /// models/component_shapes.hpp) and one thread's registers would not hold a run of an explicit
  /// method (kernels/launch/lane_group.hpp's rule), else 1.
  std::size_t gpu_lanes_per_run(Method method) const;
  RuntimeKernels gpu_kernels(Method method, int device, TimeLogger& logger,
                             const RuntimeKernelChoice& choice = RuntimeKernelChoice::all()) const;

 private:
  /// cpu_entry's work; with `compile_missing` false, nothing where the code is neither loaded nor cached.
  std::optional<cpu::RuntimeEntry<T>> loaded_cpu_entry(Method method, TimeLogger& logger,
                                                       const std::atomic<bool>* stop,
                                                       bool compile_missing) const;

  std::size_t n_states_ = 0, n_params_ = 0, n_events_ = 0;
  std::shared_ptr<detail::RuntimeModelState> state_;
};

extern template class RuntimeModel<float>;
extern template class RuntimeModel<double>;

}  // namespace batchode
