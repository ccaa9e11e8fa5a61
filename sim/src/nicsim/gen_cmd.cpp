// `nicsim gen --family F [--seed N] [--count K] [--out DIR] [--json]`: concrete scenario
// files drawn from a scenario family (docs/simulation.md, "Scenario families").
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "nicsched/fileio/file.hpp"
#include "nicsched/sim/family.hpp"

namespace nicsched::nicsim_cli {

using sim::Family;
using sim::LoadFigures;
using sim::Scenario;
using sim::WorkloadKind;

namespace {

nlohmann::json figures_json(const Scenario& s, const std::string& file) {
  const LoadFigures f = load_figures(s);
  nlohmann::json tenants = nlohmann::json::array();
  for (const auto& t : s.tenants) {
    nlohmann::json j = {{"name", t.name}, {"kind", to_string(t.kind)}, {"start_us", static_cast<double>(t.start_cycle) / s.clock_mhz}};
    if (t.kind == WorkloadKind::kDdp) {
      j["model"] = t.model;
      j["compute_us"] = static_cast<double>(t.compute_cycles) / s.clock_mhz;
      j["burst_bytes"] = t.burst_bytes;
    } else if (t.kind == WorkloadKind::kFl) {
      j["train_us"] = static_cast<double>(t.train_cycles) / s.clock_mhz;
      j["download_bytes"] = t.download_bytes;
      j["upload_bytes"] = t.upload_bytes;
    } else if (t.kind == WorkloadKind::kBackground) {
      j["rate_gbps"] = t.rate_gbps;
    }
    tenants.push_back(j);
  }
  return {{"file", file},
          {"scenario", s.name},
          {"seed", s.seed},
          {"link_gbps", s.link_gbps},
          {"clock_mhz", s.clock_mhz},
          {"crypto_engine", s.crypto_engine},
          {"crypto_slots", s.crypto_slots},
          {"crypto_capacity_gbps", s.crypto_slots * s.crypto_bytes_per_cycle * s.clock_mhz * 8 / 1e3},
          {"ddp_comm_share_line_rate", f.ddp_comm_share_line_rate},
          {"link_demand", f.link_demand},
          {"crypto_demand", f.crypto_demand},
          {"tenants", tenants}};
}

std::string summary_line(const Scenario& s, const std::string& file) {
  const LoadFigures f = load_figures(s);
  return fmt::format("{}: {} tenants ({} ddp, {} fl, {} background), {} Gbit/s, {} x {}; line-rate comm share {:.2f}, "
                     "link demand {:.2f}, crypto demand {:.2f}",
                     file, s.tenants.size(), f.ddp_tenants, f.fl_tenants, f.background_tenants, s.link_gbps,
                     s.crypto_slots, s.crypto_engine, f.ddp_comm_share_line_rate, f.link_demand, f.crypto_demand);
}

}  // namespace

CLI::App* add_gen_command(CLI::App& app, GenOptions& o) {
  CLI::App* gen = app.add_subcommand("gen", "Draw concrete scenario files from a scenario family (sim/families/)");
  gen->add_option("--family", o.family, "Scenario family YAML file")->required();
  gen->add_option("--seed", o.seed, "First seed (default: the family's first seed)");
  gen->add_option("--count", o.count, "Number of scenarios, seeds SEED .. SEED+COUNT-1")->check(CLI::Range(1, 100000));
  gen->add_option("--out", o.out, "Directory for the files (FAMILY-SEED.yaml); without it the YAML goes to stdout");
  gen->add_flag("--json", o.json, "Print one JSON line per scenario: tenants and load figures (docs/scaling.md)");
  return gen;
}

int gen(const GenOptions& o) {
  const Family family = sim::load_family(o.family);
  const std::uint64_t first = o.seed.value_or(family.seed_first);
  if (first < family.seed_first || first + o.count - 1 > family.seed_last) {
    throw CLI::ValidationError("--seed", fmt::format("seed {} is outside the seeds of family {} ([{}, {}]{})",
                                                     first < family.seed_first ? first : first + o.count - 1,
                                                     family.name, family.seed_first, family.seed_last,
                                                     o.count > 1 ? fmt::format(", --count {}", o.count) : ""));
  }
  if (o.out.empty() && o.count != 1) throw CLI::ValidationError("--count", "more than one scenario needs --out DIR");
  if (o.out.empty() && o.json) throw CLI::ValidationError("--json", "needs --out DIR (stdout holds the scenario otherwise)");
  if (!o.out.empty()) std::filesystem::create_directories(o.out);
  for (std::uint64_t seed = first; seed < first + o.count; ++seed) {
    const std::string text = family.draw_yaml(seed);
    const Scenario s = family.draw(seed);  // checks the scenario loads before it is written
    if (o.out.empty()) {
      std::cout << text;
      continue;
    }
    const std::string file = (std::filesystem::path(o.out) / (family.scenario_name(seed) + ".yaml")).string();
    fileio::write_file_atomically(file, text);
    std::cout << (o.json ? figures_json(s, file).dump() : summary_line(s, file)) << "\n";
  }
  return kOk;
}

}  // namespace nicsched::nicsim_cli
