# Finds lp_solve 5.5 (Debian: liblpsolve55-dev) and defines LpSolve::LpSolve.
# Debian ships it only as a static archive; the _pic variant links into shared libraries too, and it
# needs COLAMD (SuiteSparse) and libdl.
find_path(LpSolve_INCLUDE_DIR lp_lib.h PATH_SUFFIXES lpsolve)
find_library(LpSolve_LIBRARY NAMES lpsolve55_pic lpsolve55)
find_library(LpSolve_COLAMD_LIBRARY NAMES colamd)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LpSolve REQUIRED_VARS LpSolve_LIBRARY LpSolve_INCLUDE_DIR LpSolve_COLAMD_LIBRARY)
if(LpSolve_FOUND AND NOT TARGET LpSolve::LpSolve)
  add_library(LpSolve::LpSolve UNKNOWN IMPORTED)
  set_target_properties(LpSolve::LpSolve PROPERTIES
    IMPORTED_LOCATION "${LpSolve_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LpSolve_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${LpSolve_COLAMD_LIBRARY};${CMAKE_DL_LIBS}")
endif()
mark_as_advanced(LpSolve_INCLUDE_DIR LpSolve_LIBRARY LpSolve_COLAMD_LIBRARY)
