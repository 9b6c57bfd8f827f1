// tests/timing/: KernelTimer on a real GPU. A clock64() busy-wait kernel of known length is timed
// by the event pair and by the host clock around a synchronised launch; the two must agree.
// Compiled by the GPU compiler (hipcc or nvcc); skips where no GPU is usable.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include <batchode/gpu/buffers.hpp>
#include <batchode/gpu/device.hpp>
#include <batchode/gpu/runtime.hpp>
#include <batchode/timing/kernel_timer.hpp>
#include <batchode/timing/time_logger.hpp>

#if BATCHODE_GPU_COMPILER && BATCHODE_HAS_GPU_RUNTIME
#include <batchode/backends/gpu/launch.hpp>  // the vendor's stream for <<<>>> (and clock64 under hipcc)
#endif

namespace {

#if BATCHODE_GPU_COMPILER && BATCHODE_HAS_GPU_RUNTIME
#define BATCHODE_TIMING_GPU_TEST 1

// Busy-waits `cycles` SM clock cycles: a kernel whose length we choose.
__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

void spin(batchode::gpu::stream_t stream, long long cycles) {
  spin_kernel<<<1, 1, 0, batchode::gpu::native_stream(stream)>>>(cycles);
  batchode::gpu::check_last_launch("spin_kernel", __FILE__, __LINE__);
}

double host_ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// SM cycles per millisecond, measured: clock rates differ between GPUs and with boost.
double cycles_per_ms(const batchode::gpu::Stream& stream) {
  spin(stream.get(), 1000);  // warm-up: module load and clock ramp-up happen here
  stream.synchronize();
  constexpr long long cycles = 20'000'000;
  const auto start = std::chrono::steady_clock::now();
  spin(stream.get(), cycles);
  stream.synchronize();
  return static_cast<double>(cycles) / host_ms_since(start);
}
#else
#define BATCHODE_TIMING_GPU_TEST 0
#endif

#define SKIP_WITHOUT_GPU()                                                                        \
  do {                                                                                            \
    const auto& found = batchode::gpu::discover();                                                \
    if (!found.available) GTEST_SKIP() << "no usable GPU, KernelTimer GPU test skipped: " << found.reason; \
    if (!BATCHODE_TIMING_GPU_TEST) FAIL() << "a GPU is usable but this test was not compiled by the GPU compiler"; \
  } while (0)

TEST(KernelTimerGpu, ElapsedMatchesTheHostClockAroundASynchronisedLaunch) {
  SKIP_WITHOUT_GPU();
#if BATCHODE_TIMING_GPU_TEST
  batchode::gpu::Stream stream;  // non-blocking, as the solver's
  const double rate = cycles_per_ms(stream);
  constexpr double target_ms = 50;
  batchode::KernelTimer timer("spin");

  batchode::gpu::synchronize_device();
  const auto start = std::chrono::steady_clock::now();
  timer.start(stream.get());
  spin(stream.get(), static_cast<long long>(rate * target_ms));
  timer.stop(stream.get());
  stream.synchronize();
  const double host_ms = host_ms_since(start);
  const double gpu_ms = timer.elapsed_ms();

  // Host time adds the launch and synchronisation latency (tens of microseconds) to the kernel.
  const double tolerance = 0.1 * host_ms + 0.2;
  EXPECT_NEAR(gpu_ms, host_ms, tolerance) << "rate " << rate << " cycles/ms";
  EXPECT_LE(gpu_ms, host_ms + 0.2);  // the events lie inside the host's bracket
  EXPECT_NEAR(gpu_ms, target_ms, 0.5 * target_ms);
  std::cout << "[ INFO     ] spin kernel: KernelTimer " << gpu_ms << " ms, host " << host_ms << " ms, tolerance "
            << tolerance << " ms\n";
#endif
}

TEST(KernelTimerGpu, DeferredHandlesSurviveRestartsAndResolveInTheLogger) {
  SKIP_WITHOUT_GPU();
#if BATCHODE_TIMING_GPU_TEST
  batchode::gpu::Stream stream;  // non-blocking, as the solver's
  const double rate = cycles_per_ms(stream);
  std::ostringstream out;
  batchode::TimeLogger log(&out);
  log.register_event("chunks", "runtime");
  log.register_event("kernel_launch", "runtime");
  batchode::KernelTimer timer("kernel_launch");

  log.start_event("chunks");
  const double lengths_ms[] = {10, 40};
  batchode::GpuTime handles[2];
  for (int chunk = 0; chunk < 2; ++chunk) {  // one timer, restarted per chunk, never waited on
    log.start_event("kernel_launch");
    timer.start(stream.get());
    spin(stream.get(), static_cast<long long>(rate * lengths_ms[chunk]));
    timer.stop(stream.get());
    handles[chunk] = timer.deferred();
    log.stop_event("kernel_launch", {{"chunk_index", chunk}}, timer.deferred());
  }
  // The second kernel is still spinning: polling must not block or invent a value.
  EXPECT_FALSE(handles[1].peek().has_value());
  EXPECT_TRUE(timer.is_stopped());
  EXPECT_FALSE(timer.elapsed().has_value()) << "stopped on the host, not yet on the device";
  EXPECT_EQ(log.stats("kernel_launch").gpu_count, 0u);

  stream.synchronize();                    // the solver synchronises anyway...
  EXPECT_EQ(log.resolve_gpu_times(), 2u);  // ...then resolves
  log.stop_event("chunks");

  const double first = *handles[0].wait();
  const double second = *handles[1].wait();
  EXPECT_NEAR(first, lengths_ms[0], 0.5 * lengths_ms[0]);
  EXPECT_NEAR(second, lengths_ms[1], 0.5 * lengths_ms[1]);
  EXPECT_GT(second, 2 * first);  // the restart did not overwrite the first pair
  EXPECT_NEAR(timer.elapsed_ms(), second, 1e-6);
  ASSERT_TRUE(timer.elapsed().has_value());
  EXPECT_NEAR(*timer.elapsed(), second, 1e-6);
  const auto stats = log.stats("kernel_launch");
  EXPECT_EQ(stats.gpu_count, 2u);
  EXPECT_NEAR(stats.total_gpu_ms, first + second, 1e-3);
  EXPECT_NE(out.str().find("kernel_launch"), std::string::npos);  // the top-level summary
#endif
}

TEST(KernelTimerGpu, MixingModesAndEarlyReadsAreTimingErrors) {
  SKIP_WITHOUT_GPU();
#if BATCHODE_TIMING_GPU_TEST
  batchode::gpu::Stream stream;  // non-blocking, as the solver's
  batchode::KernelTimer timer("k");
  timer.start(stream.get());
  EXPECT_THROW(timer.stop_cpu(), batchode::TimingError);
  EXPECT_THROW((void)timer.elapsed_ms(), batchode::TimingError);
  EXPECT_THROW((void)timer.deferred(), batchode::TimingError);
  EXPECT_FALSE(timer.elapsed().has_value());  // asking is never an error
  EXPECT_THROW(timer.start(stream.get()), batchode::TimingError);
  timer.stop(stream.get());
  EXPECT_GE(timer.elapsed_ms(), 0.0);
  EXPECT_THROW(timer.stop(stream.get()), batchode::TimingError);
#endif
}

}  // namespace
