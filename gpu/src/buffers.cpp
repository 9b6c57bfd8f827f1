// gpu/: the runtime calls behind buffers.hpp (allocation, streams, events, async copies).
#include "batchode/gpu/buffers.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "batchode/checks/checked_size.hpp"
#include "vendor_runtime.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace batchode::gpu {

namespace {

#if BATCHODE_HAS_GPU_RUNTIME
// Throws GpuError for a failed allocation, naming the call and the byte count: "out of memory"
// alone does not tell which of a solve's buffers was too large.
[[noreturn]] void allocation_failed(const char* call, std::size_t bytes, hipError_t status, const char* file,
                                    int line) {
  // An allocation failure is not sticky, but it stays in the last-error slot; clear it so a later
  // launch check (hipGetLastError) does not report it against an innocent kernel.
  (void)hipGetLastError();
  throw GpuError(std::string(call) + "(" + std::to_string(bytes) + " bytes)", static_cast<int>(status),
                 hipGetErrorString(status), file, line);
}
#else
[[noreturn]] void no_backend(const std::string& call, const char* file, int line) {
  throw GpuError(call, -1, "batchode was built without a GPU backend (BATCHODE_GPU=off)", file, line);
}
#endif

}  // namespace

namespace detail {

std::size_t checked_bytes(std::size_t count, std::size_t value_bytes) {
  return checks::checked_mul(count, value_bytes, "buffer bytes (values x bytes per value)");
}

void* device_allocate(std::size_t bytes) {
#if BATCHODE_HAS_GPU_RUNTIME
  void* pointer = nullptr;
  const hipError_t status = hipMalloc(&pointer, bytes);
  if (status != hipSuccess) allocation_failed("hipMalloc", bytes, status, __FILE__, __LINE__);
  return pointer;
#else
  no_backend("hipMalloc(" + std::to_string(bytes) + " bytes)", __FILE__, __LINE__);
#endif
}

// Page-locked memory by registration: allocated with the C library on 2 MiB boundaries (transparent
// huge pages where the kernel allows them) and then registered with the runtime. On the H100 machine
// hipHostMalloc (cudaHostAlloc) of 64 MiB took 34-43 ms and its release 10 ms; aligned_alloc plus
// hipHostRegister of the same 64 MiB took 2 ms and its unregistration 1.4 ms, and copies from either
// run at the same 55 GB/s. That difference was most of a Solver's first GPU solve.
void* pinned_allocate(std::size_t bytes) {
#if BATCHODE_HAS_GPU_RUNTIME
  // Large buffers on huge-page boundaries; small ones (a small batch's staging) on plain pages, so
  // they register quickly and waste little.
  const std::size_t alignment = bytes >= (std::size_t(4) << 20) ? std::size_t(2) << 20 : std::size_t(4) << 10;
  const std::size_t rounded =
      checks::checked_round_up(std::max<std::size_t>(bytes, 1), alignment, "pinned buffer bytes rounded up");
  void* pointer = std::aligned_alloc(alignment, rounded);
  if (pointer == nullptr) {
    throw GpuError("aligned_alloc(" + std::to_string(rounded) + " bytes) for pinned staging", -1,
                   "host memory exhausted", __FILE__, __LINE__);
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (alignment > (std::size_t(4) << 10)) (void)::madvise(pointer, rounded, MADV_HUGEPAGE);  // advice only
#endif
  // Portable: the staging of one device's runner is never used by another, but the flag costs
  // nothing and keeps a buffer valid whichever device is current when it is copied.
  const hipError_t status = hipHostRegister(pointer, rounded, hipHostRegisterPortable);
  if (status != hipSuccess) {
    std::free(pointer);
    allocation_failed("hipHostRegister", rounded, status, __FILE__, __LINE__);
  }
  return pointer;
#else
  no_backend("hipHostRegister(" + std::to_string(bytes) + " bytes)", __FILE__, __LINE__);
#endif
}

// Release failures are ignored: they only happen after an earlier fatal error (e.g. a kernel fault
// that poisoned the context), which the code that enqueued the work has already reported or will.
void device_release(void* pointer) noexcept {
#if BATCHODE_HAS_GPU_RUNTIME
  if (hipFree(pointer) != hipSuccess) (void)hipGetLastError();
#else
  (void)pointer;
#endif
}

void pinned_release(void* pointer) noexcept {
#if BATCHODE_HAS_GPU_RUNTIME
  if (hipHostUnregister(pointer) != hipSuccess) (void)hipGetLastError();
  std::free(pointer);
#else
  (void)pointer;
#endif
}

}  // namespace detail

bool try_register_host(void* host, std::size_t bytes) noexcept {
#if BATCHODE_HAS_GPU_RUNTIME
  if (hipHostRegister(host, bytes, hipHostRegisterPortable) == hipSuccess) return true;
  (void)hipGetLastError();  // not sticky; keep it out of the next launch check
#else
  (void)host, (void)bytes;
#endif
  return false;
}

void unregister_host(void* host) noexcept {
#if BATCHODE_HAS_GPU_RUNTIME
  if (hipHostUnregister(host) != hipSuccess) (void)hipGetLastError();
#else
  (void)host;
#endif
}


// --- Stream -----------------------------------------------------------------------------------

Stream::Stream() {
#if BATCHODE_HAS_GPU_RUNTIME
  hipStream_t stream = nullptr;
  BATCHODE_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  stream_ = detail::opaque(stream);
  owned_ = true;
#else
  no_backend("hipStreamCreateWithFlags", __FILE__, __LINE__);
#endif
}

Stream::~Stream() {
#if BATCHODE_HAS_GPU_RUNTIME
  if (owned_ && hipStreamDestroy(detail::vendor(stream_)) != hipSuccess) (void)hipGetLastError();
#endif
}

Stream::Stream(Stream&& other) noexcept
    : stream_(std::exchange(other.stream_, stream_t{})), owned_(std::exchange(other.owned_, false)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Stream old(std::move(*this));  // destroys our current stream at the end of this scope
    stream_ = std::exchange(other.stream_, stream_t{});
    owned_ = std::exchange(other.owned_, false);
  }
  return *this;
}

