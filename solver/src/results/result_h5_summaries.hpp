// solver/results/: the group /summaries of a result's .h5 file (result_h5.hpp's layout), private to
// src/results/: written by result_h5.cpp from a result, or reserved for the rows a distributed solve's
// processes write themselves (write_h5_layout).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "batchode/solver/results/result.hpp"
#include "batchode/solver/setup/summary_layout.hpp"
#include "result_h5_writer.hpp"

namespace batchode::detail {

/// The group /summaries: one dataset per summary output, (n_runs, windows, variables) or with a last
/// axis of its values when it has several; the cadence, the variables and the windows' ends as
/// attributes (layout in result_h5.hpp). `r` null: the datasets reserved for `runs` runs, where each
/// starts appended to `reserved` (write_h5_layout).
template <class T>
void write_summaries(H5Writer& w, hid_t root, const SummaryLayout& layout, std::size_t n_runs, const SolveResult<T>* r,
                     double t0, std::vector<std::uint64_t>& reserved) {
  const Handle group(w.check(H5Gcreate2(root, "summaries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             "creating group summaries"),
                     H5Gclose);
  std::vector<std::string> names;
  for (const SummaryOutput& out : layout.outputs) names.push_back(out.name);
  std::vector<double> window_ends(layout.windows);
  for (std::size_t k = 0; k < layout.windows; ++k) window_ends[k] = layout.window_end(t0, k);
  w.attribute(group.get(), "names", names);
  w.attribute(group.get(), "summary_variables", layout.variable_names);
  w.attribute(group.get(), "summarise_every", layout.window_length);
  w.attribute(group.get(), "sample_summaries_every", layout.sample_period);
  w.attribute(group.get(), "window_ends", window_ends);
  const hsize_t runs = n_runs, windows = layout.windows, variables = layout.variables.size();
  for (const SummaryOutput& out : layout.outputs) {
    std::vector<hsize_t> dims{runs, windows, variables};
    if (!out.value_names.empty()) dims.push_back(out.width);  // named values: their own axis (as Python)
    const Handle set = r != nullptr ? w.dataset(group.get(), out.name, r->summary(out.name), dims)
                                    : w.dataset(group.get(), out.name, static_cast<const T*>(nullptr), dims);
    if (!out.value_names.empty()) w.attribute(set.get(), "value_names", out.value_names);
    if (r == nullptr && runs > 0) {
      const haddr_t offset = H5Dget_offset(set.get());
      if (offset == HADDR_UNDEF) w.fail("locating a summaries dataset in the file");
      reserved.push_back(offset);
    }
  }
}

}  // namespace batchode::detail
