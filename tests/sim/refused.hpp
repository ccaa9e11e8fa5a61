// The ScenarioError a scenario or family text is refused with (tests/sim).
#pragma once

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "nicsched/sim/error.hpp"

namespace nicsched::test {

// What `parse(text, "bad.yaml")` throws; fails the test if it accepts `text`.
template <class Parse>
sim::ScenarioError refused(Parse parse, const std::string& text) {
  try {
    (void)parse(text, "bad.yaml");
  } catch (const sim::ScenarioError& e) {
    return e;
  }
  FAIL("accepted:\n" << text);
  throw std::logic_error("unreachable");
}

}  // namespace nicsched::test
