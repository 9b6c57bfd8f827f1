# cmake/BatchodeCompileOnly.cmake: GPU programs of our own (tests, examples) built where no GPU of the
# backend could run them: HIP builds on a machine without an AMD GPU, as CI's (scripts/test.sh turns
# BATCHODE_GPU_COMPILE_ONLY on where /dev/kfd is missing). Such a program still builds, starts, runs its
# CPU paths and skips its GPU tests visibly, and its device code is still compiled and checked by the
# front end; what is left out is the AMD optimiser and back end, and their own complaints
# (-Wpass-failed: a loop not unrolled), which only an AMD GPU build would act on. nvcc's builds (the
# cuda variant, nvidia_build.sh) are untouched. accuracy_gpu_test took 480 s at -O3 and 112 s at -O0
# (2 cores, hipcc 15); driven_gpu_test.cpp 35 s of CPU whole at -O0, 12 s host + 9 s device IR split so.
option(BATCHODE_GPU_COMPILE_ONLY
       "HIP builds: our GPU tests and examples never run on a GPU here: device code to LLVM IR only" OFF)
if(DEFINED BATCHODE_GPU_TESTS_COMPILE_ONLY)  # its name before the examples took it too
  message(WARNING "BATCHODE_GPU_TESTS_COMPILE_ONLY is now BATCHODE_GPU_COMPILE_ONLY (this build's: "
                  "${BATCHODE_GPU_COMPILE_ONLY}); the old name is ignored")
endif()

set(_batchode_empty_gpu_binary "${PROJECT_BINARY_DIR}/empty_gpu_binary")
file(TOUCH "${_batchode_empty_gpu_binary}")

# batchode_gpu_compile_only(<target> [HOST_OPTIMIZATION <flag>] LINK <libraries...>): with
# BATCHODE_GPU_COMPILE_ONLY in a HIP build, <target> (already batchode_target_gpu) is compiled in two
# halves: the program from its host half only (--offload-host-only, at HOST_OPTIMIZATION if given,
# with an empty GPU binary where the driver would embed the device code: on an AMD GPU its kernels
# would fail to launch, never run wrong), and its device half by <target>_device_check, an object
# library of the same sources (linked against LIBRARIES, with the target's own definitions and include
# folders) compiled for the device as far as LLVM IR at -O0 (--offload-device-only -emit-llvm: every
# kernel template instantiated and checked). Elsewhere it does nothing.
function(batchode_gpu_compile_only target)
  cmake_parse_arguments(ARG "" "HOST_OPTIMIZATION" "LINK" ${ARGN})
  if(NOT BATCHODE_GPU_COMPILE_ONLY OR NOT BATCHODE_GPU_BACKEND STREQUAL "hip")
    return()
  endif()
  target_compile_options(${target} PRIVATE ${ARG_HOST_OPTIMIZATION} --offload-host-only
    "SHELL:-Xclang -fcuda-include-gpubinary -Xclang ${_batchode_empty_gpu_binary}")
  get_target_property(_sources ${target} SOURCES)
  add_library(${target}_device_check OBJECT ${_sources})
  target_link_libraries(${target}_device_check PRIVATE ${ARG_LINK})
  batchode_internal_flags(${target}_device_check)
  batchode_target_gpu(${target}_device_check)
  # -c stays (CMake's object rule): with -emit-llvm the "object" is LLVM bitcode, linked nowhere.
  target_compile_options(${target}_device_check PRIVATE -O0 --offload-device-only -emit-llvm)
  # What the target's folder gives it, before or after this call (definitions, include folders).
  target_compile_definitions(${target}_device_check PRIVATE $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
  target_include_directories(${target}_device_check PRIVATE $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
  add_dependencies(${target} ${target}_device_check)
endfunction()
