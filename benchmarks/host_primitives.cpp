// benchmarks/host_primitives: the host-side costs a GPU solve is built from, measured on the machine
// itself: pinned allocation (hipHostMalloc) against registering ordinary memory (hipHostRegister),
// first-touch page faults with and without transparent huge pages, memcpy bandwidth by thread count,
// and pinned against pageable transfers. These numbers decided how the GPU path stages its data
// (benchmarks/RESULTS.md). GPU builds only; best of several repetitions of each.
// It measures the runtime's own primitives, some of which batchode's gpu/ API does not offer
// (hipHostMalloc), so it calls the runtime through gpu/'s private shim, as gpu/src does.
//
//   host_primitives [--mib M]   (default 64 MiB per buffer)
#include "vendor_runtime.hpp"  // gpu/src: the vendor runtime, HIP names, BATCHODE_CHECK

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

constexpr std::size_t huge_page = std::size_t(2) << 20;

char* aligned(std::size_t bytes, bool huge) {
  auto* p = static_cast<char*>(std::aligned_alloc(huge_page, bytes));
  if (p == nullptr) std::exit(2);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (huge) (void)::madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)huge;
#endif
  return p;
}

/// Runs fn(begin, end) over [0, n) on `threads` threads (the caller included).
template <class Fn>
void split(unsigned threads, std::size_t n, Fn fn) {
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back([=] { fn(t * n / threads, (t + 1) * n / threads); });
  fn(0, n / threads);
  for (std::thread& t : pool) t.join();
}

template <class Fn>
double best_of(int reps, Fn fn) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) best = std::min(best, fn());
  return best;
}

int run(int argc, char** argv) {
  std::size_t mib = 64;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--mib") mib = std::stoul(argv[i + 1]);
  }
  const std::size_t bytes = mib << 20;
  BATCHODE_CHECK(hipSetDevice(0));
  BATCHODE_CHECK(hipDeviceSynchronize());  // the context exists before anything is timed
  std::printf("host primitives, %zu MiB buffers, best of 3-5\n", mib);

  double alloc_ms = 1e300, free_ms = 1e300;
  for (int i = 0; i < 3; ++i) {
    void* p = nullptr;
    auto start = Clock::now();
    BATCHODE_CHECK(hipHostMalloc(&p, bytes, hipHostMallocDefault));
    alloc_ms = std::min(alloc_ms, ms_since(start));
    start = Clock::now();
    BATCHODE_CHECK(hipHostFree(p));
    free_ms = std::min(free_ms, ms_since(start));
  }
  std::printf("hipHostMalloc %.3f ms, hipHostFree %.3f ms\n", alloc_ms, free_ms);

  double reg_ms = 1e300, unreg_ms = 1e300;
  for (int i = 0; i < 3; ++i) {
    char* p = aligned(bytes, true);
    std::memset(p, 1, bytes);
    auto start = Clock::now();
    BATCHODE_CHECK(hipHostRegister(p, bytes, hipHostRegisterPortable));
    reg_ms = std::min(reg_ms, ms_since(start));
    start = Clock::now();
    BATCHODE_CHECK(hipHostUnregister(p));
    unreg_ms = std::min(unreg_ms, ms_since(start));
    std::free(p);
  }
  std::printf("hipHostRegister (touched memory) %.3f ms, hipHostUnregister %.3f ms\n", reg_ms, unreg_ms);

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned threads : {1u, 4u, 8u, 16u}) {
    if (threads > cores) break;
    for (bool huge : {false, true}) {
      const double t = best_of(3, [&] {
        char* p = aligned(bytes, huge);
        const auto start = Clock::now();
        split(threads, bytes, [p](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; i += 4096) p[i] = 1;
        });
        const double ms = ms_since(start);
        std::free(p);
        return ms;
      });
      std::printf("first touch, %2u threads, %s pages: %.3f ms\n", threads, huge ? "huge" : "4 KiB", t);
    }
  }

  char* src = aligned(bytes, true);
  char* dst = aligned(bytes, true);
  std::memset(src, 2, bytes);
  std::memset(dst, 0, bytes);
  char* pinned = nullptr;
  BATCHODE_CHECK(hipHostMalloc(reinterpret_cast<void**>(&pinned), bytes, hipHostMallocDefault));
  std::memset(pinned, 0, bytes);
  for (unsigned threads : {1u, 2u, 4u, 8u, 16u}) {
    if (threads > cores) break;
    const double t = best_of(5, [&] {
      const auto start = Clock::now();
      split(threads, bytes, [&](std::size_t b, std::size_t e) { std::memcpy(pinned + b, src + b, e - b); });
      return ms_since(start);
    });
    std::printf("memcpy into pinned, %2u threads: %.3f ms (%.1f GB/s)\n", threads, t, bytes / t / 1e6);
  }

  void* device = nullptr;
  BATCHODE_CHECK(hipMalloc(&device, bytes));
  hipEvent_t start_event, stop_event;
  BATCHODE_CHECK(hipEventCreate(&start_event));
  BATCHODE_CHECK(hipEventCreate(&stop_event));
  auto transfer = [&](const char* name, void* to, const void* from, hipMemcpyKind kind) {
    const double t = best_of(5, [&] {
      BATCHODE_CHECK(hipEventRecord(start_event, nullptr));
      BATCHODE_CHECK(hipMemcpyAsync(to, from, bytes, kind, nullptr));
      BATCHODE_CHECK(hipEventRecord(stop_event, nullptr));
      BATCHODE_CHECK(hipEventSynchronize(stop_event));
      float ms = 0;
      BATCHODE_CHECK(hipEventElapsedTime(&ms, start_event, stop_event));
      return static_cast<double>(ms);
    });
    std::printf("%-22s %.3f ms (%.1f GB/s)\n", name, t, bytes / t / 1e6);
  };
  transfer("H2D from pinned", device, pinned, hipMemcpyHostToDevice);
  transfer("H2D from pageable", device, src, hipMemcpyHostToDevice);
  transfer("D2H to pinned", pinned, device, hipMemcpyDeviceToHost);
  transfer("D2H to pageable", dst, device, hipMemcpyDeviceToHost);

  BATCHODE_CHECK(hipEventDestroy(start_event));
  BATCHODE_CHECK(hipEventDestroy(stop_event));
  BATCHODE_CHECK(hipFree(device));
  BATCHODE_CHECK(hipHostFree(pinned));
  std::free(src);
  std::free(dst);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const batchode::GpuError& e) {
    std::fprintf(stderr, "host_primitives: %s\n", e.what());
    return 1;
  }
}
