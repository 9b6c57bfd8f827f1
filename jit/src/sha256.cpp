// jit/: SHA-256 through OpenSSL's EVP interface (the low-level SHA256_* calls are deprecated in
// OpenSSL 3).
#include "batchode/jit/sha256.hpp"

#include <openssl/evp.h>

#include "batchode/jit/jit_error.hpp"

namespace batchode::jit {

std::string sha256_hex(const void* data, std::size_t size) {
  static const char digits[] = "0123456789abcdef";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  const unsigned char nothing = 0;  // EVP_Digest wants a valid pointer even for zero bytes
  if (EVP_Digest(size == 0 ? &nothing : data, size, digest, &length, EVP_sha256(), nullptr) != 1 ||
      length != 32) {
    throw JitError("SHA-256 failed (OpenSSL's EVP_Digest)");
  }
  std::string hex(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 0xf];
  }
  return hex;
}

std::string sha256_hex(std::string_view text) { return sha256_hex(text.data(), text.size()); }

}  // namespace batchode::jit
