// Prints sim::student_t_975(df) for df = 1..N (default 300), one "df value" line each, the
// value in the shortest form that reads back to the same double. test_starvation.py checks
// tools/starvation.py's t95 against these lines (tools.starvation.t95_matches_cpp).
//
// Usage: print_student_t [N]. Exit: 0, or 2 for a bad N.
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "nicsched/sim/metrics.hpp"

int main(int argc, char** argv) {
  std::uint64_t last = 300;
  if (argc > 2) {
    fmt::print(stderr, "usage: print_student_t [N]\n");
    return 2;
  }
  if (argc == 2) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || n < 1 || argv[1][0] == '-') {
      fmt::print(stderr, "print_student_t: N must be a whole number >= 1, got '{}'\n", argv[1]);
      return 2;
    }
    last = n;
  }
  for (std::uint64_t df = 1; df <= last; ++df) fmt::print("{} {}\n", df, nicsched::sim::student_t_975(df));
  return 0;
}
