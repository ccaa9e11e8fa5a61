// Reading the simulator's YAML files (scenarios, scenario families): what fileio reports
// (a file that cannot be read, a YAML or field error) becomes a ScenarioError naming the
// file, the line and the field.
#pragma once

#include <filesystem>
#include <string>

#include "nicsched/fileio/file.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/sim/error.hpp"

namespace nicsched::sim {

// read(doc) on `yaml_text`, read as the file `file_name`.
template <class Read>
auto parse_yaml(const std::string& yaml_text, const std::string& file_name, Read read) {
  try {
    const fileio::YamlDoc doc(yaml_text, file_name);
    return read(doc);
  } catch (const fileio::YamlError& e) {
    throw ScenarioError(e.file(), e.line(), e.field(), e.problem());
  }
}

// The text of `file`; `what` names it in the error ("the scenario file").
inline std::string read_yaml_file(const std::filesystem::path& file, const char* what) {
  try {
    return fileio::read_text_file(file, what);
  } catch (const fileio::FileError& e) {
    throw ScenarioError(file.string(), 0, "(file)", e.problem());
  }
}

}  // namespace nicsched::sim
