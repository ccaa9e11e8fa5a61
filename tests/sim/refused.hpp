// The ScenarioError a scenario or family text is refused with, and the check of a table of
// refused texts (tests/sim).
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

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

// A text to refuse and what its error must name: the line (0: not checked), the key and a
// phrase of the message ("": not checked).
struct Refusal {
  std::string text;
  std::size_t line;
  std::string key;
  std::string says;
};

// `parse` refuses every case as the case says.
template <class Parse>
void check_refused(Parse parse, const std::vector<Refusal>& cases) {
  for (const Refusal& c : cases) {
    INFO(c.text);
    const sim::ScenarioError e = refused(parse, c.text);
    if (c.line != 0) CHECK(e.line() == c.line);
    CHECK(e.key() == c.key);
    if (!c.says.empty()) CHECK_THAT(e.what(), Catch::Contains(c.says));
  }
}

}  // namespace nicsched::test
