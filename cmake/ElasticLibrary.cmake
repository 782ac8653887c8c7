# elastic_add_library(<name> <sources>...): the library elastic_<name>, exported as elastic::<name>,
# with public headers in <folder>/include and private ones beside the sources; links the warning
# flags and installs the library and its headers. Callers add their own dependencies.
function(elastic_add_library name)
  set(target elastic_${name})
  add_library(${target} ${ARGN})
  add_library(elastic::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME ${target})
  target_include_directories(${target}
    PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PRIVATE elastic_warnings)
  install(TARGETS ${target} EXPORT elasticTargets)
  install(DIRECTORY include/elastic DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# elastic_add_internal_library(<name> <sources>...): elastic_<name> (elastic::<name>) for the
# project's own programs and tests, never installed: its headers include private ones (elasticd's
# include the worker's wire protocol), so a user project could not compile them. Static, so that
# the installed programs that link it need no library beside them.
function(elastic_add_internal_library name)
  set(target elastic_${name})
  add_library(${target} STATIC ${ARGN})
  add_library(elastic::${name} ALIAS ${target})
  target_include_directories(${target}
    PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PRIVATE elastic_warnings)
endfunction()
