// `nicsim gen`: draw concrete scenarios from a scenario family (docs/simulation.md,
// "Scenario families"). Kept apart from nicsim_main.cpp: main adds the subcommand and calls
// run_gen when it was given.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace nicsched::sim {

struct GenOptions {
  std::string family;                   // family YAML file
  std::optional<std::uint64_t> seed;    // first seed; default: the family's first
  std::uint64_t count = 1;              // scenarios, seeds seed .. seed+count-1
  std::string out;                      // directory; empty: the scenario's YAML on stdout
  bool json = false;                    // one JSON line of figures per scenario on stdout
};

// Adds `gen` to the app; its options land in `o`.
CLI::App* add_gen_command(CLI::App& app, GenOptions& o);

// Writes the scenarios. Throws ScenarioError (bad family), SimError (seed outside the
// family's range), CLI::ValidationError (usage), fileio::FileError (cannot write).
int run_gen(const GenOptions& o);

}  // namespace nicsched::sim
