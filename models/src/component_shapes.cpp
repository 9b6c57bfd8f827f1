// models/: component_shapes (component_shapes.hpp): each component's tree written as a key in which a
// state is its offset from the component's index and an auxiliary is its own tree (the component's
// code will compute it inline), then the components grouped by key.
#include "batchode/models/component_shapes.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

namespace batchode::models {

namespace {

/// Each shape's members listed one by one: more than this and no progression, no rhs_component.
constexpr std::size_t kMaxListedMembers = 4;

class ShapeKey {
 public:
  ShapeKey(const Model& model, bool periodic) : m_(model), periodic_(periodic) {}

  std::string of(std::size_t component) {
    std::string key;
    write(*m_.equations().rhs[component], component, key);
    return key;
  }

 private:
  void write(const Expr& e, std::size_t i, std::string& key) const {
    key += static_cast<char>('A' + static_cast<int>(e.kind));
    switch (e.kind) {
      case ExprKind::number: {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &e.value, sizeof bits);
        key += std::to_string(bits);
        break;
      }
      case ExprKind::state:
        key += std::to_string(component_offset(e.index, i, m_.n_states(), periodic_));
        break;
      case ExprKind::parameter:
      case ExprKind::constant:
      case ExprKind::driver:
        key += std::to_string(e.index);
        break;
      case ExprKind::auxiliary:
        write(*m_.equations().auxiliaries[e.index].value, i, key);
        break;
      case ExprKind::call:
        key += std::to_string(static_cast<int>(e.function));
        break;
      default:
        break;
    }
    key += '(';
    for (const ExprPtr& a : e.args) {
      write(*a, i, key);
      key += ',';
    }
    key += ')';
  }

  const Model& m_;
  bool periodic_;
};

/// The members' test, or nullopt where none is short.
std::optional<ComponentMembers> members_test(const std::vector<std::size_t>& members) {
  ComponentMembers test;
  test.first = members.front();
  test.last = members.back();
  if (members.size() == 1) return test;
  test.stride = members[1] - members[0];
  bool progression = true;
  for (std::size_t k = 1; k < members.size(); ++k) progression &= members[k] - members[k - 1] == test.stride;
  if (progression) return test;
  if (members.size() > kMaxListedMembers) return std::nullopt;
  test.listed = members;
  return test;
}

std::optional<ComponentShapes> shapes_with(const Model& model, bool periodic) {
  ShapeKey key(model, periodic);
  std::map<std::string, std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < model.n_states(); ++i) {
    by_key[key.of(i)].push_back(i);
    if (by_key.size() > kMaxComponentShapes) return std::nullopt;
  }
  std::vector<std::vector<std::size_t>> groups;
  for (auto& [k, members] : by_key) groups.push_back(std::move(members));
  // The most common last (it takes every index no test matched: its members need no test); the others
  // by their first component, so the code reads in state order.
  const auto largest = std::max_element(groups.begin(), groups.end(),
                                        [](const auto& a, const auto& b) { return a.size() < b.size(); });
  std::iter_swap(largest, groups.end() - 1);
  std::sort(groups.begin(), groups.end() - 1,
            [](const auto& a, const auto& b) { return a.front() < b.front(); });
  ComponentShapes result;
  result.periodic = periodic;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    ComponentShape shape;
    shape.representative = groups[g].front();
    shape.count = groups[g].size();
    if (g + 1 < groups.size()) {
      std::optional<ComponentMembers> test = members_test(groups[g]);
      if (!test) return std::nullopt;
      shape.members = std::move(*test);
    }
    result.shapes.push_back(std::move(shape));
  }
  return result;
}

}  // namespace

long long component_offset(std::size_t j, std::size_t i, std::size_t n, bool periodic) {
  const auto count = static_cast<long long>(n);
  long long o = static_cast<long long>(j) - static_cast<long long>(i);
  if (periodic) {
    o = ((o % count) + count) % count;
    if (o > count / 2) o -= count;
  }
  return o;
}

std::optional<ComponentShapes> component_shapes(const Model& model) {
  if (model.n_states() == 0 || !model.events().empty() || !model.drivers().empty() ||
      model.n_algebraic() != 0) {
    return std::nullopt;
  }
  std::optional<ComponentShapes> plain = shapes_with(model, false);
  std::optional<ComponentShapes> ring = shapes_with(model, true);
  if (plain && (!ring || plain->shapes.size() <= ring->shapes.size())) return plain;
  return ring;
}

}  // namespace batchode::models
