// What the Catch2 benches of the ingress blocks (tests/rtl_parser, rtl_classifier,
// rtl_ingress) share on top of ingress_bench.hpp, which the non-Catch tools include too.
#pragma once

#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "ingress_bench.hpp"

namespace nicsched::test {

/// Runs one case of a bench; a failure fails the test case with its message and waveform
/// path (run_traced reruns a failing case with tracing on).
inline void run_case(const std::string& name, const std::function<void(const std::string&)>& body) {
  const std::string err = run_traced(name, body);
  if (!err.empty()) FAIL(err);
}

}  // namespace nicsched::test
