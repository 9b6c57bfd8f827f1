# Resolves the BATCHODE_GPU option into BATCHODE_GPU_BACKEND (hip | cuda | off), enables the GPU
# language, and provides:
#   batchode_link_gpu_runtime(<target>)  link the runtime API (host side) and define BATCHODE_WITH_<HIP|CUDA>
#   batchode_target_gpu(<target>)        compile every C++ source of <target> with the GPU compiler
# This is the only CMake file that knows which vendor toolchain is in use.
include_guard(GLOBAL)

set(_batchode_gpu_values auto hip cuda off)
if(NOT BATCHODE_GPU IN_LIST _batchode_gpu_values)
  message(FATAL_ERROR "BATCHODE_GPU='${BATCHODE_GPU}' is not one of: auto, hip, cuda, off")
endif()

find_program(BATCHODE_HIPCC_EXECUTABLE hipcc)
find_program(BATCHODE_NVCC_EXECUTABLE nvcc HINTS /usr/local/cuda/bin ENV CUDA_PATH PATH_SUFFIXES bin)

if(BATCHODE_GPU STREQUAL "auto")
  if(BATCHODE_HIPCC_EXECUTABLE)
    set(BATCHODE_GPU_BACKEND hip)
  elseif(BATCHODE_NVCC_EXECUTABLE)
    set(BATCHODE_GPU_BACKEND cuda)
  else()
    set(BATCHODE_GPU_BACKEND off)
  endif()
  message(STATUS "batchode: BATCHODE_GPU=auto chose '${BATCHODE_GPU_BACKEND}'")
else()
  set(BATCHODE_GPU_BACKEND ${BATCHODE_GPU})
  message(STATUS "batchode: GPU backend '${BATCHODE_GPU_BACKEND}'")
endif()

if(BATCHODE_GPU_BACKEND STREQUAL "hip")
  if(NOT BATCHODE_HIPCC_EXECUTABLE OR NOT EXISTS "${BATCHODE_HIPCC_EXECUTABLE}")
    message(FATAL_ERROR "BATCHODE_GPU=hip but hipcc was not found. Install Debian's hipcc and "
                        "libamdhip64-dev (scripts/install_deps.sh does), or choose BATCHODE_GPU=cuda|off.")
  endif()
  # Debian's HIP 5.2 installs its CMake packages under the multiarch directory and clang's HIP driver
  # needs --rocm-path; CMake's HIP language expects a ROCm tree. A two-line shim tree bridges both.
  execute_process(COMMAND ${BATCHODE_HIPCC_EXECUTABLE} --version OUTPUT_VARIABLE _hipcc_version ERROR_QUIET)
  find_program(BATCHODE_HIP_CLANG NAMES clang++-15 clang++ PATHS /usr/lib/llvm-15/bin NO_DEFAULT_PATH)
  find_program(BATCHODE_HIP_CLANG NAMES clang++-15 clang++)
  set(_multiarch_cmake /usr/lib/x86_64-linux-gnu/cmake)
  set(_shim "${CMAKE_BINARY_DIR}/batchode-rocm-shim")
  file(WRITE "${_shim}/lib/cmake/hip-lang/hip-lang-config.cmake"
       "include(\"${_multiarch_cmake}/hip-lang/hip-lang-config.cmake\")\n")
  set(ENV{CMAKE_PREFIX_PATH} "${_multiarch_cmake}:$ENV{CMAKE_PREFIX_PATH}")
  list(APPEND CMAKE_PREFIX_PATH ${_multiarch_cmake})
  set(CMAKE_HIP_COMPILER "${BATCHODE_HIP_CLANG}" CACHE FILEPATH "clang driver used for HIP")
  set(CMAKE_HIP_COMPILER_ROCM_ROOT "${_shim}" CACHE PATH "")
  set(CMAKE_HIP_ARCHITECTURES "${BATCHODE_HIP_ARCHITECTURES}" CACHE STRING "")
  set(CMAKE_HIP_FLAGS "--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
      CACHE STRING "")
  enable_language(HIP)
  find_package(hip REQUIRED CONFIG)
elseif(BATCHODE_GPU_BACKEND STREQUAL "cuda")
  if(NOT BATCHODE_NVCC_EXECUTABLE OR NOT EXISTS "${BATCHODE_NVCC_EXECUTABLE}")
    message(FATAL_ERROR "BATCHODE_GPU=cuda but nvcc was not found (looked in PATH and /usr/local/cuda/bin; "
                        "BATCHODE_NVCC_EXECUTABLE='${BATCHODE_NVCC_EXECUTABLE}'). "
                        "Install the CUDA toolkit or choose BATCHODE_GPU=hip|off.")
  endif()
  set(CMAKE_CUDA_COMPILER "${BATCHODE_NVCC_EXECUTABLE}" CACHE FILEPATH "")
  set(CMAKE_CUDA_ARCHITECTURES "${BATCHODE_CUDA_ARCHITECTURES}" CACHE STRING "")
  # Static runtime: binaries built here run unchanged on the GPU machine.
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static CACHE STRING "")
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
endif()

function(batchode_link_gpu_runtime target)
  if(BATCHODE_GPU_BACKEND STREQUAL "hip")
    target_link_libraries(${target} PUBLIC hip::host)
    target_compile_definitions(${target} PUBLIC BATCHODE_WITH_HIP=1)
  elseif(BATCHODE_GPU_BACKEND STREQUAL "cuda")
    target_link_libraries(${target} PUBLIC CUDA::cudart_static)
    target_compile_definitions(${target} PUBLIC BATCHODE_WITH_CUDA=1)
  endif()
endfunction()

# Compiles every C++ source of <target> with the configured GPU compiler, so that batchode's kernels
# are instantiated for the target's systems. A no-op in a CPU-only build.
function(batchode_target_gpu target)
  if(BATCHODE_GPU_BACKEND STREQUAL "off")
    return()
  endif()
  string(TOUPPER "${BATCHODE_GPU_BACKEND}" _lang)
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_source_dir ${target} SOURCE_DIR)
  foreach(_source IN LISTS _sources)
    if(_source MATCHES "\\.(cpp|cc|cxx)$")
      set_source_files_properties(${_source} TARGET_DIRECTORY ${target} DIRECTORY ${_source_dir}
                                  PROPERTIES LANGUAGE ${_lang})
    endif()
  endforeach()
  if(_lang STREQUAL "CUDA")
    # nvcc: relaxed constexpr lets device code call the constexpr tableau helpers; no warnings for
    # host-only standard-library calls that are never reached on the device.
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcudafe=--diag_suppress=20012>)
    set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  else()
    set_target_properties(${target} PROPERTIES HIP_STANDARD 17 HIP_STANDARD_REQUIRED ON)
    target_link_libraries(${target} PRIVATE hip::device)
    # The HIP twin of what nvcc does for CUDA (cuda_runtime.h is pre-included in every .cu): the HIP
    # runtime header first in every source compiled as HIP. Users' systems (BATCHODE_HOST_DEVICE is
    # __host__ __device__, their math calls need the device overloads) and the batch kernel
    # (threadIdx) need it, and batchode's public headers no longer include any vendor header.
    # Clang's own wrapper, which ROCm installs pre-include, is not found in Debian's HIP layout.
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:HIP>:SHELL:-include hip/hip_runtime.h>")
  endif()
endfunction()
