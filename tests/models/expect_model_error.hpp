// tests/models: the check every test of a model mistake makes. The text, read as the file "m.toml",
// must be refused with a ModelError at (line, column), its message prefixed "m.toml:line:column: " and
// containing each of `words`.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "batchode/models/model.hpp"

namespace batchode::models::testing {

inline void expect_error(const std::string& text, std::size_t line, std::size_t column,
                         const std::vector<std::string>& words) {
  try {
    parse_model(read_model_toml(text, "m.toml"));
    ADD_FAILURE() << "parsed without error:\n" << text;
  } catch (const ModelError& e) {
    EXPECT_EQ(e.where().source, "m.toml");
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    const std::string prefix = "m.toml:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    EXPECT_EQ(std::string(e.what()), prefix + e.message());
    for (const std::string& w : words) {
      EXPECT_NE(e.message().find(w), std::string::npos) << "'" << w << "' not in: " << e.what();
    }
  }
}

}  // namespace batchode::models::testing
