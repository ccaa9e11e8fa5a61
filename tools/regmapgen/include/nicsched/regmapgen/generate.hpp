// The four files regmapgen writes from a RegisterMap, and writing them to a tree.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nicsched/regmapgen/map.hpp"

namespace nicsched::regmapgen {

// One generated file: where it goes (relative to the output root) and what it holds.
struct GeneratedFile {
  std::filesystem::path relative_path;
  std::string content;
};

[[nodiscard]] std::string emit_sv_package(const RegisterMap& map);  // rtl/generated/nicsched_regs_pkg.sv
[[nodiscard]] std::string emit_sv_csr(const RegisterMap& map);      // rtl/generated/nicsched_csr.sv
[[nodiscard]] std::string emit_cpp_header(const RegisterMap& map);  // include/nicsched/regmap.hpp
[[nodiscard]] std::string emit_docs(const RegisterMap& map);        // docs/registers.md

// All four, with their paths relative to the repository root.
[[nodiscard]] std::vector<GeneratedFile> generate(const RegisterMap& map);

// What a generated file under `root` holds now, or nullopt when there is none. Read with the
// bounded reader (nicsched::fileio): a path that is not a regular file (a directory, a FIFO)
// or is over fileio::kMaxTextFileBytes is an OutputError naming it, not read.
[[nodiscard]] std::optional<std::string> read_generated_file(const std::filesystem::path& path);

// Writes every file under `root`, creating directories; a file whose content is already
// the same is left untouched (so its timestamp does not trigger rebuilds). Returns the
// files that were (re)written. Throws OutputError.
std::vector<std::filesystem::path> write_files(const std::vector<GeneratedFile>& files,
                                               const std::filesystem::path& root);

// The first line of every generated file, without the comment leader.
[[nodiscard]] std::string generated_banner(const RegisterMap& map);

}  // namespace nicsched::regmapgen
