// models/: affine_rows (affine_rows.hpp).
#include "affine_rows.hpp"

#include <cstdlib>
#include <stdexcept>

namespace batchode::models::detail {
namespace {

/// `pattern` with its '#' replaced by `holes` in order.
std::string fill(const std::string& pattern, const std::vector<std::string>& holes) {
  std::string s;
  std::size_t next = 0;
  for (char c : pattern) {
    if (c != '#') {
      s += c;
      continue;
    }
    if (next == holes.size()) throw std::logic_error("affine_rows: more holes than values in '" + pattern + "'");
    s += holes[next++];
  }
  if (next != holes.size()) throw std::logic_error("affine_rows: more values than holes in '" + pattern + "'");
  return s;
}

}  // namespace

/// (an unsigned size_t: a - |d| t for d < 0, never negative in the loop's range because every row's value
/// is a slot or an index)
std::string affine_value(long long a, long long d) {
  if (d == 0) return std::to_string(a);
  const std::string step = (std::llabs(d) == 1 ? "" : std::to_string(std::llabs(d)) + " * ") + "t";
  if (a == 0 && d > 0) return step;
  return std::to_string(a) + (d > 0 ? " + " : " - ") + step;
}

namespace {

/// Whether rows [r, r + p) and [q, q + p) are the same patterns, statement by statement.
bool same_shape(const std::vector<RowStatements>& rows, std::size_t r, std::size_t q, std::size_t p) {
  for (std::size_t j = 0; j < p; ++j) {
    const RowStatements& a = rows[r + j];
    const RowStatements& b = rows[q + j];
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k].pattern != b[k].pattern || a[k].values.size() != b[k].values.size()) return false;
    }
  }
  return true;
}

/// How many groups of p rows from r step by the same amounts as the first two (1 when fewer than two
/// groups have the same shape).
std::size_t groups_from(const std::vector<RowStatements>& rows, std::size_t r, std::size_t p) {
  const std::size_t n = rows.size();
  if (r + 2 * p > n || !same_shape(rows, r, r + p, p)) return 1;
  std::size_t groups = 2;
  while (r + (groups + 1) * p <= n && same_shape(rows, r, r + groups * p, p)) {
    const std::size_t q = r + groups * p, prev = q - p;
    bool steps = true;
    for (std::size_t j = 0; j < p && steps; ++j) {
      for (std::size_t k = 0; k < rows[q + j].size() && steps; ++k) {
        const std::vector<long long>& v = rows[q + j][k].values;
        const std::vector<long long>& u = rows[prev + j][k].values;
        const std::vector<long long>& first = rows[r + j][k].values;
        const std::vector<long long>& second = rows[r + p + j][k].values;
        for (std::size_t h = 0; h < v.size() && steps; ++h) steps = v[h] - u[h] == second[h] - first[h];
      }
    }
    if (!steps) break;
    ++groups;
  }
  return groups;
}

}  // namespace

std::vector<RowRun> affine_runs(const std::vector<RowStatements>& rows, std::size_t min_groups) {
  std::vector<RowRun> runs;
  std::size_t r = 0;
  while (r < rows.size()) {
    RowRun best{r, 1, 1};
    for (std::size_t p = 1; p <= 4; ++p) {
      const std::size_t groups = groups_from(rows, r, p);
      if (groups >= min_groups && groups * p > best.groups * best.period) best = {r, p, groups};
    }
    runs.push_back(best);
    r += best.groups * best.period;
  }
  return runs;
}

std::string affine_rows(const std::vector<RowStatements>& rows, const std::string& indent, std::size_t min_groups) {
  std::string s;
  for (const RowRun& run : affine_runs(rows, min_groups)) {
    if (run.groups == 1) {  // as it is
      for (const RowStatement& st : rows[run.first]) {
        std::vector<std::string> holes;
        for (long long v : st.values) holes.push_back(std::to_string(v));
        s += indent + fill(st.pattern, holes) + "\n";
      }
      continue;
    }
    s += indent + "BATCHODE_UNROLL_ROWS\n";
    s += indent + "for (batchode::port::size_t t = 0; t < " + std::to_string(run.groups) + "; ++t) {  // " +
         std::to_string(run.groups) + " groups of " + std::to_string(run.period) + " row" +
         (run.period > 1 ? "s" : "") + " alike\n";
    for (std::size_t j = 0; j < run.period; ++j) {
      for (std::size_t k = 0; k < rows[run.first + j].size(); ++k) {
        const RowStatement& first = rows[run.first + j][k];
        const RowStatement& second = rows[run.first + run.period + j][k];
        std::vector<std::string> holes;
        for (std::size_t h = 0; h < first.values.size(); ++h) {
          holes.push_back(affine_value(first.values[h], second.values[h] - first.values[h]));
        }
        s += indent + "  " + fill(first.pattern, holes) + "\n";
      }
    }
    s += indent + "}\n";
  }
  return s;
}

}  // namespace batchode::models::detail
