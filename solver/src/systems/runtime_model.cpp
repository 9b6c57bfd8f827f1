// solver/systems/: RuntimeModel itself: the model, its sizes and names, its generated system, and the entry
// points each method and precision is solved through, compiled on first use and kept per model. The
// compiles are apart: the headers, compilers and cache (runtime_model_tools.cpp), the generated system
// wrapped with the CPU entry points and compiled by the host compiler into a shared object
// (runtime_model_cpu.cpp), and the same system with the core's batch kernel compiled by the runtime
// compiler (NVRTC / hipRTC) into a code image for the GPU (runtime_model_gpu.cpp).
#include "batchode/solver/systems/runtime_model.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batchode/arrays/stop_request.hpp"
#include "batchode/checks/fits_precision.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/jit/sha256.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/models/codegen.hpp"
#include "batchode/models/component_shapes.hpp"
#include "batchode/solver/systems/gpu_path.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/timed_events.hpp"
#include "runtime_model_parts.hpp"

namespace batchode {

namespace {
/// Refuses a value the model writes in double (a constant, a state's or a parameter's default) that T
/// cannot hold: in float32, 1e300 would become inf in the generated code or in the default batch, and
/// the run would end as non_finite_state with no word of the constant. Named at its declaration.
template <class T>
void check_values_fit(const models::ModelDescription& d) {
  struct Group {
    const std::vector<models::NamedValue>& values;
    const char* table;  // key prefix in ModelDescription::locations
    const char* what;
    const char* where;
  };
  const Group groups[] = {{d.constants, "constants", "constant", ""},
                          {d.states, "states", "state", "default initial value"},
                          {d.parameters, "parameters", "parameter", "default value"}};
  for (const Group& g : groups) {
    for (const models::NamedValue& v : g.values) {
      const std::string problem =
          checks::precision_problem<T>(v.value, std::string(g.what) + " " + v.name, g.where);
      if (problem.empty()) continue;
      const auto at = d.locations.find(std::string(g.table) + "." + v.name);
      throw models::ModelError(at != d.locations.end() ? at->second : models::SourceLocation{d.source, 0, 0},
                               problem);
    }
  }
}

/// The solver's events on `logger`, as Solver registers them: never failing (a label someone else
/// registered stays theirs and is still timed).
void register_solver_events_quietly(TimeLogger& logger) noexcept {
  try {
    register_solver_events(logger);
  } catch (...) {
    // see above
  }
}
}  // namespace

models::Model load_model(const std::string& path, TimeLogger& logger) {
  register_solver_events_quietly(logger);
  ScopedTimer timer(logger, events::model_parse);
  timer.add_metadata("file", path);
  return models::load_model(path);
}

template <class T>
RuntimeModel<T>::RuntimeModel(models::Model model, RuntimeModelOptions options, TimeLogger& logger)
    : n_states_(model.n_states()),
      n_params_(model.n_params()),
      n_events_(model.events().size()),
      state_(std::make_shared<detail::RuntimeModelState>()) {
  register_solver_events_quietly(logger);
  check_values_fit<T>(model.description());
  state_->model = std::move(model);
  state_->options = std::move(options);
  models::LinearSolveChoice linear_solve;
  {
    ScopedTimer plan(logger, events::model_linear_solve_plan);
    linear_solve = models::choose_linear_solve(state_->model.n_states(), state_->model.jacobian_nonzeros(),
                                               state_->options.linear_solver, state_->model.name());
    plan.add_metadata("layout", models::to_string(linear_solve.layout));
    if (linear_solve.plan) plan.add_metadata("slots", static_cast<std::int64_t>(linear_solve.plan->slots.size()));
  }
  ScopedTimer timer(logger, events::model_codegen);
  models::CodegenOptions codegen;
  codegen.type_name = detail::kTypeName;
  codegen.jacobian = true;
  codegen.linear_solve = &linear_solve;
  codegen.sparse_lu_loops_from =
      detail::slots_from_environment("BATCHODE_SPARSE_LU_LOOPS_FROM", state_->options.sparse_lu_loops_from);
  codegen.sparse_lu_solve_loops_from = detail::slots_from_environment("BATCHODE_SPARSE_LU_SOLVE_LOOPS_FROM",
                                                                      state_->options.sparse_lu_solve_loops_from);
  const std::optional<models::ComponentShapes> shapes = models::component_shapes(state_->model);
  codegen.component_shapes = &shapes;
  state_->system_source = models::generate_system(state_->model, codegen);
  state_->rhs_component = shapes.has_value();
  state_->cost_name =
      "model:" + state_->model.name() + ":" + jit::sha256_hex(state_->system_source).substr(0, 16);
}

template <class T>
const models::Model& RuntimeModel<T>::model() const noexcept {
  return state_->model;
}

template <class T>
std::vector<std::string> RuntimeModel<T>::state_names() const {
  std::vector<std::string> names;
  for (const models::NamedValue& v : state_->model.states()) names.push_back(v.name);
  return names;
}

template <class T>
std::vector<std::string> RuntimeModel<T>::parameter_names() const {
  std::vector<std::string> names;
  for (const models::NamedValue& v : state_->model.parameters()) names.push_back(v.name);
  return names;
}

template <class T>
std::vector<T> RuntimeModel<T>::default_y0() const {
  std::vector<T> values;
  for (const models::NamedValue& v : state_->model.states()) values.push_back(static_cast<T>(v.value));
  return values;
}

template <class T>
std::vector<T> RuntimeModel<T>::default_params() const {
  std::vector<T> values;
  for (const models::NamedValue& v : state_->model.parameters()) values.push_back(static_cast<T>(v.value));
  return values;
}

template <class T>
std::size_t RuntimeModel<T>::n_observables() const noexcept {
  return state_->model.observables().size();
}

template <class T>
std::vector<std::string> RuntimeModel<T>::observable_names() const {
  return state_->model.observables();
}

template <class T>
std::size_t RuntimeModel<T>::n_drivers() const noexcept {
  return state_->model.drivers().size();
}

template <class T>
std::vector<std::string> RuntimeModel<T>::driver_names() const {
  std::vector<std::string> names;
  for (const models::DriverDescription& u : state_->model.drivers()) names.push_back(u.name);
  return names;
}

template <class T>
std::vector<DriverSpec> RuntimeModel<T>::driver_specs() const {
  std::vector<DriverSpec> specs;
  for (const models::DriverDescription& u : state_->model.drivers()) {
    if (u.values.empty()) continue;
    DriverSpec spec;
    spec.name = u.name;
    spec.values = u.values;
    spec.times = u.times;
    spec.dt = u.dt;
    spec.order = u.order;
    spec.end = parse_spline_end(u.end);
    spec.wrap = u.wrap;
    spec.land = u.land;
    specs.push_back(std::move(spec));
  }
  return specs;
}

template <class T>
std::vector<EventSpec> RuntimeModel<T>::event_specs() const {
  std::vector<EventSpec> specs;
  for (const models::EventDescription& e : state_->model.events()) {
    EventSpec spec;
    spec.name = e.name;
    spec.direction = e.direction == "rising"    ? EventDirection::rising
                     : e.direction == "falling" ? EventDirection::falling
                                                : EventDirection::both;
    spec.action = e.action == "terminal" ? EventAction::terminal : EventAction::record;
    spec.max = static_cast<std::uint32_t>(e.max);  // parse_model keeps it in [1, 2^20]
    specs.push_back(std::move(spec));
  }
  return specs;
}

template <class T>
void RuntimeModel<T>::check_event_times(double t0, double t_end) const {
  const models::Model& model = state_->model;
  for (std::size_t e = 0; e < model.events().size(); ++e) {
    const std::optional<std::vector<double>> times = model.constant_event_times(e);
    if (!times || times->empty()) continue;
    const std::string& name = model.events()[e].name;
    if (times->front() < t0) {
      throw InvalidInput(
          fmt::format("model '{}': event '{}' has a time {} before the solve's t0 = {}: a run starts "
                      "at t0 and would pass it over (times in [t0, t_end] act)",
                      model.name(), name, times->front(), t0));
    }
    if (times->front() > t_end) {
      throw InvalidInput(
          fmt::format("model '{}': every time of event '{}' lies after the solve's t_end = {} (the "
                      "first is {}): it would never act (times in [t0, t_end] act)",
                      model.name(), name, t_end, times->front()));
    }
  }
}

template <class T>
const std::string& RuntimeModel<T>::cost_name() const {
  return state_->cost_name;
}

template <class T>
void RuntimeModel<T>::prepare(Method method, TimeLogger& logger, const std::atomic<bool>* stop) const {
  (void)cpu_entry(method, logger, stop);
}

template <class T>
cpu::RuntimeEntry<T> RuntimeModel<T>::cpu_entry(Method method, TimeLogger& logger,
                                                const std::atomic<bool>* stop) const {
  return *loaded_cpu_entry(method, logger, stop, true);
}

template <class T>
bool RuntimeModel<T>::cpu_code_ready(Method method, TimeLogger& logger) const {
  try {
    return loaded_cpu_entry(method, logger, nullptr, false).has_value();
  } catch (const jit::JitError&) {
    return false;  // no host compiler, or a cached object that does not load: a compile would say why
  }
}

template <class T>
std::optional<cpu::RuntimeEntry<T>> RuntimeModel<T>::loaded_cpu_entry(Method method, TimeLogger& logger,
                                                                      const std::atomic<bool>* stop,
                                                                      bool compile_missing) const {
  if (!is_known_method(method))
    throw InvalidInput("unknown method value " + std::to_string(static_cast<int>(method)));
  register_solver_events_quietly(logger);
  detail::RuntimeModelState& state = *state_;
  std::shared_ptr<const jit::SharedObject> object;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    auto& slot = state.loaded[{static_cast<int>(method), static_cast<int>(sizeof(T))}];
    if (!slot) {
      const char* value = sizeof(T) == 4 ? "float" : "double";
      std::shared_ptr<const jit::SharedObject> loaded;
      try {
        loaded = detail::compile_and_load(state, detail::translation_unit(state, method, value), logger, stop,
                                          compile_missing);
      } catch (const jit::CompileInterrupted& e) {
        throw SolveInterrupted(e.what());  // what a stopped solve throws, wherever it stopped
      }
      if (!loaded) return std::nullopt;  // not compiled yet, and not to be compiled now
      cpu::RuntimeAbi abi{};
      loaded->function<cpu::RuntimeAbiFunction>(cpu::runtime_abi_symbol)(&abi);
      const cpu::RuntimeAbi want = cpu::expected_runtime_abi<T>(
          static_cast<std::uint32_t>(method), static_cast<std::uint32_t>(n_states_),
          static_cast<std::uint32_t>(n_params_), static_cast<std::uint32_t>(n_events_),
          static_cast<std::uint32_t>(n_observables()));
      if (std::memcmp(&abi, &want, sizeof abi) != 0) {
        // Name the first field that differs: a version, a precision or a size of what crosses.
        const std::pair<const char*, std::pair<std::uint32_t, std::uint32_t>> fields[] = {
            {"ABI version", {abi.version, want.version}},
            {"value bytes", {abi.value_bytes, want.value_bytes}},
            {"method", {abi.method, want.method}},
            {"states", {abi.n_states, want.n_states}},
            {"parameters", {abi.n_params, want.n_params}},
            {"events", {abi.n_events, want.n_events}},
            {"observables", {abi.n_observables, want.n_observables}},
            {"settings bytes", {abi.settings_bytes, want.settings_bytes}},
            {"result view bytes", {abi.view_bytes, want.view_bytes}},
            {"call bytes", {abi.call_bytes, want.call_bytes}},
            {"status bytes", {abi.status_bytes, want.status_bytes}},
            {"counters bytes", {abi.counters_bytes, want.counters_bytes}}};
        std::string differs = "a field";
        for (const auto& [name, values] : fields) {
          if (values.first != values.second) {
            differs = std::string(name) + " " + std::to_string(values.first) + ", expected " +
                      std::to_string(values.second);
            break;
          }
        }
        throw jit::JitError("model '" + state.model.name() +
                            "': the compiled object does not match this library (" + differs +
                            "); delete the cache folder's cpu/ entries and retry");
      }
      slot = std::move(loaded);
    }
    object = slot;
  }
  cpu::RuntimeEntry<T> entry;
  entry.integrate = object->function<cpu::RangeFunction<T>>(cpu::runtime_range_symbol);
  entry.new_stepper = object->function<cpu::NewStepperFunction>(cpu::runtime_new_stepper_symbol);
  entry.delete_stepper = object->function<cpu::DeleteStepperFunction>(cpu::runtime_delete_stepper_symbol);
  entry.n_states = n_states_;
  entry.n_params = n_params_;
  entry.name = state.model.name();
  entry.keep = object;
  return entry;
}

