// What the Catch2 benches of the ingress blocks (tests/rtl_parser, rtl_classifier,
// rtl_ingress) share on top of ingress_bench.hpp, which the non-Catch tools include too.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "ingress_bench.hpp"
#include "run_case.hpp"

namespace nicsched::test {

/// The idle x backpressure matrix: one case per pairing of stall_patterns() (input idles,
/// output backpressure), named <name>.idle_<i>.bp_<b>.seed<seed> with seeds first_seed + 1,
/// first_seed + 2, ...; runs body(trace, idle, bp, seed).
template <class Body>
void run_stall_matrix(const std::string& name, std::uint64_t first_seed, Body&& body) {
  const auto patterns = stall_patterns();
  std::uint64_t seed = first_seed;
  for (const auto& idle : patterns) {
    for (const auto& bp : patterns) {
      ++seed;
      run_case(fmt::format("{}.idle_{}.bp_{}.seed{}", name, idle.name(), bp.name(), seed),
               [&](const std::string& trace) { body(trace, idle, bp, seed); });
    }
  }
}

}  // namespace nicsched::test
