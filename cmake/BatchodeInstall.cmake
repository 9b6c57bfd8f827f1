# Install rules and the CMake package, so that after `cmake --install` another project can write
#   find_package(batchode REQUIRED)
#   target_link_libraries(app PRIVATE batchode::batchode)
#   batchode_target_gpu(app)
# Installs: the library, every component's public headers merged under include/batchode/, the
# exported targets (batchode::batchode and the folder targets it links), and batchodeConfig.cmake (+ version
# file) next to a copy of BatchodeGpu.cmake, which the config includes with the backend this build was made
# for: one file knows the GPU toolchain, for batchode's own build and for its consumers alike.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(BATCHODE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/batchode"
    CACHE STRING "Where batchodeConfig.cmake is installed, relative to the prefix")

get_property(_batchode_components GLOBAL PROPERTY BATCHODE_COMPONENTS)
install(TARGETS ${_batchode_components} EXPORT batchodeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Public headers: every component's include/ tree, merged into one include/.
# (The rooms of a folder share its include/: installed once.)
set(_include_dirs "")
foreach(_component IN LISTS _batchode_components)
  get_target_property(_dir ${_component} BATCHODE_INCLUDE_DIR)
  list(APPEND _include_dirs "${_dir}")
endforeach()
list(REMOVE_DUPLICATES _include_dirs)
foreach(_dir IN LISTS _include_dirs)
  install(DIRECTORY "${_dir}/" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" PATTERN "*.cuh" PATTERN "*.inl")
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
