// run_case: one case of a Verilated bench inside a Catch2 test case (tests/rtl_*). The Catch2
// side of sim::bfm::run_traced, which the non-Catch tools use directly.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "nicsched/sim/bfm/testbench.hpp"

namespace nicsched::test {

/// Runs body(trace_path); a failure fails the test case with its message and the path of the
/// waveform (run_traced reruns a failing case with tracing on).
inline void run_case(const std::string& name, const std::function<void(const std::string&)>& body) {
  const std::string err = sim::bfm::run_traced(name, body);
  if (!err.empty()) FAIL(err);
}

}  // namespace nicsched::test

namespace nicsched::coretest {
using test::run_case;  // the core-block and nicsched_top benches (core_tb.hpp, top_bench.hpp)
}  // namespace nicsched::coretest
