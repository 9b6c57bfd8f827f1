# tests/package/run_consumer_test.cmake: the consumer tests, run by CTest as `cmake -P`, one route and
# one backend per run. Configures and builds tests/package/ (a project written as
# docs/guide/installing.md shows), runs it and checks the backend it reports and that its source went to the GPU compiler.
#   BATCHODE_ROUTE=add_subdirectory  the consumer adds BATCHODE_SOURCE_DIR with -DBATCHODE_GPU=<backend>
#   BATCHODE_ROUTE=find_package      cmake --install into a fresh prefix, then find_package(batchode):
#                                    of BATCHODE_BUILD_DIR when given (the calling build, already built),
#                                    else of a library-only build of BATCHODE_SOURCE_DIR made here
# Inputs (-D): BATCHODE_ROUTE, BATCHODE_BACKEND (off | hip | cuda), BATCHODE_SOURCE_DIR,
#   BATCHODE_CONSUMER_DIR, BATCHODE_WORK_DIR; BATCHODE_GPU_COMPILER (hipcc or nvcc as the calling
#   build found it: the test prints "consumer test SKIPPED" and passes when it is missing); and
#   optionally BATCHODE_BUILD_DIR, BATCHODE_CONFIG, BATCHODE_GENERATOR, BATCHODE_CXX_COMPILER,
#   BATCHODE_SANITIZE (a sanitized install needs the sanitizer runtimes linked into the consumer),
#   BATCHODE_JOBS (parallel compile jobs, default 2).
cmake_minimum_required(VERSION 3.25)

foreach(_var BATCHODE_ROUTE BATCHODE_BACKEND BATCHODE_SOURCE_DIR BATCHODE_CONSUMER_DIR BATCHODE_WORK_DIR)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer_test.cmake: -D${_var}=... is required")
  endif()
endforeach()
set(_test "consumer test (${BATCHODE_ROUTE}, ${BATCHODE_BACKEND})")

if(NOT BATCHODE_BACKEND STREQUAL "off" AND NOT BATCHODE_GPU_COMPILER)
  if(BATCHODE_BACKEND STREQUAL "hip")
    set(_compiler hipcc)
  else()
    set(_compiler nvcc)
  endif()
  message(STATUS "batchode consumer test SKIPPED: ${_test} needs ${_compiler}, which this build did not "
                 "find (BATCHODE_GPU_COMPILER='${BATCHODE_GPU_COMPILER}')")
  return()
endif()

