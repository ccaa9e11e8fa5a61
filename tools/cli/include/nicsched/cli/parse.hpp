// The command-line parse every main starts with, written once.
#pragma once

#include <optional>

#include <CLI/CLI.hpp>

namespace nicsched::cli {

/// Parses argv into `app`. Returns std::nullopt when main goes on; otherwise the code main
/// returns at once, after CLI11 printed the help, the version or what was wrong with the
/// command line: 0 for --help and --version, CLI11's own nonzero code for a bad command line.
inline std::optional<int> parse_or_exit(CLI::App& app, int argc, const char* const* argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return std::nullopt;
}

}  // namespace nicsched::cli
