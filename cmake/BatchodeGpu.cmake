# Resolves the BATCHODE_GPU option into BATCHODE_GPU_BACKEND (hip | cuda | off), sets up the GPU
# toolchain, and provides:
#   batchode_link_gpu_runtime(<target>)  link the runtime API (host side) and define BATCHODE_WITH_<HIP|CUDA>
#   batchode_target_gpu(<target>)        compile every C++ source of <target> with the GPU compiler
#   batchode_enable_gpu_language()       enable HIP or CUDA in the calling directory (file scope)
# This is the only CMake file that knows which vendor toolchain is in use. It is included by
# batchode's own build, which may be a subproject (add_subdirectory), and by the installed package's
# config (find_package): in both cases the directory that calls batchode_target_gpu() may be another
# one than the one that included this file. So the resolved backend lives in a global property
# (functions read it from any directory), and the two things that CMake keeps per directory, an
# enabled language and imported targets, are set up again in the caller's directory when missing.
# DIRECTORY guard: a find_package(batchode) in a sibling directory needs the setup there too.
include_guard(DIRECTORY)

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

# One backend per CMake project: a second batchode (another add_subdirectory, or find_package of an
# install made for another backend) would link two runtimes into one program.
get_property(_batchode_backend_set GLOBAL PROPERTY BATCHODE_GPU_BACKEND SET)
get_property(_batchode_backend GLOBAL PROPERTY BATCHODE_GPU_BACKEND)
if(_batchode_backend_set AND NOT _batchode_backend STREQUAL BATCHODE_GPU_BACKEND)
  message(FATAL_ERROR "batchode: this project already uses batchode with the '${_batchode_backend}' "
                      "backend; a second one was configured for '${BATCHODE_GPU_BACKEND}'")
endif()
set_property(GLOBAL PROPERTY BATCHODE_GPU_BACKEND "${BATCHODE_GPU_BACKEND}")

if(BATCHODE_GPU_BACKEND STREQUAL "hip")
  if(NOT BATCHODE_HIPCC_EXECUTABLE OR NOT EXISTS "${BATCHODE_HIPCC_EXECUTABLE}")
    message(FATAL_ERROR "BATCHODE_GPU=hip but hipcc was not found. Install Debian's hipcc and "
                        "libamdhip64-dev (scripts/install_deps.sh does), or choose BATCHODE_GPU=cuda|off.")
  endif()
  # Debian's HIP 5.2 installs its CMake packages under the multiarch directory and clang's HIP driver
  # needs --rocm-path; CMake's HIP language expects a ROCm tree. A two-line shim tree bridges both.
  find_program(BATCHODE_HIP_CLANG NAMES clang++-15 clang++ PATHS /usr/lib/llvm-15/bin NO_DEFAULT_PATH)
  find_program(BATCHODE_HIP_CLANG NAMES clang++-15 clang++)
  set(_multiarch_cmake /usr/lib/x86_64-linux-gnu/cmake)
  set(_shim "${CMAKE_BINARY_DIR}/batchode-rocm-shim")
  file(WRITE "${_shim}/lib/cmake/hip-lang/hip-lang-config.cmake"
       "include(\"${_multiarch_cmake}/hip-lang/hip-lang-config.cmake\")\n")
  set(ENV{CMAKE_PREFIX_PATH} "${_multiarch_cmake}:$ENV{CMAKE_PREFIX_PATH}")
  list(APPEND CMAKE_PREFIX_PATH ${_multiarch_cmake})
  set(BATCHODE_HIP_CMAKE_DIR "${_multiarch_cmake}" CACHE INTERNAL "where find_package(hip) looks")
  set(CMAKE_HIP_COMPILER "${BATCHODE_HIP_CLANG}" CACHE FILEPATH "clang driver used for HIP")
  set(CMAKE_HIP_COMPILER_ROCM_ROOT "${_shim}" CACHE PATH "")
  set(CMAKE_HIP_ARCHITECTURES "${BATCHODE_HIP_ARCHITECTURES}" CACHE STRING "")
  set(CMAKE_HIP_FLAGS "--rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
      CACHE STRING "")
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
endif()

# batchode_enable_gpu_language(): enables the backend's language (HIP or CUDA) and finds its runtime
# package in the calling directory, where either is missing; nothing for `off`. A macro, because
# enable_language() only takes effect at file scope: called inside a function, the language would be
# enabled for that function's variables alone and generation would fail later. So inside a function
# it refuses, and names the line to add instead.
macro(batchode_enable_gpu_language)
  get_property(_batchode_backend GLOBAL PROPERTY BATCHODE_GPU_BACKEND)
  if(_batchode_backend STREQUAL "hip" OR _batchode_backend STREQUAL "cuda")
    string(TOUPPER "${_batchode_backend}" _batchode_lang)
    if(NOT CMAKE_${_batchode_lang}_COMPILER_LOADED)
      if(CMAKE_CURRENT_FUNCTION)
        message(FATAL_ERROR
          "batchode: the ${_batchode_lang} language is not enabled in ${CMAKE_CURRENT_SOURCE_DIR}, and "
          "${CMAKE_CURRENT_FUNCTION}() cannot enable it from inside a function. Add\n"
          "  batchode_enable_gpu_language()   # or: enable_language(${_batchode_lang})\n"
          "at file scope of your top-level CMakeLists.txt, after add_subdirectory(batchode) or "
          "find_package(batchode).")
      endif()
      enable_language(${_batchode_lang})
    endif()
    # Imported targets are visible only in the directory that found them and below.
    if(_batchode_lang STREQUAL "HIP" AND NOT TARGET hip::device)
      find_package(hip REQUIRED CONFIG PATHS "${BATCHODE_HIP_CMAKE_DIR}")
    elseif(_batchode_lang STREQUAL "CUDA" AND NOT TARGET CUDA::cudart_static)
      find_package(CUDAToolkit REQUIRED)
    endif()
  endif()
endmacro()

batchode_enable_gpu_language()

function(batchode_link_gpu_runtime target)
  get_property(_backend GLOBAL PROPERTY BATCHODE_GPU_BACKEND)
  if(_backend STREQUAL "hip")
    target_link_libraries(${target} PUBLIC hip::host)
    target_compile_definitions(${target} PUBLIC BATCHODE_WITH_HIP=1)
  elseif(_backend STREQUAL "cuda")
    target_link_libraries(${target} PUBLIC CUDA::cudart_static)
    target_compile_definitions(${target} PUBLIC BATCHODE_WITH_CUDA=1)
  endif()
endfunction()

# batchode_target_gpu(<target>): compiles every C++ source of <target> with the configured GPU
# compiler, so that batchode's kernels are instantiated for the target's systems; in a CPU-only build
# it does nothing. A macro so that it can enable the GPU language in the caller's directory (above):
# a project written as docs/guide/installing.md shows needs no enable_language() of its own.
macro(batchode_target_gpu _batchode_gpu_target)
  batchode_enable_gpu_language()
  _batchode_compile_with_gpu(${_batchode_gpu_target})
endmacro()

function(_batchode_compile_with_gpu target)
  get_property(_backend GLOBAL PROPERTY BATCHODE_GPU_BACKEND)
  if(NOT _backend OR _backend STREQUAL "off")
    return()
  endif()
  string(TOUPPER "${_backend}" _lang)
  # Listed for batchode's own aggregate target batchode_gpu_compiled (top-level CMakeLists.txt).
  set_property(GLOBAL APPEND PROPERTY BATCHODE_GPU_COMPILED_TARGETS ${target})
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
