// solver/setup/: batches built from named value lists, as CuBIE's build_grid does: `verbatim` (run i takes
// the i-th value of every list) or `combinatorial` (the Cartesian product, first axis slowest).
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "batchode/checks/checked_size.hpp"
#include "batchode/solver/setup/options.hpp"

namespace batchode {

/// How GridBuilder combines its axes: `verbatim`, run i takes the i-th value of every axis (all of one
/// length); `combinatorial`, every combination (the Cartesian product), the first axis slowest.
enum class GridKind { verbatim, combinatorial };

/// Run-major initial values and parameters of a batch, ready for Solver::solve.
template <class T>
struct Batch {
  std::vector<T> y0;      ///< n_runs x n_states
  std::vector<T> params;  ///< n_runs x n_params
  std::size_t n_runs = 0;
};

/// n evenly spaced values from a to b inclusive (n >= 2), or {a} for n == 1.
template <class T>
std::vector<T> linspace(double a, double b, std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<T>(n == 1 ? a : a + (b - a) * static_cast<double>(i) / static_cast<double>(n - 1));
  }
  return v;
}

/// Builds a Batch from default values and swept axes. Axes are named by index, or by name when
/// names() was given. Every error (unknown axis, empty list, mismatched lengths, NaN) throws
/// InvalidInput naming the axis; a combinatorial grid whose run count (or array size) does not fit
/// in size_t throws InvalidInput naming the axes' sizes.
template <class T>
class GridBuilder {
 public:
  GridBuilder(std::vector<T> default_state, std::vector<T> default_params)
      : state_(std::move(default_state)), params_(std::move(default_params)) {
    if (state_.empty()) throw InvalidInput("GridBuilder: the default state is empty");
    check_finite(state_, "default state");
    check_finite(params_, "default parameters");
  }

  /// Names for states and parameters, so axes can be given by name.
  GridBuilder& names(std::vector<std::string> state_names, std::vector<std::string> param_names) {
    if (state_names.size() != state_.size() || param_names.size() != params_.size()) {
      throw InvalidInput("GridBuilder::names: got " + std::to_string(state_names.size()) + " state and " +
                         std::to_string(param_names.size()) + " parameter names for " +
                         std::to_string(state_.size()) + " states and " + std::to_string(params_.size()) +
                         " parameters");
    }
    state_names_ = std::move(state_names);
    param_names_ = std::move(param_names);
    return *this;
  }

  GridBuilder& state(std::size_t index, std::vector<T> values) { return add(false, index, std::move(values)); }
  GridBuilder& param(std::size_t index, std::vector<T> values) { return add(true, index, std::move(values)); }
  GridBuilder& state(const std::string& name, std::vector<T> values) {
    return add(false, find(state_names_, name, "state"), std::move(values));
  }
  GridBuilder& param(const std::string& name, std::vector<T> values) {
    return add(true, find(param_names_, name, "parameter"), std::move(values));
  }

  Batch<T> build(GridKind kind) const {
    std::size_t runs = 1;
    if (kind == GridKind::verbatim) {
      runs = axes_.empty() ? 1 : axes_.front().values.size();
      for (const Axis& a : axes_) {
        if (a.values.size() != runs) {
          throw InvalidInput("verbatim grid: axis " + label(a) + " has " + std::to_string(a.values.size()) +
                             " values but axis " + label(axes_.front()) + " has " + std::to_string(runs));
        }
      }
    } else {
      std::vector<std::size_t> sizes;
      for (const Axis& a : axes_) sizes.push_back(a.values.size());
      runs = checks::checked_product(sizes.begin(), sizes.end(),
                                     "combinatorial grid: the run count (the product of the axes' sizes)");
    }
    Batch<T> batch;
    batch.n_runs = runs;
    batch.y0.resize(checks::checked_mul(runs, state_.size(), "grid initial values (n_runs x n_states)"));
    batch.params.resize(checks::checked_mul(runs, params_.size(), "grid parameters (n_runs x n_params)"));
    for (std::size_t r = 0; r < runs; ++r) {
      std::copy(state_.begin(), state_.end(), batch.y0.begin() + static_cast<std::ptrdiff_t>(r * state_.size()));
      std::copy(params_.begin(), params_.end(),
                batch.params.begin() + static_cast<std::ptrdiff_t>(r * params_.size()));
      std::size_t rest = r;  // mixed-radix digits of r, last axis fastest
      for (std::size_t ai = axes_.size(); ai-- > 0;) {
        const Axis& a = axes_[ai];
        std::size_t pick = r;
        if (kind == GridKind::combinatorial) {
          pick = rest % a.values.size();
          rest /= a.values.size();
        }
        (a.is_param ? batch.params[r * params_.size() + a.index] : batch.y0[r * state_.size() + a.index]) =
            a.values[pick];
      }
    }
    return batch;
  }

 private:
  struct Axis {
    bool is_param;
    std::size_t index;
    std::vector<T> values;
  };

  static void check_finite(const std::vector<T>& v, const std::string& what) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!std::isfinite(static_cast<double>(v[i]))) {
        throw InvalidInput("GridBuilder: " + what + " value " + std::to_string(i) + " is not finite");
      }
    }
  }
  std::size_t find(const std::vector<std::string>& names, const std::string& name, const char* what) const {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    throw InvalidInput(std::string("GridBuilder: unknown ") + what + " name '" + name + "'" +
                       (names.empty() ? " (call names() first)" : ""));
  }
  std::string label(const Axis& a) const {
    const auto& names = a.is_param ? param_names_ : state_names_;
    if (!names.empty()) return "'" + names[a.index] + "'";
    return std::string(a.is_param ? "param " : "state ") + std::to_string(a.index);
  }
  GridBuilder& add(bool is_param, std::size_t index, std::vector<T> values) {
    const std::size_t limit = is_param ? params_.size() : state_.size();
    if (index >= limit) {
      throw InvalidInput(std::string("GridBuilder: ") + (is_param ? "parameter" : "state") + " index " +
                         std::to_string(index) + " out of range (" + std::to_string(limit) + ")");
    }
    Axis axis{is_param, index, std::move(values)};
    if (axis.values.empty()) throw InvalidInput("GridBuilder: axis " + label(axis) + " has no values");
    check_finite(axis.values, "axis " + label(axis));
    for (const Axis& a : axes_) {
      if (a.is_param == is_param && a.index == index) {
        throw InvalidInput("GridBuilder: axis " + label(axis) + " given twice");
      }
    }
    axes_.push_back(std::move(axis));
    return *this;
  }

  std::vector<T> state_, params_;
  std::vector<std::string> state_names_, param_names_;
  std::vector<Axis> axes_;
};

}  // namespace batchode
