// tests/models: a model's components grouped by shape (models/component_shapes.hpp), which decides
// whether and how codegen writes rhs_component. A ring (Lorenz-96) is one shape with periodic offsets
// and four with plain ones; BRUSS's two interleaved species make six shapes with plain offsets, each
// non-default one a progression of stride 2; shapes that are no progression are listed up to four
// members; a chemistry of distinct equations (POLLU), a model with events and a model with too many
// scattered members get none. (codegen_test checks that the written rhs_component gives the call
// operator's values, bit for bit, for every component.)
#include "batchode/models/component_shapes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "batchode/models/model.hpp"
#include "bruss_model.hpp"
#include "lorenz96_text.hpp"
#include "pollu_model.hpp"

namespace {

using namespace batchode::models;

Model parse(const std::string& toml) { return parse_model(read_model_toml(toml, "test.toml")); }

/// n states; component i is `-x_i` where `decaying(i)`, `x_i * x_i` otherwise.
std::string two_kinds(int n, bool (*decaying)(int)) {
  std::string eq, states;
  for (int i = 0; i < n; ++i) {
    const std::string x = "x" + std::to_string(i);
    eq += "d" + x + " = " + (decaying(i) ? "-" + x : x + " * " + x) + "\n";
    states += x + " = 1\n";
  }
  return "name = \"two_kinds\"\nequations = \"\"\"\n" + eq + "\"\"\"\n[states]\n" + states;
}

TEST(ComponentShapes, ARingIsOneShapeWithPeriodicOffsets) {
  const std::optional<ComponentShapes> shapes = component_shapes(parse(batchode::testing::lorenz96_toml(20)));
  ASSERT_TRUE(shapes.has_value());
  EXPECT_TRUE(shapes->periodic);
  ASSERT_EQ(shapes->shapes.size(), 1u);
  EXPECT_EQ(shapes->shapes[0].count, 20u);
  EXPECT_EQ(shapes->shapes[0].representative, 0u);
}

TEST(ComponentShapes, TwoInterleavedSpeciesAreProgressionsOfStrideTwo) {
  // bruss_toml(8): u1, v1, ..., u8, v8. u_i reads u_{i-1} and u_{i+1} (offsets -2 and 2) and v_i
  // (offset 1); the ends read boundary values instead: u1, v1, u8, v8 are shapes of their own.
  const std::optional<ComponentShapes> shapes = component_shapes(parse(batchode::testing::bruss_toml(8)));
  ASSERT_TRUE(shapes.has_value());
  EXPECT_FALSE(shapes->periodic);
  ASSERT_EQ(shapes->shapes.size(), 6u);
  std::vector<std::size_t> singles;
  for (std::size_t k = 0; k + 1 < shapes->shapes.size(); ++k) {
    const ComponentShape& s = shapes->shapes[k];
    EXPECT_TRUE(s.members.listed.empty());
    if (s.count == 1) {
      EXPECT_EQ(s.members.stride, 0u);
      singles.push_back(s.members.first);
    } else {  // the interior species that is not the last shape: 6 of stride 2
      EXPECT_EQ(s.count, 6u);
      EXPECT_EQ(s.members.stride, 2u);
      EXPECT_EQ(s.members.last - s.members.first, 10u);
    }
  }
  EXPECT_EQ(singles, (std::vector<std::size_t>{0, 1, 14, 15}));  // in state order
  EXPECT_EQ(shapes->shapes.back().count, 6u);
}

TEST(ComponentShapes, ScatteredMembersAreListedUpToFour) {
  // {0, 1, 3} decay, {2, 4, 5} square: one of them is the last shape, the other listed.
  const std::optional<ComponentShapes> listed =
      component_shapes(parse(two_kinds(6, [](int i) { return i == 0 || i == 1 || i == 3; })));
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(listed->shapes.size(), 2u);
  EXPECT_EQ(listed->shapes[0].members.listed.size(), 3u);
  // 5 scattered members of the smaller shape: no short test, no rhs_component.
  EXPECT_FALSE(component_shapes(parse(two_kinds(12, [](int i) {
                 return i == 0 || i == 1 || i == 3 || i == 4 || i == 9;
               }))).has_value());
}

TEST(ComponentShapes, DistinctEquationsAndEventsGetNone) {
  EXPECT_FALSE(component_shapes(load_model(batchode::testing::pollu_model_path())).has_value());
  EXPECT_FALSE(component_shapes(parse(R"(name = "bounce"
equations = """
dx = v
dv = -9.81
"""
[states]
x = 1
v = 0
[events]
ground = "x"
)"))
                   .has_value());
  EXPECT_FALSE(component_shapes(Model()).has_value());
}

}  // namespace
