// jit/: SHA-256 (OpenSSL's EVP), the digest that keys cache entries and verifies their bytes before
// anything is loaded from disk.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace batchode::jit {

/// The SHA-256 of `size` bytes at `data`, as 64 lowercase hex digits. Throws JitError if OpenSSL fails.
std::string sha256_hex(const void* data, std::size_t size);
/// The SHA-256 of the bytes of `text` (not NUL-terminated: embedded NULs count).
std::string sha256_hex(std::string_view text);

}  // namespace batchode::jit
