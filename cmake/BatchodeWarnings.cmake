# batchode_internal_flags(<target>): warnings (as errors when BATCHODE_WARNINGS_AS_ERRORS), unfused
# host arithmetic and the sanitizers, for batchode's own targets only; nothing here reaches a consumer
# of batchode::batchode.
include_guard(GLOBAL)

function(batchode_internal_flags target)
  set(_cxx_warnings -Wall -Wextra -Wpedantic -Wshadow)
  if(BATCHODE_WARNINGS_AS_ERRORS)
    list(APPEND _cxx_warnings -Werror)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX,HIP>:${_cxx_warnings}>
    # GCC 12 at -O3 reports maybe-uninitialized inside std::variant<..., std::string> copies (the
    # TimeLogger's metadata): a known false positive of that release, not a bug of ours.
    $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-maybe-uninitialized>
    # Host code multiplies and adds as written, never fused: the CPU's blocks of runs in SIMD lanes are
    # compiled for AVX2 and AVX-512, which have fused multiply-adds, and give each run the numbers it
    # gets alone on the baseline instruction set, which has none (backends/cpu/run_blocks.hpp). GCC fuses
    # by default, clang within an expression. Device code (HIP, CUDA) keeps its fused multiply-adds.
    $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>
    # GoogleTest's TYPED_TEST_SUITE leaves a variadic macro argument empty, which clang flags (hipcc,
    # and the sanitized build's clang++).
    $<$<OR:$<COMPILE_LANGUAGE:HIP>,$<COMPILE_LANG_AND_ID:CXX,Clang>>:-Wno-gnu-zero-variadic-macro-arguments>
    # nvcc hands `#pragma unroll` on to the host compiler, which does not know it; and GCC 12 reports
    # false maybe-uninitialized warnings on std::variant<std::string> in nvcc's host pass.
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-unknown-pragmas,-Wno-maybe-uninitialized>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${BATCHODE_WARNINGS_AS_ERRORS}>>:-Werror=all-warnings>)
  if(BATCHODE_SANITIZE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()
