# Install and export: a user project does find_package(elastic) and links elastic::allocator etc.
include(CMakePackageConfigHelpers)
install(EXPORT elasticTargets NAMESPACE elastic:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/elastic)
configure_package_config_file(cmake/elasticConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/elasticConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/elastic)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/elasticConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/elasticConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/elasticConfigVersion.cmake
  cmake/FindLpSolve.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/elastic)
install(TARGETS elastic_warnings EXPORT elasticTargets)
