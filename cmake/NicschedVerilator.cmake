# Verilator settings shared by every model: one thread per model, -O3;
# the repository root on the include path: RTL includes are written from it (`include "rtl/nicsched_assert.svh").
set(NICSCHED_VERILATOR_ARGS -O3 --x-assign fast --x-initial fast -I${PROJECT_SOURCE_DIR})

# nicsched_shared_verilator_runtime(<lib>): verilate() adds Verilator's runtime (verilated.cpp,
# its FST writer, threads, DPI) to every library it writes a model into, so each model library
# compiled its own copy (about a tenth of a clean build) and no executable could link two of
# them. Call this after the last verilate() on <lib>: it takes those copies out of <lib> and
# links one runtime, compiled once, in their place. Its FST writer is the one every traced
# model uses; models without tracing link it unused. A library built with Verilator
# --coverage keeps its own runtime (VM_COVERAGE differs).
function(nicsched_shared_verilator_runtime lib)
  if(NOT TARGET nicsched_verilated_runtime)
    set(_inc ${VERILATOR_ROOT}/include)
    add_library(nicsched_verilated_runtime STATIC
      ${_inc}/verilated.cpp ${_inc}/verilated_dpi.cpp ${_inc}/verilated_fst_c.cpp ${_inc}/verilated_threads.cpp)
    set_target_properties(nicsched_verilated_runtime PROPERTIES ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
    target_include_directories(nicsched_verilated_runtime SYSTEM PUBLIC ${_inc} ${_inc}/vltstd)
    target_compile_definitions(nicsched_verilated_runtime PRIVATE
      VM_COVERAGE=0 VM_SC=0 VM_TRACE=1 VM_TRACE_VCD=0 VM_TRACE_FST=1)
    target_link_libraries(nicsched_verilated_runtime PUBLIC ZLIB::ZLIB Threads::Threads)
  endif()
  get_target_property(_sources ${lib} SOURCES)
  list(FILTER _sources EXCLUDE REGEX "/include/verilated[a-z_]*\\.cpp$")
  set_property(TARGET ${lib} PROPERTY SOURCES ${_sources})
  target_link_libraries(${lib} PUBLIC nicsched_verilated_runtime)
  # One translation unit per model (CMake's unity build, one group per model, as Verilator's
  # own makefiles do with VM_PARALLEL_BUILDS=0): a model's ten or so generated files each
  # parsed verilated.h again (about 2.5 s of a file's 3-4 s); the ingress models' library
  # took 254 CPU s instead of 425 (docs/journal/2026-11-28-build-time.md).
  foreach(_src IN LISTS _sources)
    if(_src MATCHES "/(V[A-Za-z0-9_]+)\\.dir/[^/]+\\.cpp$")
      set_source_files_properties(${_src} PROPERTIES UNITY_GROUP ${CMAKE_MATCH_1})
    endif()
  endforeach()
  set_target_properties(${lib} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
endfunction()
