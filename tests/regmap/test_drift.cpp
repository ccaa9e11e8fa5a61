// regmap.drift: the committed generated files are exactly what rtl/regmap/nicsched.yaml
// generates (regenerated into a temporary directory, compared byte for byte).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "nicsched/regmapgen/generate.hpp"

namespace rg = nicsched::regmapgen;

TEST_CASE("drift") {
  const std::filesystem::path src = NICSCHED_SOURCE_DIR;
  rg::RegisterMap map = rg::load_map(src / "rtl/regmap/nicsched.yaml");
  map.source = "rtl/regmap/nicsched.yaml";  // as the build names it
  const auto tmp = std::filesystem::temp_directory_path() / ("nicsched-regmap-drift-" + std::to_string(::getpid()));
  std::filesystem::remove_all(tmp);
  const auto files = rg::generate(map);
  rg::write_files(files, tmp);
  for (const auto& f : files) {
    std::ifstream fresh(tmp / f.relative_path, std::ios::binary);
    std::ifstream committed(src / f.relative_path, std::ios::binary);
    std::stringstream a, b;
    a << fresh.rdbuf();
    b << committed.rdbuf();
    INFO(f.relative_path.string() << " differs from what rtl/regmap/nicsched.yaml generates: build (regmap_generate) "
                                     "and commit it, and never edit it by hand");
    CHECK(committed.good());
    CHECK(a.str() == b.str());
  }
  std::filesystem::remove_all(tmp);
}
