# Target helpers: each part's library is declared the same way, in one place.

# nicsched_add_library(<part> [STATIC] [INCLUDE_DIR <dir>] SOURCES <src>...
#                      [PUBLIC <dep>...] [PRIVATE <dep>...])
# Defines nicsched_<part> and its alias nicsched::<part>: public headers in <dir> (default
# include/ beside the calling CMakeLists.txt), C++20 for its users, PUBLIC and PRIVATE
# dependencies as given, and the project's warning set (nicsched::warnings) PRIVATE.
function(nicsched_add_library part)
  cmake_parse_arguments(PARSE_ARGV 1 arg "STATIC" "INCLUDE_DIR" "SOURCES;PUBLIC;PRIVATE")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_SOURCES)
    message(FATAL_ERROR "nicsched_add_library(${part}): SOURCES required; unexpected: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_INCLUDE_DIR)
    set(arg_INCLUDE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/include)
  endif()
  set(_type)
  if(arg_STATIC)
    set(_type STATIC)
  endif()
  add_library(nicsched_${part} ${_type} ${arg_SOURCES})
  add_library(nicsched::${part} ALIAS nicsched_${part})
  target_include_directories(nicsched_${part} PUBLIC ${arg_INCLUDE_DIR})
  target_compile_features(nicsched_${part} PUBLIC cxx_std_20)
  target_link_libraries(nicsched_${part} PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE} nicsched::warnings)
endfunction()

# nicsched_add_catch_test(<target> PREFIX <prefix> SOURCES <src>... [LINK <dep>...]
#                         [PROPERTIES <prop> <value>...])
# A Catch2 test executable (Catch2WithMain and nicsched::warnings linked) whose test cases
# CTest lists as <prefix><test case name>, with the given CTest properties.
function(nicsched_add_catch_test target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PREFIX" "SOURCES;LINK;PROPERTIES")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_SOURCES OR NOT arg_PREFIX)
    message(FATAL_ERROR "nicsched_add_catch_test(${target}): PREFIX and SOURCES required; "
                        "unexpected: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE ${arg_LINK} Catch2::Catch2WithMain nicsched::warnings)
  if(arg_PROPERTIES)
    catch_discover_tests(${target} TEST_PREFIX "${arg_PREFIX}" PROPERTIES ${arg_PROPERTIES})
  else()
    catch_discover_tests(${target} TEST_PREFIX "${arg_PREFIX}")
  endif()
endfunction()
