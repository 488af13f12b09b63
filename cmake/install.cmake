# cmake --install: headers, libmnemo, the mnemo binary, a CMake package
# (find_package(mnemo) -> mnemo::mnemo) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(TARGETS mnemo EXPORT mnemoTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mnemo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT mnemoTargets NAMESPACE mnemo::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mnemo)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mnemoConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mnemoConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mnemo)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mnemoConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mnemoConfig.cmake ${PROJECT_BINARY_DIR}/mnemoConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mnemo)

# Relocatable: the prefix is found relative to the .pc file itself.
file(RELATIVE_PATH MNEMO_PC_PREFIX_REL "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/mnemo.pc.in ${PROJECT_BINARY_DIR}/mnemo.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mnemo.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
