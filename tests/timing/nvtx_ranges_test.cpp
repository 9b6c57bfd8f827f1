// tests/timing/: the TimeLogger's profiler ranges reach NVTX (CUDA builds). NVTX_INJECTION64_PATH
// (set by CTest) loads nvtx_counting_injection as a profiler would be loaded, and the test checks
// the ranges it saw: one per started event, nested as the events are, popped when they stop, none
// while the ranges are off, and a profiler attached switches them on (apply_environment).
// Needs no GPU: NVTX is host code.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <batchode/gpu/profiler_ranges.hpp>
#include <batchode/timing/time_logger.hpp>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

namespace {

using namespace batchode;

std::string ranges_seen() {
  const char* path = std::getenv("NVTX_INJECTION64_PATH");
  if (path == nullptr) return "(NVTX_INJECTION64_PATH is not set)";
  void* library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);  // the copy NVTX loaded, if it did
  if (library == nullptr) return "(the injection library was not loaded)";
  auto* read = reinterpret_cast<std::string* (*)()>(dlsym(library, "nvtx_test_ranges"));
  const std::unique_ptr<std::string> text(read());
  dlclose(library);
  return *text;
}

TEST(NvtxRanges, EventsAreNestedRangesWhileOn) {
  ASSERT_STREQ(gpu::profiler_ranges_api(), "nvtx");
  ASSERT_NE(std::getenv("NVTX_INJECTION64_PATH"), nullptr) << "CTest sets it; run the test through CTest";
  std::ostringstream out;
  TimeLogger log(&out, Verbosity::normal);
  log.register_event("solve", "runtime");
  log.register_event("kernel", "runtime");
  log.apply_environment();  // a profiler is attached: ranges on
  EXPECT_TRUE(log.profiler_ranges());
  log.start_event("solve");
  log.start_event("kernel");
  log.stop_event("kernel");
  log.record_event("kernel", 0.5);  // known only once finished: no range
  log.stop_event("solve");
  log.set_profiler_ranges(false);
  log.start_event("solve");
  log.stop_event("solve");
  EXPECT_EQ(ranges_seen(), "push solve\npush kernel\npop\npop\n");
}

}  // namespace
