# Install rules and the CMake package config (included at the end of the top-level CMakeLists).
#
#   cmake --install build --prefix P
#
# puts the CLI in P/bin, the backend ABI header in P/include/mxconform and the package config in
# P/lib/cmake/mxconform. A backend's own CMakeLists then says find_package(mxconform) and links
# mxconform::backend_headers; MXCONFORM_EXECUTABLE names the installed CLI (examples/backend).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

option(MXCONFORM_INSTALL "Generate the install rules" ${MXCONFORM_MAIN_PROJECT})
if(NOT MXCONFORM_INSTALL)
  return()
endif()

set(MXCONFORM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mxconform)

install(TARGETS mxconform RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/mxconform/backend.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mxconform)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/mxconformConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mxconformConfig.cmake
  INSTALL_DESTINATION ${MXCONFORM_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
# The package holds a header and an executable, nothing to link: any pointer size will do. The
# ABI carries its own version in its symbol name (mxconform_backend_v1).
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/mxconformConfigVersion.cmake
  COMPATIBILITY SameMajorVersion
  ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/mxconformConfig.cmake ${PROJECT_BINARY_DIR}/mxconformConfigVersion.cmake
        DESTINATION ${MXCONFORM_INSTALL_CMAKEDIR})
