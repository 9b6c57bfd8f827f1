# batchode_internal_flags(<target>): warnings (as errors when BATCHODE_WARNINGS_AS_ERRORS) and the
# sanitizers, for batchode's own targets only; nothing here reaches a consumer of batchode::batchode.
include_guard(GLOBAL)

function(batchode_internal_flags target)
  set(_cxx_warnings -Wall -Wextra -Wpedantic -Wshadow)
  if(BATCHODE_WARNINGS_AS_ERRORS)
    list(APPEND _cxx_warnings -Werror)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX,HIP>:${_cxx_warnings}>
    # GoogleTest's TYPED_TEST_SUITE leaves a variadic macro argument empty, which clang flags.
    $<$<COMPILE_LANGUAGE:HIP>:-Wno-gnu-zero-variadic-macro-arguments>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${BATCHODE_WARNINGS_AS_ERRORS}>>:-Werror=all-warnings>)
  if(BATCHODE_SANITIZE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()
