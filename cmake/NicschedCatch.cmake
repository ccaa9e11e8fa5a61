# Catch2 test discovery for every test folder: include(NicschedCatch), not include(Catch).
# Each discovered test runs its binary with the test case's name as a filter; if that
# filter matched no test case Catch would report "No tests ran" and exit 0, so a name that
# CMake splits (a ';' in a TEST_CASE name makes a list) would pass without running anything.
# `--warn NoTests` makes such a test fail (exit 2) instead.
include_guard(GLOBAL)
include(Catch)
function(catch_discover_tests)
  _catch_discover_tests(${ARGV} EXTRA_ARGS --warn NoTests)
endfunction()
