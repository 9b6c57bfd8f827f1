// solver/setup/: which states and observables a solve's series keeps (SolveOptions::save_variables, CuBIE's
// name), resolved by name against the system's: one layout serves the kernel's plan (apply_series:
// kernels/outputs/saved_variables.hpp), the result's columns and the writers. Also the one resolution of
// variable names that the summaries' variables share (choose_variables).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/solver/setup/options.hpp"

namespace batchode {

/// A solve's series columns, resolved: every state and observable (`all`), or the chosen ones in the
/// system's order (states first, then observables), whatever order they were named in.
struct SeriesLayout {
  bool all = true;                            ///< every state and observable: the kernels' unmasked path
  std::size_t n_states = 0;                   ///< the system's (observable o is variable n_states + o)
  std::vector<std::size_t> states;            ///< the saved states' indices in the system
  std::vector<std::size_t> observables;       ///< the saved observables' indices in the system
  std::vector<std::string> state_names;       ///< theirs, in that order
  std::vector<std::string> observable_names;  ///< theirs, in that order
  /// Every state of the system, in its order: the final state's columns (and the names files give them).
  std::vector<std::string> system_state_names;
};

/// The series layout of a validated solve for a system with these states and observables. Throws
/// InvalidInput for an unknown name (listing the known ones), one named twice, or a chosen variable
/// past series_variable_limit. Every state and observable (`all`) when save_variables is empty or
/// names all of them.
SeriesLayout plan_series(const SolveOptions& options, const std::vector<std::string>& state_names,
                         const std::vector<std::string>& observable_names);

/// Points `plan` at a layout's columns (nothing for `all`: a zero plan saves every one).
template <class T>
void apply_series(const SeriesLayout& layout, RunSettings<T>& plan) {
  if (layout.all) return;
  plan.series_chosen = 1;
  plan.series_states = static_cast<std::uint32_t>(layout.states.size());
  plan.series_observables = static_cast<std::uint32_t>(layout.observables.size());
  for (std::uint32_t& word : plan.series_variables) word = 0;
  auto choose = [&](std::size_t v) { plan.series_variables[v / 32] |= std::uint32_t{1} << (v % 32); };
  for (std::size_t s : layout.states) choose(s);
  for (std::size_t o : layout.observables) choose(layout.n_states + o);
}

namespace detail {
/// Which of `names` (a system's states, then its observables) an option (`field`, for messages)
/// chooses: a flag per name, in the system's order. Throws InvalidInput for an unknown name (listing
/// the known ones) or one named twice.
std::vector<bool> choose_variables(const std::vector<std::string>& names,
                                   const std::vector<std::string>& chosen, const char* field);
}  // namespace detail

}  // namespace batchode
