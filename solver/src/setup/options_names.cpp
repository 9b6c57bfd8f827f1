// solver/setup/: the names of options.hpp's choices, apart from the options' checks (options.cpp): each
// method, backend, run order, save mode, event direction and action, and status by name, and the
// parsers of the names a user types.
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/solver/setup/options.hpp"

namespace batchode {

const MethodInfo& method_info(Method m) {
  if (is_known_method(m)) return method_registry[static_cast<int>(m)];
  throw InvalidInput(fmt::format("unknown method (enum value {})", static_cast<int>(m)));
}

std::string to_string(Method m) { return method_info(m).name; }

namespace {
// cpu_only_reason names rodas4 as the GPU's RODAS4: true of rosenbrock4 only.
constexpr bool only_rosenbrock4_is_cpu_only() {
  for (const MethodInfo& info : method_registry) {
    if (!info.gpu && info.method != Method::rosenbrock4) return false;
  }
  return true;
}
static_assert(only_rosenbrock4_is_cpu_only(),
              "cpu_only_reason: name the GPU counterpart of the new CPU-only method");
}  // namespace

std::string cpu_only_reason(Method m) {
  return fmt::format(
      "method {} is Boost.Odeint's CPU stepper and has no GPU kernel; rodas4 is the same RODAS4 "
      "method on the GPU (and the CPU): use --method rodas4",
      to_string(m));
}

Method parse_method(std::string_view name) {
  std::string valid;
  for (const MethodInfo& info : method_registry) {
    if (name == info.name) return info.method;
    valid += (valid.empty() ? "" : ", ") + std::string(info.name);
  }
  throw InvalidInput(fmt::format("unknown method '{}'; valid methods: {}", name, valid));
}

std::string to_string(Backend b) {
  switch (b) {
    case Backend::automatic: return "automatic";
    case Backend::cpu: return "cpu";
    case Backend::gpu: return "gpu";
  }
  return "unknown";
}

std::string to_string(RunOrder order) {
  switch (order) {
    case RunOrder::automatic: return "automatic";
    case RunOrder::off: return "off";
  }
  return "unknown";
}

std::string to_string(SaveMode mode) {
  switch (mode) {
    case SaveMode::automatic: return "automatic";
    case SaveMode::land: return "land";
    case SaveMode::interpolate: return "interpolate";
  }
  return "unknown";
}

std::string to_string(EventDirection direction) {
  switch (direction) {
    case EventDirection::both: return "both";
    case EventDirection::rising: return "rising";
    case EventDirection::falling: return "falling";
  }
  return "unknown";
}

std::string to_string(EventAction action) {
  switch (action) {
    case EventAction::record: return "record";
    case EventAction::terminal: return "terminal";
  }
  return "unknown";
}

SaveMode parse_save_mode(const std::string& name) {
  if (name == "auto") return SaveMode::automatic;
  for (SaveMode m : {SaveMode::automatic, SaveMode::land, SaveMode::interpolate}) {
    if (name == to_string(m)) return m;
  }
  throw InvalidInput(fmt::format("unknown save mode '{}' (auto, land, interpolate)", name));
}

std::string to_string(Status s) {
  switch (s) {
    case Status::success: return "success";
    case Status::max_steps_reached: return "max_steps_reached";
    case Status::step_size_underflow: return "step_size_underflow";
    case Status::non_finite_state: return "non_finite_state";
    case Status::singular_matrix: return "singular_matrix";
    case Status::not_solved: return "not_solved";
    case Status::stopped_by_event: return "stopped_by_event";
    case Status::inconsistent_initial_values:
      return "inconsistent_initial_values";
    case Status::zeno_events:
      return "zeno_events";
    case Status::newton_failure:
      return "newton_failure";
  }
  return fmt::format("unknown_status({})", static_cast<int>(s));
}

}  // namespace batchode
