// tests/arrays: what the buffer types promise in a build without a GPU runtime: they exist, empty
// ones cost nothing, and anything that needs the runtime throws GpuError saying so.
#include <gtest/gtest.h>

#include <string>

#include "batchode/gpu/buffers.hpp"

namespace {

// Only CPU-only builds have this behaviour; GPU builds cover the buffers in arrays_gpu_test (a test
// that always skips there would make "no test skipped on the GPU machine" impossible).
#if !BATCHODE_HAS_GPU_RUNTIME
TEST(BuffersWithoutGpuBackend, ThrowGpuErrorNamingTheMissingBackend) {
  batchode::gpu::DeviceBuffer<double> device;  // empty: no runtime call, no throw
  EXPECT_EQ(device.size(), 0u);
  EXPECT_EQ(device.data(), nullptr);
  EXPECT_FALSE(device.ensure(0));
  try {
    device.ensure(10);
    FAIL() << "ensure(10) did not throw";
  } catch (const batchode::GpuError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("without a GPU backend"), std::string::npos) << message;
    EXPECT_NE(message.find("80 bytes"), std::string::npos) << message;
  }
  EXPECT_EQ(device.size(), 0u);
  batchode::gpu::PinnedBuffer<float> pinned;
  EXPECT_THROW(pinned.ensure(1), batchode::GpuError);
  EXPECT_THROW(batchode::gpu::Stream{}, batchode::GpuError);
  EXPECT_THROW(batchode::gpu::Event{}, batchode::GpuError);
  EXPECT_NO_THROW(batchode::gpu::copy_to_device_async(nullptr, nullptr, 0, nullptr));  // nothing to copy
  EXPECT_THROW(batchode::gpu::copy_to_device_async(nullptr, nullptr, 8, nullptr), batchode::GpuError);
}
#endif

}  // namespace
