// models/: the right-hand side's components grouped by shape, so that one component of a large model
// can be written as a few formulas over its index (codegen.hpp's rhs_component): the form in which
// several lanes of a GPU warp step one run, each lane its own consecutive states
// (kernels/launch/lane_group.hpp). Two components are of one shape when their trees are the same once
// every state they read is written as an offset from their own index: dx5 = (x6 - x3) * x4 - x5 + F
// and dx9 = (x10 - x7) * x8 - x9 + F both read x[i + 1], x[i - 2], x[i - 1], x[i]. With `periodic`
// offsets the offset is taken modulo the number of states (Lorenz-96's ring: dx0 reads x127 as
// x[i - 1] too), so a ring is one shape where plain offsets make its ends shapes of their own.
//
// Only what the lanes serve is grouped: a model of an explicit method's kind (no events, drivers or
// algebraic variables; those run one thread per run), whose shapes are few (lanes of a warp that take
// different shapes take turns: kMaxComponentShapes) and whose shapes other than the largest have
// members that a short test finds (an arithmetic progression, or a few single indices).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "batchode/models/model.hpp"

namespace batchode::models {

/// The most shapes a model's components may have for rhs_component to be written.
inline constexpr std::size_t kMaxComponentShapes = 8;

/// The indices of one shape's components, as a test a generated branch can make: first, first +
/// stride, ..., last (stride 0: `first` alone); or, when they are no progression, the listed ones.
struct ComponentMembers {
  std::size_t first = 0, last = 0, stride = 0;
  std::vector<std::size_t> listed;  ///< non-empty: exactly these (then first/last/stride are unused)
};

struct ComponentShape {
  std::size_t representative = 0;  ///< the component whose tree is written for the whole shape
  std::size_t count = 0;           ///< how many components have the shape
  ComponentMembers members;
};

struct ComponentShapes {
  bool periodic = false;  ///< offsets of state indices are taken modulo the number of states
  /// The shapes, the most common last: generated code tests the others in turn and takes the last
  /// for every index no test matched.
  std::vector<ComponentShape> shapes;
};

/// State j as component i of n reads it: the offset j - i, or with `periodic` offsets (j - i) modulo n
/// in (-n / 2, n / 2]. The shapes' keys and the code codegen writes from them take it from here.
long long component_offset(std::size_t j, std::size_t i, std::size_t n, bool periodic);

/// The model's components grouped by shape (above), or nullopt where rhs_component is not written: a
/// model with events, drivers or algebraic variables, more than kMaxComponentShapes shapes in both
/// kinds of offsets, or a shape whose members no short test finds. Of the two kinds of offsets, the
/// one with fewer shapes (plain offsets on a tie).
std::optional<ComponentShapes> component_shapes(const Model& model);

}  // namespace batchode::models