template <class T>
std::string RuntimeModel<T>::gpu_unavailable(Method method) const {
  if (!is_known_method(method)) return "unknown method value " + std::to_string(static_cast<int>(method));
  if (cpu_only(method)) return cpu_only_reason(method);
  if (!BATCHODE_HAS_GPU_RUNTIME) {
    return std::string("this build has no GPU backend (build backend '") + gpu::compiled_backend() + "')";
  }
  const detail::RuntimeCompilerLookup& found = detail::runtime_compiler();
  if (!found.compiler) return "no runtime compiler for models defined at run time: " + found.why_not;
  return {};
}

template <class T>
std::size_t RuntimeModel<T>::gpu_lanes_per_run(Method method) const {
  return runtime_lanes_per_run(method, n_states_, sizeof(T), state_->rhs_component);
}

template <class T>
RuntimeKernels RuntimeModel<T>::gpu_kernels(Method method, int device, TimeLogger& logger,
                                            const RuntimeKernelChoice& choice) const {
  if (const std::string why = gpu_unavailable(method); !why.empty()) {
    throw GpuUnavailable("model '" + state_->model.name() + "' cannot run on a GPU: " + why);
  }
  register_solver_events_quietly(logger);
  detail::RuntimeModelState& state = *state_;
  const char* value = sizeof(T) == 4 ? "float" : "double";
  // Loads `program` on `device` (compiled or read from the cache first), timed as model_load.
  auto load = [&](const RuntimeKernelProgram& program, const std::string& label,
                  const RuntimeKernelChoice& built) {
    gpu::set_device(device);  // the module loads on the calling thread's current device
    const gpu::CompiledKernels compiled = detail::compile_gpu_program(state, program, device, label, logger);
    ScopedTimer timer(logger, events::model_load);
    timer.add_metadata("target", "gpu");
    timer.add_metadata("device", static_cast<std::int64_t>(device));
    return load_runtime_kernels<T>(method, compiled, "model '" + state.model.name() + "' (" + label + ")",
                                   built);
  };
  std::lock_guard<std::mutex> lock(state.gpu_mutex);
  // The batch kernels of the model, without the run order's kernel (a module of its own, below).
  RuntimeKernelChoice batch = choice;
  batch.order = false;
  batch.moments = false;
  RuntimeKernels loaded;
  if (batch.count() != 0) {
    RuntimeKernels& slot =
        state.gpu_loaded[{static_cast<int>(method), static_cast<int>(sizeof(T)), device, batch}];
    if (!slot.module) {
      std::string label = to_string(method) + ", " + value;
      for (auto [chosen, name] : {std::pair{batch.final_state, "final state"},
                                  std::pair{batch.series, "series"},
                                  std::pair{batch.summary_kinds != 0, "summaries"}}) {
        if (chosen) label += std::string(", ") + name;
      }
      if (batch.final_state && batch.lanes_per_run > 1)
        label += ", " + std::to_string(batch.lanes_per_run) + " lanes a run";
      slot = load(runtime_kernel_program(state.system_source, detail::kTypeName, method, value, batch), label,
                  batch);
    }
    loaded = slot;
  } else {
    loaded.method = method;
    loaded.value_bytes = sizeof(T);
  }
  if (choice.order) {
    RuntimeKernels& order = state.gpu_run_order[{static_cast<int>(sizeof(T)), device}];
    if (!order.module) {
      RuntimeKernelChoice only_order;
      only_order.final_state = only_order.series = false;
      order = load(run_order_program(value), std::string("run order, ") + value, only_order);
    }
    loaded.order_module = order.module;
    loaded.order = order.order;
    if (!loaded.module) loaded.module = order.module;
  }
  if (choice.moments) {
    RuntimeKernels& moments = state.gpu_series_moments[{static_cast<int>(sizeof(T)), device}];
    if (!moments.module) {
      const std::string label = std::string("series moments, ") + value;
      gpu::set_device(device);
      const gpu::CompiledKernels compiled =
          detail::compile_gpu_program(state, series_moments_program(value), device, label, logger);
      ScopedTimer timer(logger, events::model_load);
      timer.add_metadata("target", "gpu");
      timer.add_metadata("device", static_cast<std::int64_t>(device));
      moments.module = std::make_shared<const gpu::Module>(compiled.image, label);
      moments.moments = moments.module->function(compiled.lowered_names.at(0));
    }
    loaded.moments_module = moments.module;
    loaded.moments = moments.moments;
  }
  return loaded;
}

template class RuntimeModel<float>;
template class RuntimeModel<double>;

}  // namespace batchode
