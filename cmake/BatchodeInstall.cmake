# Install rules and the CMake package, so that after `cmake --install` another project can write
#   find_package(batchode REQUIRED)
#   target_link_libraries(app PRIVATE batchode::batchode)
#   batchode_target_gpu(app)
# Installs: the library, every component's public headers merged under include/batchode/, the
# exported target batchode::batchode, and batchodeConfig.cmake (+ version file) next to a copy of
# BatchodeGpu.cmake, which the config includes with the backend this build was made for: one file
# knows the GPU toolchain, for batchode's own build and for its consumers alike.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(BATCHODE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/batchode"
    CACHE STRING "Where batchodeConfig.cmake is installed, relative to the prefix")

install(TARGETS batchode EXPORT batchodeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Public headers: each component's include/ tree (found from the target's build-tree include
# directories, so a new component is installed as soon as the library lists it) into one include/.
get_target_property(_batchode_include_dirs batchode INTERFACE_INCLUDE_DIRECTORIES)
foreach(_dir IN LISTS _batchode_include_dirs)
  if(_dir MATCHES "^\\$<BUILD_INTERFACE:(.+)>$")
    set(_dir "${CMAKE_MATCH_1}")
    if(IS_DIRECTORY "${_dir}")
      install(DIRECTORY "${_dir}/" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
              FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" PATTERN "*.cuh" PATTERN "*.inl")
    endif()
  endif()
endforeach()

install(EXPORT batchodeTargets NAMESPACE batchode:: DESTINATION ${BATCHODE_INSTALL_CMAKEDIR})

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/batchodeConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/batchodeConfig.cmake"
  INSTALL_DESTINATION ${BATCHODE_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/batchodeConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/batchodeConfig.cmake"
  "${PROJECT_BINARY_DIR}/batchodeConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/BatchodeGpu.cmake"
  DESTINATION ${BATCHODE_INSTALL_CMAKEDIR})
