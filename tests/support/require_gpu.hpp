// The one way a GPU test steps aside where no GPU is usable: a visible skip with the reason the
// runtime gave (CI has no GPU, so these lines are how it shows what it did not run).
#pragma once

#include <gtest/gtest.h>

#include <batchode/gpu/device.hpp>

#define BATCHODE_REQUIRE_GPU()                                                       \
  do {                                                                               \
    const auto& discovery = batchode::gpu::discover();                               \
    if (!discovery.available) GTEST_SKIP() << "no usable GPU: " << discovery.reason; \
  } while (0)
