# batchode_component(<name> FOLDER <dir> [SOURCES <files...>] [DEPENDS <components...>] [LINK <targets...>]
#                    [GPU_ONLY_HEADERS <headers...>] [ROOM <path>] [ROOMS <paths...>] [UMBRELLA])
# One target per folder (a layer): batchode_<name>, alias batchode::<name>. It sees its own headers
# (<dir>/include) and those of the components it DEPENDS on, nothing else, so an include that goes
# the wrong way (a lower layer reaching up) fails to compile. Header-only folders are INTERFACE
# targets; those are checked by compiling each header alone against the target (when
# BATCHODE_CHECK_HEADERS), since nothing else would compile them with only their own dependencies.
# GPU_ONLY_HEADERS: headers that need the GPU compiler (kernel launches); checked only in GPU builds.
# ROOM <path>: one phase of a folder cut into rooms (kernels/: core, linalg, methods, loop, outputs,
# launch): the target owns only the headers under include/<path>, checked alone as above. The rooms
# share their folder's one include/ root, so that the runtime compilers and the installed tree see
# one -I; which room may include which is scripts/layer_graph.py's (tests/layers/), not the
# compiler's.
# ROOMS <paths...>: the folder's own target beside its rooms (solver/'s facade): the headers under
# these rooms' paths are theirs to check, not this target's.
# UMBRELLA: a target that only gathers its folder's rooms (DEPENDS); no headers of its own to check.
include_guard(GLOBAL)

set_property(GLOBAL PROPERTY BATCHODE_COMPONENTS "")

function(batchode_component name)
  cmake_parse_arguments(ARG "UMBRELLA" "FOLDER;TARGET;ROOM" "SOURCES;DEPENDS;LINK;GPU_ONLY_HEADERS;ROOMS" ${ARGN})
  set(target batchode_${name})
  if(ARG_TARGET)
    set(target ${ARG_TARGET})
  endif()
  set(include_dir "${PROJECT_SOURCE_DIR}/${ARG_FOLDER}/include")
  if(ARG_SOURCES)
    add_library(${target} STATIC ${ARG_SOURCES})
    set(scope PUBLIC)
    batchode_internal_flags(${target})
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
  endif()
  add_library(batchode::${name} ALIAS ${target})
  target_compile_features(${target} ${scope} cxx_std_17)
  target_include_directories(${target} ${scope} $<BUILD_INTERFACE:${include_dir}>
                                               $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  foreach(dep IN LISTS ARG_DEPENDS)
    target_link_libraries(${target} ${scope} batchode_${dep})
  endforeach()
  if(ARG_LINK)
    target_link_libraries(${target} ${scope} ${ARG_LINK})
  endif()
  set_property(GLOBAL APPEND PROPERTY BATCHODE_COMPONENTS ${target})
  set_property(TARGET ${target} PROPERTY BATCHODE_INCLUDE_DIR "${include_dir}")

  if(BATCHODE_CHECK_HEADERS AND NOT ARG_UMBRELLA)
    set(headers_root "${include_dir}")
    if(ARG_ROOM)
      set(headers_root "${include_dir}/${ARG_ROOM}")
    endif()
    file(GLOB_RECURSE headers RELATIVE "${include_dir}" CONFIGURE_DEPENDS "${headers_root}/*.hpp")
    foreach(room IN LISTS ARG_ROOMS)
      list(FILTER headers EXCLUDE REGEX "^${room}/")
    endforeach()
    set(plain_sources "")
    set(gpu_sources "")
    foreach(header IN LISTS headers)
      get_filename_component(header_name "${header}" NAME)
      string(MAKE_C_IDENTIFIER "${header}" stem)
      set(check_source "${PROJECT_BINARY_DIR}/header_checks/${name}/${stem}.cpp")
      file(CONFIGURE OUTPUT "${check_source}"
           CONTENT "// Generated: ${header} compiles with only its component's dependencies.\n#include \"${header}\"\n")
      if(header_name IN_LIST ARG_GPU_ONLY_HEADERS)
        list(APPEND gpu_sources "${check_source}")
      else()
        list(APPEND plain_sources "${check_source}")
      endif()
    endforeach()
    if(plain_sources)
      add_library(${target}_header_check OBJECT ${plain_sources})
      target_link_libraries(${target}_header_check PRIVATE ${target})
      batchode_internal_flags(${target}_header_check)
    endif()
    if(gpu_sources AND NOT BATCHODE_GPU_BACKEND STREQUAL "off")
      add_library(${target}_header_check_gpu OBJECT ${gpu_sources})
      target_link_libraries(${target}_header_check_gpu PRIVATE ${target})
      batchode_internal_flags(${target}_header_check_gpu)
      batchode_target_gpu(${target}_header_check_gpu)
    endif()
  endif()
endfunction()
