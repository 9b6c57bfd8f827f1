// tests/jit/: SHA-256 against FIPS 180-2's published vectors, so a wrong digest (or a wrong hex
// rendering) cannot pass.
#include <gtest/gtest.h>

#include <batchode/jit/sha256.hpp>
#include <string>

namespace {

using batchode::jit::sha256_hex;

TEST(JitSha256, EmptyInput) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex(nullptr, 0), sha256_hex(""));
}

TEST(JitSha256, Abc) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(JitSha256, Nist448BitMessage) {
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(JitSha256, OneMillionAs) {
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(JitSha256, PointerOverloadHashesEmbeddedNulBytes) {
  const char bytes[] = {'a', '\0', 'b', 'c'};
  EXPECT_EQ(sha256_hex(bytes, sizeof bytes), sha256_hex(std::string_view(bytes, sizeof bytes)));
  EXPECT_NE(sha256_hex(bytes, sizeof bytes), sha256_hex("a"));  // not cut at the NUL
}

}  // namespace