# step(<description> COMMAND...): runs one command, fails the test with its output if it fails.
function(step description)
  string(TIMESTAMP _start "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _result OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  string(TIMESTAMP _end "%s")
  math(EXPR _seconds "${_end} - ${_start}")
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${_test}: '${description}' failed (${_result}) after ${_seconds}s:\n${_out}")
  endif()
  message(STATUS "${_test}: ${description}: ${_seconds}s")
  set(step_output "${_out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${BATCHODE_WORK_DIR}")
set(_prefix "${BATCHODE_WORK_DIR}/prefix")
set(_library_build "${BATCHODE_WORK_DIR}/library-build")
set(_build "${BATCHODE_WORK_DIR}/consumer-build")
if(NOT BATCHODE_JOBS)
  set(BATCHODE_JOBS 2)
endif()

# Arguments every configure here shares: generator, compiler, build type.
set(_common_args)
if(BATCHODE_GENERATOR)
  list(APPEND _common_args -G "${BATCHODE_GENERATOR}")
endif()
if(BATCHODE_CXX_COMPILER)
  list(APPEND _common_args "-DCMAKE_CXX_COMPILER=${BATCHODE_CXX_COMPILER}")
endif()
set(_config_args)
if(BATCHODE_CONFIG)
  list(APPEND _common_args "-DCMAKE_BUILD_TYPE=${BATCHODE_CONFIG}")
  set(_config_args --config "${BATCHODE_CONFIG}")
  # BATCHODE_OPTIMIZATION (tests/CMakeLists.txt's BATCHODE_PACKAGE_TESTS_OPTIMIZATION): that build type's
  # flags for every language, instead of its own.
  if(BATCHODE_OPTIMIZATION)
    string(TOUPPER "${BATCHODE_CONFIG}" _config_upper)
    foreach(_language IN ITEMS CXX HIP CUDA)
      list(APPEND _common_args "-DCMAKE_${_language}_FLAGS_${_config_upper}=${BATCHODE_OPTIMIZATION} -DNDEBUG")
    endforeach()
  endif()
endif()
# A library-only batchode: nothing of its own but the targets the consumer links.
set(_library_only_args -DBATCHODE_GPU=${BATCHODE_BACKEND} -DBATCHODE_BUILD_TESTS=OFF
    -DBATCHODE_BUILD_EXAMPLES=OFF -DBATCHODE_BUILD_BENCHMARKS=OFF -DBATCHODE_CHECK_HEADERS=OFF)

set(_consumer_args -S "${BATCHODE_CONSUMER_DIR}" -B "${_build}" ${_common_args}
    -DBATCHODE_CONSUMER_ROUTE=${BATCHODE_ROUTE})
if(BATCHODE_ROUTE STREQUAL "add_subdirectory")
  list(APPEND _consumer_args "-DBATCHODE_SOURCE_DIR=${BATCHODE_SOURCE_DIR}" ${_library_only_args})
elseif(BATCHODE_ROUTE STREQUAL "find_package")
  set(_installed "${BATCHODE_BUILD_DIR}")
  if(NOT _installed)
    set(_installed "${_library_build}")
    step("configure a library-only batchode"
         "${CMAKE_COMMAND}" -S "${BATCHODE_SOURCE_DIR}" -B "${_library_build}" ${_common_args}
         ${_library_only_args})
    step("build it" "${CMAKE_COMMAND}" --build "${_library_build}" --parallel ${BATCHODE_JOBS}
         ${_config_args})
  elseif(BATCHODE_SANITIZE)
    list(APPEND _consumer_args "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
  endif()
  step("install ${_installed} into ${_prefix}"
       "${CMAKE_COMMAND}" --install "${_installed}" --prefix "${_prefix}" ${_config_args})
  list(APPEND _consumer_args "-DCMAKE_PREFIX_PATH=${_prefix}")
else()
  message(FATAL_ERROR "run_consumer_test.cmake: BATCHODE_ROUTE='${BATCHODE_ROUTE}' is not "
                      "add_subdirectory or find_package")
endif()

step("configure the consumer" "${CMAKE_COMMAND}" ${_consumer_args})
step("build the consumer" "${CMAKE_COMMAND}" --build "${_build}" --parallel ${BATCHODE_JOBS} ${_config_args})

find_program(_consumer package_consumer PATHS "${_build}" "${_build}/${BATCHODE_CONFIG}" NO_DEFAULT_PATH
             NO_CACHE)
if(NOT _consumer)
  message(FATAL_ERROR "${_test}: the consumer was built but package_consumer is not in ${_build}")
endif()
step("run the consumer" "${_consumer}")
message(STATUS "${_test}: the consumer printed:\n${step_output}")

if(NOT step_output MATCHES "backend=${BATCHODE_BACKEND}\n")
  message(FATAL_ERROR "${_test}: expected backend=${BATCHODE_BACKEND}")
endif()
# batchode_target_gpu() must have handed main.cpp to the GPU compiler unless the backend is off.
if(BATCHODE_BACKEND STREQUAL "off")
  set(_expected_gpu_compiler 0)
else()
  set(_expected_gpu_compiler 1)
endif()
if(NOT step_output MATCHES "gpu_compiler=${_expected_gpu_compiler}\n")
  message(FATAL_ERROR "${_test}: expected gpu_compiler=${_expected_gpu_compiler}")
endif()
message(STATUS "${_test}: passed")
