// Checking the message of an InvalidInput (or a std::runtime_error): shared by the tests of sizes,
// plans, bad input and unwritable files.
#pragma once

#include <gtest/gtest.h>

#include <batchode/solver/setup/options.hpp>
#include <exception>
#include <stdexcept>
#include <string>

namespace batchode::testing {

/// Runs `f`, expects InvalidInput, and returns its message (a failure, and "", otherwise).
template <class F>
std::string invalid_input_message(F&& f) {
  try {
    f();
  } catch (const InvalidInput& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no InvalidInput thrown";
  return {};
}

/// Runs `f`, expects std::runtime_error, and returns its message (a failure, and "", otherwise).
template <class F>
std::string runtime_error_message(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::runtime_error thrown";
  return {};
}

/// `message` contains `part`.
inline void expect_contains(const std::string& message, const std::string& part) {
  EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

}  // namespace batchode::testing
