// solver/setup/: the series' columns resolved by name (series_layout.hpp).
#include "batchode/solver/setup/series_layout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "batchode/checks/invalid_input.hpp"

namespace batchode {

namespace detail {
std::vector<bool> choose_variables(const std::vector<std::string>& names,
                                   const std::vector<std::string>& chosen, const char* field) {
  std::vector<bool> flags(names.size(), false);
  for (const std::string& name : chosen) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      throw InvalidInput(
          fmt::format("SolveOptions.{}: no state or observable '{}' (there are: {})", field, name,
                      names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    const auto v = static_cast<std::size_t>(it - names.begin());
    if (flags[v]) throw InvalidInput(fmt::format("SolveOptions.{} names '{}' twice", field, name));
    flags[v] = true;
  }
  return flags;
}
}  // namespace detail

SeriesLayout plan_series(const SolveOptions& o, const std::vector<std::string>& state_names,
                         const std::vector<std::string>& observable_names) {
  SeriesLayout layout;
  const std::size_t n = state_names.size();
  layout.n_states = n;
  layout.system_state_names = state_names;
  std::vector<std::string> all = state_names;
  all.insert(all.end(), observable_names.begin(), observable_names.end());
  std::vector<bool> chosen(all.size(), true);
  if (!o.save_variables.empty()) chosen = detail::choose_variables(all, o.save_variables, "save_variables");
  layout.all = std::all_of(chosen.begin(), chosen.end(), [](bool c) { return c; });
  for (std::size_t v = 0; v < all.size(); ++v) {
    if (!chosen[v]) continue;
    if (!layout.all && v >= series_variable_limit) {
      throw InvalidInput(
          fmt::format("SolveOptions.save_variables: '{}' is variable {} of the system's {} states and "
                      "observables; a chosen "
                      "series holds the first {} only (leave save_variables empty to save every one)",
                      all[v], v, all.size(), series_variable_limit));
    }
    if (v < n) {
      layout.states.push_back(v);
      layout.state_names.push_back(all[v]);
    } else {
      layout.observables.push_back(v - n);
      layout.observable_names.push_back(all[v]);
    }
  }
  return layout;
}

}  // namespace batchode
