// tests/solver/systems: what the runtime-model tests share: a fresh cache folder per test (the suite's
// precompiled prelude linked in), CPU options per method and precision, and the models they compile.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "batchode/batchode.hpp"
#include "batchode/models/model.hpp"
#include "runtime_model_systems.hpp"
#include "test_systems.hpp"

namespace batchode::testing::runtime_model_fixture {

using batchode::Method;
using batchode::RuntimeModel;
using batchode::RuntimeModelOptions;

using batchode::testing::kLorenzToml;
using batchode::testing::lorenz96_toml;
using LorenzCompiledIn = batchode::testing::LorenzModelCompiledIn;

inline batchode::models::Model parse(const std::string& toml) { return batchode::testing::parse_model_text(toml); }

/// A fresh cache folder per test, removed afterwards. The precompiled prelude (built once per compiler
/// and headers: 15 s on the 2-core build machine) is built once in a cache folder of the build tree,
/// shared by the test processes CTest starts (one per test), and linked into each fresh folder, so
/// each test still compiles its models cold.
class RuntimeModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    suite_ = BATCHODE_TEST_PRELUDE_CACHE;
    RuntimeModelOptions o;
    o.cache_directory = (suite_ / "cache").string();
    batchode::TimeLogger quiet(nullptr, batchode::Verbosity::none);
    RuntimeModel<double>(warm_up_model(), o, quiet).prepare(Method::euler, quiet);
  }
  /// y' = -y, compiled for euler in double into the suite's cache (the only entry of its cpu/).
  static batchode::models::Model warm_up_model() {
    return batchode::models::parse_model(batchode::models::read_model_toml(
        "name = \"warm_up\"\nequations = \"dy = -y\"\n[states]\ny = 1.0\n", "warm_up.toml"));
  }
  void SetUp() override {
    cache_ = make_folder();
    const std::filesystem::path from = suite_ / "cache" / "pch", to = cache_ / "cache" / "pch";
    std::error_code ec;
    if (!std::filesystem::is_directory(from, ec)) return;
    std::filesystem::create_directories(to);
    std::filesystem::permissions(cache_ / "cache", std::filesystem::perms::owner_all);
    std::filesystem::permissions(to, std::filesystem::perms::owner_all);
    for (const auto& entry : std::filesystem::directory_iterator(from)) {
      std::filesystem::create_hard_link(entry.path(), to / entry.path().filename());
    }
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(cache_, ec);
  }
  RuntimeModelOptions options() const {
    RuntimeModelOptions o;
    o.cache_directory = (cache_ / "cache").string();
    return o;
  }
  static std::filesystem::path make_folder() {
    std::string dir = (std::filesystem::temp_directory_path() / "batchode-rtm-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    return dir;
  }
  std::filesystem::path cache_;
  static inline std::filesystem::path suite_;
};

template <class T>
batchode::SolveOptions cpu_options(Method method) {
  batchode::SolveOptions o;
  o.method = method;
  o.t_end = 2.0;
  o.backend = batchode::Backend::cpu;
  o.verbosity = batchode::Verbosity::none;
  o.rtol = o.atol = sizeof(T) == 4 ? 1e-5 : 1e-8;
  if (method == Method::rk4 || method == Method::euler) o.dt = 1e-3;
  o.outputs.counters = true;
  return o;
}

/// y' = -k y as model text (exact: exp(-k t)); more tables may follow it.
inline std::string decay_toml() {
  return "name = \"decay\"\nequations = \"dy = -k * y\"\n[states]\ny = 1.0\n[parameters]\nk = 1.0\n";
}

/// A Lorenz batch of `runs` runs: y = 1 + r / 10, rho = r (both kinds of behaviour up to rho = 36).
template <class T>
void lorenz_batch(std::size_t runs, std::vector<T>& y0, std::vector<T>& params) {
  for (std::size_t r = 0; r < runs; ++r) {
    y0.insert(y0.end(), {T(1), T(1) + T(r) / T(10), T(1)});
    params.push_back(T(r));
  }
}

}  // namespace batchode::testing::runtime_model_fixture
