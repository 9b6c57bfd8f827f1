// models/: straight-line code folded into loops where it repeats. A generated sparse LU is one row of
// statements per pivot (its eliminations, its slice of the solve); on a pattern of repeated structure
// (BRUSS's interleaved species, a chain, a grid's lines) consecutive rows are the same statements with
// their slots and states shifted by the same amounts. Written as one loop over those rows, the code
// the GPU's compiler builds stops growing with the model (NVRTC took 14 of BRUSS 128's 24 s for its
// straight-line LU) while every address stays affine in the loop counter: no index tables to load at
// run time (tables of indices cost BRUSS 128's warm solve 2x on the H200), the same operations in the
// same order (the same numbers).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace batchode::models::detail {

/// One generated statement whose integers (slots, states, nonzeros' indices) are holes: `pattern` has a
/// '#' for each of `values`, e.g. "W[#] -= W[#] * W[#];" with {9, 7, 2}.
struct RowStatement {
  std::string pattern;
  std::vector<long long> values;
};
using RowStatements = std::vector<RowStatement>;

/// Consecutive rows written as one: `groups` groups of `period` rows from `first` (groups == 1: one row,
/// written as it is).
struct RowRun {
  std::size_t first, period, groups;
};

/// `rows` cut into runs, in order: from each row, the most rows that `min_groups` or more groups of p rows
/// (p = 1 .. 4) cover, where the groups have the same patterns and each value steps by the same amount
/// from one group to the next; else the row alone.
std::vector<RowRun> affine_runs(const std::vector<RowStatements>& rows, std::size_t min_groups = 4);

/// a + d t as C++ over a loop counter t (a size_t: a - |d| t for d < 0).
std::string affine_value(long long a, long long d);

/// `rows` as C++ statements, each line indented by `indent`, in order. Where `min_groups` or more
/// consecutive groups of p rows (p = 1 .. 4) have the same patterns, and each value steps by the same
/// amount from one group to the next, the groups are one loop over t (each value written as
/// a + d * t); every other row is written as it is.
std::string affine_rows(const std::vector<RowStatements>& rows, const std::string& indent,
                        std::size_t min_groups = 4);

}  // namespace batchode::models::detail
