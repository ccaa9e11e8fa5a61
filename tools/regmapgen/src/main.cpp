// regmapgen: generates the SystemVerilog package, CSR block, C++ header and register
// documentation from the register-map YAML. Exit codes: 0 ok, 1 bad map, 2 bad usage,
// 3 output error.
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "nicsched/cli/parse.hpp"
#include "nicsched/regmapgen/generate.hpp"
#include "nicsched/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"regmapgen: register-map generator (YAML -> SystemVerilog, C++ header, docs)"};
  std::string input;
  std::string out_root = ".";
  std::string source_name;
  bool check = false;
  app.set_version_flag("--version", std::string(nicsched::kVersion));
  app.add_option("input", input, "register-map YAML (rtl/regmap/nicsched.yaml)")->required();
  app.add_option("-o,--out-root", out_root, "repository root to write rtl/generated/, include/, docs/ under");
  app.add_option("--source-name", source_name,
                 "how the generated files name their source (default: the input path as given)");
  app.add_flag("--check", check, "write nothing; exit 1 if any file under --out-root differs");
  if (const auto rc = nicsched::cli::parse_or_exit(app, argc, argv)) return *rc;
  try {
    nicsched::regmapgen::RegisterMap map = nicsched::regmapgen::load_map(input);
    if (!source_name.empty()) map.source = source_name;
    const auto files = nicsched::regmapgen::generate(map);
    if (check) {
      int differ = 0;
      for (const auto& f : files) {
        if (nicsched::regmapgen::read_generated_file(std::filesystem::path(out_root) / f.relative_path) != f.content) {
          std::cerr << "regmapgen: " << f.relative_path.string() << " differs from what " << input << " generates\n";
          differ = 1;
        }
      }
      return differ;
    }
    for (const auto& p : nicsched::regmapgen::write_files(files, out_root)) spdlog::info("regmapgen: wrote {}", p.string());
    return 0;
  } catch (const nicsched::regmapgen::RegmapError& e) {
    std::cerr << "regmapgen: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "regmapgen: " << e.what() << "\n";
    return 3;
  }
}
