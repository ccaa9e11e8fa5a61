# nicsched::warnings: the project's warning set, linked PRIVATE by every C++ target.
add_library(nicsched_warnings INTERFACE)
add_library(nicsched::warnings ALIAS nicsched_warnings)
target_compile_options(nicsched_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion -Wnull-dereference
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
