// python/: what a Python batchode.Model holds: the parsed, checked model, and its runtime models in
// float and double, made on first use (generating C++ source is cheap, compiling happens at the first
// solve in that precision, and every Solver of this Model shares the compiled code).
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "batchode/models/model.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "batchode/timing/call_scope.hpp"
#include "batchode/timing/time_logger.hpp"

namespace batchode::python {

/// Reading a model and generating its code are top-level phases, so at the default level the logger
/// prints a table for each. From Python they are quick, frequent steps before a solve: this scope
/// records and prints them only at verbose and debug.
class QuietAtDefaultLevel {
 public:
  QuietAtDefaultLevel() {
    if (default_timelogger().verbosity() == Verbosity::normal) scope_.emplace(default_timelogger(), Verbosity::none);
  }

 private:
  std::optional<TimeLogger::CallScope> scope_;
};

class PyModel {
 public:
  explicit PyModel(models::Model model) : model_(std::move(model)) {}

  const models::Model& model() const noexcept { return model_; }

  /// The runtime model in T (called with the GIL held, so no lock: the GIL orders the calls).
  template <class T>
  const RuntimeModel<T>& runtime() const {
    std::shared_ptr<RuntimeModel<T>>& slot = slot_for<T>();
    if (!slot) {
      const QuietAtDefaultLevel quiet;
      slot = std::make_shared<RuntimeModel<T>>(model_);
    }
    return *slot;
  }

 private:
  template <class T>
  std::shared_ptr<RuntimeModel<T>>& slot_for() const {
    if constexpr (std::is_same_v<T, float>) {
      return float_;
    } else {
      return double_;
    }
  }

  models::Model model_;
  mutable std::shared_ptr<RuntimeModel<float>> float_;
  mutable std::shared_ptr<RuntimeModel<double>> double_;
};

}  // namespace batchode::python
