# tests/package/run_package_test.cmake: the install test, run by CTest as `cmake -P`.
# Installs the built batchode into a fresh prefix, configures and builds tests/package/ against it
# with find_package(batchode), runs the consumer and checks the backend it reports.
# Inputs (-D): BATCHODE_BUILD_DIR, BATCHODE_CONSUMER_DIR, BATCHODE_WORK_DIR, BATCHODE_EXPECTED_BACKEND,
#   and optionally BATCHODE_CONFIG (multi-config builds), BATCHODE_GENERATOR, BATCHODE_CXX_COMPILER,
#   BATCHODE_SANITIZE (a sanitized library needs the sanitizer runtimes linked into the consumer).
cmake_minimum_required(VERSION 3.25)

foreach(_var BATCHODE_BUILD_DIR BATCHODE_CONSUMER_DIR BATCHODE_WORK_DIR BATCHODE_EXPECTED_BACKEND)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "run_package_test.cmake: -D${_var}=... is required")
  endif()
endforeach()

# step(<description> COMMAND...): runs one command, fails the test with its output if it fails.
function(step description)
  message(STATUS "package test: ${description}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _result OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "package test: '${description}' failed (${_result}):\n${_out}")
  endif()
  set(step_output "${_out}" PARENT_SCOPE)
endfunction()

set(_prefix "${BATCHODE_WORK_DIR}/prefix")
set(_build "${BATCHODE_WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${BATCHODE_WORK_DIR}")

set(_config_args)
if(BATCHODE_CONFIG)
  set(_config_args --config "${BATCHODE_CONFIG}")
endif()
step("install into ${_prefix}"
     "${CMAKE_COMMAND}" --install "${BATCHODE_BUILD_DIR}" --prefix "${_prefix}" ${_config_args})

set(_configure_args -S "${BATCHODE_CONSUMER_DIR}" -B "${_build}" "-DCMAKE_PREFIX_PATH=${_prefix}")
if(BATCHODE_GENERATOR)
  list(APPEND _configure_args -G "${BATCHODE_GENERATOR}")
endif()
if(BATCHODE_CXX_COMPILER)
  list(APPEND _configure_args "-DCMAKE_CXX_COMPILER=${BATCHODE_CXX_COMPILER}")
endif()
if(BATCHODE_CONFIG)
  list(APPEND _configure_args "-DCMAKE_BUILD_TYPE=${BATCHODE_CONFIG}")
endif()
if(BATCHODE_SANITIZE)
  list(APPEND _configure_args "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
step("configure the consumer" "${CMAKE_COMMAND}" ${_configure_args})
step("build the consumer" "${CMAKE_COMMAND}" --build "${_build}" ${_config_args})

find_program(_consumer package_consumer PATHS "${_build}" "${_build}/${BATCHODE_CONFIG}" NO_DEFAULT_PATH
             NO_CACHE)
if(NOT _consumer)
  message(FATAL_ERROR "package test: the consumer was built but package_consumer is not in ${_build}")
endif()
step("run the consumer" "${_consumer}")
message(STATUS "package test: consumer printed:\n${step_output}")

if(NOT step_output MATCHES "backend=${BATCHODE_EXPECTED_BACKEND}\n")
  message(FATAL_ERROR "package test: expected backend=${BATCHODE_EXPECTED_BACKEND}")
endif()
# batchode_target_gpu() must have handed main.cpp to the GPU compiler unless the backend is off.
if(BATCHODE_EXPECTED_BACKEND STREQUAL "off")
  set(_expected_gpu_compiler 0)
else()
  set(_expected_gpu_compiler 1)
endif()
if(NOT step_output MATCHES "gpu_compiler=${_expected_gpu_compiler}\n")
  message(FATAL_ERROR "package test: expected gpu_compiler=${_expected_gpu_compiler}")
endif()
message(STATUS "package test: passed")
