// checks/: whether a name is an identifier (a letter or '_', then letters, digits or '_'): the rule for
// every name batchode turns into code, file names, HDF5 groups or CSV cells (model declarations and
// events, generated type names, SolveOptions event names).
#pragma once

#include <string_view>

namespace batchode::checks {

inline bool is_identifier(std::string_view name) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !letter(name[0])) return false;
  for (char c : name) {
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace batchode::checks