void Stream::synchronize() const {
#if BATCHODE_HAS_GPU_RUNTIME
  BATCHODE_CHECK(hipStreamSynchronize(detail::vendor(stream_)));
#else
  no_backend("hipStreamSynchronize", __FILE__, __LINE__);
#endif
}

// --- Event ------------------------------------------------------------------------------------

Event::Event() {
#if BATCHODE_HAS_GPU_RUNTIME
  hipEvent_t event = nullptr;
  BATCHODE_CHECK(hipEventCreate(&event));
  event_ = detail::opaque(event);
  owned_ = true;
#else
  no_backend("hipEventCreate", __FILE__, __LINE__);
#endif
}

Event::~Event() {
#if BATCHODE_HAS_GPU_RUNTIME
  if (owned_ && hipEventDestroy(detail::vendor(event_)) != hipSuccess) (void)hipGetLastError();
#endif
}

Event::Event(Event&& other) noexcept
    : event_(std::exchange(other.event_, event_t{})), owned_(std::exchange(other.owned_, false)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Event old(std::move(*this));
    event_ = std::exchange(other.event_, event_t{});
    owned_ = std::exchange(other.owned_, false);
  }
  return *this;
}

void Event::record(stream_t stream) {
#if BATCHODE_HAS_GPU_RUNTIME
  BATCHODE_CHECK(hipEventRecord(detail::vendor(event_), detail::vendor(stream)));
#else
  (void)stream;
  no_backend("hipEventRecord", __FILE__, __LINE__);
#endif
}

void Event::synchronize() const {
#if BATCHODE_HAS_GPU_RUNTIME
  BATCHODE_CHECK(hipEventSynchronize(detail::vendor(event_)));
#else
  no_backend("hipEventSynchronize", __FILE__, __LINE__);
#endif
}

bool Event::ready() const {
#if BATCHODE_HAS_GPU_RUNTIME
  const hipError_t status = hipEventQuery(detail::vendor(event_));
  if (status == hipErrorNotReady) {
    (void)hipGetLastError();  // "not ready" is an answer, not an error to carry forward
    return false;
  }
  BATCHODE_CHECK(status);
  return true;
#else
  no_backend("hipEventQuery", __FILE__, __LINE__);
#endif
}

float elapsed_ms(const Event& start, const Event& stop) {
#if BATCHODE_HAS_GPU_RUNTIME
  float ms = 0.0f;
  BATCHODE_CHECK(hipEventElapsedTime(&ms, detail::vendor(start.get()), detail::vendor(stop.get())));
  return ms;
#else
  (void)start;
  (void)stop;
  no_backend("hipEventElapsedTime", __FILE__, __LINE__);
#endif
}

// --- Copies -----------------------------------------------------------------------------------

namespace {
enum class CopyDirection { host_to_device, device_to_host, device_to_device };

void copy_async(void* dst, const void* src, std::size_t bytes, stream_t stream, CopyDirection direction) {
  if (bytes == 0) return;
#if BATCHODE_HAS_GPU_RUNTIME
  switch (direction) {
    case CopyDirection::host_to_device:
      BATCHODE_CHECK(hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, detail::vendor(stream)));
      break;
    case CopyDirection::device_to_host:
      BATCHODE_CHECK(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, detail::vendor(stream)));
      break;
    case CopyDirection::device_to_device:
      BATCHODE_CHECK(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, detail::vendor(stream)));
      break;
  }
#else
  (void)dst;
  (void)src;
  (void)stream;
  (void)direction;
  no_backend("hipMemcpyAsync(" + std::to_string(bytes) + " bytes)", __FILE__, __LINE__);
#endif
}
}  // namespace

void copy_to_device_async(void* device_dst, const void* host_src, std::size_t bytes, stream_t stream) {
  copy_async(device_dst, host_src, bytes, stream, CopyDirection::host_to_device);
}
void copy_to_host_async(void* host_dst, const void* device_src, std::size_t bytes, stream_t stream) {
  copy_async(host_dst, device_src, bytes, stream, CopyDirection::device_to_host);
}
void copy_on_device_async(void* device_dst, const void* device_src, std::size_t bytes, stream_t stream) {
  copy_async(device_dst, device_src, bytes, stream, CopyDirection::device_to_device);
}

}  // namespace batchode::gpu
