// solver/setup/: which backend a part of a batch runs on, as a value the compiler checks: the CPU, or
// GPU <device>. Parsed once from text ("cpu", "gpu:0") and printed back in exactly that form, which
// is what telemetry, JSON and the scheduler's output show.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace batchode {

/// The CPU or one GPU by device index.
struct BackendId {
  enum class Kind { cpu, gpu };
  Kind kind = Kind::cpu;
  int device = 0;  ///< the GPU's device index; 0 for the CPU

  static constexpr BackendId cpu() noexcept { return {Kind::cpu, 0}; }
  static constexpr BackendId gpu(int device) noexcept { return {Kind::gpu, device}; }
  constexpr bool is_gpu() const noexcept { return kind == Kind::gpu; }

  /// "cpu" or "gpu:<index>" (decimal, no sign). Throws InvalidInput naming `text` otherwise.
  static BackendId parse(std::string_view text);

  friend constexpr bool operator==(BackendId a, BackendId b) noexcept {
    return a.kind == b.kind && a.device == b.device;
  }
  friend constexpr bool operator!=(BackendId a, BackendId b) noexcept { return !(a == b); }
  /// The CPU first, then GPUs by index (for ordered maps).
  friend constexpr bool operator<(BackendId a, BackendId b) noexcept {
    return a.kind != b.kind ? a.kind < b.kind : a.device < b.device;
  }
};

/// "cpu" or "gpu:<index>".
std::string to_string(BackendId id);
/// BackendId::parse: "cpu" or "gpu:<index>"; throws InvalidInput naming the text otherwise.
BackendId parse_backend(std::string_view text);
/// Writes to_string(id) (for test failure messages and logs).
std::ostream& operator<<(std::ostream& out, BackendId id);

}  // namespace batchode
