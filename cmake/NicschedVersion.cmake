# nicsched::version: the one project version (from the VERSION file), as a header.
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.hpp.in
               ${PROJECT_BINARY_DIR}/generated/include/nicsched/version.hpp @ONLY)
add_library(nicsched_version INTERFACE)
add_library(nicsched::version ALIAS nicsched_version)
target_include_directories(nicsched_version INTERFACE ${PROJECT_BINARY_DIR}/generated/include)
