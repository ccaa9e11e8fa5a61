// Scenario families: a distribution of scenarios described by a YAML file under
// sim/families/ (format: docs/simulation.md, "Scenario families"), from which concrete
// scenarios are drawn by seed.
//
//   const Family f = load_family("sim/families/train.yaml");
//   const std::string yaml = f.draw_yaml(42);   // what `nicsim gen` writes
//   const Scenario s = f.draw(42);              // the same scenario, parsed from that text
//
// A draw is a pure function of (family file, seed): the same seed gives the same text, byte
// for byte, on every run and machine (the random numbers come from std::mt19937_64, whose
// output the C++ standard fixes, turned into values by this file's own arithmetic, not by
// the library's implementation-defined distributions). draw() parses the text draw_yaml()
// returns, so the in-memory scenario and the written file are one definition.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "nicsched/sim/scenario.hpp"

namespace nicsched::sim {

// A number drawn per scenario or per tenant: a fixed value, uniform on [lo, hi], or one of a
// list (each equally likely unless weights are given).
struct NumberDist {
  enum class Kind : std::uint8_t { kFixed, kUniform, kChoice };
  Kind kind = Kind::kFixed;
  double lo = 0;                       // kFixed: the value; kUniform: the bounds
  double hi = 0;
  std::vector<double> values;          // kChoice
  std::vector<double> weights;         // kChoice; empty: equal

  [[nodiscard]] static NumberDist fixed(double v) { return {Kind::kFixed, v, v, {}, {}}; }
  [[nodiscard]] double draw(std::mt19937_64& rng) const;
  // Whether a draw can return x (for the train/test disjointness checks).
  [[nodiscard]] bool can_produce(double x) const;
  [[nodiscard]] double min() const;
  [[nodiscard]] double max() const;
};

// A name drawn from a list (model presets, crypto engines, background patterns).
struct NameDist {
  std::vector<std::string> values;
  std::vector<double> weights;         // empty: equal
  [[nodiscard]] const std::string& draw(std::mt19937_64& rng) const;
  [[nodiscard]] bool can_produce(const std::string& v) const;
};

// How DDP tenants of a family are drawn.
struct DdpDraw {
  NameDist model;                       // DDP presets (model_presets())
  NumberDist compute_factor = NumberDist::fixed(1.0);  // x the preset's compute time
  NumberDist workers = NumberDist::fixed(8);           // ring all-reduce size
  NumberDist jitter = NumberDist::fixed(0.0);
  double control_probability = 0.0;     // chance a DDP tenant sends control heartbeats
  double control_period_us = 20;
  double control_deadline_us = 5;
  std::uint32_t control_bytes = 128;
};

// How federated-learning clients are drawn.
struct FlDraw {
  NumberDist update_mb;                 // real update size, MB
  NumberDist train_ms;                  // real local training time per round
  NumberDist expansion = NumberDist::fixed(1.0);  // secure-aggregation expansion of the upload
  NumberDist jitter = NumberDist::fixed(0.0);
};

// How background tenants are drawn.
struct BackgroundDraw {
  NameDist pattern;                     // constant, poisson, onoff
  NumberDist load;                      // offered rate as a fraction of the link rate
  NumberDist on_ms = NumberDist::fixed(50);   // on/off only, real
  NumberDist off_ms = NumberDist::fixed(50);
  NumberDist packet_bytes = NumberDist::fixed(1518);
  NameDist direction;                   // tx, rx
};

// Late arrivals and departures: each tenant but the first arrives at `at_s` instead of its
// start offset with `probability`, and (if stay_s is given) leaves stay_s after arriving.
struct ArrivalDraw {
  double probability = 0.0;
  NumberDist at_s = NumberDist::fixed(0);
  std::optional<NumberDist> stay_s;
};

struct Family {
  std::string name;
  std::filesystem::path file;
  std::string description;              // the family's `description:` (one line)
  std::uint64_t seed_first = 0;         // draw() accepts seeds in [seed_first, seed_last]
  std::uint64_t seed_last = 0;
  double scale = 1000;
  double duration_s = 10;
  std::string backend;                  // "" (the scenario default), "rtl" or "model"
  NumberDist tenants;                   // tenant count
  NumberDist link_gbps;
  NameDist crypto_engine;               // crypto_presets()
  NumberDist crypto_slots = NumberDist::fixed(4);
  double mix_ddp = 1, mix_fl = 0, mix_background = 0;  // relative weights of tenant kinds
  // Tenants of each kind every scenario has at least: the first min_ddp tenants are DDP, the
  // next min_fl FL, the next min_background background; the rest are drawn by the mix.
  std::uint32_t min_ddp = 0, min_fl = 0, min_background = 0;
  NumberDist start_ms = NumberDist::fixed(0);          // start offset of each tenant, real
  DdpDraw ddp;
  FlDraw fl;
  BackgroundDraw background;
  ArrivalDraw arrivals;

  // The scenario of `seed` as YAML text, loadable by load_scenario / `nicsim run`. Throws
  // SimError when the seed is outside the family's range.
  [[nodiscard]] std::string draw_yaml(std::uint64_t seed) const;
  // parse_scenario(draw_yaml(seed)), named "<family file>#seed=<seed>" in errors.
  [[nodiscard]] Scenario draw(std::uint64_t seed) const;
  // The scenario's name for a seed: "<family>-<seed>".
  [[nodiscard]] std::string scenario_name(std::uint64_t seed) const;
};

// Throws ScenarioError naming the family file, the line and the field.
[[nodiscard]] Family load_family(const std::filesystem::path& file);
[[nodiscard]] Family parse_family(const std::string& yaml_text, const std::string& file_name);

// The NIC tenant count (nic.tenants) the generator gives a scenario of `tenants` tenants:
// 8 up to 8, 16 up to 16, else the count.
[[nodiscard]] std::uint32_t nic_tenants_for(std::uint32_t tenants);

// What a scenario asks of the NIC, computed from its parameters (no simulation):
// docs/scaling.md, "Family figures". Demands are averages over the run, each tenant
// weighted by the fraction of the run it is there (start_ms to stop_ms).
struct LoadFigures {
  // Mean over DDP tenants of burst time at line rate / (compute + burst time): the solo
  // communication share of an iteration if the tenant got the whole link.
  double ddp_comm_share_line_rate = 0;
  std::size_t ddp_tenants = 0;
  std::size_t fl_tenants = 0;
  std::size_t background_tenants = 0;
  // Sum over tenants of the TX link capacity each needs to run at its line-rate speed, over
  // the link rate (DDP: its comm share; FL: its upload's share of a round; TX background:
  // offered rate / link rate).
  double link_demand = 0;
  // FL crypto bytes per second each client needs to run at line-rate speed (decrypt the
  // download, encrypt the expanded upload), summed, over the engines' capacity
  // (slots x bytes/cycle x clock).
  double crypto_demand = 0;
};
[[nodiscard]] LoadFigures load_figures(const Scenario& s);

}  // namespace nicsched::sim
