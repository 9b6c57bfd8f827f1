// tests/kernels/methods/: the method registry (kernels/methods/method_registry.hpp) is the one source of
// method facts: MethodInfo, cpu_only, is_stiff, the method lists, names and the dispatch switch all agree
// with it and with the published properties of each method.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "batchode/batchode.hpp"

namespace {

using batchode::Method;
using batchode::method_info;

TEST(MethodRegistry, HoldsEveryMethodOnceInEnumOrderWithItsName) {
  std::set<std::string> names;
  for (int i = 0; i < batchode::method_count; ++i) {
    const batchode::MethodInfo& info = batchode::method_registry[i];
    EXPECT_EQ(static_cast<int>(info.method), i);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(batchode::parse_method(info.name), info.method);
    EXPECT_EQ(batchode::to_string(info.method), info.name);
    EXPECT_EQ(&method_info(info.method), &info);
  }
  EXPECT_EQ(names.size(), std::size(batchode::all_methods) + std::size(batchode::stiff_methods));
  EXPECT_THROW(method_info(static_cast<Method>(batchode::method_count)), batchode::InvalidInput);
}

TEST(MethodRegistry, FactsAreThoseOfThePublishedMethods) {
  struct Expected {
    Method method;
    int order, error_order, stages;
    bool adaptive, fsal, stiff, gpu;
  };
  // Orders and stage counts from the methods' papers (Hairer, Norsett & Wanner; Tsitouras 2011;
  // Lang & Verwer 2001; Boost.Odeint's rosenbrock4 is RODAS4's six stages; Steinebach 2023; Verner 2010).
  const Expected expected[] = {
      {Method::euler, 1, 0, 1, false, false, false, true},
      {Method::rk4, 4, 0, 4, false, false, false, true},
      {Method::bogacki_shampine32, 3, 2, 4, true, true, false, true},
      {Method::cash_karp54, 5, 4, 6, true, false, false, true},
      {Method::dopri5, 5, 4, 7, true, true, false, true},
      {Method::tsit5, 5, 4, 7, true, true, false, true},
      {Method::fehlberg78, 8, 7, 13, true, false, false, true},
      {Method::ros3p, 3, 3, 3, true, false, true, true},  // error by step doubling: order 3 + 1
      {Method::rodas4, 4, 3, 6, true, false, true, true},
      {Method::rosenbrock4, 4, 3, 6, true, false, true, false},
      {Method::rodas5p, 5, 4, 8, true, false, true, true},
      {Method::vern7, 7, 6, 10, true, false, false, true},
      {Method::vern9, 9, 8, 16, true, false, false, true},
      {Method::kvaerno5, 5, 4, 7, true, false, true, true},  // Kvaerno 2004
      {Method::dop853, 8, 7, 13, true, true, false, true},   // Hairer's dop853.f: 12 stages + FSAL
      {Method::radau5, 5, 3, 3, true, false, true, true},    // Hairer & Wanner's RADAU5
      {Method::kvaerno3, 3, 2, 4, true, false, true, true},  // Kvaerno 2004
      {Method::kencarp4, 4, 3, 6, true, false, true, true},  // Kennedy & Carpenter 2003
      {Method::rodas4p2, 4, 3, 6, true, false, true, true},  // Steinebach 2020
  };
  ASSERT_EQ(std::size(expected), static_cast<std::size_t>(batchode::method_count));
  for (const Expected& e : expected) {
    const batchode::MethodInfo& info = method_info(e.method);
    SCOPED_TRACE(info.name);
    EXPECT_EQ(info.order, e.order);
    EXPECT_EQ(info.error_order, e.error_order);
    EXPECT_EQ(info.stages, e.stages);
    EXPECT_EQ(info.adaptive, e.adaptive);
    EXPECT_EQ(info.fsal, e.fsal);
    EXPECT_EQ(info.stiff, e.stiff);
    EXPECT_EQ(info.gpu, e.gpu);
    EXPECT_EQ(batchode::cpu_only(e.method), !e.gpu);
    EXPECT_EQ(batchode::is_stiff(e.method), e.stiff);
  }
}

TEST(MethodRegistry, DispatchGivesTheTableauTheRegistryWasReadFrom) {
  for (const batchode::MethodInfo& info : batchode::method_registry) {
    batchode::tableau::dispatch(info.method, [&](auto tag) {
      using Tab = typename decltype(tag)::type;
      EXPECT_EQ(Tab::method, info.method) << info.name;
      EXPECT_EQ(Tab::stages, info.stages) << info.name;
      EXPECT_EQ(batchode::tableau::runs_on_gpu_v<Tab>, info.gpu) << info.name;
    });
  }
}

}  // namespace
