// tests/arrays (GPU): a real round trip through the device buffers. Inputs are staged and uploaded,
// copied on the device into the output buffers (standing in for a kernel), downloaded and scattered
// into a SolveResult, and compared exactly with what went in; buffers are reused across prepares.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "batchode/gpu/buffers.hpp"
#include "batchode/arrays/chunk_plan.hpp"
#include "batchode/arrays/input_array_manager.hpp"
#include "batchode/arrays/output_array_manager.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/solver/results/result.hpp"

#include "require_gpu.hpp"

namespace {

using batchode::arrays::ChunkPlan;
using batchode::arrays::InputArrayManager;
using batchode::arrays::OutputArrayManager;

ChunkPlan plan_for(std::size_t n_runs, std::size_t chunks, std::size_t device_bytes_per_run) {
  batchode::GpuOptions gpu;
  gpu.chunks = chunks;
  std::size_t free_bytes = 0, total_bytes = 0;
  batchode::gpu::memory_info(batchode::gpu::discover().devices.front().index, free_bytes, total_bytes);
  return batchode::arrays::plan_chunks(n_runs, batchode::arrays::RunFootprint{device_bytes_per_run, 0, 0},
                                       free_bytes, gpu);
}

// Stage + upload every chunk, device-copy inputs into outputs (final state = y0, save 0 = y0,
// save 1 = params), write status/counters patterns, download + scatter; then compare exactly.
template <class T>
void round_trip(std::size_t n_runs, std::size_t chunks, bool status, bool counters) {
  const std::size_t n_states = 3, n_params = 3, n_saves = 2;
  std::vector<T> y0(n_runs * n_states), params(n_runs * n_params);
  for (std::size_t i = 0; i < y0.size(); ++i) y0[i] = static_cast<T>(i) + T(0.25);
  for (std::size_t i = 0; i < params.size(); ++i) params[i] = -static_cast<T>(i) - T(0.5);

  const auto footprint = batchode::arrays::run_footprint(n_states, n_params, n_saves, sizeof(T),
                                                         batchode::OutputSelection{status, counters});
  const ChunkPlan plan = plan_for(n_runs, chunks, footprint.device_bytes_per_run);
  ASSERT_EQ(plan.n_chunks, chunks);

  InputArrayManager<T> inputs;
  OutputArrayManager<T> outputs;
  inputs.prepare(plan, n_states, n_params);
  outputs.prepare(plan, n_states, n_saves, status, counters);
  EXPECT_EQ(inputs.slots(), 2u);
  EXPECT_EQ(outputs.capacity(), plan.chunk_runs);

  batchode::SolveOptions options;
  options.save_every = 0.5;
  options.outputs.status = status;
  options.outputs.counters = counters;
  batchode::SolveResult<T> result(n_runs, n_states, n_saves, options);

  std::vector<batchode::gpu::Stream> streams(plan.slots);
  for (std::size_t i = 0; i < plan.n_chunks; ++i) {
    const std::size_t slot = i % plan.slots, first = plan.first(i), count = plan.count(i);
    batchode::gpu::Stream& stream = streams[slot];
    stream.synchronize();  // the slot's previous chunk is done with its staging
    inputs.stage(slot, y0.data(), params.data(), first, count);
    EXPECT_EQ(inputs.upload_initial_values(slot, count, stream.get()), n_states * count * sizeof(T));
    EXPECT_EQ(inputs.upload_parameters(slot, count, stream.get()), n_params * count * sizeof(T));

    const batchode::kernels::DeviceInputs<T> in = inputs.device_view(slot);
    const batchode::kernels::DeviceOutputs<T> out = outputs.device_view(slot, count);
    ASSERT_EQ(in.stride, count);
    ASSERT_EQ(out.stride, count);
    ASSERT_EQ(out.n_saves, n_saves);
    ASSERT_EQ(out.status != nullptr, status);
    ASSERT_EQ(out.stop_time != nullptr, status) << "a stop time comes with each status";
    ASSERT_EQ(out.accepted != nullptr, counters);
    const std::size_t block = n_states * count * sizeof(T);  // one packed state block of the chunk
    batchode::gpu::copy_on_device_async(out.final_state, in.y0, block, stream.get());
    batchode::gpu::copy_on_device_async(out.series, in.y0, block, stream.get());
    batchode::gpu::copy_on_device_async(out.series + n_states * count, in.params, block, stream.get());

    // Status and counters depend on the global run index, so a misplaced chunk shows.
    std::vector<std::int32_t> codes(count);
    std::vector<T> stop_times(count);
    std::vector<std::uint32_t> counts(3 * count);
    for (std::size_t r = 0; r < count; ++r) {
      codes[r] = static_cast<std::int32_t>((first + r) % 4);
      stop_times[r] = static_cast<T>(first + r) / 8;
      counts[r] = static_cast<std::uint32_t>(first + r);
      counts[count + r] = static_cast<std::uint32_t>(2 * (first + r) + 1);
      counts[2 * count + r] = static_cast<std::uint32_t>(7 * (first + r) + 3);
    }
    if (status) {
      batchode::gpu::copy_to_device_async(out.status, codes.data(), count * sizeof(std::int32_t),
                                          stream.get());
      batchode::gpu::copy_to_device_async(out.stop_time, stop_times.data(), count * sizeof(T), stream.get());
    }
    if (counters) {
      // The three counter arrays are one block: accepted, rejected, rhs_evaluations, stride apart.
      ASSERT_EQ(out.rejected, out.accepted + count);
      ASSERT_EQ(out.rhs_evaluations, out.accepted + 2 * count);
      batchode::gpu::copy_to_device_async(out.accepted, counts.data(), counts.size() * sizeof(std::uint32_t),
                                          stream.get());
    }

    EXPECT_EQ(outputs.download_state(slot, count, stream.get()), n_states * count * sizeof(T));
    EXPECT_EQ(outputs.download_series(slot, count, stream.get()), n_saves * n_states * count * sizeof(T));
    EXPECT_EQ(outputs.download_status(slot, count, stream.get()),
              status ? count * (sizeof(std::int32_t) + sizeof(T)) : 0u);
    EXPECT_EQ(outputs.download_counters(slot, count, stream.get()),
              counters ? 3 * count * sizeof(std::uint32_t) : 0u);
    stream.synchronize();  // also keeps the pageable `codes`/`counts` alive until copied
    outputs.scatter(slot, first, count, result.view());
  }

  // Initial values and final state are run-major on the device, the series runs-fastest
  // (device_views.hpp): the stand-in kernel copied a chunk's run-major block into series saves 0 and
  // 1, which the series layout reads as element (s, r) = block[s * count + r].
  for (std::size_t i = 0; i < plan.n_chunks; ++i) {
    const std::size_t first = plan.first(i), count = plan.count(i);
    for (std::size_t r = 0; r < count; ++r) {
      for (std::size_t s = 0; s < n_states; ++s) {
        ASSERT_EQ(result.state_at(first + r, 0, s), y0[first * n_states + s * count + r]) << "run " << first + r;
        ASSERT_EQ(result.state_at(first + r, 1, s), params[first * n_params + s * count + r]) << "run " << first + r;
      }
    }
  }
  for (std::size_t r = 0; r < n_runs; ++r) {
    for (std::size_t s = 0; s < n_states; ++s) {
      ASSERT_EQ(result.final_state(r, s), y0[r * n_states + s]) << "run " << r << " state " << s;
    }
    if (status) {
      ASSERT_EQ(result.status(r), static_cast<batchode::Status>(r % 4)) << "run " << r;
      ASSERT_EQ(result.stop_time(r), static_cast<T>(r) / 8) << "run " << r;
    } else {
      EXPECT_THROW((void)result.status(r), std::logic_error) << "statuses were not selected";
    }
    if (counters) {
      const batchode::RunCounters c = result.counters(r);
      ASSERT_EQ(c.accepted_steps, r) << "run " << r;
      ASSERT_EQ(c.rejected_steps, 2 * r + 1) << "run " << r;
      ASSERT_EQ(c.rhs_evaluations, 7 * r + 3) << "run " << r;
    } else {
      EXPECT_THROW((void)result.counters(r), std::logic_error) << "counters were not selected";
    }
  }
}

// Plain tests per value type rather than TYPED_TEST: this file is compiled as C++17 under hip (see
// CMakeLists.txt), where TYPED_TEST_SUITE's empty variadic argument trips -Wpedantic.
TEST(ArrayManagersGpu, RoundTripSevenChunksAllOutputs) {
  BATCHODE_REQUIRE_GPU();
  round_trip<float>(1000, 7, true, true);  // 6 x 143 + 142: a partial last chunk
  round_trip<double>(1000, 7, true, true);
}

TEST(ArrayManagersGpu, RoundTripWithoutStatusAndCounters) {
  BATCHODE_REQUIRE_GPU();
  round_trip<float>(333, 3, false, false);
  round_trip<double>(333, 3, false, false);
}

TEST(ArrayManagersGpu, RoundTripSingleChunk) {
  BATCHODE_REQUIRE_GPU();
  round_trip<float>(5, 1, true, false);
  round_trip<double>(5, 1, false, true);
}

TEST(BuffersGpu, EnsureReallocatesOnlyWhenLarger) {
  BATCHODE_REQUIRE_GPU();
  batchode::gpu::DeviceBuffer<float> device;
  EXPECT_TRUE(device.ensure(1000));
  float* const first = device.data();
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(device.ensure(500));
  EXPECT_FALSE(device.ensure(1000));
  EXPECT_EQ(device.data(), first);
  EXPECT_EQ(device.size(), 1000u);
  EXPECT_TRUE(device.ensure(2000));
  EXPECT_EQ(device.size(), 2000u);

  batchode::gpu::PinnedBuffer<double> pinned(100);
  double* const host = pinned.data();
  host[99] = 1.5;  // pinned memory is ordinary host memory to the CPU
  EXPECT_FALSE(pinned.ensure(10));
  EXPECT_EQ(pinned.data(), host);
  EXPECT_EQ(pinned.data()[99], 1.5);

  batchode::gpu::DeviceBuffer<float> moved(std::move(device));
  EXPECT_EQ(moved.size(), 2000u);
  EXPECT_EQ(device.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_EQ(device.data(), nullptr);
}

TEST(BuffersGpu, AllocationFailureNamesCallAndBytes) {
  BATCHODE_REQUIRE_GPU();
  batchode::gpu::DeviceBuffer<char> huge;
  const std::size_t bytes = std::size_t{1} << 60;  // 1 EiB: no device has it
  try {
    huge.ensure(bytes);
    FAIL() << "a 1 EiB allocation succeeded";
  } catch (const batchode::GpuError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("hipMalloc(" + std::to_string(bytes) + " bytes)"), std::string::npos) << message;
  }
  EXPECT_EQ(huge.size(), 0u);
  // The failure left no error behind for the next call to trip over.
  EXPECT_NO_THROW(huge.ensure(16));
}

TEST(ArrayManagersGpuReuse, PrepareForASmallerPlanKeepsTheBuffers) {
  BATCHODE_REQUIRE_GPU();
  InputArrayManager<double> inputs;
  OutputArrayManager<double> outputs;
  const ChunkPlan big = plan_for(4096, 2, 1000), small = plan_for(100, 1, 1000);
  inputs.prepare(big, 4, 2);
  outputs.prepare(big, 4, 3, true, true);
  const double* y0 = inputs.device_view(0).y0;
  const double* final_state = outputs.device_view(1, 10).final_state;
  const std::size_t in_bytes = inputs.device_bytes(), out_bytes = outputs.device_bytes();

  inputs.prepare(small, 4, 2);
  outputs.prepare(small, 4, 3, true, true);
  EXPECT_EQ(inputs.device_view(0).y0, y0);
  EXPECT_EQ(outputs.device_view(1, 10).final_state, final_state);
  EXPECT_EQ(inputs.device_bytes(), in_bytes);
  EXPECT_EQ(outputs.device_bytes(), out_bytes);

  // Fewer parameters and inactive outputs: null views, nothing enqueued, the buffers kept.
  inputs.prepare(small, 4, 0);
  outputs.prepare(small, 4, 0, false, false);
  EXPECT_EQ(inputs.device_view(0).params, nullptr);
  const auto view = outputs.device_view(0, 10);
  EXPECT_EQ(view.series, nullptr);
  EXPECT_EQ(view.status, nullptr);
  EXPECT_EQ(view.stop_time, nullptr);
  EXPECT_EQ(view.accepted, nullptr);
  EXPECT_EQ(view.rejected, nullptr);
  EXPECT_EQ(view.rhs_evaluations, nullptr);
  EXPECT_EQ(view.n_saves, 0u);
  batchode::gpu::Stream stream;
  EXPECT_EQ(outputs.download_series(0, 10, stream.get()), 0u);
  EXPECT_EQ(outputs.download_status(0, 10, stream.get()), 0u);
  EXPECT_EQ(outputs.download_counters(0, 10, stream.get()), 0u);
  EXPECT_EQ(outputs.device_bytes(), out_bytes);
}

}  // namespace
