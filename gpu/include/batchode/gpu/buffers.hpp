// gpu/: RAII owners of GPU resources: streams, events, device and pinned host buffers, and the
// asynchronous copies between them. Buffers grow on demand and are kept across solves, because
// hipMalloc/hipHostMalloc cost far more than the copies they serve.
//
// Every runtime call is checked in gpu/src and throws batchode::GpuError naming the call (and, for
// allocations, the byte count). In a build without a GPU runtime (BATCHODE_HAS_GPU_RUNTIME == 0) the
// types still exist, so code using them compiles everywhere, but anything that would touch the
// runtime throws GpuError saying the build has no GPU backend. Destructors never throw.
#pragma once

#include <cstddef>
#include <utility>

#include "batchode/gpu/runtime.hpp"

namespace batchode::gpu {

namespace detail {
// Untyped allocation and release, defined in buffers.cpp (the only place that calls the runtime's
// allocators). The allocators throw GpuError naming the call and the byte count; the releases never
// throw (a failure is reported on stderr, as there is no way to recover from it in a destructor).
void* device_allocate(std::size_t bytes);
void device_release(void* pointer) noexcept;
void* pinned_allocate(std::size_t bytes);
void pinned_release(void* pointer) noexcept;

struct DeviceMemory {
  static void* allocate(std::size_t bytes) { return device_allocate(bytes); }
  static void release(void* pointer) noexcept { device_release(pointer); }
};
struct PinnedMemory {
  static void* allocate(std::size_t bytes) { return pinned_allocate(bytes); }
  static void release(void* pointer) noexcept { pinned_release(pointer); }
};

/// Bytes for `count` values of `value_bytes` each; throws InvalidInput (checked_size.hpp) on overflow.
std::size_t checked_bytes(std::size_t count, std::size_t value_bytes);

/// An owned, growable, uninitialised array of T in the memory `Memory` allocates.
template <class T, class Memory>
class OwnedBuffer {
 public:
  OwnedBuffer() noexcept = default;
  /// Allocates `count` values (throws GpuError; nothing is allocated for count == 0).
  explicit OwnedBuffer(std::size_t count) { ensure(count); }
  ~OwnedBuffer() { release(); }

  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  OwnedBuffer(OwnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  OwnedBuffer& operator=(OwnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  /// Makes room for at least `count` values. Reallocates only when `count` exceeds size(); the old
  /// contents are then discarded. Returns true when it reallocated. Throws GpuError (allocation
  /// failed, or no GPU backend) or InvalidInput (byte count overflows); on a throw the buffer
  /// is left empty.
  bool ensure(std::size_t count) {
    if (count <= size_) return false;
    const std::size_t bytes = checked_bytes(count, sizeof(T));
    release();  // free first: the old and new buffers need not fit together
    data_ = static_cast<T*>(Memory::allocate(bytes));
    size_ = count;
    return true;
  }

  /// Frees the memory (size() becomes 0). Never throws.
  void release() noexcept {
    if (data_ != nullptr) Memory::release(data_);
    data_ = nullptr;
    size_ = 0;
  }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  /// Capacity in values (what ensure() last allocated).
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};
}  // namespace detail

/// An array of T in device memory (hipMalloc / hipFree) on the device current at allocation.
template <class T>
using DeviceBuffer = detail::OwnedBuffer<T, detail::DeviceMemory>;

/// An array of T in page-locked host memory (allocated, then hipHostRegister-ed): the staging area that
/// makes asynchronous copies truly asynchronous and runs them at full PCIe/NVLink bandwidth.
template <class T>
using PinnedBuffer = detail::OwnedBuffer<T, detail::PinnedMemory>;

/// A non-blocking stream (it does not synchronise with the legacy default stream) on the current
/// device. Movable, not copyable.
class Stream {
 public:
  /// Creates the stream. Throws GpuError.
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;

  stream_t get() const noexcept { return stream_; }
  /// Waits for all work enqueued so far. Throws GpuError (including errors of earlier async work).
  void synchronize() const;

 private:
  stream_t stream_{};
  bool owned_ = false;
};

/// A GPU event, for ordering streams and timing enqueued work. Movable, not copyable.
class Event {
 public:
  /// Creates the event (with timing enabled). Throws GpuError.
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;

  event_t get() const noexcept { return event_; }
  /// Records the event on `stream` after the work enqueued so far. Throws GpuError.
  void record(stream_t stream);
  /// Waits until the recorded work completed. Throws GpuError.
  void synchronize() const;
  /// True when the recorded work completed (false while it runs). Throws GpuError on other errors.
  bool ready() const;

 private:
  event_t event_{};
  bool owned_ = false;
};

/// Milliseconds between two recorded, completed events. Throws GpuError.
float elapsed_ms(const Event& start, const Event& stop);

/// Page-locks host memory the caller owns (hipHostRegister), so copies into and out of it run
/// asynchronously at full bandwidth without staging. Returns false, and leaves the memory as it
/// was, when it cannot (no GPU backend or device, or the runtime refused). Never throws.
bool try_register_host(void* host, std::size_t bytes) noexcept;
/// Undoes try_register_host (before the memory is freed). Never throws.
void unregister_host(void* host) noexcept;

/// Enqueues a host-to-device copy of `bytes` on `stream` (nothing for 0 bytes). The host memory
/// should be pinned for the copy to overlap with other work. Throws GpuError.
void copy_to_device_async(void* device_dst, const void* host_src, std::size_t bytes, stream_t stream);
/// Enqueues a device-to-host copy of `bytes` on `stream` (nothing for 0 bytes). Throws GpuError.
void copy_to_host_async(void* host_dst, const void* device_src, std::size_t bytes, stream_t stream);
/// Enqueues a device-to-device copy of `bytes` on `stream` (nothing for 0 bytes). Throws GpuError.
void copy_on_device_async(void* device_dst, const void* device_src, std::size_t bytes, stream_t stream);

}  // namespace batchode::gpu
