// nicsched_regress: constrained-random regression of nicsched_top against the reference
// model (docs/verification.md). Prints one line per seed, the failures of failing seeds
// with the command that reruns them alone, writes an FST waveform of each failing seed,
// and ends with the line "N passed, N failed". Exit status: 0 all passed, 1 some failed,
// 2 bad usage.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench.hpp"
#include "check.hpp"
#include "nicsched/cli/parse.hpp"
#include "nicsched/version.hpp"

namespace verif = nicsched::verif;

namespace {

struct Outcome {
  bool passed = false;
  verif::CheckReport report;
  std::string error;  // the run itself stopped (bench or model exception)
};

Outcome run_seed(const verif::Scenario& sc, const std::string& trace, const std::string& coverage) {
  Outcome o;
  try {
    verif::Bench bench(sc, trace, coverage);
    const verif::RunResult res = bench.run();
    o.report = verif::check_run(sc, res);
    o.passed = o.report.failures.empty();
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nicsched_regress: constrained-random RTL regression against the reference model"};
  std::uint64_t seeds = 0;
  std::uint64_t seed = 0;
  std::uint64_t first_seed = 1;
  bool trace = false;
  bool quiet = false;
  std::string out_dir = "regress-out";
  std::string coverage_dir;
  std::uint64_t max_waves = 5;
  verif::ScenarioLimits lim;
  app.set_version_flag("--version", std::string(nicsched::kVersion));
  auto* o_seeds = app.add_option("--seeds", seeds, "run this many seeds, from --first-seed on");
  auto* o_seed = app.add_option("--seed", seed, "run this one seed");
  app.add_option("--first-seed", first_seed, "first seed of --seeds (default 1)");
  app.add_flag("--trace", trace, "write an FST waveform of every seed (failing seeds always get one)");
  app.add_option("--out", out_dir, "directory for waveforms (default ./regress-out)");
  app.add_option("--min-cycles", lim.min_cycles, "shortest traffic phase of a scenario, cycles");
  app.add_option("--max-cycles", lim.max_cycles, "longest traffic phase of a scenario, cycles");
  app.add_option("--coverage-dir", coverage_dir,
                 "write each seed's coverage counts here (builds with NICSCHED_REGRESS_COVERAGE=ON)");
  app.add_option("--max-waves", max_waves,
                 "failing seeds rerun with tracing for a waveform, at most this many (default 5)");
  app.add_flag("--quiet", quiet, "print failing seeds and the summary only");
  o_seeds->excludes(o_seed);
  if (const auto rc = nicsched::cli::parse_or_exit(app, argc, argv)) return *rc;
  if (lim.min_cycles == 0 || lim.min_cycles > lim.max_cycles) {
    fmt::print(stderr, "nicsched_regress: --min-cycles must be > 0 and <= --max-cycles\n");
    return 2;
  }
  if (!coverage_dir.empty() && !verif::coverage_build()) {
    fmt::print(stderr, "nicsched_regress: --coverage-dir needs a build with NICSCHED_REGRESS_COVERAGE=ON\n");
    return 2;
  }
  if (!coverage_dir.empty()) std::filesystem::create_directories(coverage_dir);
  std::vector<std::uint64_t> list;
  if (o_seed->count() > 0) {
    list.push_back(seed);
  } else {
    if (seeds == 0) seeds = 10;
    for (std::uint64_t s = first_seed; s < first_seed + seeds; ++s) list.push_back(s);
  }
  const nicsched::refmodel::Params params = verif::bench_params();
  std::filesystem::create_directories(out_dir);
  std::uint64_t passed = 0, failed = 0;
  for (const std::uint64_t s : list) {
    const verif::Scenario sc = verif::make_scenario(s, params, verif::bench_sources(), lim);
    const std::string fst = (std::filesystem::path(out_dir) / fmt::format("seed_{}.fst", s)).string();
    const auto t0 = std::chrono::steady_clock::now();
    const std::string cov =
        coverage_dir.empty() ? std::string() : (std::filesystem::path(coverage_dir) / fmt::format("seed_{}.dat", s)).string();
    Outcome o = run_seed(sc, trace ? fst : std::string(), cov);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (o.passed) {
      ++passed;
      if (!quiet) fmt::print("PASS {} ({:.1f} s; {})\n", sc.summary, secs, o.report.stats());
    } else {
      ++failed;
      fmt::print("FAIL {} ({:.1f} s)\n", sc.summary, secs);
      if (!o.error.empty()) fmt::print("  run stopped: {}\n", o.error);
      for (const std::string& f : o.report.failures) fmt::print("  {}\n", f);
      if (trace || failed <= max_waves) {
        if (!trace) run_seed(sc, fst, std::string());  // same seed, same run: now with the waveform
        fmt::print("  waveform: {}\n", fst);
      } else {
        fmt::print("  waveform: not written (more than --max-waves {} failing seeds)\n", max_waves);
      }
      fmt::print("  rerun alone: {} --seed {} --min-cycles {} --max-cycles {} --trace\n", argv[0], s, lim.min_cycles,
                 lim.max_cycles);
    }
    std::fflush(stdout);
  }
  fmt::print("{} passed, {} failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
